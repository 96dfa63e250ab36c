"""Graph backends for the conformance suite: embedded FalkorDB always; Neo4j / Memgraph when their test URLs are
set (``.ci/run`` starts a real Neo4j 5 from Maven Central jars and sets REGINTEL_TEST_NEO4J_URL)."""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from typing import Iterator

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from tests.lanes import skip_lane

BACKENDS = ["falkordb", "neo4j", "memgraph"]


def open_backend(name: str, tmp_path) -> tuple[object, object]:
    """(store, server-or-None) for a backend, or skip when it is not available here."""
    if name == "falkordb":
        server = EmbeddedFalkorDB(tmp_path / "graph", snapshot_seconds=1)
        store = FalkorDBStore(f"test_{uuid.uuid4().hex[:8]}", server=server)
        return store, server
    url = os.environ.get(f"REGINTEL_TEST_{name.upper()}_URL", "")
    if not url:
        skip_lane(name, f"REGINTEL_TEST_{name.upper()}_URL not set")
    from regintel.graph.neo4j_store import Neo4jStore

    store = Neo4jStore(url, os.environ.get(f"REGINTEL_TEST_{name.upper()}_USER", ""),
                       os.environ.get(f"REGINTEL_TEST_{name.upper()}_PASSWORD", ""), dialect=name)
    store.clear()
    return store, None


@contextmanager
def backend_store(name: str, tmp_path) -> Iterator[object]:
    """A store of ``name`` with its schema, closed (and its embedded server stopped) afterwards."""
    store, server = open_backend(name, tmp_path)
    store.ensure_schema()
    try:
        yield store
    finally:
        store.close()
        if server is not None:
            server.shutdown(save=False)
