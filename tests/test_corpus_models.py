"""Corpus models (issue 19): a ranker trained on one corpus's own questions, with its query adapter, ranks that
corpus only; every other corpus keeps the shared model; a damaged corpus model leaves the shared one serving."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from regintel.retrieval.chunking import corpus_version
from regintel.retrieval.query_adapter import QueryAdapter
from regintel.retrieval.question_memory import MEMORY_FEATURE_NAMES
from regintel.retrieval.ranker import LearnedRanker, fit, relative_feature_names
from regintel.retrieval.ranker_features import FEATURE_NAMES
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from tests.test_query_adapter import write_obliqa_questions
from tests.test_ranker import DIM, HashingEmbedder, ReverseRanker, bm25_over, synthetic_groups, tiny_index  # noqa: F401

lightgbm = pytest.importorskip("lightgbm")

# (a "what" question: one asking who, when or how has its definitions placed after the other passages)
QUESTION = "What must the controller do to notify a personal data breach?"


class ForwardRanker(LearnedRanker):
    """Keeps the first stage's order (scores fall with the rank), so a search shows which model ranked it."""

    def __init__(self, gap: float | None = None) -> None:
        super().__init__(booster=None, training={"tail_gap": gap} if gap is not None else {})

    def score(self, matrix, columns=None):
        return -matrix[:, FEATURE_NAMES.index("first_stage_rank")].astype(np.float64)


