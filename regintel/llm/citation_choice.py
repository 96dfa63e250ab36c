"""Which of retrieval's articles an offline answer cites: a learned choice over the composer's own (issue 16).

The composer (:mod:`regintel.llm.offline_compose`) picks the sentences that answer a question with rules: the best
words, the best meaning, the two leading articles of a two-part question. Which *articles* those sentences come
from is where its held-back misses are (session 70: 29 of 36 two-article questions missed, 12 of them with both
articles in retrieval's first five; one-article questions answered from retrieval's second article although its
first one was right). Hand-written rules for that choice fitted the questions they were written on and not the
held-back ones (sessions 35, 37, 50, 62, 63). Here the choice is learned instead:

- :func:`article_candidates` describes each of retrieval's first ``CANDIDATE_ARTICLES`` articles of this turn (and
  any other article the composer quoted) by what the composer can see: its rank and similarity, whether and how
  the composer quoted it, how close its sentences are in meaning to the question and to each of its parts, how many
  of the question's words it and its heading hold, whether it is a definitions article, in the first one's act, in
  the question's language;
- a LightGBM classifier (``python -m regintel.bench train-citations``, trained on labelled questions outside the
  held-back split) gives each candidate the probability that it is an article the answer needs;
- :class:`CitationChooser` keeps the composer's articles scoring at least ``keep_at`` (always the best of them) and
  adds, read by meaning with the part of the question closest to it, a candidate the composer left out scoring at
  least ``add_at``; both thresholds were chosen on cross-fitted predictions of the training questions.

A missing or unreadable model file leaves the composer's choice as it is.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
CANDIDATE_ARTICLES = 6  # retrieval's first articles of the turn that a choice may cite
MAX_CITED_ARTICLES = 3  # an answer quotes at most this many articles after the choice
METHODS = ("lexical", "embedding", "opening", "overview", "none")
# selections whose articles are the answer itself: an overview quotes the opening of each article the question lists
# ("What rights does the data subject have?": Articles 15 to 22), which a choice of three would cut
KEPT_METHODS = ("overview",)
SHAPES = ("definition", "list", "deadline", "general")
FEATURES = (
    "rank", "similarity", "similarity_gap", "similarity_ratio",
    "quoted", "quoted_units", "quoted_first", "quoted_articles", "method",
    "asks", "comparison", "two_things", "shape",
    "definitions_article", "first_act", "question_language",
    "question_cosine", "question_cosine_gap", "question_cosine_rank",
    "part_cosine", "part_cosine_gap", "part_cosine_rank",
    "word_coverage", "heading_coverage", "word_coverage_rank",
    "passages", "candidates", "readable",
    "best_sentence", "best_sentence_ratio", "best_sentence_rank",
    "heading_cosine", "heading_cosine_gap", "heading_cosine_rank", "follow_up",
)


@dataclass
class Candidate:
    """One article a choice may cite: its key (:func:`regintel.llm.offline_compose.article_key`), its passages
    and its features in :data:`FEATURES` order."""

    article: str
    passages: list[Any]
    features: dict[str, float] = field(default_factory=dict)

    def vector(self) -> list[float]:
        return [float(self.features[name]) for name in FEATURES]


def _rank_among(values: Sequence[float], value: float) -> int:
    """1 + how many of ``values`` are strictly greater than ``value`` (ties share the better rank)."""
    return 1 + sum(v > value + 1e-12 for v in values)


def article_candidates(composer: Any, plan: Any, selection: Any) -> list[Candidate]:
    """The articles of this turn a choice may cite, in retrieval's order, with their features."""
    from regintel.llm.offline_compose import EMBEDDING_MIN_COSINE, SECOND_ARTICLE_OWN_TERMS, _ask, _is_definition_passage

    first_of_each = composer._first_passage_of_each_article()
    current = [p for p in first_of_each if not p.source.earlier]
    quoted_order: list[str] = []
    quoted_units: dict[str, int] = {}
    for unit in selection.units:
        article = composer.by_index[unit.source.index].article
        quoted_units[article] = quoted_units.get(article, 0) + 1
        if article not in quoted_order:
            quoted_order.append(article)
    chosen = [p.article for p in current[:CANDIDATE_ARTICLES]]
    chosen += [a for a in quoted_order if a not in chosen]
    if not chosen:
        return []
    first_passage = {p.article: p for p in first_of_each}
    passages_of = {a: [p for p in composer.passages if p.article == a] for a in chosen}
    top = current[0] if current else first_of_each[0]
    top_similarity = float(top.source.similarity or 0.0)
    related = composer._related_documents().get(top.source.document_id, set()) | {top.source.document_id}
    definitional = composer._definitions_articles()
    whole = _ask(plan.question, plan.language)
    parts = [a for a in plan.asks if composer._own_terms(a, plan) >= SECOND_ARTICLE_OWN_TERMS] if len(plan.asks) > 1 else []

    def best_cosine(text: str, article: str) -> float:
        found = composer._sentence_cosines(text, passages_of[article])
        return float(found[1].max()) if found is not None else 0.0

    question_cosines = {a: best_cosine(plan.question, a) for a in chosen}
    part_cosines = {a: max([best_cosine(p.text, a) for p in parts], default=question_cosines[a]) for a in chosen}
    weights_in = {language: composer._ask_weights(whole, plan, language)
                  for language in {first_passage[a].language for a in chosen}}
    coverages, heading_coverages, best_sentences = {}, {}, {}
    for article in chosen:
        passage = first_passage[article]
        weights = weights_in[passage.language]
        terms = set().union(*(p.terms for p in passages_of[article]))
        coverages[article] = composer.scorer.coverage(terms, weights) if weights else 0.0
        heading_coverages[article] = composer.scorer.coverage(passage.heading_terms, weights) if weights else 0.0
        best_sentences[article] = _best_sentence_score(composer, weights, passages_of[article])
    top_sentence = max(best_sentences.values()) or 1.0
    heading_cosines = _heading_cosines(composer, plan.question, [first_passage[a] for a in chosen])
    method = selection.method if selection.method in METHODS else "none"
    shape = plan.asks[0].shape if plan.asks and plan.asks[0].shape in SHAPES else "general"
    two_things = float(composer._asks_two_things(plan))
    best_question_cosine, best_part_cosine = max(question_cosines.values()), max(part_cosines.values())
    candidates = []
    for position, article in enumerate(chosen, start=1):
        passage = first_passage[article]
        similarity = float(passage.source.similarity or 0.0)
        features = {
            "rank": position,
            "similarity": similarity,
            "similarity_gap": top_similarity - similarity,
            "similarity_ratio": similarity / top_similarity if top_similarity > 0 else 0.0,
            "quoted": float(article in quoted_units),
            "quoted_units": quoted_units.get(article, 0),
            "quoted_first": float(bool(quoted_order) and quoted_order[0] == article),
            "quoted_articles": len(quoted_order),
            "method": METHODS.index(method),
            "asks": len(plan.asks),
            "comparison": float(plan.comparison),
            "two_things": two_things,
            "shape": SHAPES.index(shape),
            "definitions_article": float(article in definitional or _is_definition_passage(passage)),
            "first_act": float(passage.source.document_id in related),
            "question_language": float(passage.language == plan.language),
            "question_cosine": question_cosines[article],
            "question_cosine_gap": best_question_cosine - question_cosines[article],
            "question_cosine_rank": _rank_among(list(question_cosines.values()), question_cosines[article]),
            "part_cosine": part_cosines[article],
            "part_cosine_gap": best_part_cosine - part_cosines[article],
            "part_cosine_rank": _rank_among(list(part_cosines.values()), part_cosines[article]),
            "word_coverage": coverages[article],
            "heading_coverage": heading_coverages[article],
            "word_coverage_rank": _rank_among(list(coverages.values()), coverages[article]),
            "passages": len(passages_of[article]),
            "candidates": len(chosen),
            "readable": float(max(question_cosines[article], part_cosines[article]) >= EMBEDDING_MIN_COSINE),
            "best_sentence": best_sentences[article],
            "best_sentence_ratio": best_sentences[article] / top_sentence,
            "best_sentence_rank": _rank_among(list(best_sentences.values()), best_sentences[article]),
            "heading_cosine": heading_cosines[position - 1],
            "heading_cosine_gap": max(heading_cosines) - heading_cosines[position - 1],
            "heading_cosine_rank": _rank_among(heading_cosines, heading_cosines[position - 1]),
            "follow_up": float(bool(plan.context)),
        }
        candidates.append(Candidate(article, passages_of[article], features))
    return candidates


