"""The demo corpus's own model (session 58): a query adapter and a ranker trained on the corpus's labelled questions,
served for exactly that corpus version, trained and measured without a question's label reaching its own features."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regintel.bench.demo_model import FOLDS, confident_level_of, doubtful_level_of, fold_of, question_sets
from regintel.bench.ranker import Group, gold_articles
from regintel.bench.ranker_confidence import UNSEEN_CHECKS
from regintel.config import REPO_ROOT, Settings
from regintel.retrieval.chunking import chunk_document, corpus_version
from regintel.retrieval.corpus import read_document_text, scan_corpus
from regintel.retrieval.ranker import LearnedRanker, passage_keys

pytest.importorskip("lightgbm")


def exact_copies_embed(texts: list[str]) -> np.ndarray:
    """A vector per distinct text (cosine 1 only between equal texts): the near-copy filter then drops exact
    copies, which is what these tests can check without the embedding model."""
    vectors = np.zeros((len(texts), 4096), dtype=np.float32)
    for row, text in enumerate(texts):
        vectors[row, hash(text.strip().lower()) % 4096] = 1.0
    return vectors


def test_a_question_falls_in_one_fold_by_its_gold_articles():
    articles = frozenset({("eu-gdpr", "Article 33"), ("eu-gdpr", "Article 34")})
    assert fold_of(articles) == fold_of(frozenset(sorted(articles)))  # the order does not matter
    assert {fold_of(frozenset({("eu-gdpr", f"Article {n}")})) for n in range(1, 60)} == set(range(FOLDS))


def test_training_questions_leave_out_the_held_back_and_unseen_ones():
    base, checks, held_back, unseen = question_sets(exact_copies_embed)
    assert len(base) > 300 and len(checks) > 500 and len(held_back) > 200 and len(unseen) > 100
    training = {i.retrieval_query.strip().lower() for i in base + checks}
    measured = {i.retrieval_query.strip().lower() for i in held_back + unseen}
    assert not training & measured
    assert all(i.split != "test" for i in base + checks)
    assert not any(i.source_file in UNSEEN_CHECKS for i in checks)
    assert {i.source_file for i in unseen} == set(UNSEEN_CHECKS)


def test_the_confident_level_is_the_median_out_of_fold_score_of_check_questions_ranked_right():
    def group(dataset: str, labels: list[float]) -> Group:
        return Group(dataset, "k", [str(i) for i in range(len(labels))], np.zeros((len(labels), 1)), np.array(labels),
                     0.0, [])

    right = [group("demo-check", [1.0, 0.0]) for _ in range(3)]
    wrong = group("demo-check", [0.0, 1.0])
    trained_on = group("demo-train", [1.0, 0.0])  # not a check question: not read
    scores = {id(right[0]): np.array([1.0, 0.0]), id(right[1]): np.array([3.0, 0.5]),
              id(right[2]): np.array([2.0, -1.0]), id(wrong): np.array([9.0, 1.0]), id(trained_on): np.array([7.0, 0])}
    assert confident_level_of(right + [wrong, trained_on], scores) == 2.0


def test_the_doubtful_level_is_a_low_percentile_of_the_same_scores():
    """Under it the model doubts its first passage: the given percentile of the out-of-fold first-passage scores of
    the check questions whose first passage is gold (a question ranked wrong or trained on is not read)."""
    def group(dataset: str, labels: list[float]) -> Group:
        return Group(dataset, "k", [str(i) for i in range(len(labels))], np.zeros((len(labels), 1)), np.array(labels),
                     0.0, [])

    right = [group("demo-check", [1.0, 0.0]) for _ in range(11)]
    wrong = group("demo-check", [0.0, 1.0])
    trained_on = group("demo-train", [1.0, 0.0])
    scores = {id(g): np.array([float(n), -5.0]) for n, g in enumerate(right)}  # first passages scored 0 .. 10
    scores[id(wrong)], scores[id(trained_on)] = np.array([9.0, -1.0]), np.array([-9.0, -10.0])
    assert doubtful_level_of(right + [wrong, trained_on], scores, percentile=10.0) == 1.0
    assert doubtful_level_of(right, scores, percentile=50.0) == 5.0
    assert doubtful_level_of([wrong, trained_on], scores) is None  # nothing ranked right: no level


def demo_corpus() -> tuple[str, frozenset[str]]:
    """The shipped demo corpus's version and passages (as a corpus model lists those it was trained on)."""
    settings = Settings()
    chunks = []
    for document in scan_corpus(REPO_ROOT / "data" / "corpus").documents:
        chunks += chunk_document(document, read_document_text(document.path), settings.chunk_max_chars,
                                 settings.chunk_min_chars, settings.chunk_overlap_chars)
    return corpus_version(chunks), passage_keys(c.content_hash for c in chunks)


