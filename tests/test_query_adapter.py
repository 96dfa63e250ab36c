"""The question-vector adapter (issue 19): it learns a corpus's questions, travels with the ranker, serves search
only, and never changes the similarities the evidence grade reads."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from regintel.retrieval.chunking import corpus_version
from regintel.retrieval.query_adapter import QueryAdapter, train_query_adapter
from regintel.retrieval.ranker import LearnedRanker, fit
from regintel.retrieval.ranker_features import FEATURE_NAMES
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from tests.test_ranker import DIM, HashingEmbedder, ReverseRanker, bm25_over, synthetic_groups, tiny_index  # noqa: F401

lightgbm = pytest.importorskip("lightgbm")


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def skewed_questions(passages: np.ndarray, mixing: np.ndarray, rng: np.random.Generator, count: int):
    """Questions whose vectors are their gold passage's seen through ``mixing`` plus noise: plain cosine often
    finds another passage first; the inverse map is what an adapter should learn."""
    gold = rng.integers(0, len(passages), count)
    questions = unit(passages[gold] @ mixing + 0.05 * rng.standard_normal((count, passages.shape[1])))
    return questions, [[int(g)] for g in gold]


def write_obliqa_questions(path, questions):
    """An ObliQA-schema questions file of (question, gold passage ids) pairs."""
    path.write_text("\n".join(json.dumps({"qid": str(i), "question": q, "gold_pids": gold})
                              for i, (q, gold) in enumerate(questions)) + "\n")
    return path


def top1(questions: np.ndarray, gold, passages: np.ndarray) -> float:
    return float(np.mean([int(np.argmax(passages @ q)) == g[0] for q, g in zip(questions, gold)]))


def test_the_adapter_learns_how_a_corpus_asks_and_generalises_to_new_questions():
    rng = np.random.default_rng(5)
    dim = 24
    passages = unit(rng.standard_normal((300, dim)))
    mixing = np.eye(dim) + 2.0 * rng.standard_normal((dim, dim)) / np.sqrt(dim)
    train_q, train_gold = skewed_questions(passages, mixing, rng, 600)
    test_q, test_gold = skewed_questions(passages, mixing, rng, 200)
    adapter = train_query_adapter(train_q, train_gold, passages, epochs=30, learning_rate=3e-3)
    before, after = top1(test_q, test_gold, passages), top1(adapter.apply(test_q), test_gold, passages)
    assert before < 0.5 and after > 0.85, (before, after)  # measured: 0.29 -> 0.95
    assert adapter.training["questions"] == 600
    assert np.allclose(np.linalg.norm(adapter.apply(test_q), axis=1), 1.0, atol=1e-5)
    assert adapter.apply(test_q[0]).shape == (dim,)


def test_each_question_is_trained_against_the_passage_view_it_is_searched_in():
    """On a multilingual corpus a question reads a passage in another language by its cross-language vector: the
    adapter learns each question against its own view (session 58). Trained against the wrong view, it learns a map
    that the view searched does not reward."""
    rng = np.random.default_rng(11)
    dim = 24
    own = unit(rng.standard_normal((200, dim)))
    other = unit(own @ (np.eye(dim) + 1.5 * rng.standard_normal((dim, dim)) / np.sqrt(dim)))  # the same rows, read across
    mixing = np.eye(dim) + 2.0 * rng.standard_normal((dim, dim)) / np.sqrt(dim)
    train_q, train_gold = skewed_questions(other, mixing, rng, 600)  # questions asked of the cross-language view
    test_q, test_gold = skewed_questions(other, mixing, rng, 200)
    views = {"en": own, "fr": other}
    right = train_query_adapter(train_q, train_gold, views, views=["fr"] * 600, epochs=30, learning_rate=3e-3)
    wrong = train_query_adapter(train_q, train_gold, views, views=["en"] * 600, epochs=30, learning_rate=3e-3)
    assert top1(right.apply(test_q), test_gold, other) > top1(wrong.apply(test_q), test_gold, other) + 0.2
    assert top1(right.apply(test_q), test_gold, other) > 0.8
    with pytest.raises(ValueError, match="one view per question"):
        train_query_adapter(train_q, train_gold, views)


def test_one_view_trains_exactly_as_a_single_passage_matrix():
    rng = np.random.default_rng(3)
    passages = unit(rng.standard_normal((40, 12)))
    questions, gold = skewed_questions(passages, np.eye(12), rng, 90)
    plain = train_query_adapter(questions, gold, passages)
    viewed = train_query_adapter(questions, gold, {"en": passages}, views=["en"] * 90)
    assert np.array_equal(plain.matrix, viewed.matrix)


def test_no_labelled_question_gives_the_identity():
    passages = unit(np.random.default_rng(1).standard_normal((10, 8)))
    adapter = train_query_adapter(passages[:3], [[], [], []], passages)
    assert np.array_equal(adapter.matrix, np.eye(8, dtype=np.float32))
    assert np.allclose(adapter.apply(passages[:3]), passages[:3], atol=1e-6)


def test_an_adapter_survives_its_json_and_a_damaged_one_is_refused():
    matrix = np.random.default_rng(2).standard_normal((6, 6)).astype(np.float32)
    adapter = QueryAdapter(matrix, {"questions": 3})
    again = QueryAdapter.from_json(json.loads(json.dumps(adapter.to_json())))
    assert np.array_equal(again.matrix, matrix) and again.training == {"questions": 3}
    document = adapter.to_json()
    with pytest.raises(ValueError, match="square"):
        QueryAdapter.from_json({**document, "shape": [4, 9]})
    bad = matrix.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        QueryAdapter.from_json(QueryAdapter(bad).to_json())
    with pytest.raises(ValueError):
        QueryAdapter.from_json({**document, "float32_base64": "not base64!"})


def test_the_adapters_travel_with_the_ranker_and_a_damaged_one_disables_it(tmp_path, caplog):
    matrices, labels = synthetic_groups(questions=10)
    adapter = QueryAdapter(np.eye(4, dtype=np.float32) * 2, {"questions": 1})
    path = tmp_path / "ranker.json"
    LearnedRanker(fit(matrices, labels, rounds=5), adapters={"corpus-a": adapter}).save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and loaded.adapter_for("corpus-b") is None
    assert np.array_equal(loaded.adapter_for("corpus-a").matrix, adapter.matrix)
    document = json.loads(path.read_text())
    document["query_adapters"]["corpus-a"]["shape"] = [2, 8]
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        assert LearnedRanker.load(path) is None  # its features were computed with that adapter: all or nothing
    assert "square" in caplog.text


def test_search_uses_the_adapter_of_its_own_corpus_and_shows_plain_similarities(tiny_index):  # noqa: F811
    chunks, store = tiny_index
    question = "When must the controller notify a personal data breach?"
    plain = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=ReverseRanker())
    assert plain.query_adapter is None
    swap = np.eye(DIM, dtype=np.float32)[::-1].copy()  # reverses the hashed dimensions: another dense order
    ranker = ReverseRanker()
    ranker.adapters = {corpus_version(chunks): QueryAdapter(swap)}
    adapted = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=ranker)
    assert adapted.query_adapter is not None
    stage = adapted.first_stage(question, k=4)
    assert np.allclose(stage.query_vector, HashingEmbedder().embed([question])[0][::-1])
    assert np.allclose(stage.plain_vector, HashingEmbedder().embed([question])[0])
    assert stage.dense != plain.first_stage(question, k=4).dense
    # the ranker's cosine features read the vector the search used
    ids = [cid for cid, _ in stage.ordered(4)]
    column = FEATURE_NAMES.index("question_cosine")
    expected = [float(store.vectors([cid])[cid] @ stage.query_vector) for cid in ids]
    assert np.allclose(adapted.features.matrix(question, stage, ids)[:, column], expected, atol=1e-5)
    # the similarity shown and graded stays the plain cosine of question and passage
    by_id = {s.chunk_id: s.similarity for s in plain.search(question, k=4).sources}
    for source in adapted.search(question, k=4).sources:
        assert source.similarity == by_id[source.chunk_id]
    # another corpus (a passage more, or fewer) does not get this corpus's adapter
    other = SearchIndex(chunks[:-1], bm25_over(chunks[:-1]), store, HashingEmbedder(), FusionConfig(), ranker=ranker)
    assert other.query_adapter is None
    assert adapted.first_stage(question, k=4, mode="bm25").question_vector is None


def test_an_adapter_for_other_vectors_leaves_the_search_standing(tiny_index, caplog):  # noqa: F811
    chunks, store = tiny_index
    ranker = ReverseRanker()
    ranker.adapters = {corpus_version(chunks): QueryAdapter(np.eye(DIM + 8, dtype=np.float32))}
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=ranker)
    plain = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=ReverseRanker())
    question = "When must the controller notify a personal data breach?"
    with caplog.at_level(logging.WARNING):
        result = index.search(question, k=4)
    assert "query adapter not used" in caplog.text
    assert [s.chunk_id for s in result.sources] == [s.chunk_id for s in plain.search(question, k=4).sources]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        index.search(question, k=4)
    assert "query adapter not used" not in caplog.text  # said once, not on every search


def test_training_searches_each_obliqa_question_with_the_adapter_of_its_fold(tiny_index, tmp_path,  # noqa: F811
                                                                             monkeypatch):
    from regintel.bench.ranker import collect_obliqa, fold_of, normalised, obliqa_adapters

    chunks, store = tiny_index
    questions = [("When must the controller notify a personal data breach?", ["a33"]),
                 ("What makes processing lawful?", ["a6~1"]),
                 ("What is a personal data breach?", ["a4~def-12"]),
                 ("Can Member States keep more specific provisions?", ["a6~2"])]
    path = write_obliqa_questions(tmp_path / "obliqa_dev.jsonl", questions)
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig())
    per_fold, full = obliqa_adapters(index, [path], folds=2, seed=7, limit=None, log=lambda *_: None)
    assert set(per_fold) == {0, 1} and full.training["questions"] == 4
    assert sum(per_fold[f].training["questions"] for f in (0, 1)) == 4  # each fold trained on the other's questions
    used = []
    original = SearchIndex.first_stage

    def spy(self, question, *args, **kwargs):
        used.append((question, self.adapter))
        return original(self, question, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "first_stage", spy)
    groups = collect_obliqa(index, path, "obliqa", 4, None, lambda *_: None, lambda key: per_fold[fold_of(key, 2, 7)])
    assert [g.key for g in groups] == [normalised(q) for q, _ in questions]
    assert all(adapter is per_fold[fold_of(normalised(q), 2, 7)] for q, adapter in used)
    assert index.adapter is None  # the index searches as before once training is done
