"""GraphWriteService: the only path for writes to the rules graph.

Every node and edge passes the IngressGuard first; ``created_at`` / ``updated_at`` (epoch ms) are set on every
node and edge; semantic relations get their reverse (asymmetric pairs) or mirror (symmetric types)
automatically. Writes collected in ``batch()`` commit in one transaction.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator, Mapping, Sequence

from regintel.graph import queries
from regintel.graph.guard import IngressGuard
from regintel.graph.schema import REVERSE, SEMANTIC_RELATIONS
from regintel.graph.store import GraphStore, Statement


def now_ms() -> int:
    return int(time.time() * 1000)


class GraphWriteService:
    def __init__(self, store: GraphStore, guard: IngressGuard | None = None) -> None:
        self.store = store
        self.guard = guard or IngressGuard()
        self._pending: list[Statement] | None = None

    # -- batching -------------------------------------------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator["GraphWriteService"]:
        """Collect writes and commit them in one transaction at the end (nothing is written on error)."""
        if self._pending is not None:  # nested: join the outer batch
            yield self
            return
        self._pending = []
        try:
            yield self
            statements, self._pending = self._pending, None
            self.store.write_all(statements)
        finally:
            self._pending = None

    def _emit(self, cypher: str, params: dict[str, Any]) -> None:
        if self._pending is not None:
            self._pending.append((cypher, params))
        else:
            self.store.write(cypher, params)

    # -- nodes and edges ------------------------------------------------------------------------------------
    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """rows: {"key": ..., other properties}; all rows are checked before anything is written."""
        prepared = []
        for row in rows:
            props = {k: v for k, v in row.items() if k != "key"}
            self.guard.check_node(label, row["key"], props)
            prepared.append({"key": row["key"], "props": props})
        if prepared:
            self._emit(queries.merge_nodes(label), {"rows": prepared, "now": now_ms()})

    def add_specific_label(self, label: str, key: str, specific: str) -> None:
        self.guard.check_specific_label(specific)
        self._emit(queries.add_specific_label(label, specific), {"key": key})

    def upsert_edges(self, rel_type: str, from_label: str, to_label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """rows: {"from": key, "to": key, "props": {...}}; semantic types also write the reverse edge."""
        prepared = []
        for row in rows:
            props = dict(row.get("props") or {})
            self.guard.check_edge(rel_type, from_label, to_label, props)
            prepared.append({"from": row["from"], "to": row["to"], "props": props})
        if not prepared:
            return
        stamp = now_ms()
        self._emit(queries.merge_edges(rel_type, from_label, to_label), {"rows": prepared, "now": stamp})
        if rel_type in SEMANTIC_RELATIONS:
            reverse = [{"from": r["to"], "to": r["from"], "props": r["props"]} for r in prepared]
            self._emit(queries.merge_edges(REVERSE[rel_type], to_label, from_label), {"rows": reverse, "now": stamp})

    def prune_corpus(self, documents: Sequence[str], sections: Sequence[str], removed: Sequence[str]) -> None:
        """Make the corpus part of the graph follow the index (issue 23 item 4): Sections of the re-seeded
        ``documents`` that are not in ``sections`` any more, and their outgoing CITES (seeded again after this), are
        deleted; so are the Rule and every Section of each ``removed`` document. Concepts stay (their edges to a
        deleted Section go with it)."""
        self._emit("MATCH (s:Section) WHERE s.rule_key IN $documents AND NOT s.key IN $sections DETACH DELETE s",
                   {"documents": list(documents), "sections": list(sections)})
        self._emit("MATCH (s:Section)-[c:CITES]->() WHERE s.rule_key IN $documents DELETE c",
                   {"documents": list(documents)})
        if removed:
            self._emit("MATCH (s:Section) WHERE s.rule_key IN $removed DETACH DELETE s", {"removed": list(removed)})
            self._emit("MATCH (r:Rule) WHERE r.key IN $removed DETACH DELETE r", {"removed": list(removed)})

    def create_concepts(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """rows: {"key", "id", "props"}; a key that already exists is left exactly as it is (MERGE ... ON CREATE)."""
        prepared = []
        for row in rows:
            self.guard.check_node("Concept", row["key"], {"id": row["id"], **row["props"]})
            prepared.append({"key": row["key"], "id": row["id"], "props": dict(row["props"])})
        if prepared:
            self._emit(queries.CREATE_CONCEPTS, {"rows": prepared, "now": now_ms()})
