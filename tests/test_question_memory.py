"""Labelled questions as the ranker's memory (issue 19): the passages answering the questions closest to a new one
become features of a corpus model; the memory travels in the model file and feeds the search's re-ranking."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from regintel.retrieval.chunking import corpus_version
from regintel.retrieval.question_memory import ABSENT_RANK, MEMORY_FEATURE_NAMES, QuestionMemory
from regintel.retrieval.ranker import LearnedRanker, fit
from regintel.retrieval.ranker_features import FEATURE_NAMES
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from tests.test_ranker import (HashingEmbedder, ReverseRanker, bm25_over, hashed_vector, synthetic_groups,  # noqa: F401
                               tiny_index)

lightgbm = pytest.importorskip("lightgbm")

MEMORISED = [
    ("When must the controller notify a personal data breach to the supervisory authority?", ("a33",)),
    ("Which grounds make the processing of personal data lawful?", ("a6~1",)),
    ("What is a personal data breach?", ("a4~def-12",)),
    ("Can Member States keep more specific provisions on lawfulness?", ("a6~2", "a6~1")),
]


def memory() -> QuestionMemory:
    return QuestionMemory([q for q, _ in MEMORISED], np.stack([hashed_vector(q) for q, _ in MEMORISED]),
                          [a for _, a in MEMORISED])


def column(name: str) -> int:
    return MEMORY_FEATURE_NAMES.index(name)


def test_the_passages_of_the_closest_memorised_question_lead_and_unknown_ones_are_absent():
    question = "By when must a controller notify the supervisory authority of a data breach?"
    rows = memory().features(hashed_vector(question), question, ["a6~2", "a33", "unknown"])
    assert rows.shape == (3, len(MEMORY_FEATURE_NAMES))
    for measure in ("dense", "words"):
        a62, a33, unknown = rows[:, column(f"memory_{measure}_best")]
        assert a33 > a62 >= 0 and unknown == 0
        assert rows[1, column(f"memory_{measure}_rank")] == 0  # the closest question's passage comes first
        assert rows[1, column(f"memory_{measure}_gap")] == pytest.approx(0.0)
        assert rows[2, column(f"memory_{measure}_rank")] == ABSENT_RANK
        assert rows[1, column(f"memory_{measure}_votes")] > rows[0, column(f"memory_{measure}_votes")]
        # how close the memory comes at all is the same for every candidate
        assert len(set(rows[:, column(f"memory_{measure}_top")])) == 1


def test_a_passage_answering_several_close_questions_gathers_their_votes():
    question = "What makes processing lawful, and may Member States add provisions?"
    rows = memory().features(hashed_vector(question), question, ["a6~1", "a6~2"])
    votes = column("memory_dense_votes")
    assert rows[0, votes] > rows[1, votes]  # a6~1 answers two memorised questions, a6~2 one


def test_how_many_memorised_questions_a_passage_answers_whatever_the_question():
    """A prior over passages: a6~1 answers two memorised questions, a33 one, an unknown passage none; the
    questions of the excluded rows are not counted (training reads a memory without its own fold)."""
    question = "Anything at all about invoices?"
    count = column("memory_answered_count")
    rows = memory().features(hashed_vector(question), question, ["a6~1", "a33", "unknown"])
    assert list(rows[:, count]) == pytest.approx([np.log1p(2), np.log1p(1), 0.0])
    excluded = np.array([False, True, False, False])  # the question a6~1 answers alone
    rows = memory().features(hashed_vector(question), question, ["a6~1", "a33"], excluded)
    assert list(rows[:, count]) == pytest.approx([np.log1p(1), np.log1p(1)])
    assert memory().features(hashed_vector(question), question, ["a6~1"], np.ones(4, dtype=bool))[0, count] == 0


def test_excluded_questions_are_not_read():
    """Training reads a question's memory without its own fold: nothing of an excluded question may show."""
    question = MEMORISED[0][0]
    everything = memory().features(hashed_vector(question), question, ["a33"])
    assert everything[0, column("memory_dense_best")] == pytest.approx(1.0, abs=1e-5)  # itself, memorised
    excluded = np.array([True, False, False, False])
    without = memory().features(hashed_vector(question), question, ["a33"], excluded)
    assert without[0, column("memory_dense_best")] == 0 and without[0, column("memory_words_rank")] == ABSENT_RANK
    nothing = memory().features(hashed_vector(question), question, ["a33"], np.ones(4, dtype=bool))
    assert nothing[0, column("memory_dense_rank")] == ABSENT_RANK and nothing[0, column("memory_words_top")] == 0


