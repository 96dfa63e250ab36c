"""Alert rules (issue 22): traffic with injected failures (LLM errors, slow answers, abstentions, low confidence, no
cache hits, an emptied index) stored in a real SQLite store; each alert fires once and resolves once, with one
webhook POST each to a local HTTP receiver; a failed POST is retried with backoff."""

from __future__ import annotations

import json
import shutil
import threading
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from sqlalchemy import select

from regintel.config import REPO_ROOT, load_settings
from regintel.jobs.worker import run_worker
from regintel.ops.alerts import (ALERTS_JOB, RULES, alerts_job_handler, evaluate_alerts, evaluate_rules, live_check,
                                 open_alerts, recent_events)
from regintel.ops.metrics import service_metrics
from regintel.ops.prometheus import render
from regintel.retrieval.index_io import IndexPaths
from regintel.retrieval.ingest import ingest_corpus
from regintel.runtime import RegIntel
from regintel.store.models import AlertEvent
from tests.conftest import make_small_corpus
from tests.test_ops_metrics import save_turn

ALL_RULES = {rule.name for rule in RULES}


class Receiver:
    """A webhook receiver on 127.0.0.1: records each POSTed JSON body; answers 500 to the first ``fail_first``."""

    def __init__(self, fail_first: int = 0) -> None:
        self.bodies: list[dict] = []
        self.requests = 0
        self.fail_first = fail_first
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.requests += 1
                failing = receiver.requests <= receiver.fail_first
                if not failing:
                    receiver.bodies.append(body)
                self.send_response(500 if failing else 200)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def received(self, state: str) -> list[str]:
        return sorted(b["rule"] for b in self.bodies if b["state"] == state)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


def make_app(tmp_path: Path, url: str = "", **overrides) -> RegIntel:
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}})
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, llm_provider="offline", alert_min_turns=5,
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings", alert_webhook_url=url, **overrides)
    return RegIntel(settings, graph=None)


def later(seconds: float = 1.0) -> datetime:
    return datetime.now(timezone.utc) + timedelta(seconds=seconds)


@pytest.mark.slow  # a webhook receiver and retry backoff in real time: ~2.5 s
def test_each_alert_fires_and_resolves_once_with_one_post_each(tmp_path, receiver):
    app = make_app(tmp_path, receiver.url)
    ingest_corpus(app.settings)  # one real document indexed (vectors from the shipped seed cache)
    report = evaluate_alerts(app, later())
    assert report.to_dict()["firing"] == [] and receiver.bodies == [], "a healthy idle service raises nothing"

    shutil.rmtree(IndexPaths(app.settings).root)  # the index is emptied
    for _ in range(6):  # slow, abstaining, unsure, never from the cache
        save_turn(app, "acme", mode="ABSTAIN", latency_ms=15000.0, confidence=0.1, verification=None)
    for _ in range(3):  # then the provider fails three times in a row
        save_turn(app, "acme", latency_ms=15000.0, llm_error="ProviderError: the service answered 503")
    report = evaluate_alerts(app, later())
    assert set(report.fired) == ALL_RULES and report.delivered == len(ALL_RULES)
    assert receiver.received("firing") == sorted(ALL_RULES)
    firing = {b["rule"]: b for b in receiver.bodies}
    assert firing["error_rate"]["value"] == pytest.approx(3 / 9, abs=1e-4) and firing["error_rate"]["threshold"] == 0.05
    assert firing["latency_p90"]["value"] == 15.0 and firing["knowledge_base_empty"]["severity"] == "critical"
    assert firing["cache_hit_rate"]["severity"] == "warning" and firing["llm_failing"]["value"] == 3
    assert not any("acme" in json.dumps(b) or "question" in json.dumps(b) for b in receiver.bodies), "no tenant content"

    report = evaluate_alerts(app, later(2))  # still firing: no second event, no second POST
    assert report.fired == [] and len(receiver.bodies) == len(ALL_RULES)
    assert {e.rule for e in open_alerts(app.db)} == ALL_RULES and len(recent_events(app.db)) == len(ALL_RULES)
    assert 'regintel_alert_firing{rule="llm_failing",severity="critical"} 1.0' in render(app)

    ingest_corpus(app.settings)  # the index is back
    for i in range(91):  # healthy traffic: fast, confident, a third from the cache, the provider answering again
        save_turn(app, "acme", latency_ms=50.0 if i % 3 == 0 else 800.0, cached=i % 3 == 0)
    report = evaluate_alerts(app, later(3))
    assert set(report.resolved) == ALL_RULES and report.fired == []
    assert receiver.received("resolved") == sorted(ALL_RULES) and len(receiver.bodies) == 2 * len(ALL_RULES)
    assert open_alerts(app.db) == [] and all(e.resolved_at is not None for e in recent_events(app.db))

    evaluate_alerts(app, later(4))
    assert len(receiver.bodies) == 2 * len(ALL_RULES) and len(recent_events(app.db)) == len(ALL_RULES)
    app.close()


def test_rate_rules_wait_for_enough_turns_but_a_failing_provider_fires_at_once(tmp_path):
    app = make_app(tmp_path)
    ingest_corpus(app.settings)
    for _ in range(3):
        save_turn(app, "acme", latency_ms=30000.0, llm_error="ProviderError: timeout")
    now = later()
    results = {r.rule: r for r in evaluate_rules(service_metrics(app.db, now - timedelta(hours=1), now),
                                                 live_check(app), app.settings)}
    assert results["error_rate"].firing is None and "3 turns in the window, 5 needed" in results["error_rate"].message
    assert results["latency_p90"].firing is None and results["llm_failing"].firing is True
    assert results["knowledge_base_empty"].firing is False
    save_turn(app, "acme")  # one success ends the streak
    assert evaluate_alerts(app, later()).to_dict()["firing"] == []
    app.close()


def test_a_failed_webhook_is_retried_with_backoff_then_delivered_once(tmp_path):
    receiver = Receiver(fail_first=1)
    app = make_app(tmp_path, receiver.url)  # no index: the knowledge base alert fires
    try:
        start = datetime.now(timezone.utc)
        report = evaluate_alerts(app, start)
        assert report.fired == ["knowledge_base_empty"] and report.delivery_failures == 1 and receiver.requests == 1
        with app.db.session() as session:
            event = session.scalars(select(AlertEvent)).one()
            assert (event.delivered, event.attempts) == (False, 1) and "500" in event.last_error
        assert evaluate_alerts(app, start + timedelta(seconds=10)).delivered == 0 and receiver.requests == 1, "backoff"
        assert evaluate_alerts(app, start + timedelta(seconds=31)).delivered == 1
        assert receiver.received("firing") == ["knowledge_base_empty"] and receiver.requests == 2
        evaluate_alerts(app, start + timedelta(minutes=5))
        assert receiver.requests == 2, "delivered once"
    finally:
        receiver.close()
        app.close()


def test_the_worker_runs_the_alert_job(tmp_path):
    app = make_app(tmp_path)
    app.jobs.enqueue(ALERTS_JOB, "every-minute", {})
    assert run_worker(app.jobs, {ALERTS_JOB: alerts_job_handler(app)}, once=True) == 1
    job = app.jobs.jobs("done")[0]
    assert job.result["fired"] == ["knowledge_base_empty"]
    assert [e.rule for e in open_alerts(app.db)] == ["knowledge_base_empty"]
    app.close()
