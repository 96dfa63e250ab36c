"""The learned second-stage ranker (issue 19): features on a tiny index, a deterministic model, the fallback."""

from __future__ import annotations

import hashlib
import json
import logging
import re

import numpy as np
import pytest

from regintel.graph.crossrefs import chunk_references
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.ranker import (LearnedRanker, fit, fit_ensemble, relative_feature_names,
                                      with_relative_features)
from regintel.retrieval.ranker_features import FEATURE_NAMES, FEATURES_VERSION, FeatureBuilder, FirstStage
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from regintel.retrieval.vector_store import ChunkVectorStore

lightgbm = pytest.importorskip("lightgbm")
DIM = 64


def chunk(cid: str, ref: str, heading: str, text: str, document: str = "gdpr", language: str = "en",
          parent: str = "") -> Chunk:
    return Chunk(chunk_id=cid, document_id=document, title="General Data Protection Regulation", ref=ref,
                 heading=heading, section_path="", text=text, jurisdiction="EU", language=language,
                 authority_level="eu_regulation", source_url="", position=0, parent=parent)


CHUNKS = [
    chunk("a6~1", "Article 6 (1/2)", "Article 6 — Lawfulness of processing",
          "1. Processing shall be lawful only if at least one of the following applies: (a) the data subject has "
          "given consent; (b) processing is necessary for the performance of a contract; (c) legal obligation;",
          parent="a6"),
    chunk("a6~2", "Article 6 (2/2)", "Article 6 — Lawfulness of processing",
          "2. Member States may maintain more specific provisions to adapt the application of the rules.", parent="a6"),
    chunk("a4~def-12", "Article 4(12)", "Article 4 — Definitions",
          "(12) ‘personal data breach’ means a breach of security leading to the accidental or unlawful destruction, "
          "loss or alteration of personal data", parent="a4"),
    chunk("a33", "Article 33", "Article 33 — Notification of a personal data breach to the supervisory authority",
          "In the case of a personal data breach, the controller shall without undue delay and, where feasible, not "
          "later than 72 hours after having become aware of it, notify the breach referred to in Article 4. "
          "The processor shall notify the controller.", parent="a33"),
    chunk("fr1", "Article 226", "Article 226 — Mentions obligatoires",
          "La facture doit comporter les mentions suivantes: la date d'émission; un numéro séquentiel.",
          document="vat", language="fr", parent="fr226"),
]


def hashed_vector(text: str) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return vector / (np.linalg.norm(vector) or 1.0)


class HashingEmbedder:
    """Bag of hashed words: a deterministic stand-in for the embedding model (no model load)."""

    model_id = "hashing-test"

    def embed(self, texts, kind="passage"):
        return np.stack([hashed_vector(t) for t in texts])


def bm25_over(chunks) -> BM25Index:
    index = BM25Index()
    index.build([c.chunk_id for c in chunks], [c.index_text for c in chunks], [c.language for c in chunks])
    return index


def stage_for(question: str, fused: dict[str, float]) -> FirstStage:
    return FirstStage(fused=fused, dense={k: v / 2 for k, v in fused.items()}, lexical={k: v * 3 for k, v in fused.items()},
                      query_vector=hashed_vector(question), feedback_vector=None, query_language="en")


def features_of(question: str, fused: dict[str, float], references=None) -> dict[str, dict[str, float]]:
    chunks = {c.chunk_id: c for c in CHUNKS}
    builder = FeatureBuilder(chunks, bm25_over(CHUNKS), references)
    ids = list(fused)
    matrix = builder.matrix(question, stage_for(question, fused), ids)
    assert matrix.shape == (len(ids), len(FEATURE_NAMES))
    return {cid: dict(zip(FEATURE_NAMES, map(float, row))) for cid, row in zip(ids, matrix)}


