"""Nearest-neighbour queries without a count first (regintel/retrieval/vector_store.py): fewer vectors than asked,
an empty collection, a Chroma that refuses more results than it holds, and a broken index."""

from __future__ import annotations

import chromadb
import numpy as np
import pytest

from regintel.errors import IndexError_
from regintel.retrieval.vector_store import ChunkVectorStore


@pytest.fixture()
def store(tmp_path):
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False))
    return ChunkVectorStore(client, "query_test")


def add(store: ChunkVectorStore, ids: list[str]) -> None:
    vectors = np.eye(4, dtype=np.float32)[: len(ids)]
    store.upsert(ids, vectors, [{"document_id": i} for i in ids], ids)


def test_asking_for_more_results_than_stored_returns_what_is_stored_without_a_count(store, monkeypatch):
    add(store, ["a", "b"])
    monkeypatch.setattr(store, "count", lambda: pytest.fail("no count round trip on a query"))
    hits = store.query(np.array([1, 0, 0, 0], dtype=np.float32), k=100)
    assert [cid for cid, _ in hits] == ["a", "b"] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [cid for cid, _ in store.query(np.array([1, 0, 0, 0]), k=100, where={"document_id": "b"})] == ["b"]


def test_an_empty_collection_gives_no_hits(store):
    assert store.query(np.array([1, 0, 0, 0], dtype=np.float32), k=10) == []


class RefusingCollection:
    """A Chroma that refuses n_results above its count, as older versions did."""

    def __init__(self, inner):
        self.inner, self.asked = inner, []

    def count(self):
        return self.inner.count()

    def query(self, **kwargs):
        self.asked.append(kwargs["n_results"])
        if kwargs["n_results"] > self.inner.count():
            raise ValueError("Number of requested results 100 is greater than number of elements in index 2")
        return self.inner.query(**kwargs)


def test_a_chroma_that_refuses_is_asked_again_within_its_count(store):
    add(store, ["a", "b"])
    store.collection = RefusingCollection(store.collection)
    assert [cid for cid, _ in store.query(np.array([0, 1, 0, 0], dtype=np.float32), k=100)] == ["b", "a"]
    assert store.collection.asked == [100, 2]


def test_a_broken_index_is_a_clear_error(store):
    class Broken:
        def query(self, **kwargs):
            raise RuntimeError("hnsw segment missing")

        def count(self):
            raise RuntimeError("hnsw segment missing")

    store.collection = Broken()
    with pytest.raises(IndexError_, match="Vector search failed: hnsw segment missing"):
        store.query(np.array([1, 0, 0, 0], dtype=np.float32), k=5)