def test_a_corpus_model_ranks_its_own_corpus_only(tiny_index):  # noqa: F811
    chunks, store = tiny_index
    shared = ReverseRanker()
    shared.corpus_models = {corpus_version(chunks): ForwardRanker(gap=0.5)}
    own = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    fused = [s.chunk_id for s in SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(),
                                             FusionConfig()).search(QUESTION, k=4).sources]
    result = own.search(QUESTION, k=4)
    assert [s.chunk_id for s in result.sources] == fused  # the corpus model's order, not the shared reversal
    assert result.tail == 1  # its own tail gap: ranks 1 apart, a gap of 0.5 keeps the best alone
    other_chunks = chunks[:-1]
    other = SearchIndex(other_chunks, bm25_over(other_chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert other.corpus_ranker is shared
    fused_other = [s.chunk_id for s in SearchIndex(other_chunks, bm25_over(other_chunks), store, HashingEmbedder(),
                                                   FusionConfig()).search(QUESTION, k=4).sources]
    assert [s.chunk_id for s in other.search(QUESTION, k=4).sources] == list(reversed(fused_other))
    assert other.search(QUESTION, k=4).tail is None  # the shared model has no tail gap


def test_a_corpus_models_adapter_serves_its_corpus(tiny_index):  # noqa: F811
    chunks, store = tiny_index
    swap = np.eye(DIM, dtype=np.float32)[::-1].copy()
    corpus_model = ForwardRanker()
    corpus_model.adapters = {corpus_version(chunks): QueryAdapter(swap)}
    shared = ReverseRanker()
    shared.corpus_models = {corpus_version(chunks): corpus_model}
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert index.query_adapter is corpus_model.adapters[corpus_version(chunks)]
    assert shared.adapter_for(corpus_version(chunks)) is index.query_adapter
    assert np.allclose(index.first_stage(QUESTION, k=4).query_vector, HashingEmbedder().embed([QUESTION])[0][::-1])
    other = SearchIndex(chunks[:-1], bm25_over(chunks[:-1]), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert other.query_adapter is None


def test_corpus_models_travel_in_the_model_file_and_a_damaged_one_is_dropped(tmp_path, caplog):
    matrices, labels = synthetic_groups(questions=10)
    corpus = LearnedRanker(fit(matrices, labels, rounds=5, seed=3), training={"tail_gap": 0.75},
                           adapters={"corpus-a": QueryAdapter(np.eye(4, dtype=np.float32) * 2)})
    shared = LearnedRanker(fit(matrices, labels, rounds=5), training={"tail_gap": 1.5},
                           corpus_models={"corpus-a": corpus})
    path = tmp_path / "ranker.json"
    shared.save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and set(loaded.corpus_models) == {"corpus-a"}
    assert loaded.for_corpus("corpus-b") is loaded and loaded.for_corpus("corpus-a").tail_gap == 0.75
    assert np.allclose(loaded.for_corpus("corpus-a").score(matrices[0]), corpus.score(matrices[0]))
    assert np.allclose(loaded.score(matrices[0]), shared.score(matrices[0]))
    assert np.array_equal(loaded.adapter_for("corpus-a").matrix, np.eye(4, dtype=np.float32) * 2)
    assert loaded.adapter_for("corpus-b") is None

    document = json.loads(path.read_text())
    document["corpus_models"]["corpus-a"]["models"] = ["not a lightgbm model"]
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        survivor = LearnedRanker.load(path)
    assert survivor is not None and survivor.corpus_models == {}  # the shared model serves corpus-a
    assert survivor.for_corpus("corpus-a") is survivor and "corpus model corpus-a" in caplog.text
    assert np.allclose(survivor.score(matrices[0]), shared.score(matrices[0]))

    document["corpus_models"]["corpus-a"] = {**corpus.to_document(), "features_version": 1}
    path.write_text(json.dumps(document))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert LearnedRanker.load(path).corpus_models == {}
    assert "features v1" in caplog.text


@pytest.mark.slow  # trains boosters (10-17 s): in the full CI run, not the fast lane
def test_training_builds_the_obliqa_corpus_model_out_of_fold(tiny_index, tmp_path):  # noqa: F811
    from regintel.bench.ranker import MEMORY_CANDIDATES, obliqa_model

    chunks, store = tiny_index
    questions = [("When must the controller notify a personal data breach?", ["a33"]),
                 ("Notify the supervisory authority of a breach within how many hours?", ["a33"]),
                 ("What makes processing lawful?", ["a6~1"]),
                 ("Which conditions make a processing of data lawful?", ["a6~1"]),
                 ("What is a personal data breach?", ["a4~def-12"]),
                 ("Define a breach of personal data.", ["a4~def-12"]),
                 ("Can Member States keep more specific provisions?", ["a6~2"]),
                 ("May national law add specific provisions on lawfulness?", ["a6~2"])]
    path = write_obliqa_questions(tmp_path / "obliqa_dev.jsonl", questions)
    multi = write_obliqa_questions(tmp_path / "obliqa_mp_dev.jsonl",
                                   [("Breach notification and its definition", ["a33", "a4~def-12"])])
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig())
    model, report = obliqa_model(index, [path, multi], folds=2, seed=7, ensemble=1, candidates=4, limit=None,
                                 log=lambda *_: None)
    assert set(report["out_of_fold"]) == {"obliqa", "obliqa-mp"}
    assert report["out_of_fold"]["obliqa"]["questions"]["n"] == len(questions)
    assert set(model.adapters) == {corpus_version(chunks)}  # the adapter trained on every question, for this corpus
    assert model.training["questions"] == {"obliqa": len(questions), "obliqa-mp": 1}
    assert model.tail_gap == report["tail_filter"]["gap"]
    assert index.adapter is None
    # its labelled questions are its memory, one row per question of both files, answered by their gold passages
    assert model.memory is not None and len(model.memory) == len(questions) + 1
    assert model.memory.answers[-1] == ("a33", "a4~def-12")
    computed = FEATURE_NAMES + MEMORY_FEATURE_NAMES
    assert model.feature_names == computed + relative_feature_names(computed)  # each also read against the others
    assert model.training["question_memory"] == len(questions) + 1
    assert model.training["memory_candidates"] == MEMORY_CANDIDATES == model.memory_candidates
    assert model.training["relative_features"] is True
    # search serves it: the relative columns are derived from the computed ones over the question's candidates
    shared = ReverseRanker()
    shared.corpus_models = {corpus_version(chunks): model}
    served = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert served.corpus_ranker is model and served.search(questions[0][0], k=3).sources
    plain, _ = obliqa_model(index, [path, multi], folds=2, seed=7, ensemble=1, candidates=4, limit=None,
                            log=lambda *_: None, with_memory=False)
    assert plain.memory is None and plain.feature_names == FEATURE_NAMES + relative_feature_names(FEATURE_NAMES)
    before, _ = obliqa_model(index, [path, multi], folds=2, seed=7, ensemble=1, candidates=4, limit=None,
                             log=lambda *_: None, relative=False)  # --no-relative-features: session 74's model
    assert before.feature_names == computed and before.training["relative_features"] is False


def test_training_reads_memory_candidates_as_search_does_and_never_from_the_excluded_questions(tiny_index, tmp_path):  # noqa: F811
    """A training question's candidates are the first stage's plus the passages its nearest memorised questions
    answer, read without the excluded ones (its own fold, and the ranked fold while another is trained), with the
    features search computes for them and their labels."""
    from regintel.bench.ranker import collect_obliqa, memory_view, obliqa_memory

    chunks, store = tiny_index
    questions = [("When must the controller notify a personal data breach?", ["a33"]),
                 ("When must a controller notify a personal data breach?", ["a6~2"]),
                 ("What is a personal data breach?", ["a4~def-12"])]
    files = [write_obliqa_questions(tmp_path / "obliqa_dev.jsonl", questions),
             write_obliqa_questions(tmp_path / "obliqa_mp_dev.jsonl", [])]
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(rerank_candidates=1))
    groups = collect_obliqa(index, files[0], "obliqa", 1, None, lambda *_: None)
    assert [g.candidates for g in groups][0] == ["a33"]
    memory = obliqa_memory(index, files, None)
    view = memory_view(index, memory, nearest=1)
    itself = np.array([True, False, False])
    lent = view(groups[0], 0, itself)  # its nearest other question, by vector and by words, lends Article 6(2)
    assert lent.candidates[0] == "a33" and "a6~2" in lent.candidates[1:]
    assert list(lent.labels) == [1.0 if cid == "a33" else 0.0 for cid in lent.candidates]
    assert lent.features.shape == (len(lent.candidates), len(FEATURE_NAMES) + len(MEMORY_FEATURE_NAMES))
    assert np.allclose(lent.features[:, :len(FEATURE_NAMES)],
                       index.features.matrix(groups[0].question, groups[0].stage, lent.candidates), equal_nan=True)
    nothing = view(groups[0], 0, np.array([True, True, True]))
    assert nothing.candidates == ["a33"]
    assert "a6~2" not in view(groups[0], 0, np.array([True, True, False])).candidates
    assert groups[0].stage.fused.keys() == index.first_stage(groups[0].question).fused.keys()  # untouched
    plain = memory_view(index, memory, nearest=0)(groups[0], 0, itself)
    assert plain.candidates == ["a33"] and plain.features.shape[1] == len(FEATURE_NAMES) + len(MEMORY_FEATURE_NAMES)


def test_retraining_the_obliqa_model_alone_keeps_the_shared_model_of_the_file(tiny_index, tmp_path):  # noqa: F811
    """``train-ranker --obliqa-model-only``: the corpus model goes into the existing file, the shared model (the demo
    corpus's ranker) stays exactly as it was; without a model file there is nothing to put it into."""
    from types import SimpleNamespace

    from regintel.bench.ranker import retrain_obliqa_model

    chunks, store = tiny_index
    questions = [("When must the controller notify a personal data breach?", ["a33"]),
                 ("Notify the supervisory authority of a breach within how many hours?", ["a33"]),
                 ("What makes processing lawful?", ["a6~1"]),
                 ("Which conditions make a processing of data lawful?", ["a6~1"])]
    files = [write_obliqa_questions(tmp_path / "obliqa_dev.jsonl", questions),
             write_obliqa_questions(tmp_path / "obliqa_mp_dev.jsonl",
                                    [("Breach and its definition", ["a33", "a4~def-12"])])]
    matrices, labels = synthetic_groups(questions=10)
    path = tmp_path / "ranker.json"
    LearnedRanker(fit(matrices, labels, rounds=5), training={"tail_gap": 1.5,
                                                             "corpus_models": {"demo": "demo corpus"}}).save(path)
    shared_models = json.loads(path.read_text())["models"]
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig())
    args = SimpleNamespace(out=str(path), folds=2, seed=7, candidates=4, limit=None, dry_run=False, json=False,
                           no_question_memory=False)
    assert retrain_obliqa_model(args, None, index, files, ensemble=1) == 0
    saved = json.loads(path.read_text())
    assert saved["models"] == shared_models
    assert saved["training"]["corpus_models"] == {"demo": "demo corpus",
                                                  corpus_version(chunks): "ObliQA passages (--obliqa-model)"}
    loaded = LearnedRanker.load(path)
    corpus = loaded.for_corpus(corpus_version(chunks))
    assert corpus is not loaded and corpus.memory is not None and len(corpus.memory) == len(questions) + 1
    with pytest.raises(SystemExit, match="needs a model file"):
        retrain_obliqa_model(SimpleNamespace(**{**vars(args), "out": str(tmp_path / "none.json")}), None, index, files,
                             ensemble=1)