def test_the_committed_model_carries_the_demo_corpus_model_for_the_shipped_corpus():
    """The demo corpus as shipped is the corpus its corpus model was trained on, or a revision keeping nine passages
    in ten of it: a larger change to the corpus or the chunker orphans the model (the shared one then serves it), and
    this test says to retrain it (`python -m regintel.bench train-demo-model --write`)."""
    model = LearnedRanker.load(REPO_ROOT / "data" / "ranker" / "ranker.json")
    version, passages = demo_corpus()
    key = model.corpus_model_key(version, passages) if model is not None else None
    assert key is not None, "retrain: python -m regintel.bench train-demo-model --write"
    demo = model.for_corpus(version, passages)
    assert demo is model.corpus_models[key] and demo is not model
    assert model.adapter_for(version, passages) is demo.adapters[key]
    assert demo.adapters[key].matrix.shape == (384, 384)
    assert demo.confident_at is not None and 0.0 < demo.confident_at < 10.0
    assert demo.training["command"] == "python -m regintel.bench train-demo-model"
    assert Path(REPO_ROOT / "data" / "ranker" / "ranker.json").stat().st_size < 30_000_000


def test_gold_articles_of_an_item_are_its_fold_key():
    from regintel.bench.answers import EvalItem

    item = EvalItem("x", "dev", "answerable", "q", gold=[{"document_id": "eu-gdpr", "ref": "Article 4(7)"},
                                                        {"document_id": "eu-gdpr", "ref": "Article 6 (2/3)"}])
    assert gold_articles(item) == {("eu-gdpr", "Article 4"), ("eu-gdpr", "Article 6")}


def test_writing_the_demo_corpus_model_replaces_the_earlier_demo_corpus_model_only(tmp_path):
    """A corpus model serves one corpus version; after the corpus or its chunking changed, the earlier demo corpus
    model can never serve again (11 MB of dead weight each time): `train-demo-model --write` replaces it, and leaves
    the ObliQA corpus model and the shared model as they were."""
    import json

    from regintel.bench.demo_model import COMMAND, write_corpus_model

    class Written:
        def to_document(self):
            return {"models": ["new"]}

    path = tmp_path / "ranker.json"
    path.write_text(json.dumps({
        "models": ["shared"], "corpus_models": {"obliqa": {"models": ["o"]}, "old-demo": {"models": ["d"]}},
        "training": {"corpus_models": {"obliqa": "ObliQA passages (--obliqa-model)",
                                       "old-demo": f"demo corpus ({COMMAND})"}}}), encoding="utf-8")
    write_corpus_model(path, "new-demo", Written())
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["models"] == ["shared"]
    assert document["corpus_models"] == {"obliqa": {"models": ["o"]}, "new-demo": {"models": ["new"]}}
    assert document["training"]["corpus_models"] == {"obliqa": "ObliQA passages (--obliqa-model)",
                                                     "new-demo": f"demo corpus ({COMMAND})"}


@pytest.mark.parametrize("command, option", [("train-demo-model", "--ensemble"), ("train-demo-model", "--adapter-seeds"),
                                             ("train-ranker", "--ensemble")])
@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_training_commands_refuse_a_count_below_one_when_parsed(command, option, value, capsys):
    """`--ensemble 0` (or `--adapter-seeds 0`) is said to be wrong at once, by the parser, not after the minutes an
    adapter takes to train (nor turned silently into the default)."""
    from regintel.bench.__main__ import build_parser

    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args([command, option, value])
    assert raised.value.code == 2
    assert option in capsys.readouterr().err
    assert getattr(build_parser().parse_args([command, option, "3"]), option[2:].replace("-", "_")) == 3