def _best_sentence_score(composer: Any, weights: dict[str, float], passages: Sequence[Any]) -> float:
    """The composer's word score (BM25 x coverage x retrieval prior) of the article's best quotable sentence for the
    whole question's ``weights`` in the article's language."""
    if not weights:
        return 0.0
    return max((composer.scorer.score(s, weights, p.title_terms).score for p in passages for s in p.segments
                if s.quotable), default=0.0)


def _heading_cosines(composer: Any, question: str, passages: Sequence[Any]) -> list[float]:
    """Cosine of the question with each article's heading ("Article 33 — Notification of a personal data breach to
    the supervisory authority"), 0 without an embedding."""
    cosines = composer.cosines(question, [p.source.heading or p.source.title or p.source.ref for p in passages])
    return [0.0] * len(passages) if cosines is None else [float(c) for c in cosines]


def choose_articles(candidates: Sequence[Candidate], probabilities: Sequence[float], keep_at: float,
                    add_at: float) -> list[str]:
    """The articles to cite: the quoted ones scoring at least ``keep_at`` and the unquoted readable ones scoring at
    least ``add_at``, best first, ``MAX_CITED_ARTICLES`` at most; when none qualifies, the best quoted one (an
    answer the composer found is never emptied). Nothing when the composer quoted nothing; the composer's articles
    as they are for a selection of :data:`KEPT_METHODS`."""
    scored = list(zip(probabilities, candidates))
    if candidates and METHODS[int(candidates[0].features["method"])] in KEPT_METHODS:
        return [c.article for c in candidates if c.features["quoted"]]
    quoted = sorted(((p, c) for p, c in scored if c.features["quoted"]), key=lambda pc: -pc[0])
    if not quoted:
        return []
    chosen = [(p, c) for p, c in quoted if p >= keep_at]
    chosen += [(p, c) for p, c in scored if not c.features["quoted"] and c.features["readable"] and p >= add_at]
    chosen.sort(key=lambda pc: -pc[0])
    return [c.article for _, c in chosen[:MAX_CITED_ARTICLES]] or [quoted[0][1].article]


