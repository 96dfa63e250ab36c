"""A persisted bm25s index over chunk texts, with the ids that map its rows back to chunks.

bm25s scores a whole collection with sparse matrices, fast enough to rebuild the index on every ingestion of a
corpus of a few thousand chunks; the index is saved beside Chroma and reloaded at start.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

import bm25s
import numpy as np

from regintel.errors import IndexError_
from regintel.text.analysis import tokenize

IDS_FILE = "chunk_ids.json"
# How texts become tokens (:func:`regintel.text.analysis.tokenize`): an index saved with other tokens than the
# questions get finds nothing they share. 2: folding writes "ß" as "ss" (1 split "Verstöße" into "versto", "e").
TOKENS_VERSION = 2
logging.getLogger("bm25s").setLevel(logging.WARNING)


class BM25Index:
    """Lexical index: ``search(question)`` returns (chunk id, score) pairs, best first."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._retriever: bm25s.BM25 | None = None
        self.ids: list[str] = []
        self.languages: list[str] = []
        self.tokens_version = TOKENS_VERSION

    def build(self, ids: Sequence[str], texts: Sequence[str], languages: Sequence[str] | None = None) -> None:
        languages = list(languages) if languages is not None else ["en"] * len(texts)
        self.ids = list(ids)
        self.languages = sorted(set(languages))
        corpus_tokens = [tokenize(text, lang) for text, lang in zip(texts, languages)]
        retriever = bm25s.BM25(k1=self.k1, b=self.b)
        if corpus_tokens:
            retriever.index(corpus_tokens, show_progress=False)
        self._retriever = retriever

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, question: str, language: str | None = None) -> np.ndarray:
        """BM25 score of every indexed chunk for the question (zeros when no query token is known)."""
        if self._retriever is None or not self.ids:
            return np.zeros(0, dtype=np.float32)
        vocab = self._retriever.vocab_dict
        tokens: list[str] = []
        candidates = [language] if language else (self.languages or ["en"])
        for lang in candidates:  # a question is stemmed with every corpus language; duplicates are harmless
            tokens.extend(t for t in tokenize(question, lang) if t in vocab)
        if not tokens:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self._retriever.get_scores(sorted(set(tokens))), dtype=np.float32)

    def idf(self, tokens: set[str]) -> dict[str, float]:
        """BM25 inverse document frequency of each indexed token (unknown tokens are left out): how much a term
        says about a passage, for the ranker's weighted term coverage."""
        if self._retriever is None or not self.ids:
            return {}
        vocab = self._retriever.vocab_dict
        indptr = self._retriever.scores["indptr"]
        total = len(self.ids)
        weights = {}
        for token in tokens:
            row = vocab.get(token)
            if row is not None and token:
                frequency = int(indptr[row + 1] - indptr[row])
                weights[token] = float(np.log(1 + (total - frequency + 0.5) / (frequency + 0.5)))
        return weights

    def search(
        self, question: str, k: int = 50, language: str | None = None, mask: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """Best k (chunk id, score) pairs with a positive score; ``mask`` keeps only the rows where it is True."""
        scores = self.scores(question, language)
        if scores.size == 0:
            return []
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        k = min(k, scores.size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if self._retriever is None:
            raise IndexError_("BM25 index not built")
        self._retriever.save(str(directory), show_progress=False)
        (directory / IDS_FILE).write_text(
            json.dumps({"ids": self.ids, "languages": self.languages, "k1": self.k1, "b": self.b,
                        "tokens_version": self.tokens_version}), encoding="utf-8"
        )

    @classmethod
    def load(cls, directory: Path) -> "BM25Index":
        directory = Path(directory)
        try:
            meta = json.loads((directory / IDS_FILE).read_text(encoding="utf-8"))
            index = cls(k1=meta["k1"], b=meta["b"])
            index._retriever = bm25s.BM25.load(str(directory), show_progress=False, verbosity=0)
            index.ids = list(meta["ids"])
            index.languages = list(meta["languages"])
            index.tokens_version = int(meta.get("tokens_version", 1))
        except (OSError, ValueError, KeyError) as exc:
            raise IndexError_(f"BM25 index at {directory} is missing or corrupt: {exc}") from exc
        if index._retriever.scores["num_docs"] != len(index.ids):
            raise IndexError_(f"BM25 index at {directory} does not match its id list")
        return index