def test_the_memory_survives_a_round_trip_and_refuses_broken_input():
    original = memory()
    copy = QuestionMemory.from_json(json.loads(json.dumps(original.to_json())))
    question = "How fast is a breach notified?"
    assert copy.questions == original.questions and copy.answers == original.answers
    assert np.allclose(copy.features(hashed_vector(question), question, ["a33", "a6~1"]),
                       original.features(hashed_vector(question), question, ["a33", "a6~1"]), atol=2e-3)
    with pytest.raises(ValueError, match="one vector and one answer list per question"):
        QuestionMemory(["a question"], np.zeros((2, 4)), [("p",)])
    document = original.to_json()
    document["float16_base64"] = __import__("base64").b64encode(
        np.full((4, len(original.vectors[0])), np.inf, dtype="<f2").tobytes()).decode()
    with pytest.raises(ValueError, match="non-finite"):
        QuestionMemory.from_json(document)


def memory_model(seed: int = 3) -> tuple[LearnedRanker, list[np.ndarray]]:
    matrices, labels = synthetic_groups(questions=10)
    wide = [np.hstack([m, np.zeros((len(m), len(MEMORY_FEATURE_NAMES)), np.float32)]) for m in matrices]
    names = FEATURE_NAMES + MEMORY_FEATURE_NAMES
    return LearnedRanker(fit(wide, labels, rounds=5, seed=seed, feature_names=names), names,
                         training={"tail_gap": 0.5}, memory=memory()), wide


def test_a_corpus_model_with_its_memory_travels_in_the_model_file(tmp_path, caplog):
    corpus, wide = memory_model()
    matrices, labels = synthetic_groups(questions=10)
    shared = LearnedRanker(fit(matrices, labels, rounds=5), corpus_models={"corpus-a": corpus})
    path = tmp_path / "ranker.json"
    shared.save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and loaded.memory is None
    own = loaded.for_corpus("corpus-a")
    assert own.memory is not None and own.memory.questions == corpus.memory.questions
    assert own.feature_names == FEATURE_NAMES + MEMORY_FEATURE_NAMES
    assert np.allclose(own.score(wide[0]), corpus.score(wide[0]))

    document = json.loads(path.read_text())
    del document["corpus_models"]["corpus-a"]["question_memory"]  # memory features named, memory gone
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        survivor = LearnedRanker.load(path)
    assert survivor is not None and survivor.corpus_models == {}  # the shared model serves corpus-a
    assert "features" in caplog.text


class MemoryRanker(LearnedRanker):
    """Ranks by the memory's dense vote alone: shows that search handed the memory features to the corpus model."""

    def __init__(self, remembered: QuestionMemory) -> None:
        super().__init__(booster=None, feature_names=FEATURE_NAMES + MEMORY_FEATURE_NAMES, memory=remembered)

    def score(self, matrix, columns=None):
        assert matrix.shape[1] == len(FEATURE_NAMES) + len(MEMORY_FEATURE_NAMES)
        assert tuple(columns) == FEATURE_NAMES + MEMORY_FEATURE_NAMES  # search names the columns it hands over
        return matrix[:, len(FEATURE_NAMES) + column("memory_dense_votes")].astype(np.float64)


def test_search_hands_the_memory_features_to_a_corpus_model_that_has_a_memory(tiny_index):  # noqa: F811
    chunks, store = tiny_index
    question = "When must the controller notify a personal data breach?"
    plain = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig())
    assert plain.search(question, k=4).sources[0].chunk_id == "a33"
    # a memory that says (for the test's sake) that this question was answered by Article 6(2)
    remembered = QuestionMemory([question], np.stack([hashed_vector(question)]), [("a6~2",)])
    shared = ReverseRanker()
    shared.corpus_models = {corpus_version(chunks): MemoryRanker(remembered)}
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert index.search(question, k=4).sources[0].chunk_id == "a6~2"


def test_the_nearest_questions_lend_their_passages_closest_first_once_each_and_never_an_excluded_ones():
    question = "When must the controller notify a personal data breach to the supervisory authority?"
    remembered = memory()
    nearest = remembered.neighbour_answers(hashed_vector(question), question, 1)
    assert nearest == ["a33"]  # the same question by vector and by words: its passage, once
    wider = remembered.neighbour_answers(hashed_vector(question), question, 4)
    assert wider[0] == "a33" and sorted(wider) == ["a33", "a4~def-12", "a6~1", "a6~2"]
    excluded = np.array([True, False, False, False])
    assert "a33" not in remembered.neighbour_answers(hashed_vector(question), question, 4, excluded)
    assert remembered.neighbour_answers(hashed_vector(question), question, 0) == []
    assert remembered.neighbour_answers(hashed_vector(question), question, 2, np.ones(4, dtype=bool)) == []