def test_features_read_the_question_against_each_passage():
    rows = features_of("Which grounds make processing lawful under Article 6?",
                       {"a33": 0.9, "a6~1": 0.8, "a6~2": 0.7, "a4~def-12": 0.2})
    assert rows["a33"]["first_stage_rank"] == 1 and rows["a6~1"]["first_stage_rank"] == 2
    assert rows["a6~1"]["reference_match"] == 1.0 and rows["a33"]["reference_match"] == 0.0
    assert rows["a6~1"]["heading_coverage"] > rows["a33"]["heading_coverage"]
    assert rows["a6~1"]["list_points"] >= 3 and rows["a6~2"]["list_points"] == 0
    assert rows["a6~1"]["part_position"] == 0.5 and rows["a6~1"]["is_part"] == 1.0 and rows["a33"]["is_part"] == 0.0
    assert rows["a4~def-12"]["is_definition"] == 1.0 and rows["a33"]["is_definition"] == 0.0
    assert rows["a33"]["obligation_density"] > 0 and rows["a6~2"]["obligation_density"] == 0
    # the other part of Article 6 is among the leading three: both parts know it
    assert rows["a6~1"]["same_unit_as_leading"] == 1.0 and rows["a4~def-12"]["same_unit_as_leading"] == 0.0
    assert rows["a6~2"]["unit_best_other"] == pytest.approx(0.8 / 0.9, abs=1e-5)
    assert rows["a33"]["first_stage_relative"] == pytest.approx(1.0)


def test_order_gaps_measure_how_far_a_passage_sits_from_the_leading_ones_in_its_document():
    """Passages are placed by their position in their document: the gap to the first-stage leader, and to the
    nearest of the three leading passages (itself left out); another document's passage, or the leader itself with
    no other leading passage of its document, gets the cap."""
    from dataclasses import replace

    from regintel.retrieval.ranker_features import ORDER_GAP_CAP

    placed = [replace(c, position=p) for c, p in zip(CHUNKS, (10, 11, 2, 40, 5))]
    chunks = {c.chunk_id: c for c in placed}
    builder = FeatureBuilder(chunks, bm25_over(placed))
    question = "When is a breach notified?"
    fused = {"a6~1": 0.9, "fr1": 0.8, "a33": 0.7, "a6~2": 0.3, "a4~def-12": 0.2}
    matrix = builder.matrix(question, stage_for(question, fused), list(fused))
    rows = {cid: dict(zip(FEATURE_NAMES, map(float, row))) for cid, row in zip(fused, matrix)}
    assert rows["a6~2"]["order_gap_first"] == 1 and rows["a6~2"]["order_gap_leading"] == 1
    assert rows["a4~def-12"]["order_gap_first"] == 8 and rows["a4~def-12"]["order_gap_leading"] == 8
    assert rows["a33"]["order_gap_first"] == 30 and rows["a33"]["order_gap_leading"] == 30
    assert rows["a6~1"]["order_gap_first"] == ORDER_GAP_CAP and rows["a6~1"]["order_gap_leading"] == 30
    assert rows["fr1"]["order_gap_first"] == ORDER_GAP_CAP == rows["fr1"]["order_gap_leading"]
    far = {**chunks, "a33": replace(chunks["a33"], position=400)}
    assert FeatureBuilder(far, bm25_over(placed)).order_gap("a33", ["a6~1"]) == ORDER_GAP_CAP


def test_definition_question_numbers_and_the_reference_graph():
    references = chunk_references(CHUNKS)
    assert references["a33"] == frozenset({"a4~def-12"})  # "referred to in Article 4" -> Article 4's passages
    rows = features_of("What does 'personal data breach' mean, and is 72 hours the deadline?",
                       {"a33": 0.9, "a4~def-12": 0.5, "a6~1": 0.4}, references)
    assert all(r["definition_question"] == 1.0 for r in rows.values())
    assert rows["a33"]["number_matches"] == 1.0 and rows["a6~1"]["number_matches"] == 0.0
    assert rows["a4~def-12"]["cited_by_leading"] == 1.0 and rows["a4~def-12"]["cites_leading"] == 0.0
    assert rows["a33"]["cites_leading"] == 1.0
    assert rows["a4~def-12"]["phrase_matches"] >= 2  # "personal data", "data breach"


