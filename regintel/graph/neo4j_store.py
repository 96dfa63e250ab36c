"""Neo4j 5 and Memgraph backends over Bolt with the official ``neo4j`` driver.

Multi-statement writes run in one managed transaction (``execute_write``), retried by the driver on transient
errors. Every transaction carries ``timeout`` (the driver's ``unit_of_work``): the server ends one that runs longer,
so a runaway query cannot hold a chat turn or a curator's page (the FalkorDB store bounds its socket the same way).
Dialect hooks: constraint/index syntax differs between Neo4j and Memgraph.
"""

from __future__ import annotations

from typing import Any, Sequence

from regintel.graph.store import GraphQueryError, GraphStore, GraphUnavailable, Statement


def _plain(value: Any) -> Any:
    if hasattr(value, "items") and (hasattr(value, "labels") or hasattr(value, "type")):  # Node or Relationship
        return dict(value.items())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _records(result: Any) -> list[dict[str, Any]]:
    return [{key: _plain(value) for key, value in record.items()} for record in result]


class Neo4jStore(GraphStore):
    def __init__(self, url: str, user: str = "", password: str = "", database: str | None = None, dialect: str = "neo4j",
                 timeout: float | None = None) -> None:
        import neo4j

        if dialect not in {"neo4j", "memgraph"}:
            raise ValueError("dialect must be neo4j or memgraph")
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds (None: the server's default)")
        self.dialect = dialect
        self.timeout = timeout
        self.database = database if dialect == "neo4j" and database not in {None, "", "regintel"} else None
        auth = (user, password) if user else None
        self._driver = neo4j.GraphDatabase.driver(url, auth=auth, connection_timeout=5, max_transaction_retry_time=10)

    def _session(self):
        return self._driver.session(database=self.database) if self.database else self._driver.session()

    def _run(self, work):
        import neo4j.exceptions as errors

        try:
            with self._session() as session:
                return work(session)
        except (errors.ServiceUnavailable, errors.SessionExpired, OSError) as exc:
            raise GraphUnavailable(f"The graph server is not reachable: {exc}") from exc
        except errors.Neo4jError as exc:
            if "TransactionTimedOut" in (exc.code or ""):
                raise GraphUnavailable(f"The graph server did not finish the query within {self.timeout:g} s") from exc
            raise GraphQueryError(str(exc)) from exc

    def _bounded(self, work):
        """A transaction function the server ends after ``timeout`` seconds (None: the server's own limit)."""
        import neo4j

        return neo4j.unit_of_work(timeout=self.timeout)(work) if self.timeout else work

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        def work(session):
            return session.execute_read(self._bounded(lambda tx: _records(tx.run(cypher, params or {}))))

        return self._run(work)

    def write(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        def work(session):
            return session.execute_write(self._bounded(lambda tx: _records(tx.run(cypher, params or {}))))

        return self._run(work)

    def write_all(self, statements: Sequence[Statement]) -> None:
        if not statements:
            return

        def unit(tx):
            for cypher, params in statements:
                tx.run(cypher, params or {}).consume()

        self._run(lambda session: session.execute_write(self._bounded(unit)))

    def ensure_schema(self) -> None:
        from regintel.graph.queries import memgraph_schema_statements, neo4j_schema_statements

        statements = neo4j_schema_statements() if self.dialect == "neo4j" else memgraph_schema_statements()
        for cypher in statements:
            try:
                self._run(lambda session: session.run(cypher).consume())
            except GraphQueryError as exc:
                if "already exists" not in str(exc).lower() and "equivalent" not in str(exc).lower():
                    raise

    def ping(self) -> bool:
        try:
            self._driver.verify_connectivity()
            return True
        except Exception:
            return False

    def close(self) -> None:
        self._driver.close()
