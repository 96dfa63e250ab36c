"""The learned choice of cited articles (regintel.llm.citation_choice) and its training (regintel.bench.citations).

Real demo-corpus passages; the embedding is the hashing stand-in of the ranker tests (no model load); the model is
either a real LightGBM booster fitted here on a few rows or, where a test fixes the probabilities, a table."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from regintel.bench.citations import Question, choose_thresholds, outcome, score_policy, training_items
from regintel.llm.citation_choice import (CANDIDATE_ARTICLES, FEATURES, MAX_CITED_ARTICLES, Candidate,
                                          CitationChooser, article_candidates, choose_articles)
from regintel.llm.offline import OfflineProvider
from regintel.llm.offline_compose import Composer, Selection, plan_question
from tests.test_offline_provider import numbered, passage, run
from tests.test_ranker import HashingEmbedder


def candidate(article: str, quoted: bool, readable: bool = True, **features: float) -> Candidate:
    values = {name: 0.0 for name in FEATURES}
    values.update(quoted=float(quoted), readable=float(readable), **features)
    return Candidate(article, [], values)


class TableBooster:
    """Probabilities fixed per article rank (a test double for a fitted booster)."""

    def __init__(self, by_rank: dict[int, float]) -> None:
        self.by_rank = by_rank

    def predict(self, matrix):
        rank = FEATURES.index("rank")
        return np.asarray([self.by_rank.get(int(row[rank]), 0.0) for row in matrix])


# -- the choice ---------------------------------------------------------------------------------------------------
def test_the_best_quoted_article_is_kept_whatever_its_probability():
    candidates = [candidate("a", True), candidate("b", True)]
    assert choose_articles(candidates, [0.05, 0.01], keep_at=0.5, add_at=0.5) == ["a"]
    assert choose_articles(candidates, [0.01, 0.05], keep_at=0.5, add_at=0.5) == ["b"]


def test_an_unquoted_article_is_added_only_when_readable_and_above_add_at():
    candidates = [candidate("a", True), candidate("b", False), candidate("c", False, readable=False)]
    assert choose_articles(candidates, [0.9, 0.6, 0.99], keep_at=0.5, add_at=0.5) == ["a", "b"]
    assert choose_articles(candidates, [0.9, 0.4, 0.99], keep_at=0.5, add_at=0.5) == ["a"]


def test_a_choice_cites_at_most_the_maximum_and_nothing_without_a_quote():
    many = [candidate("q", True)] + [candidate(f"x{n}", False) for n in range(6)]
    assert len(choose_articles(many, [0.9] * 7, 0.5, 0.1)) == MAX_CITED_ARTICLES
    assert choose_articles([candidate("x", False)], [0.99], 0.1, 0.1) == []


def test_an_overview_keeps_every_article_it_lists():
    """"What rights does the data subject have?" quotes the opening of each article headed "Right ..." (more than
    three): a choice never cuts them."""
    from regintel.llm.citation_choice import METHODS

    overview = [candidate(f"a{n}", True, method=METHODS.index("overview")) for n in range(5)]
    assert choose_articles(overview, [0.0] * 5, keep_at=0.5, add_at=0.5) == [f"a{n}" for n in range(5)]
    selection = Selection(["unit"], "overview")
    assert CitationChooser(TableBooster({}), 0.5, 0.5).choose(None, None, selection) is selection


# -- the features -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def breach_sources():
    return numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"),
                    passage("eu-gdpr", "Article 4", "personal data breach’ means"),
                    passage("eu-gdpr", "Article 12"), passage("eu-gdpr", "Article 83"), passage("eu-gdpr", "Article 5"),
                    passage("eu-gdpr", "Article 6"))


def test_candidates_are_retrievals_first_articles_described_by_what_the_composer_saw(breach_sources):
    composer = Composer(breach_sources, embedder=HashingEmbedder())
    plan = plan_question("When must the controller notify a personal data breach to the supervisory authority?")
    selection = composer.select(plan)
    candidates = article_candidates(composer, plan, selection)
    quoted = {composer.by_index[u.source.index].article for u in selection.units}
    assert [c.article for c in candidates[:CANDIDATE_ARTICLES]] == \
        [composer.by_index[s.index].article for s in breach_sources[:CANDIDATE_ARTICLES]]
    assert {c.article for c in candidates if c.features["quoted"]} == quoted and quoted
    assert [c.features["rank"] for c in candidates] == list(range(1, len(candidates) + 1))
    for c in candidates:
        assert len(c.vector()) == len(FEATURES) and all(math.isfinite(v) for v in c.vector())
    definitions = next(c for c in candidates if c.article.endswith("Article 4"))
    assert definitions.features["definitions_article"] == 1.0
    # the article that shares most of the question's words has the best coverage rank
    best_words = max(candidates, key=lambda c: c.features["word_coverage"])
    assert best_words.features["word_coverage_rank"] == 1


class SameVectorEmbedder:
    """Every text the same vector: every sentence is as close in meaning to the question as can be (readable)."""

    model_id = "same-vector-test"

    def embed(self, texts, kind="passage"):
        return np.ones((len(texts), 8))


def test_a_chooser_adds_the_article_its_model_scores_and_drops_the_one_it_does_not(breach_sources):
    question = "When must the controller notify a personal data breach to the supervisory authority?"
    plan = plan_question(question)
    composer = Composer(breach_sources, embedder=SameVectorEmbedder())
    selection = composer.select(plan)
    candidates = article_candidates(composer, plan, selection)
    quoted = [c for c in candidates if c.features["quoted"]]
    unquoted = [c for c in candidates if not c.features["quoted"]]
    assert quoted and unquoted and all(c.features["readable"] for c in candidates)
    # the model believes in one article the composer left out, and in none of those it quoted
    wanted = unquoted[0]
    chooser = CitationChooser(TableBooster({int(wanted.features["rank"]): 0.9}), keep_at=0.5, add_at=0.5)
    chosen = chooser.choose(composer, plan, selection)
    assert {composer.by_index[u.source.index].article for u in chosen.units} == {wanted.article}
    answer, _, _ = run(OfflineProvider(embedder=SameVectorEmbedder(), chooser=chooser), question, breach_sources)
    cited_numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer)}
    assert cited_numbers and cited_numbers <= {p.source.index for p in wanted.passages}
    # a model believing in the quoted articles leaves the composer's choice as it was
    keep = CitationChooser(TableBooster({int(c.features["rank"]): 0.9 for c in quoted}), keep_at=0.5, add_at=0.95)
    composer = Composer(breach_sources, embedder=SameVectorEmbedder())
    again = keep.choose(composer, plan, composer.select(plan))
    assert [u.segments for u in again.units] == [u.segments for u in selection.units]


def test_a_failing_model_leaves_the_composers_choice(breach_sources):
    class Broken:
        def predict(self, matrix):
            raise RuntimeError("no model")

    composer = Composer(breach_sources, embedder=HashingEmbedder())
    plan = plan_question("When must the controller notify a personal data breach to the supervisory authority?")
    selection = composer.select(plan)
    assert CitationChooser(Broken(), 0.5, 0.5).choose(composer, plan, selection) is selection


# -- the model file -----------------------------------------------------------------------------------------------
def fitted_chooser() -> CitationChooser:
    import lightgbm

    rng = np.random.default_rng(3)
    matrix = rng.random((200, len(FEATURES)))
    labels = (matrix[:, FEATURES.index("question_cosine")] > 0.5).astype(float)
    booster = lightgbm.train({"objective": "binary", "verbose": -1, "min_data_in_leaf": 5},
                             lightgbm.Dataset(matrix, labels), num_boost_round=20)
    return CitationChooser(booster, 0.4, 0.6, {"questions": 200})


def test_a_model_file_round_trips(tmp_path):
    chooser = fitted_chooser()
    chooser.save(tmp_path / "choice.json")
    loaded = CitationChooser.load(tmp_path / "choice.json")
    assert (loaded.keep_at, loaded.add_at, loaded.training) == (0.4, 0.6, {"questions": 200})
    rows = [candidate("a", True, question_cosine=0.9), candidate("b", True, question_cosine=0.1)]
    assert loaded.probabilities(rows) == pytest.approx(chooser.probabilities(rows))
    assert loaded.probabilities(rows)[0] > loaded.probabilities(rows)[1]


def test_a_missing_stale_or_broken_model_file_is_not_used(tmp_path):
    assert CitationChooser.load(tmp_path / "none.json") is None
    document = fitted_chooser().to_document()
    (tmp_path / "stale.json").write_text(json.dumps({**document, "features": list(FEATURES)[:-1]}))
    assert CitationChooser.load(tmp_path / "stale.json") is None
    (tmp_path / "broken.json").write_text("{not json")
    assert CitationChooser.load(tmp_path / "broken.json") is None


def test_the_committed_model_loads_and_is_served_offline():
    from regintel.config import load_settings
    from regintel.llm.router import build_provider

    settings = load_settings(llm_provider="offline")
    chooser = CitationChooser.load(settings.citation_model)
    assert chooser is not None and 0 < chooser.keep_at < 1 and 0 < chooser.add_at < 1
    assert isinstance(build_provider(settings).chooser, CitationChooser)


# -- training -----------------------------------------------------------------------------------------------------
def question(mode: str, golds: int, covers: list[set[int]], quoted: list[bool]) -> Question:
    candidates = [candidate(f"a{n}", q, rank=n + 1) for n, q in enumerate(quoted)]
    return Question(f"q{len(covers)}{mode}", mode, golds, candidates, covers)


def test_an_all_gold_question_is_answered_only_when_every_gold_article_is_cited():
    q = question("all", 2, [{0}, {1}, set()], [True, False, False])
    assert outcome(q, ["a0"]) == (False, 1, 1)
    assert outcome(q, ["a0", "a1"]) == (True, 2, 2)
    assert outcome(q, ["a0", "a1", "a2"]) == (True, 2, 3)
    assert outcome(question("any", 1, [set(), {0}], [True, True]), ["a0", "a1"]) == (True, 1, 2)


def test_thresholds_gain_answers_without_citing_more_wrong_articles_than_the_composer():
    # the composer quotes a wrong first article and misses the right second one; the probabilities know better
    questions = [question("any", 1, [set(), {0}], [True, False]) for _ in range(4)]
    questions += [question("any", 1, [{0}, set()], [True, True]) for _ in range(4)]
    probabilities = [[0.2, 0.8]] * 4 + [[0.9, 0.1]] * 4
    base = score_policy(questions, None)
    keep_at, add_at = choose_thresholds(questions, probabilities)
    chosen = score_policy(questions, probabilities, keep_at, add_at)
    assert chosen["hits"] > base["hits"]
    assert chosen["cited"] - chosen["right"] <= base["cited"] - base["right"]


def test_training_questions_leave_out_the_held_back_split_and_the_held_out_checks():
    items = training_items()
    assert items and all(i.split != "test" and i.kind == "answerable" for i in items)
    assert not any(i.source_file in ("unseen_mix.jsonl", "crosslingual_short.jsonl") for i in items)


class SilentStakeholderEmbedder:
    """The question and the sentence on ecological data share one vector; every other text is orthogonal to them."""

    model_id = "silent-stakeholder-test"

    def embed(self, texts, kind="passage"):
        return np.asarray([[1.0, 0.0] if ("ecological" in t or "two dimensions" in t.lower()) else [0.0, 1.0]
                           for t in texts])


def test_an_added_sentence_pointing_back_is_quoted_with_the_sentence_before_it():
    """"In this case, ecological data ... may support the undertaking's materiality assessment" says nothing without
    "Nature may be considered as a silent stakeholder." before it: an article the choice adds is quoted as the
    composer's own are (seen on "What is double materiality?", where the added ESRS 1 application requirements were
    quoted from "In this case")."""
    sources = numbered(passage("eu-esrs", "ANNEX II › Double materiality"),
                       passage("eu-esrs", "ESRS 1 › Appendix A › Double materiality", "silent stakeholder"))
    question = "What are the two dimensions of double materiality?"
    plan = plan_question(question)
    composer = Composer(sources, embedder=SilentStakeholderEmbedder())
    selection = composer.select(plan)
    assert {u.source.index for u in selection.units} == {1}
    chooser = CitationChooser(TableBooster({1: 0.9, 2: 0.9}), keep_at=0.5, add_at=0.5)
    chosen = chooser.choose(composer, plan, selection)
    added = [s.text for u in chosen.units if u.source.index == 2 for s in u.segments]
    assert any(t.startswith("In this case, ecological data") for t in added)
    case = next(i for i, t in enumerate(added) if t.startswith("In this case"))
    assert case > 0 and added[case - 1] == "Nature may be considered as a silent stakeholder."