def test_a_passage_in_another_language_is_marked_and_matched_through_the_plan():
    rows = features_of("What must an invoice contain?", {"fr1": 0.6, "a33": 0.5})
    assert rows["fr1"]["language_match"] == 0.0 and rows["a33"]["language_match"] == 1.0


def test_search_titles_meet_the_question_in_its_own_language():
    """A French article's English search title carries "invoice" to an English question, as words
    (gloss_coverage) and as a vector of the titles alone (titles_cosine); a passage without titles scores 0."""
    from dataclasses import replace

    titled = replace(CHUNKS[4], gloss="Content of invoices · Contenido de las facturas · Inhalt der Rechnungen")
    short = replace(CHUNKS[4], chunk_id="fr2", parent="fr244", ref="Article 244", heading="Article 244",
                    text="Tout assujetti veille à ce que soient stockées les factures.", gloss="Storage of invoices")
    chunks = {c.chunk_id: c for c in [*CHUNKS[:4], titled, short]}
    titles = {c.chunk_id: hashed_vector(c.titles_embed_text) for c in chunks.values() if c.gloss}
    builder = FeatureBuilder(chunks, bm25_over(list(chunks.values())), titles=lambda: titles)
    question = "What is the content of an invoice?"
    ids = ["fr2", "fr1", "a33"]
    matrix = builder.matrix(question, stage_for(question, {"fr2": 0.7, "fr1": 0.6, "a33": 0.5}), ids)
    rows = {cid: dict(zip(FEATURE_NAMES, map(float, row))) for cid, row in zip(ids, matrix)}
    assert rows["fr1"]["gloss_coverage"] > rows["fr2"]["gloss_coverage"] > 0.0 == rows["a33"]["gloss_coverage"]
    assert rows["fr1"]["gloss_idf_coverage"] > rows["fr2"]["gloss_idf_coverage"]
    assert rows["fr1"]["titles_cosine"] > rows["fr2"]["titles_cosine"] > 0.0 == rows["a33"]["titles_cosine"]
    assert rows["fr1"]["titles_cosine_gap"] == 0.0 and rows["fr2"]["titles_cosine_gap"] > 0.0
    assert rows["a33"]["titles_cosine_gap"] == 1.0  # no titles: as far from the best as a feature says
    assert titled.titles_embed_text.startswith("Article 226 — Mentions obligatoires\nContent of invoices")
    assert CHUNKS[0].titles_embed_text == ""


def synthetic_groups(seed: int = 3, questions: int = 60):
    """Groups where relevance follows one feature (reference_match) that the first stage does not see."""
    rng = np.random.default_rng(seed)
    matrices, labels = [], []
    column = FEATURE_NAMES.index("reference_match")
    for _ in range(questions):
        matrix = rng.random((20, len(FEATURE_NAMES))).astype(np.float32)
        matrix[:, column] = 0.0
        relevant = rng.integers(5, 20)
        matrix[relevant, column] = 1.0
        label = np.zeros(20)
        label[relevant] = 1.0
        matrices.append(matrix)
        labels.append(label)
    return matrices, labels


def test_training_is_deterministic_and_learns_the_signal(tmp_path):
    matrices, labels = synthetic_groups()
    first = LearnedRanker(fit(matrices, labels, seed=11, rounds=40))
    second = LearnedRanker(fit(matrices, labels, seed=11, rounds=40))
    held_out, held_labels = synthetic_groups(seed=99, questions=10)
    for matrix, label in zip(held_out, held_labels):
        scores = first.score(matrix)
        assert np.array_equal(scores, second.score(matrix))
        assert int(np.argmax(scores)) == int(np.argmax(label))
    path = tmp_path / "ranker.json"
    first.save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and np.allclose(loaded.score(held_out[0]), first.score(held_out[0]))
    assert max(first.importance(), key=first.importance().get) == "reference_match"