class CitationChooser:
    """The learned choice of cited articles, applied to a composer's selection (see the module docstring)."""

    def __init__(self, booster: Any, keep_at: float, add_at: float, training: dict[str, Any] | None = None) -> None:
        self.booster = booster
        self.keep_at = keep_at
        self.add_at = add_at
        self.training = training or {}

    def probabilities(self, candidates: Sequence[Candidate]) -> list[float]:
        import numpy as np

        if not candidates:
            return []
        return [float(p) for p in self.booster.predict(np.asarray([c.vector() for c in candidates], dtype=float))]

    def choose(self, composer: Any, plan: Any, selection: Any) -> Any:
        """``selection`` with the units of the articles chosen: the composer's units of the kept articles, in its
        order, then each added article's sentences closest in meaning to the question or the part nearest it."""
        if not selection.units or selection.method in KEPT_METHODS:
            return selection
        try:
            candidates = article_candidates(composer, plan, selection)
            chosen = choose_articles(candidates, self.probabilities(candidates), self.keep_at, self.add_at)
        except Exception as exc:  # noqa: BLE001 - the composer's own choice stands
            log.warning("citation choice failed (%s); the composer's choice stands", exc.__class__.__name__)
            return selection
        if not chosen:
            return selection
        units = [u for u in selection.units if composer.by_index[u.source.index].article in chosen]
        quoted = {composer.by_index[u.source.index].article for u in units}
        for article in chosen:
            if article not in quoted:
                # quoted as the composer's own sentences are: one pointing back with the sentence before it
                units += composer._with_antecedents(composer._closest_units(plan, article, units), quoted_already=units)
        return type(selection)(units or selection.units, selection.method)

    # -- file -----------------------------------------------------------------------------------------------------
    def to_document(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "features": list(FEATURES), "keep_at": self.keep_at, "add_at": self.add_at,
                "training": self.training, "model": self.booster.model_to_string()}

    def save(self, path: Path) -> None:
        from regintel.atomic_files import write_text_atomically

        write_text_atomically(Path(path), json.dumps(self.to_document(), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> "CitationChooser | None":
        """The model in ``path``; None (the composer's choice stands) when it is missing, unreadable or made for
        other features."""
        path = Path(path)
        if not path.exists():
            return None
        try:
            import lightgbm

            document = json.loads(path.read_text(encoding="utf-8"))
            if document.get("format") != FORMAT_VERSION or tuple(document.get("features", ())) != FEATURES:
                log.warning("citation choice model %s was made for other features; not used", path)
                return None
            booster = lightgbm.Booster(model_str=document["model"])
            return cls(booster, float(document["keep_at"]), float(document["add_at"]), document.get("training"))
        except Exception as exc:  # noqa: BLE001 - an unreadable model leaves the composer's choice
            log.warning("citation choice model %s unreadable (%s); not used", path, exc.__class__.__name__)
            return None