def test_a_new_shared_model_can_keep_the_corpus_models_of_the_file(tiny_index, tmp_path):  # noqa: F811
    """``train-ranker --keep-corpus-models``: a retrained shared model (the demo corpus's ranker) takes the corpus
    models of the existing file as they are, and they go on ranking their corpus; a file without corpus models has
    none to give."""
    from regintel.bench.ranker import kept_from

    chunks, _ = tiny_index
    matrices, labels = synthetic_groups(questions=10)
    path = tmp_path / "ranker.json"
    old = LearnedRanker(fit(matrices, labels, rounds=5))
    old.corpus_models = {corpus_version(chunks): LearnedRanker(fit(matrices, labels, seed=3, rounds=5))}
    old.training["corpus_models"] = {corpus_version(chunks): "ObliQA passages (--obliqa-model)"}
    old.save(path)
    new = LearnedRanker(fit(matrices, labels, seed=5, rounds=7))
    kept_from(new, path)
    new.save(tmp_path / "new.json")
    loaded = LearnedRanker.load(tmp_path / "new.json")
    corpus = loaded.for_corpus(corpus_version(chunks))
    assert corpus is not loaded
    assert np.allclose(corpus.score(matrices[0]), old.corpus_models[corpus_version(chunks)].score(matrices[0]))
    assert np.allclose(loaded.score(matrices[0]), new.score(matrices[0]))
    assert loaded.training["corpus_models"] == old.training["corpus_models"]
    LearnedRanker(fit(matrices, labels, rounds=5)).save(tmp_path / "plain.json")
    with pytest.raises(SystemExit, match="needs a model file with corpus models"):
        kept_from(new, tmp_path / "plain.json")


