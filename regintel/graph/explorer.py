"""What the Graph Explorer shows: a capped subgraph by filters, search or focus, and one node's details.

Engine side only (no Streamlit). Node labels passed in are checked against the schema; every value is a query
parameter. A subgraph larger than the cap is cut, and the result says so. The default view (:func:`overview`)
is small enough to read: the most connected concepts and rules, each concept joined to the rules whose
sections define or mention it, every node carrying its degree (the page sizes nodes by it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from regintel.graph import queries
from regintel.graph.schema import NODE_LABELS
from regintel.graph.store import GraphStore
from regintel.text.normalise import printable

DEFAULT_LABELS = ("Concept", "Rule", "Jurisdiction")
MAX_NODES = 300
VIEW_NODES = 60  # the default and focused views: what a person can read at once
OVERVIEW_RULES = 12
VIA_SECTIONS = "VIA_SECTIONS"  # an overview edge: the concept is linked to sections of that rule
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
    return _described(store, Subgraph(list(kept.values()), edges, truncated, limit))


def overview(store: GraphStore, limit: int = VIEW_NODES, preferred: Sequence[str] = ()) -> Subgraph:
    """The default view: the most connected concepts and rules (at most ``limit`` nodes), concepts joined to the
    rules whose sections they are linked to. ``preferred`` concept keys (the signed-in tenant's recent
    conversations') come first, by degree; the most connected concepts of the whole graph fill the rest."""
    rules = store.query(queries.EXPLORER_TOP_RULES, {"limit": min(OVERVIEW_RULES, limit)})
    room = max(1, limit - len(rules))
    concepts = store.query(queries.EXPLORER_TOP_CONCEPTS_AMONG, {"keys": list(preferred), "limit": room}) if preferred else []
    chosen = {row["key"] for row in concepts}
    concepts += [row for row in store.query(queries.EXPLORER_TOP_CONCEPTS, {"limit": room + len(concepts)})
                 if row["key"] not in chosen][:room - len(concepts)]
    nodes = {row["key"]: row for row in [*concepts, *rules] if row["key"] is not None}
    keys = list(nodes)
    edges = store.query(queries.EXPLORER_EDGES, {"keys": keys, "limit": limit * 10}) if keys else []
    edges += [{**row, "type": VIA_SECTIONS} for row in store.query(queries.EXPLORER_CONCEPT_RULES, {"keys": keys})] if keys else []
    return _described(store, Subgraph(list(nodes.values()), edges, False, limit), degrees_known=True)


def focus_view(store: GraphStore, key: str, depth: int = 1, limit: int = VIEW_NODES) -> Subgraph:
    """One node and its neighbourhood (1-3 hops), at most ``limit`` nodes, the focused node first."""
    return fetch_subgraph(store, focus=key, depth=depth, limit=limit)


def _described(store: GraphStore, graph: Subgraph, degrees_known: bool = False) -> Subgraph:
    """Every node with its degree and a caption a person reads: a section is named with its rule ("GDPR
    Article 33"), not only "Article 33"."""
    keys = [n["key"] for n in graph.nodes]
    if keys and not degrees_known:
        degrees = {r["key"]: r["degree"] for r in store.query(queries.EXPLORER_DEGREES, {"keys": keys})}
        for node in graph.nodes:
            node["degree"] = int(degrees.get(node["key"]) or 0)
    rule_keys = sorted({n.get("rule_key") for n in graph.nodes if n.get("rule_key") and "Section" in (n.get("labels") or [])})
    if rule_keys:
        titles = {r["key"]: r["title"] for r in store.query(queries.EXPLORER_RULE_TITLES, {"keys": rule_keys})}
        for node in graph.nodes:
            if "Section" in (node.get("labels") or []) and titles.get(node.get("rule_key")):
                node["caption"] = f"{titles[node['rule_key']]} {node.get('caption') or ''}".strip()
    return graph


def searchable_names(store: GraphStore, limit: int = 20000) -> dict[str, str]:
    """key -> the name a person types (concepts with their aliases, rules, sections with their rule and heading),
    for the explorer's search box."""
    rows = store.query(queries.EXPLORER_NAMES, {"limit": limit})
    rules = {r["key"]: r["name"] for r in rows if "Rule" in (r["labels"] or [])}
    names: dict[str, str] = {}
    for row in rows:
        labels, name = row["labels"] or [], printable(row["name"] or row["key"])
        if "Concept" in labels:
            aliases = [printable(a) for a in (row.get("aliases") or []) if printable(a) and printable(a) != name][:3]
            names[row["key"]] = f"{name} (concept{': ' + ', '.join(aliases) if aliases else ''})"
        elif "Section" in labels:
            heading = printable(row.get("heading") or "")
            names[row["key"]] = f"{rules.get(row.get('rule_key'), row.get('rule_key') or '')} {name}" + (f" — {heading}" if heading else "")
        else:
            names[row["key"]] = f"{name} (rule)"
    return dict(sorted(names.items(), key=lambda item: item[1].lower()))


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