@pytest.mark.slow  # trains boosters (10-17 s): in the full CI run, not the fast lane
def test_an_ensemble_averages_boosters_of_consecutive_seeds_and_survives_a_round_trip(tmp_path):
    matrices, labels = synthetic_groups(questions=30)
    boosters = fit_ensemble(matrices, labels, seed=5, size=3)
    singles = [LearnedRanker(fit(matrices, labels, seed=seed)) for seed in (5, 6, 7)]
    ensemble = LearnedRanker(boosters)
    matrix = synthetic_groups(seed=42, questions=1)[0][0]
    expected = np.mean([single.score(matrix) for single in singles], axis=0)
    assert np.allclose(ensemble.score(matrix), expected)
    assert not np.allclose(singles[0].score(matrix), singles[1].score(matrix))  # the seeds do differ
    path = tmp_path / "ensemble.json"
    ensemble.save(path)
    assert len(json.loads(path.read_text())["models"]) == 3
    loaded = LearnedRanker.load(path)
    assert loaded is not None and len(loaded.boosters) == 3
    assert np.allclose(loaded.score(matrix), expected)
    with pytest.raises(ValueError, match="at least one"):
        fit_ensemble(matrices, labels, size=0)


def test_a_model_file_of_one_booster_in_the_earlier_format_still_loads(tmp_path):
    matrices, labels = synthetic_groups(questions=20)
    single = LearnedRanker(fit(matrices, labels, seed=3, rounds=20))
    document = {"features_version": FEATURES_VERSION, "feature_names": list(FEATURE_NAMES), "training": {},
                "model": single.booster.model_to_string()}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    loaded = LearnedRanker.load(path)
    assert loaded is not None and len(loaded.boosters) == 1
    assert np.allclose(loaded.score(matrices[0]), single.score(matrices[0]))


def test_a_model_for_other_features_or_no_model_is_not_used(tmp_path, caplog):
    assert LearnedRanker.load(tmp_path / "missing.json") is None
    matrices, labels = synthetic_groups(questions=10)
    path = tmp_path / "ranker.json"
    LearnedRanker(fit(matrices, labels, rounds=5)).save(path)
    document = json.loads(path.read_text())
    document["features_version"] = FEATURES_VERSION + 1
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        assert LearnedRanker.load(path) is None
    assert "retrain" in caplog.text
    path.write_text("{not json")
    assert LearnedRanker.load(path) is None
    with pytest.raises(ValueError, match="nothing to learn"):
        fit([np.zeros((3, len(FEATURE_NAMES)))], [np.zeros(3)])


def test_a_model_trained_before_a_feature_was_added_reads_its_own_columns(tmp_path, caplog):
    """A feature added under a new name leaves the models trained without it in use (only the model meant to use it
    is retrained): each reads its own columns of what search computes; a model naming a feature the code does not
    compute is not used."""
    matrices, labels = synthetic_groups(questions=20)
    older_names = tuple(name for name in FEATURE_NAMES if name != "titles_cosine_gap")  # as if added since
    dropped = FEATURE_NAMES.index("titles_cosine_gap")
    older = [np.delete(matrix, dropped, axis=1) for matrix in matrices]
    model = LearnedRanker(fit(older, labels, seed=3, rounds=20, feature_names=older_names), older_names)
    path = tmp_path / "older.json"
    model.save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and loaded.feature_names == older_names
    full = matrices[0].copy()
    full[:, dropped] = 1e6  # the new feature's column: never read by the older model
    assert np.allclose(loaded.score(full, FEATURE_NAMES), model.booster.predict(older[0]))
    assert np.allclose(loaded.score(full, loaded.computed_columns()), loaded.score(older[0]))
    document = json.loads(path.read_text())
    document["feature_names"] = list(older_names) + ["a_feature_the_code_does_not_compute"]
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        assert LearnedRanker.load(path) is None
    assert "a_feature_the_code_does_not_compute" in caplog.text and "retrain" in caplog.text