def test_a_corpus_model_serves_a_revision_of_its_corpus_that_keeps_nine_passages_in_ten(tiny_index):  # noqa: F811
    """A corpus model lists the passages it was trained on (``training["passages"]``); a corpus of another version
    that keeps nine in ten of them, and adds no more than one in ten, is served by it with its adapter (session 61:
    a chunking fix changed 6 % of the demo corpus's passages; the model trained on the earlier chunks answered as well,
    a retrain was a new draw, 8 looked-at answers lower). A larger change gets the shared model."""
    from regintel.retrieval.ranker import passage_keys

    trained = frozenset(f"{n:016x}" for n in range(100))
    corpus_model = ForwardRanker()
    corpus_model.training["passages"] = sorted(trained)
    corpus_model.adapters = {"trained-version": QueryAdapter(np.eye(4, dtype=np.float32) * 3)}
    shared = ReverseRanker()
    shared.corpus_models = {"trained-version": corpus_model}
    revised = frozenset(list(trained)[:92]) | frozenset(f"{n:016x}" for n in range(1000, 1008))
    assert shared.corpus_model_key("revised-version", revised) == "trained-version"
    assert shared.for_corpus("revised-version", revised) is corpus_model
    assert np.array_equal(shared.adapter_for("revised-version", revised).matrix, np.eye(4, dtype=np.float32) * 3)
    grown = trained | frozenset(f"{n:016x}" for n in range(1000, 1015))  # a document added: 15 new passages
    shrunk = frozenset(list(trained)[:85])
    for other in (grown, shrunk, frozenset()):
        assert shared.corpus_model_key("other-version", other) is None and shared.for_corpus("other-version", other) is shared
        assert shared.adapter_for("other-version", other) is None
    exact = ForwardRanker()
    shared.corpus_models["revised-version"] = exact  # a model trained on exactly this corpus comes first
    assert shared.for_corpus("revised-version", revised) is exact

    chunks, store = tiny_index  # through the search index: the passages it holds decide
    corpus_model = ForwardRanker()
    corpus_model.training["passages"] = sorted(passage_keys(c.content_hash for c in chunks))
    shared.corpus_models = {"trained-version": corpus_model}
    index = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert corpus_version(chunks) != "trained-version" and index.corpus_ranker is corpus_model
    smaller = SearchIndex(chunks[:-1], bm25_over(chunks[:-1]), store, HashingEmbedder(), FusionConfig(), ranker=shared)
    assert len(chunks) < 10 and smaller.corpus_ranker is shared  # one passage of a few gone: not nine in ten