def test_an_adapter_of_several_seeds_is_the_mean_of_their_maps():
    """`--adapter-seeds 3` serves one map: the mean of the maps trained with seeds s, s+1, s+2 (the seed orders the
    batches, so each map differs), and says which seeds it averaged."""
    from regintel.bench.demo_model import DemoAdapterData, LabelledQuestion
    from regintel.retrieval.query_adapter import train_query_adapter

    rng = np.random.default_rng(0)
    passages = rng.normal(size=(300, 8)).astype(np.float32)
    passages /= np.linalg.norm(passages, axis=1, keepdims=True)
    vectors = (passages[:200] + 0.8 * rng.normal(size=(200, 8))).astype(np.float32)  # several batches an epoch
    questions = [LabelledQuestion(f"q{i}", None, [i], frozenset(), False, 0) for i in range(200)]
    data = object.__new__(DemoAdapterData)  # the views alone: no index needed to train
    data.views = {None: passages}

    single = [train_query_adapter(vectors, [[i] for i in range(200)], data.views, seed=s, views=[None] * 200).matrix
              for s in (5, 6, 7)]
    assert not np.allclose(single[0], single[1])
    averaged = data.train(questions, vectors, seed=5, seeds=3)
    np.testing.assert_allclose(averaged.matrix, np.mean(single, axis=0), rtol=1e-5, atol=1e-6)
    assert averaged.training["seeds"] == [5, 6, 7]
    np.testing.assert_allclose(data.train(questions, vectors, seed=6, seeds=1).matrix, single[1], rtol=1e-6)
    with pytest.raises(ValueError, match="at least one seed"):
        data.train(questions, vectors, seed=5, seeds=0)


def test_fold_model_files_each_carry_the_model_that_did_not_see_their_fold(tmp_path):
    """`train-demo-model --fold-models DIR`: one copy of the model file per fold, whose demo corpus model is that
    fold's ranker with that fold's adapter; the shared model and the other corpus models stay as they were, and the
    source file is left untouched."""
    import json

    from regintel.bench.demo_model import write_fold_models

    class FoldRanker:
        def __init__(self, fold):
            self.fold, self.adapters, self.training = fold, {}, {}

        def to_document(self):
            return {"fold": self.fold, "adapter": self.adapters["demo"], "training": self.training}

    source = tmp_path / "ranker.json"
    original = {"models": ["shared"], "corpus_models": {"obliqa": {"models": ["o"]}},
                "training": {"corpus_models": {"obliqa": "ObliQA passages (--obliqa-model)"}}}
    source.write_text(json.dumps(original), encoding="utf-8")
    written = write_fold_models(tmp_path / "folds", source, "demo", {f: FoldRanker(f) for f in range(FOLDS)},
                                {f: f"adapter-{f}" for f in range(FOLDS)}, {"seed": 7})
    assert [p.name for p in written] == [f"fold-{f}.json" for f in range(FOLDS)]
    for fold, path in enumerate(written):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["models"] == ["shared"] and document["corpus_models"]["obliqa"] == {"models": ["o"]}
        assert document["corpus_models"]["demo"] == {"fold": fold, "adapter": f"adapter-{fold}",
                                                     "training": {"seed": 7, "fold": fold, "trained_without_fold": fold}}
    assert json.loads(source.read_text(encoding="utf-8")) == original


@pytest.mark.parametrize("command, option", [("train-citations", "--folds"), ("train-ranker", "--folds"),
                                             ("guardrails", "--folds")])
@pytest.mark.parametrize("value", ["1", "0", "x"])
def test_cross_fitting_commands_refuse_fewer_than_two_folds_when_parsed(command, option, value, capsys):
    from regintel.bench.__main__ import build_parser

    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args([command, option, value])
    assert raised.value.code == 2 and option in capsys.readouterr().err
    assert build_parser().parse_args([command, option, "3"]).folds == 3


@pytest.mark.parametrize("command, option", [("load", "--sessions"), ("load", "--turns"), ("load", "--tenants"),
                                             ("load", "--processes"), ("conversation", "--turns"),
                                             ("train-ranker", "--candidates"), ("answers", "--limit"),
                                             ("retrieval", "--k"), ("chat", "--limit"), ("train-citations", "--limit")])
