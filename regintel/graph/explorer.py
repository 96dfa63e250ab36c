"""What the Graph Explorer shows: a capped subgraph by filters, search or focus, and one node's details.

Engine side only (no Streamlit). Node labels passed in are checked against the schema; every value is a query
parameter. A subgraph larger than the cap is cut, and the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from regintel.graph import queries
from regintel.graph.schema import NODE_LABELS
from regintel.graph.store import GraphStore
from regintel.text.normalise import printable

DEFAULT_LABELS = ("Concept", "Rule", "Jurisdiction")
MAX_NODES = 300
SKIPPED_PROPERTIES = {"chunk_ids"}


@dataclass
class Subgraph:
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    limit: int = MAX_NODES


def _labels(labels: list[str] | tuple[str, ...] | None) -> list[str]:
    chosen = [label for label in (labels or DEFAULT_LABELS) if label in NODE_LABELS]
    return chosen or list(DEFAULT_LABELS)


def fetch_subgraph(store: GraphStore, labels: list[str] | None = None, jurisdiction: str = "", domain: str = "",
                   search: str = "", focus: str = "", depth: int = 1, limit: int = MAX_NODES) -> Subgraph:
    limit = max(1, min(limit, 2000))
    params: dict[str, Any] = {"labels": _labels(labels), "limit": limit + 1}
    if focus:
        rows = store.query(queries.NODE_BY_KEY, {"key": focus})
        rows += store.query(queries.explorer_neighbourhood(depth), {"key": focus, "limit": limit + 1})
    elif search.strip():
        text = printable(search)[:200]
        rows = store.query(queries.EXPLORER_SEARCH, {**params, "text": text})
        rows += store.query(queries.EXPLORER_SEARCH_ALIASES, {"text": text, "limit": limit + 1})
    else:
        rows = store.query(queries.EXPLORER_NODES, {**params, "jurisdiction": jurisdiction, "domain": domain})
    nodes: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["key"] is not None and row["key"] not in nodes:
            nodes[row["key"]] = row
    truncated = len(nodes) > limit
    kept = dict(list(nodes.items())[:limit])
    edges = store.query(queries.EXPLORER_EDGES, {"keys": list(kept), "limit": limit * 10}) if kept else []
    return Subgraph(list(kept.values()), edges, truncated, limit)


def node_details(store: GraphStore, key: str) -> dict[str, Any] | None:
    rows = store.query(queries.NODE_PROPERTIES_BY_KEY, {"key": key})
    if not rows:
        return None
    properties = {k: v for k, v in (rows[0]["node"] or {}).items() if k not in SKIPPED_PROPERTIES}
    return {
        "key": key,
        "labels": rows[0]["labels"],
        "properties": properties,
        "aliases": [r["text"] for r in store.query(queries.NODE_ALIASES, {"key": key})],
        "sections": store.query(queries.NODE_SECTIONS, {"key": key}),
    }
