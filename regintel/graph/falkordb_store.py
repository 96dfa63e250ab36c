"""FalkorDB backend (embedded by default, or a FalkorDB server by URL) through the ``falkordb`` client.

Several writes commit together through a Redis MULTI/EXEC transaction of GRAPH.QUERY commands.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Sequence

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.store import GraphQueryError, GraphStore, GraphUnavailable, Statement

# replies of a server that is up but cannot serve now: MISCONF (it cannot write its snapshot or append-only log,
# e.g. a full disk), LOADING (reading its data at start-up). Callers treat them as an outage (concepts are queued
# for the worker), not as a bad query whose concepts would be dropped
UNAVAILABLE_REPLIES = ("MISCONF", "LOADING")

# a server that accepted a query and never answers (stopped, wedged) must not hold a page or a worker forever;
# generous, since one atomic write of a large ingestion batch takes seconds on a small machine
QUERY_TIMEOUT_SECONDS = 120.0


def _plain(value: Any) -> Any:
    """FalkorDB Node/Edge objects become property dicts; lists are converted element by element."""
    if hasattr(value, "properties") and isinstance(getattr(value, "properties"), dict):
        return dict(value.properties)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


SURROGATE_RE = re.compile("[\ud800-\udfff]")


def transmittable(value: Any) -> Any:
    """Parameters as FalkorDB can receive them. The client sends them quoted in a ``CYPHER name=value`` header of
    the query text, which the server reads as a C string: a NUL byte would cut the query short and a lone
    surrogate cannot be encoded. NULs are dropped and lone surrogates become U+FFFD; everything else (quotes,
    backslashes: the client escapes them) is sent as it is, as data."""
    if isinstance(value, str):
        return SURROGATE_RE.sub("\ufffd", value.replace("\x00", ""))
    if isinstance(value, dict):
        return {k: transmittable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [transmittable(v) for v in value]
    return value


def _rows(result: Any) -> list[dict[str, Any]]:
    """A FalkorDB QueryResult as a list of {column: plain value} dicts."""
    columns = [h[1] if isinstance(h, (list, tuple)) else h for h in result.header]
    return [dict(zip(columns, map(_plain, row))) for row in result.result_set]


class FalkorDBStore(GraphStore):
    dialect = "falkordb"

    def __init__(self, graph_name: str = "regintel", server: EmbeddedFalkorDB | None = None,
                 host: str = "", port: int = 6379, password: str = "",
                 timeout: float = QUERY_TIMEOUT_SECONDS) -> None:
        self.graph_name = graph_name
        self.server = server
        self.host, self.port, self.password = host, port, password
        self.timeout = timeout
        self._local = threading.local()
        self._schema_ready = False

    # -- connection ----------------------------------------------------------------------------------------
    def _db(self):
        from falkordb import FalkorDB

        db = getattr(self._local, "db", None)
        if db is None:
            if self.server is not None:
                socket = self.server.ensure_running()
                db = FalkorDB(unix_socket_path=str(socket), socket_timeout=self.timeout, socket_connect_timeout=5)
            else:
                db = FalkorDB(host=self.host, port=self.port, password=self.password or None,
                              socket_timeout=self.timeout, socket_connect_timeout=5)
            self._local.db = db
        return db

    def _reset(self) -> None:
        self._local.db = None

    def _call(self, fn):
        """Run fn(graph) once; on a connection failure, restart/reconnect and try exactly once more. A query
        the server took and did not answer in time is not retried: it may still run (a write would apply twice),
        and a wedged server would hold the caller for a second timeout."""
        import redis

        for attempt in (1, 2):
            try:
                return fn(self._db().select_graph(self.graph_name))
            except redis.TimeoutError as exc:
                self._reset()
                raise GraphUnavailable(f"The graph server did not answer within {self.timeout:g} s: {exc}") from exc
            except (redis.ConnectionError, FileNotFoundError, ConnectionRefusedError) as exc:
                self._reset()
                if attempt == 2 or self.server is None:
                    raise GraphUnavailable(f"The graph server is not reachable: {exc}") from exc
            except redis.ResponseError as exc:
                if str(exc).startswith(UNAVAILABLE_REPLIES):  # alive, but refusing writes it could not keep
                    raise GraphUnavailable(f"The graph server cannot take writes now: {str(exc)[:200]}") from exc
                raise GraphQueryError(str(exc)) from exc
        raise AssertionError("unreachable")

    # -- GraphStore ----------------------------------------------------------------------------------------
    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        try:
            return self._call(lambda graph: _rows(graph.ro_query(cypher, transmittable(params or {}))))
        except GraphQueryError as exc:
            if "empty key" in str(exc):  # the graph has not been written yet: it reads as empty
                return []
            raise

    def write(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return self._call(lambda graph: _rows(graph.query(cypher, transmittable(params or {}))))

    def write_all(self, statements: Sequence[Statement]) -> None:
        """One atomic query: FalkorDB has no multi-query transactions (MULTI/EXEC does not roll back), but a
        single query is all-or-nothing, so the statements are chained with ``WITH count(*)`` and their
        parameters renamed per statement."""
        if not statements:
            return
        parts, params = [], {}
        for number, (cypher, statement_params) in enumerate(statements):
            prefix = f"s{number}_"
            parts.append(re.sub(r"\$(\w+)", lambda m: f"${prefix}{m.group(1)}", cypher.strip().rstrip(";")))
            params.update({prefix + k: v for k, v in (statement_params or {}).items()})
        combined = parts[0] + "".join(f" WITH count(*) AS _step{i} {part}" for i, part in enumerate(parts[1:]))
        self.write(combined, params)

    def ensure_schema(self) -> None:
        from regintel.graph.queries import falkordb_schema_statements

        for cypher in falkordb_schema_statements():
            try:
                self.write(cypher)
            except GraphQueryError as exc:
                if "already" not in str(exc).lower():
                    raise
        for label, prop in (("Concept", "key"), ("Label", "key"), ("Rule", "key"), ("Section", "key"),
                            ("Jurisdiction", "code"), ("Content", "key"), ("Quote", "key")):
            try:
                self._call(lambda g: g.create_node_unique_constraint(label, prop))
            except GraphQueryError as exc:
                if "already" not in str(exc).lower():
                    raise
        self._schema_ready = True

    def ping(self) -> bool:
        try:
            return bool(self._db().connection.ping())
        except Exception:
            self._reset()
            return False

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            try:
                db.connection.close()
            except Exception:
                pass
        self._reset()