def test_a_feature_read_against_the_other_candidates_is_its_value_less_the_best_and_its_z_score():
    matrix = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, -1.0]])
    below_best = np.array([[-2.0, 0.0], [0.0, 0.0], [-1.0, -6.0]])
    z = np.array([[-np.sqrt(1.5), np.sqrt(0.5)], [np.sqrt(1.5), np.sqrt(0.5)], [0.0, -np.sqrt(2.0)]])
    assert np.allclose(with_relative_features(matrix), np.hstack([matrix, below_best, z]))
    assert np.array_equal(with_relative_features(matrix, ["_below_best"]), np.hstack([matrix, below_best]))
    flat = with_relative_features(np.array([[4.0], [4.0]]), ["_zscore"])  # equal in every candidate: z-score 0
    assert np.array_equal(flat, np.array([[4.0, 0.0], [4.0, 0.0]]))
    assert with_relative_features(np.zeros((0, 2))).shape == (0, 6)
    assert relative_feature_names(("bm25_score", "log_length")) == (
        "bm25_score_below_best", "log_length_below_best", "bm25_score_zscore", "log_length_zscore")
    with pytest.raises(ValueError, match="unknown relative reading"):
        with_relative_features(matrix, ["_rank"])


def level_groups(seed: int, questions: int):
    """Groups whose relevant passage has the highest BM25 of its question, on a scale that changes with every
    question (a raw score of 30 leads one question and trails another)."""
    rng = np.random.default_rng(seed)
    column = FEATURE_NAMES.index("bm25_score")
    matrices, labels = [], []
    for _ in range(questions):
        matrix = rng.random((20, len(FEATURE_NAMES)))
        level = rng.uniform(1.0, 100.0)
        matrix[:, column] = level * rng.uniform(0.2, 0.9, 20)
        relevant = rng.integers(0, 20)
        matrix[relevant, column] = level
        label = np.zeros(20)
        label[relevant] = 1.0
        matrices.append(matrix)
        labels.append(label)
    return matrices, labels


def test_a_model_reading_features_against_the_other_candidates_scores_search_rows_as_in_training(tmp_path, caplog):
    """Search hands over the computed columns; a model trained on features read against the question's candidates
    (``*_below_best``) derives them itself, so it scores a question's rows exactly as in training, and learns what
    only the relative reading shows. A relative feature of a column the code does not compute is refused."""
    names = FEATURE_NAMES + relative_feature_names(FEATURE_NAMES)
    matrices, labels = level_groups(seed=5, questions=60)
    model = LearnedRanker(fit([with_relative_features(m) for m in matrices], labels, seed=3, rounds=40,
                              feature_names=names), names)
    path = tmp_path / "relative.json"
    model.save(path)
    loaded = LearnedRanker.load(path)
    assert loaded is not None and loaded.feature_names == names
    held_out, held_labels = level_groups(seed=77, questions=10)
    for matrix, label in zip(held_out, held_labels):
        served = loaded.score(matrix, FEATURE_NAMES)
        assert np.allclose(served, model.score(with_relative_features(matrix)))
        assert int(np.argmax(served)) == int(np.argmax(label))
    raw = LearnedRanker(fit(matrices, labels, seed=3, rounds=40))  # the raw values alone: 3 of the 10 found
    assert sum(int(np.argmax(raw.score(m))) == int(np.argmax(y)) for m, y in zip(held_out, held_labels)) < 8
    # a model reading one of the readings (session 75's files: ``*_below_best`` only) is served that one alone
    older = FEATURE_NAMES + relative_feature_names(FEATURE_NAMES, ["_below_best"])
    one_reading = LearnedRanker(fit([with_relative_features(m, ["_below_best"]) for m in matrices], labels, seed=3,
                                    rounds=40, feature_names=older), older)
    for matrix in held_out:
        assert np.allclose(one_reading.score(matrix, FEATURE_NAMES),
                           one_reading.score(with_relative_features(matrix, ["_below_best"])))
    document = json.loads(path.read_text())
    document["feature_names"][-1] = "not_computed_below_best"
    path.write_text(json.dumps(document))
    with caplog.at_level(logging.WARNING):
        assert LearnedRanker.load(path) is None
    assert "not_computed_below_best" in caplog.text


