"""GraphChangeDetector: what changed in the graph since the last look, as patches for the live explorer (docs/architecture.md).

Default mode reads only nodes and edges with ``updated_at`` newer than the cursor (indexed), re-reading a short
overlap so a write stamped by a slower clock in another process is not missed (duplicates are dropped by
(key, updated_at)). Changes are held for a batching window (500-1000 ms) so a burst becomes one patch. The
``polling`` mode snapshots the whole graph and diffs it: no timestamps needed, and it also sees deletions; the
benchmark compares the two.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from regintel.graph import queries
from regintel.graph.store import GraphStore

OVERLAP_MS = 2000


@dataclass
class GraphPatch:
    nodes_added: list[dict[str, Any]] = field(default_factory=list)
    nodes_updated: list[dict[str, Any]] = field(default_factory=list)
    edges_added: list[dict[str, Any]] = field(default_factory=list)
    edges_updated: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return any((self.nodes_added, self.nodes_updated, self.edges_added, self.edges_updated, self.removed))

    def merge(self, other: "GraphPatch") -> None:
        for name in ("nodes_added", "nodes_updated", "edges_added", "edges_updated", "removed"):
            getattr(self, name).extend(getattr(other, name))

    def size(self) -> int:
        return sum(len(getattr(self, n)) for n in ("nodes_added", "nodes_updated", "edges_added", "edges_updated", "removed"))


def _node_id(row: dict) -> tuple:
    return ("node", row.get("key"))


def _edge_id(row: dict) -> tuple:
    return ("edge", row.get("type"), row.get("source"), row.get("target"))


class GraphChangeDetector:
    def __init__(self, store: GraphStore, mode: str = "timestamps", batch_window_ms: int = 750,
                 limit: int = 5000, clock: Callable[[], float] = time.monotonic) -> None:
        if mode not in {"timestamps", "polling"}:
            raise ValueError("mode must be 'timestamps' or 'polling'")
        if not 0 <= batch_window_ms <= 10_000:
            raise ValueError("batch_window_ms must be between 0 and 10000")
        self.store, self.mode, self.window_s, self.limit, self.clock = store, mode, batch_window_ms / 1000, limit, clock
        self.cursor = 0
        self._seen: dict[tuple, int] = {}
        self._snapshot: dict[tuple, Any] | None = None
        self._held = GraphPatch()
        self._held_since: float | None = None

    def start_from_now(self) -> None:
        """Ignore what exists already: only later changes will be reported."""
        if self.mode == "polling":
            self._snapshot = self._take_snapshot()
        else:
            rows = self.store.query("MATCH (n) RETURN max(n.updated_at) AS t")
            self.cursor = int(rows[0]["t"] or 0) if rows else 0
            self._by_timestamps()  # mark what the overlap window re-reads as seen: it predates the start

    # -- raw detection ---------------------------------------------------------------------------------------
    def changes(self) -> GraphPatch:
        """Changes since the previous call (no batching)."""
        return self._by_timestamps() if self.mode == "timestamps" else self._by_polling()

    def _by_timestamps(self) -> GraphPatch:
        since = max(0, self.cursor - OVERLAP_MS)
        patch = GraphPatch()
        newest = self.cursor
        for row in self.store.query(queries.NODES_CHANGED_SINCE, {"since": since, "limit": self.limit}):
            if self._fresh(_node_id(row), row["updated_at"]):
                # the write service stamps created_at == updated_at on creation; any later write moves updated_at
                (patch.nodes_added if row.get("created_at") == row.get("updated_at") else patch.nodes_updated).append(row)
            newest = max(newest, int(row["updated_at"] or 0))
        for row in self.store.query(queries.EDGES_CHANGED_SINCE, {"since": since, "limit": self.limit}):
            if self._fresh(_edge_id(row), row["updated_at"]):
                (patch.edges_added if row.get("created_at") == row.get("updated_at") else patch.edges_updated).append(row)
            newest = max(newest, int(row["updated_at"] or 0))
        self.cursor = newest
        cutoff = newest - 2 * OVERLAP_MS
        self._seen = {k: v for k, v in self._seen.items() if v >= cutoff}
        return patch

    def _fresh(self, identity: tuple, updated_at: Any) -> bool:
        stamp = int(updated_at or 0)
        if self._seen.get(identity) == stamp:
            return False
        self._seen[identity] = stamp
        return True

    def _take_snapshot(self) -> dict[tuple, Any]:
        snapshot: dict[tuple, Any] = {}
        for row in self.store.query(queries.ALL_NODES_SNAPSHOT):
            snapshot[_node_id(row)] = (row.get("updated_at"), row)
        for row in self.store.query(queries.ALL_EDGES_SNAPSHOT):
            snapshot[_edge_id(row)] = (row.get("updated_at"), row)
        return snapshot

    def _by_polling(self) -> GraphPatch:
        current = self._take_snapshot()
        previous, self._snapshot = self._snapshot or {}, current
        patch = GraphPatch()
        for identity, (stamp, row) in current.items():
            if identity not in previous:
                (patch.nodes_added if identity[0] == "node" else patch.edges_added).append(row)
            elif previous[identity][0] != stamp:
                (patch.nodes_updated if identity[0] == "node" else patch.edges_updated).append(row)
        patch.removed = [row for identity, (_, row) in previous.items() if identity not in current]
        return patch

    # -- batching ------------------------------------------------------------------------------------------
    def poll(self) -> GraphPatch | None:
        """Patch to apply now, or None while changes are held for the batching window (or nothing changed)."""
        fresh = self.changes()
        if fresh:
            self._held.merge(fresh)
            if self._held_since is None:
                self._held_since = self.clock()
        if self._held_since is not None and self.clock() - self._held_since >= self.window_s:
            patch, self._held, self._held_since = self._held, GraphPatch(), None
            return patch
        return None
