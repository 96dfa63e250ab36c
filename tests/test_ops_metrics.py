"""Service metrics (issue 22): window figures against hand-computed values, per tenant and overall from a real
SQLite store, the response cache's admin clear, and ``/metrics`` served over HTTP, parsed with
``prometheus_client.parser`` and compared with the stored traces."""

from __future__ import annotations

import urllib.request
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

from regintel.analytics.dashboard import TURN_COLUMNS
from regintel.chat.cache import ResponseCache
from regintel.chat.response import ChatResponse
from regintel.config import load_settings
from regintel.ops.cache_admin import cache_state, clear_response_cache
from regintel.ops.metrics import LLM_COLUMNS, distribution, service_metrics, window_metrics
from regintel.ops.prometheus import serve
from regintel.runtime import RegIntel
from regintel.store.models import RagTrace


def save_turn(app: RegIntel, tenant: str, mode: str = "DIRECT", latency_ms: float = 500.0, confidence: float = 0.9,
              cached: bool = False, llm_error: str | None = None, verification: float | None = 1.0) -> ChatResponse:
    """One stored turn written through the real repository, as the engine writes it: a cached turn has no model
    call; ``llm_error`` injects a provider failure (the turn fails and its trace's llm step carries the error)."""
    repo = app.conversations
    tenant_row = repo.ensure_tenant(tenant)
    user = repo.ensure_user(tenant_row.id, "ana")
    conversation = repo.create_conversation(tenant_row.id, user.id).id
    response = ChatResponse(f"answer ({mode})", "ABSTAIN" if llm_error else mode, conversation, latency_ms=latency_ms,
                            from_cache=cached, confidence={"level": "high", "score": confidence},
                            authority={"level": "binding", "score": 1.0},
                            claim_verification={"verification_rate": verification} if verification is not None else {})
    steps: list[dict] = [{"step": "retrieval", "ms": 5.0}]
    if not cached:
        steps.append({"step": "llm", "ms": latency_ms, "error": llm_error or ""})
    if llm_error:
        response.status, response.error = "failed", llm_error
    return repo.save_turn(tenant_row.id, conversation, f"question {mode}", response, {"steps": steps, "total_ms": latency_ms})


