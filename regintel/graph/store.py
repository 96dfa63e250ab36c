"""GraphStore: the small interface every graph backend implements (one backend per module).

Queries are Cypher strings from ``regintel.graph.queries`` with parameters for every value; results come back
as lists of plain dicts with scalar columns, the portable subset all our backends agree on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

from regintel.errors import GraphError, GraphQueryError, GraphUnavailable

__all__ = ["GraphError", "GraphQueryError", "GraphUnavailable", "GraphStore", "Statement"]




Statement = tuple[str, dict[str, Any]]


class GraphStore(ABC):
    """A graph database reached with Cypher. ``dialect`` selects the few syntax differences."""

    dialect: str = "cypher"

    @abstractmethod
    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read query."""

    @abstractmethod
    def write(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one write query (atomic)."""

    @abstractmethod
    def write_all(self, statements: Sequence[Statement]) -> None:
        """Run several write queries in one transaction: all are applied or none."""

    @abstractmethod
    def ensure_schema(self) -> None:
        """Create constraints and indexes (idempotent)."""

    @abstractmethod
    def ping(self) -> bool:
        """True when the server answers."""

    def clear(self) -> None:
        """Delete everything (tests and benchmarks only)."""
        self.write("MATCH (n) DETACH DELETE n")

    def close(self) -> None:
        """Release connections."""