@pytest.fixture()
def tiny_index(tmp_path):
    import chromadb

    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False))
    store = ChunkVectorStore(client, "ranker_test")
    english = [c for c in CHUNKS if c.language == "en"]
    store.upsert([c.chunk_id for c in english], np.stack([hashed_vector(c.embed_text) for c in english]),
                 [c.metadata() for c in english], [c.text for c in english])
    return english, store


class ReverseRanker(LearnedRanker):
    """A ranker that puts the first stage's order upside down: visible proof that search used it."""

    def __init__(self) -> None:
        super().__init__(booster=None)

    def score(self, matrix, columns=None):
        return matrix[:, FEATURE_NAMES.index("first_stage_rank")].astype(np.float64)


def test_search_uses_the_ranker_when_there_is_one_and_the_fusion_otherwise(tiny_index):
    chunks, store = tiny_index
    plain = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig())
    # (a "what" question: one asking who, when or how has its definitions placed after the other passages)
    question = "What must the controller do to notify a personal data breach?"
    fused_order = [s.chunk_id for s in plain.search(question, k=4).sources]
    assert fused_order[0] == "a33"
    reranked = SearchIndex(chunks, bm25_over(chunks), store, HashingEmbedder(), FusionConfig(), ranker=ReverseRanker())
    result = reranked.search(question, k=4)
    assert [s.chunk_id for s in result.sources] == list(reversed(fused_order))
    assert "rerank" in result.timings_ms
    assert [s.ranker_score for s in result.sources] == sorted((s.ranker_score for s in result.sources), reverse=True)
    assert all(s.ranker_score is None for s in plain.search(question, k=4).sources)
    # dense or bm25 mode is never re-ranked
    assert [s.chunk_id for s in reranked.search(question, k=4, mode="bm25").sources] == \
        [s.chunk_id for s in plain.search(question, k=4, mode="bm25").sources]


def test_search_titles_vectors_come_once_from_the_embedder_and_a_failure_leaves_the_search_standing(tiny_index, caplog,
                                                                                                    monkeypatch):
    from dataclasses import replace

    import regintel.retrieval.search_index as search_index_module

    chunks, store = tiny_index
    titled = [replace(c, gloss="Licéité du traitement · Rechtmäßigkeit") if c.parent == "a6" else c for c in chunks]

    class Counting(HashingEmbedder):
        calls: list[list[str]] = []

        def embed(self, texts, kind="passage"):
            self.calls.append(list(texts))
            return super().embed(texts, kind)

    counting = Counting()
    index = SearchIndex(titled, bm25_over(titled), store, counting, FusionConfig(), ranker=ReverseRanker())
    vectors = index.titles_vectors()
    assert set(vectors) == {"a6~1", "a6~2"}  # the two parts of Article 6 share one titles text, embedded once
    assert counting.calls == [[titled[0].titles_embed_text]] and index.titles_vectors() is vectors

    class Failing(HashingEmbedder):
        down = True
        attempts = 0

        def embed(self, texts, kind="passage"):
            if any(text.startswith("Article 6 — Lawfulness of processing\nLicéité") for text in texts):
                self.attempts += 1
                if self.down:
                    raise RuntimeError("embedding model unavailable")
            return super().embed(texts, kind)

    failing = Failing()
    broken = SearchIndex(titled, bm25_over(titled), store, failing, FusionConfig(), ranker=ReverseRanker())
    with caplog.at_level(logging.WARNING):  # a French question reads the English passages' titles: they fail
        assert broken.search("Quand le responsable du traitement doit-il notifier une violation ?", k=4).sources
    assert "search-title vectors unavailable" in caplog.text
    assert broken.titles_vectors() == {} and broken.titles_vectors() == {}
    assert failing.attempts == 1, "a broken embedder is not asked again at every search"
    failing.down = False
    monkeypatch.setattr(search_index_module.time, "monotonic",
                        lambda: broken._titles_failed_at + search_index_module.TITLES_RETRY_SECONDS + 1)
    assert set(broken.titles_vectors()) == {"a6~1", "a6~2"} and failing.attempts == 2, "tried again later"


