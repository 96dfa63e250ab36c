"""Open the graph store chosen by settings (backends imported lazily, one per module)."""

from __future__ import annotations

from urllib.parse import urlparse

from regintel.config import Settings
from regintel.graph.store import GraphStore


def open_graph_store(settings: Settings) -> GraphStore:
    backend = settings.graph_backend
    if backend == "falkordb-embedded":
        from regintel.graph.falkordb_server import EmbeddedFalkorDB
        from regintel.graph.falkordb_store import FalkorDBStore

        server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
        return FalkorDBStore(settings.graph_name, server=server, timeout=settings.graph_query_timeout_seconds)
    if backend == "falkordb":
        from regintel.graph.falkordb_store import FalkorDBStore

        url = urlparse(settings.graph_url or "redis://127.0.0.1:6379")
        return FalkorDBStore(settings.graph_name, host=url.hostname or "127.0.0.1", port=url.port or 6379,
                             password=settings.graph_password.get_secret_value(),
                             timeout=settings.graph_query_timeout_seconds)
    from regintel.graph.neo4j_store import Neo4jStore

    return Neo4jStore(settings.graph_url or "bolt://127.0.0.1:7687", settings.graph_user,
                      settings.graph_password.get_secret_value(), database=settings.graph_name if backend == "neo4j" else None,
                      dialect=backend, timeout=settings.graph_query_timeout_seconds)