def memory_candidates_index(chunks, store, remembered: QuestionMemory, nearest: int) -> SearchIndex:
    """Re-ranks the first stage's single best passage (plus what the memory lends) with the memory's vote."""
    corpus = MemoryRanker(remembered)
    corpus.training = {"memory_candidates": nearest}
    shared = ReverseRanker()
    shared.corpus_models = {corpus_version(chunks): corpus}
    return SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(rerank_candidates=1),
                       ranker=shared)


def test_a_passage_the_first_stage_left_out_joins_the_ranking_when_the_memory_lends_it(tiny_index):  # noqa: F811
    chunks, store = tiny_index
    question = "When must the controller notify a personal data breach?"
    # the memory says (for the test's sake) that this question was answered by Article 6(2), a passage the
    # re-ranking's one first-stage candidate (Article 33) leaves out; and by passages the index does not hold
    remembered = QuestionMemory([question], np.stack([hashed_vector(question)]), [("a6~2", "gone", "fr1")])
    without = memory_candidates_index(chunks, store, remembered, nearest=0).search(question, k=1)
    assert [s.chunk_id for s in without.sources] == ["a33"]
    joined = memory_candidates_index(chunks, store, remembered, nearest=1).search(question, k=1)
    assert [s.chunk_id for s in joined.sources] == ["a6~2"]
    # it keeps the first stage's own score (one it found beyond the re-ranked candidates), under the best's
    assert 0 <= joined.sources[0].fused_score < without.sources[0].fused_score
    assert joined.sources[0].similarity > 0  # its similarity is still the question's cosine with it


def test_a_filtered_search_never_ranks_a_lent_passage_outside_its_filter(tmp_path):
    import chromadb

    from regintel.retrieval.vector_store import ChunkVectorStore
    from tests.test_ranker import CHUNKS, chunk

    chunks = [c for c in CHUNKS if c.language == "en"] + [
        chunk("dora19", "Article 19", "Article 19 — Reporting of major ICT-related incidents",
              "Financial entities shall report major ICT-related incidents to the competent authority.",
              document="dora", parent="dora19")]
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False))
    store = ChunkVectorStore(client, "memory_filter_test")
    store.upsert([c.chunk_id for c in chunks], np.stack([hashed_vector(c.embed_text) for c in chunks]),
                 [c.metadata() for c in chunks], [c.text for c in chunks])
    question = "When must the controller notify a personal data breach?"
    remembered = QuestionMemory([question], np.stack([hashed_vector(question)]), [("dora19",)])
    index = memory_candidates_index(chunks, store, remembered, nearest=1)
    assert [s.chunk_id for s in index.search(question, k=1).sources] == ["dora19"]
    filtered = index.search(question, k=1, filters={"document_id": ["gdpr"]})
    assert [s.document_id for s in filtered.sources] == ["gdpr"]


def test_memory_candidates_are_read_from_the_model_file_and_default_to_none(tmp_path):
    corpus, _ = memory_model()
    assert corpus.memory_candidates == 0  # trained before session 74: the first stage's candidates only
    corpus.training["memory_candidates"] = 20
    path = tmp_path / "ranker.json"
    matrices, labels = synthetic_groups(questions=10)
    LearnedRanker(fit(matrices, labels, rounds=5), corpus_models={"corpus-a": corpus}).save(path)
    assert LearnedRanker.load(path).for_corpus("corpus-a").memory_candidates == 20
    assert LearnedRanker(corpus.boosters, corpus.feature_names, training={"memory_candidates": 20}).memory_candidates \
        == 0  # no memory, nothing to lend


def test_every_model_of_the_committed_file_loads_and_the_obliqa_one_reads_its_new_columns():
    """A model trained on a feature the code does not compute is dropped at load (the shared model then serves its
    corpus): the committed file must ship none such. The ObliQA corpus model (the one with a memory) reads the order
    gaps and the answered count it was trained on, and scores a matrix of the computed columns."""
    from regintel.config import REPO_ROOT
    from regintel.retrieval.ranker import computed_feature_names

    path = REPO_ROOT / "data" / "ranker" / "ranker.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    model = LearnedRanker.load(path)
    assert model is not None and set(model.corpus_models) == set(stored["corpus_models"])
    remembering = [m for m in model.corpus_models.values() if m.memory is not None]
    assert len(remembering) == 1
    obliqa = remembering[0]
    for name in ("order_gap_first", "order_gap_leading", "memory_answered_count"):
        assert name in obliqa.feature_names and f"{name}_zscore" in obliqa.feature_names
    computed = computed_feature_names(with_memory=True)
    matrix = np.random.default_rng(7).random((12, len(computed)))
    scores = obliqa.score(matrix, computed)
    assert scores.shape == (12,) and np.isfinite(scores).all()