def test_tail_filter_keeps_the_passages_close_to_the_best():
    from regintel.retrieval.ranker import choose_tail_gap, kept_by_gap

    assert kept_by_gap([3.0, 2.8, 2.5, 0.1], gap=0.6) == 3
    assert kept_by_gap([3.0, 0.1], gap=0.5) == 1 and kept_by_gap([], gap=1.0) == 0
    assert kept_by_gap([1.0] * 20, gap=1.0, most=8) == 8
    # two relevant passages close together, the rest far below: the best gap keeps exactly the two
    rankings = [([5.0, 4.8, 1.0, 0.9], [True, True, False, False]), ([4.0, 3.7, 0.5], [True, True, False])]
    gap, table = choose_tail_gap(rankings, grid=(0.1, 0.5, 3.0, 5.0))
    assert gap == 0.5 and table[0.5]["f1"] == 1.0 and table[0.1]["recall"] == 0.5 and table[5.0]["precision"] < 1.0


def test_demo_questions_share_a_fold_by_gold_article_and_are_scored_at_article_level():
    from regintel.bench.ranker import Group, dataset_metrics, fold_of, gold_key

    english = [{"document_id": "gdpr", "ref": "Article 17"}]
    spanish = [{"document_id": "gdpr", "ref": "Article 17"}]
    assert gold_key(english) == gold_key(spanish), "two phrasings of one question land in one fold"
    assert gold_key([{"document_id": "a", "ref": "Article 1"}, {"document_id": "a", "ref": "Article 2"}]) == gold_key(
        [{"document_id": "a", "ref": "Article 2"}, {"document_id": "a", "ref": "Article 1"}])
    assert fold_of(gold_key(english), 5, 7) == fold_of(gold_key(spanish), 5, 7)
    # a pseudo-query group (labels from its unit, no eval sources) is measured like a demo question, by its labels
    features = np.zeros((3, len(FEATURE_NAMES)), dtype=np.float32)
    pseudo = [Group("demo-pseudo", "gdpr#art-17", ["a", "b", "c"], features, np.array([0.0, 1.0, 0.0]), 0.0,
                    {"gdpr#art-17"})]
    assert dataset_metrics(pseudo, [[0, 1, 2]])["article_recall@1"] == 0.0
    assert dataset_metrics(pseudo, [[1, 0, 2]])["article_recall@1"] == 1.0
    assert dataset_metrics(pseudo, [[0, 1, 2]])["article_recall@3"] == 1.0