def test_bench_counts_below_one_are_refused_when_parsed(command, option, capsys):
    required = {"retrieval": ["--passages", "p.jsonl", "--questions", "q.json"], "chat": ["--questions", "q.json"]}
    """`load --sessions 0` or `answers --limit -1` is said to be wrong by the parser, not met as an empty run or a
    crash minutes later."""
    from regintel.bench.__main__ import build_parser

    for value in ("0", "-1"):
        with pytest.raises(SystemExit) as raised:
            build_parser().parse_args([command, *required.get(command, []), option, value])
        assert raised.value.code == 2 and option in capsys.readouterr().err
    parsed = build_parser().parse_args([command, *required.get(command, []), option, "2"])
    assert getattr(parsed, option[2:].replace("-", "_")) == 2


def test_memory_candidates_may_be_none_but_never_negative_or_a_word(capsys):
    """`train-ranker --memory-candidates 0` trains the ObliQA corpus model on the first stage's candidates only; a
    negative count or a word is refused by the parser; left out, the trainer's default applies."""
    from regintel.bench.__main__ import build_parser

    for value in ("-1", "x"):
        with pytest.raises(SystemExit) as raised:
            build_parser().parse_args(["train-ranker", "--memory-candidates", value])
        assert raised.value.code == 2 and "--memory-candidates" in capsys.readouterr().err
    assert build_parser().parse_args(["train-ranker", "--memory-candidates", "0"]).memory_candidates == 0
    assert build_parser().parse_args(["train-ranker"]).memory_candidates is None


def test_corpus_models_read_features_against_the_other_candidates_unless_told_not_to():
    """`train-ranker` (the ObliQA corpus model) and `train-demo-model` train with each feature also read against the
    question's other candidates; `--no-relative-features` trains the models before (sessions 74 and 75)."""
    from regintel.bench.__main__ import build_parser

    for command in ("train-ranker", "train-demo-model"):
        assert build_parser().parse_args([command]).no_relative_features is False
        assert build_parser().parse_args([command, "--no-relative-features"]).no_relative_features is True
    assert build_parser().parse_args(["train-demo-model"]).no_order_gaps is False
    assert build_parser().parse_args(["train-demo-model", "--no-order-gaps"]).no_order_gaps is True


def test_the_demo_corpus_ranker_reads_its_own_columns_and_their_readings_as_search_serves_them():
    """The demo corpus ranker is trained on the computed features less the latent terms, each also read against the
    question's other candidates; served search's full rows (latent columns missing), it scores them as in training."""
    from regintel.bench.demo_model import MODEL_COLUMNS, WITHOUT_ORDER_GAPS, model_names, model_view, train_ranker
    from regintel.retrieval.latent_terms import FEATURE_NAMES as LATENT
    from regintel.retrieval.ranker_features import FEATURE_NAMES

    assert not set(LATENT) & set(MODEL_COLUMNS) and len(MODEL_COLUMNS) == len(FEATURE_NAMES) - len(LATENT)
    assert model_names(()) == MODEL_COLUMNS and len(model_names()) == 3 * len(MODEL_COLUMNS)
    # the committed model's columns: the same less the two order gaps (train-demo-model --no-order-gaps)
    assert model_names((), WITHOUT_ORDER_GAPS) == WITHOUT_ORDER_GAPS
    assert set(MODEL_COLUMNS) - set(WITHOUT_ORDER_GAPS) == {"order_gap_first", "order_gap_leading"}
    rng = np.random.default_rng(3)
    column = FEATURE_NAMES.index("bm25_score")

    def group(fold: int) -> Group:
        features = rng.random((12, len(FEATURE_NAMES)))
        features[:, [FEATURE_NAMES.index(n) for n in LATENT]] = np.nan  # search leaves them missing
        features[:, column] *= rng.uniform(1, 50)  # each question's own scale
        labels = np.zeros(12)
        labels[int(np.argmax(features[:, column]))] = 1.0
        return Group("demo-check", f"q{fold}", [str(i) for i in range(12)], features, labels, 0.0, None, fold=fold)

    groups = [group(i % FOLDS) for i in range(80)]
    viewed = model_view(groups)
    assert viewed[0].features.shape == (12, len(model_names())) and not np.isnan(viewed[0].features).any()
    assert np.array_equal(viewed[0].features[:, : len(MODEL_COLUMNS)],
                          groups[0].features[:, [FEATURE_NAMES.index(n) for n in MODEL_COLUMNS]])
    model = train_ranker(viewed, seed=7, ensemble=1, names=model_names())
    assert model.feature_names == model_names()
    for raw, seen in zip(groups[:5], viewed[:5]):
        assert np.allclose(model.score(raw.features, FEATURE_NAMES), model.score(seen.features))
