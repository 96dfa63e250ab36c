"""``python -m regintel.bench chat``: whole chat turns through the ComplianceEngine on an ObliQA-schema benchmark.

Each question is the first turn of a new conversation (so no context carries over between questions). Prints
time to first token and turn latency (p50 / p95), cache-hit latency (the first questions asked again), the share
of answers per response mode, citation precision (share of cited passages that are gold) and recall (share of
gold passages cited), and the mean claim verification rate. The graph is off by default (``--graph`` turns on
the embedded graph) so the numbers measure the answer path; the SQL store is a fresh SQLite file per run.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from statistics import mean, median

from tqdm import tqdm

from regintel.bench.metrics import percentile
from regintel.bench.obliqa import load_questions
from regintel.bench.retrieval import open_bench_index
from regintel.config import Settings


def run_chat_bench(settings: Settings, questions_path: Path, passages_path: Path | None = None, limit: int = 200,
                   cache_probe: int = 20, graph: bool = False, log=print) -> dict:
    from regintel.runtime import RegIntel

    passages_path = passages_path or Path(questions_path).with_name("passages.jsonl")
    questions = load_questions(questions_path)[:limit]
    log(f"indexing {passages_path} (cached vectors) ...")
    index = open_bench_index(settings, passages_path).index
    db_path = settings.data_dir / "bench" / "chat_bench.db"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    for stale in db_path.parent.glob(db_path.name + "*"):
        stale.unlink()
    bench_settings = settings.model_copy(update={"chat_rate_limit_per_hour": 0, "database_url": f"sqlite:///{db_path}"})
    app = RegIntel(bench_settings, index=index, **({} if graph else {"graph": None}))
    engine = app.chat
    tenant = app.tenants.ensure_tenant("bench")
    user = app.tenants.ensure_user(tenant.id, "bench")

    def turn(question: str):
        conversation = app.conversations.create_conversation(tenant.id, user.id).id
        started = time.perf_counter()
        stream = engine.stream_turn(tenant.id, user.id, conversation, question)
        for _ in stream:
            pass
        return stream, (time.perf_counter() - started) * 1000

    first_token, latency, modes, reasons = [], [], Counter(), Counter()
    precision, recall, verification = [], [], []
    for question in tqdm(questions, desc="chat turns", unit="turn", mininterval=5):
        stream, total_ms = turn(question.question)
        response = stream.response
        latency.append(total_ms)
        if stream.first_delta_ms is not None:
            first_token.append(stream.first_delta_ms)
        modes[response.response_mode] += 1
        if response.abstention_reason:
            reasons[response.abstention_reason] += 1
        cited = {s.chunk_id for s in response.cited}
        if cited:
            precision.append(len(cited & question.gold_pids) / len(cited))
            verification.append(response.claim_verification.get("verification_rate", 0.0))
        recall.append(len(cited & question.gold_pids) / len(question.gold_pids) if question.gold_pids else 0.0)
    cache_hits, cache_ms = 0, []
    for question in questions[:cache_probe]:
        stream, total_ms = turn(question.question)
        cache_hits += int(stream.response.from_cache)
        cache_ms.append(total_ms)
    n = len(questions)
    return {
        "questions_file": str(questions_path), "passages_file": str(passages_path), "questions": n,
        "llm": engine.router.describe(), "graph": graph,
        "time_to_first_token_ms_p50": round(median(first_token), 1) if first_token else None,
        "time_to_first_token_ms_p95": round(percentile(first_token, 95), 1) if first_token else None,
        "turn_latency_ms_p50": round(median(latency), 1) if latency else None,
        "turn_latency_ms_p95": round(percentile(latency, 95), 1) if latency else None,
        "cache_hit_latency_ms_p50": round(median(cache_ms), 1) if cache_ms else None,
        "cache_hits": f"{cache_hits}/{len(cache_ms)}",
        "response_modes": {mode: round(modes[mode] / n, 3) for mode in ("DIRECT", "QUALIFIED", "ABSTAIN")} if n else {},
        "abstention_reasons": dict(reasons.most_common()),
        "citation_precision": round(mean(precision), 4) if precision else None,
        "citation_recall": round(mean(recall), 4) if recall else None,
        "answers_with_citations": len(precision),
        "claim_verification_rate": round(mean(verification), 4) if verification else None,
    }


def print_report(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:32} {value}")