def test_the_ranker_training_questions_are_labelled_on_the_corpus_and_apart_from_the_evaluation_set():
    """data/ranker/questions: realistic questions written for training only. Every gold ref names a unit the chunker
    makes of the demo corpus, and none is an evaluation item (ids and texts apart: the held-back split measures a
    model trained on these)."""
    from regintel.bench.answers import default_files, load_items, source_matches
    from regintel.bench.ranker import TRAIN_QUESTIONS_DIR
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus
    from tests.conftest import CORPUS

    training = load_items(sorted(TRAIN_QUESTIONS_DIR.glob("*.jsonl")))
    assert len(training) >= 150
    assert all(i.split == "train" and i.kind == "answerable" and i.gold for i in training)
    assert {i.lang for i in training} >= {"en", "fr", "es", "de"}
    evaluation = load_items(default_files())
    assert not {i.id for i in training} & {i.id for i in evaluation}
    assert not {" ".join(i.question.lower().split()) for i in training} & {
        " ".join(i.question.lower().split()) for i in evaluation}
    refs = [(d.id, c.ref) for d in scan_corpus(CORPUS).documents for c in chunk_document(d, read_document_text(d.path))]
    unmatched = [(i.id, g) for i in training for g in i.gold
                 if not any(source_matches(document, ref, g) for document, ref in refs)]
    assert not unmatched


def test_check_questions_train_the_ranker_without_the_held_back_ones_or_their_near_copies():
    """``train-ranker --check-weight``: the check questions train the ranker. None of the held-back questions does,
    nor a question close to one of them about the same article (a translation of a held-back question would
    otherwise be measured on itself); a close question about another article stays."""
    from types import SimpleNamespace

    from regintel.bench.ranker import check_questions, without_near_copies

    training, held_back = check_questions()
    assert len(training) >= 800 and held_back
    assert all(i.kind == "answerable" and i.split != "test" for i in training)
    assert {i.id for i in held_back}.isdisjoint(i.id for i in training)

    def item(question, ref, document="gdpr"):
        return SimpleNamespace(question=question, gold=[{"document_id": document, "ref": ref}])

    vectors = {"held": [1.0, 0.0], "copy": [0.99, 0.05], "other article": [0.99, 0.05], "far": [0.0, 1.0]}
    held = [item("held", "Article 6(1)")]
    kept = without_near_copies([item("copy", "Article 6 (2/3)"), item("other article", "Article 7"),
                                item("far", "Article 6")], held, lambda texts: [vectors[t] for t in texts])
    assert [i.question for i in kept] == ["other article", "far"]


def test_the_confident_level_is_read_from_the_model_file_and_absent_from_a_model_trained_again(tmp_path):
    from regintel.bench.ranker_confidence import confident_level, write_level

    matrices, labels = synthetic_groups(questions=12)
    model = LearnedRanker(fit(matrices, labels, seed=3, rounds=10), training={"tail_gap": 1.5})
    path = tmp_path / "ranker.json"
    model.save(path)
    assert LearnedRanker.load(path).confident_at is None  # trained again: no level until measured
    before = json.loads(path.read_text())
    level = confident_level([(2.5, True), (1.0, True), (2.0, True), (3.9, False), (0.2, False)])
    assert level == 2.0  # the median score of the first passages that were gold ones
    write_level(path, level)
    after = json.loads(path.read_text())
    assert after["training"]["confident_at"] == 2.0 and after["training"]["tail_gap"] == 1.5
    assert {k: v for k, v in after.items() if k != "training"} == {k: v for k, v in before.items() if k != "training"}
    assert LearnedRanker.load(path).confident_at == 2.0
    with pytest.raises(ValueError, match="no check question"):
        confident_level([(3.0, False)])


def test_the_doubtful_level_is_read_from_the_model_file_and_absent_without_it():
    """`train-demo-model` writes `training.doubtful_below`; a model without it (older files, the shared model)
    doubts nothing, so the evidence grade reads no doubt."""
    model = LearnedRanker([], ("a",), training={"doubtful_below": 0.42})
    assert model.doubtful_below == 0.42
    assert LearnedRanker([], ("a",), training={}).doubtful_below is None


def test_the_committed_model_carries_its_confident_level():
    """The evidence grade's ranker anchor needs the level measured for the model in use (`python -m regintel.bench
    ranker-confidence --write`); a model file committed without it would silently drop the anchor."""
    from regintel.config import load_settings

    model = LearnedRanker.load(load_settings().ranker_model)
    assert model is not None and model.confident_at is not None and 0.0 < model.confident_at < 10.0