@pytest.fixture
def app(tmp_path: Path):
    runtime = RegIntel(load_settings(data_dir=tmp_path / "data", llm_provider="offline"), graph=None)
    yield runtime
    runtime.close()


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Turns as ``load_window`` returns them: (minute, mode, status, latency_ms, cached, confidence, authority)."""
    start = pd.Timestamp("2026-11-23 10:00")
    return pd.DataFrame([[f"m{i}", start + pd.Timedelta(minutes=minute), "q", "a", mode, None, status, confidence,
                          authority, 1.0 if status == "complete" else None, cached, latency, [], f"t{i}", "c", "t1"]
                         for i, (minute, mode, status, latency, cached, confidence, authority) in enumerate(rows)],
                        columns=[*TURN_COLUMNS, "tenant_id"])


def test_window_figures_match_hand_computed_values():
    turns = frame([(0, "DIRECT", "complete", 1000.0, False, 0.9, 1.0), (10, "DIRECT", "complete", 2000.0, True, 0.9, 1.0),
                   (20, "ABSTAIN", "complete", 3000.0, False, 0.1, 0.4), (70, "ABSTAIN", "failed", 4000.0, False, 0.0, 0.0),
                   (80, "QUALIFIED", "complete", 5000.0, False, 0.5, 0.4)])
    calls = pd.DataFrame([["x", "t1", ""], ["x", "t1", "ProviderError"], ["x", "t1", ""], ["x", "t1", "timeout"],
                          ["x", "t1", "ProviderError"]], columns=LLM_COLUMNS)
    metrics = window_metrics(turns, calls)
    assert (metrics.turns, metrics.failed, metrics.cache_hits, metrics.abstentions) == (5, 1, 1, 1)
    assert metrics.error_rate == 0.2 and metrics.cache_hit_rate == 0.2
    assert metrics.abstention_rate == 0.25, "the failed turn is an error, not an abstention: 1 of 4 complete turns"
    assert metrics.mean_confidence == pytest.approx((0.9 + 0.9 + 0.1 + 0.5) / 4), "over complete turns"
    assert metrics.latency_p50_s == 3.0 and metrics.latency_p90_s == pytest.approx(4.6)  # 4 + 0.6 * 1 (linear)
    assert metrics.latency_p99_s == pytest.approx(4.96)
    assert (metrics.llm_calls, metrics.llm_errors, metrics.llm_failing_streak) == (5, 3, 2)
    assert metrics.mode_counts == {"DIRECT": 2, "ABSTAIN": 2, "QUALIFIED": 1}
    assert metrics.authority_distribution == {"0.0-0.2": 1, "0.2-0.4": 0, "0.4-0.6": 2, "0.6-0.8": 0, "0.8-1.0": 2}
    hours = metrics.per_hour
    assert list(hours["turns"]) == [3, 2] and list(hours["error_rate"]) == [0.0, 0.5]
    assert hours["abstention_rate"].iloc[1] == 0.0 and hours["p50_s"].iloc[0] == 2.0


def test_an_empty_window_has_no_rates_and_hours_without_turns_count_zero():
    assert window_metrics(frame([])).error_rate is None and window_metrics(frame([])).turns == 0
    hours = window_metrics(frame([(0, "DIRECT", "complete", 100.0, False, 0.9, 1.0),
                                  (150, "DIRECT", "complete", 100.0, False, 0.9, 1.0)])).per_hour
    assert list(hours["turns"]) == [1, 0, 1]
    assert distribution([0.0, 0.2, 0.99, 1.0]) == {"0.0-0.2": 1, "0.2-0.4": 1, "0.4-0.6": 0, "0.6-0.8": 0, "0.8-1.0": 2}


def test_figures_per_tenant_and_overall_from_the_store(app):
    for _ in range(3):
        save_turn(app, "acme", latency_ms=1000.0)
    save_turn(app, "acme", llm_error="ProviderError: 503")
    save_turn(app, "globex", mode="ABSTAIN", cached=True, latency_ms=20.0)
    now = datetime.now(timezone.utc) + timedelta(seconds=1)
    acme = app.tenants.ensure_tenant("acme").id
    overall = service_metrics(app.db, now - timedelta(hours=1), now)
    mine = service_metrics(app.db, now - timedelta(hours=1), now, acme)
    assert (overall.turns, overall.failed, overall.cache_hits, overall.llm_calls, overall.llm_errors) == (5, 1, 1, 4, 1)
    assert (mine.turns, mine.failed, mine.cache_hits, mine.error_rate, mine.llm_failing_streak) == (4, 1, 0, 0.25, 1)
    assert overall.abstention_rate == 0.25 and mine.abstention_rate == 0.0
    assert service_metrics(app.db, now, now + timedelta(hours=1)).turns == 0, "the window bounds the figures"


def test_clearing_the_response_cache_touches_only_that_tenant(app):
    cache = ResponseCache(app.db)
    acme, globex = (app.tenants.ensure_tenant(name).id for name in ("acme", "globex"))
    for i, tenant in enumerate((acme, acme, globex)):
        cache.put(f"key{i}", tenant, "v1", f"question {i}", {"answer": "a"})
    assert cache.get("key0", acme) == {"answer": "a"}
    assert cache_state(app.db, acme).entries == 2 and cache_state(app.db, acme).hits == 1
    assert clear_response_cache(app.db, acme) == 2
    assert cache_state(app.db, acme).entries == 0 and cache.get("key0", acme) is None
    assert cache_state(app.db, globex).entries == 1 and cache.get("key2", globex) == {"answer": "a"}


def scrape(app: RegIntel) -> dict[str, list]:
    """``/metrics`` fetched over HTTP from the exporter, parsed by prometheus_client: samples by metric name."""
    server, thread = serve(app, 0)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=10) as response:
            text = response.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()
    samples: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def test_metrics_endpoint_parses_and_its_counters_equal_the_stored_traces(app):
    for latency in (200.0, 800.0, 3000.0, 12000.0):
        save_turn(app, "acme", latency_ms=latency)
    save_turn(app, "acme", mode="QUALIFIED", cached=True, latency_ms=30.0)
    save_turn(app, "globex", mode="ABSTAIN", confidence=0.2)
    save_turn(app, "globex", llm_error="ProviderError: 503")
    samples = scrape(app)
    with app.db.session() as session:
        stored = Counter({mode: n for mode, n in session.execute(
            select(RagTrace.response_mode, func.count()).group_by(RagTrace.response_mode))})
        traces = session.scalar(select(func.count()).select_from(RagTrace))
        cached = session.scalar(select(func.count()).where(RagTrace.from_cache.is_(True)))
    assert {s.labels["mode"]: s.value for s in samples["regintel_chat_turns_total"]} == stored
    assert sum(stored.values()) == traces == 7
    assert [s.value for s in samples["regintel_cache_hits_total"]] == [cached] == [1]
    assert [s.value for s in samples["regintel_chat_turn_errors_total"]] == [1]
    assert [s.value for s in samples["regintel_turn_latency_seconds_count"]] == [traces]
    buckets = {s.labels["le"]: s.value for s in samples["regintel_turn_latency_seconds_bucket"]}
    assert (buckets["0.25"], buckets["1.0"], buckets["10.0"], buckets["+Inf"]) == (2, 5, 6, 7)
    assert [s.value for s in samples["regintel_error_rate"]] == [pytest.approx(1 / 7, abs=1e-4)]
    assert {s.labels["quantile"] for s in samples["regintel_turn_latency_window_seconds"]} == {"0.5", "0.9", "0.99"}
    assert all("tenant" not in s.labels for values in samples.values() for s in values), "no tenant label by default"


def test_tenant_labels_only_when_the_admin_allows_them(tmp_path):
    app = RegIntel(load_settings(data_dir=tmp_path / "data", llm_provider="offline", metrics_tenant_labels=True), graph=None)
    try:
        save_turn(app, "acme")
        save_turn(app, "acme", cached=True)
        save_turn(app, "globex", mode="ABSTAIN")
        samples = scrape(app)
    finally:
        app.close()
    turns = {(s.labels["tenant"], s.labels["mode"]): s.value for s in samples["regintel_chat_turns_total"]}
    assert turns == {("acme", "DIRECT"): 2, ("globex", "ABSTAIN"): 1}
    assert {s.labels["tenant"]: s.value for s in samples["regintel_cache_hits_total"]} == {"acme": 1, "globex": 0}
    assert {s.labels["tenant"]: s.value for s in samples["regintel_turns_window"]} == {"acme": 2, "globex": 1}


def test_the_metrics_command_is_registered():
    from regintel.__main__ import build_parser

    args = build_parser().parse_args(["metrics", "--port", "9999"])
    assert args.port == 9999 and args.host == "127.0.0.1" and args.func.__name__ == "cmd_metrics"


@pytest.mark.slow  # renders the Streamlit page (AppTest): ~3 s
def test_operations_page_shows_figures_alerts_and_clears_the_tenant_cache(tmp_path, monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from regintel.config import REPO_ROOT, get_settings
    from regintel.ops.alerts import evaluate_alerts

    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REGINTEL_LLM_PROVIDER", "offline")
    get_settings.cache_clear()
    runtime = RegIntel(get_settings(), graph=None)
    admin = runtime.accounts.identity(runtime.accounts.add("acme", "root", "correct horse battery", "admin").id, "local")
    save_turn(runtime, "acme", latency_ms=1500.0)
    save_turn(runtime, "acme", llm_error="ProviderError: 503")
    ResponseCache(runtime.db).put("k", admin.tenant_id, "v1", "question", {"answer": "a"})
    evaluate_alerts(runtime)  # no index in this data directory: the knowledge base alert fires
    runtime.close()
    st.cache_resource.clear()
    try:
        page = AppTest.from_file(str(REPO_ROOT / "views" / "7_Operations.py"), default_timeout=60)
        page.session_state["regintel_identity"] = admin
        page.run()
        assert not page.exception
        assert any("knowledge base empty" in e.value for e in page.error)
        metrics = {m.label: m.value for m in page.metric}
        assert metrics["Turns"] == "2" and metrics["Error rate"] == "50.0%" and metrics["Cached answers"] == "1"
        page.checkbox[0].check()
        next(b for b in page.button if b.label.startswith("Clear response cache")).click().run()
        assert not page.exception and any("Cleared 1 cached answers" in s.value for s in page.success)
        assert {m.label: m.value for m in page.metric}["Cached answers"] == "0"
    finally:
        st.cache_resource.clear()
        get_settings.cache_clear()
