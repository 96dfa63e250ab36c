"""Service metrics an operator watches (issue 22): volume, latency percentiles, error, cache, abstention and
verification rates, confidence and authority distributions, language-model failures; per tenant or over all
tenants, for a window.

The turns are read with the Feedback Dashboard's loader (``regintel.analytics.dashboard.load_turns``, one tenant at
a time) and the language-model step with the Traces page's ``step`` helper, so the Operations page, the dashboard
and ``/metrics`` count the same rows the same way. ``window_metrics`` is a pure function of those frames. The
Prometheus counters (``turn_counters``, ``latency_totals``) are SQL aggregates over every stored trace instead: a
counter must never go down when a window slides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pandas as pd
from sqlalchemy import func, select

from regintel.analytics.dashboard import TURN_COLUMNS, load_turns, summarise
from regintel.analytics.traces import step
from regintel.store import Database
from regintel.store.models import Message, RagTrace, Tenant

LLM_COLUMNS = ["created_at", "tenant_id", "error"]
SCORE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
# Prometheus latency buckets (seconds): a cache hit takes milliseconds, an offline answer about a second, a remote
# model several; the alert threshold (10 s by default) falls on a bucket edge.
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0)


def utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


# -- loading ---------------------------------------------------------------------------------------------------
def tenant_names(db: Database) -> dict[str, str]:
    with db.session() as session:
        return {t.id: t.name for t in session.scalars(select(Tenant))}


def load_window(db: Database, start: datetime, end: datetime, tenant_id: str | None = None) -> pd.DataFrame:
    """The answers in [start, end) of one tenant (or of every tenant: ``tenant_id`` None), one row each, with the
    dashboard's columns plus ``tenant_id``."""
    tenants = [tenant_id] if tenant_id else list(tenant_names(db))
    frames = [load_turns(db, t, start, end).assign(tenant_id=t) for t in tenants]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=[*TURN_COLUMNS, "tenant_id"])
    return pd.concat(frames, ignore_index=True).sort_values("created_at", ignore_index=True)


def load_llm_calls(db: Database, start: datetime, end: datetime, tenant_id: str | None = None) -> pd.DataFrame:
    """One row per turn in [start, end) that called the language model (a cached or refused turn does not), with
    the provider's error ("" when the call succeeded), oldest first."""
    query = select(RagTrace.created_at, RagTrace.tenant_id, RagTrace.steps).where(
        RagTrace.created_at >= start, RagTrace.created_at < end).order_by(RagTrace.created_at)
    if tenant_id:
        query = query.where(RagTrace.tenant_id == tenant_id)
    rows = []
    with db.session() as session:
        for created_at, tenant, steps in session.execute(query):
            llm = step(steps or [], "llm")
            if llm:
                rows.append([pd.Timestamp(created_at), tenant, str(llm.get("error") or "")])
    return pd.DataFrame(rows, columns=LLM_COLUMNS)


# -- figures ---------------------------------------------------------------------------------------------------
@dataclass
class ServiceMetrics:
    """The figures of one window (rates are None when there is nothing to divide by)."""

    turns: int = 0
    failed: int = 0
    cache_hits: int = 0
    abstentions: int = 0  # among complete turns
    error_rate: float | None = None
    cache_hit_rate: float | None = None
    abstention_rate: float | None = None
    verification_rate: float | None = None
    mean_confidence: float | None = None
    latency_p50_s: float | None = None
    latency_p90_s: float | None = None
    latency_p99_s: float | None = None
    mode_counts: dict[str, int] = field(default_factory=dict)
    confidence_distribution: dict[str, int] = field(default_factory=dict)  # "0.0-0.2": answers
    authority_distribution: dict[str, int] = field(default_factory=dict)
    llm_calls: int = 0
    llm_errors: int = 0
    llm_failing_streak: int = 0  # consecutive failed model calls, counted back from the latest
    per_hour: pd.DataFrame = field(default_factory=pd.DataFrame)

    def gauges(self) -> dict[str, float | None]:
        """The rates and percentiles as plain numbers (what ``/metrics`` and the alert rules read)."""
        return {"error_rate": self.error_rate, "cache_hit_rate": self.cache_hit_rate,
                "abstention_rate": self.abstention_rate, "verification_rate": self.verification_rate,
                "mean_confidence": self.mean_confidence, "latency_p50_s": self.latency_p50_s,
                "latency_p90_s": self.latency_p90_s, "latency_p99_s": self.latency_p99_s}


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _quantile_s(latency_ms: pd.Series, q: float) -> float | None:
    return round(float(latency_ms.quantile(q)) / 1000, 3) if len(latency_ms) else None


def distribution(scores: list[float]) -> dict[str, int]:
    """Answers per score bin of width 0.2 (the last bin includes 1.0)."""
    counts = {f"{low:.1f}-{high:.1f}": 0 for low, high in zip(SCORE_BINS, SCORE_BINS[1:])}
    labels = list(counts)
    for score in scores:
        counts[labels[min(int(max(score, 0.0) / 0.2), len(labels) - 1)]] += 1
    return counts


def window_metrics(turns: pd.DataFrame, llm_calls: pd.DataFrame | None = None) -> ServiceMetrics:
    """Figures of the turns (``load_window``) and model calls (``load_llm_calls``) of one window. Percentiles
    interpolate linearly, as the Feedback Dashboard's do; abstentions are counted among the turns that did not
    fail (a failed turn is an error, not a judgement on the evidence)."""
    llm_calls = llm_calls if llm_calls is not None else pd.DataFrame(columns=LLM_COLUMNS)
    metrics = ServiceMetrics(llm_calls=len(llm_calls), llm_errors=int((llm_calls["error"] != "").sum()))
    for error in reversed(list(llm_calls["error"])):
        if not error:
            break
        metrics.llm_failing_streak += 1
    if turns.empty:
        return metrics
    summary = summarise(turns, pd.DataFrame(columns=["rating"]))
    failed = turns["status"] == "failed"
    complete = turns[~failed]
    latency = turns["latency_ms"].dropna().astype(float)
    confidence = complete["confidence_score"].dropna().astype(float)
    metrics.turns, metrics.failed = len(turns), summary.failed
    metrics.cache_hits = int(turns["from_cache"].sum())
    metrics.abstentions = int((complete["response_mode"].fillna("ABSTAIN") == "ABSTAIN").sum())
    metrics.error_rate = _rate(metrics.failed, metrics.turns)
    metrics.cache_hit_rate = summary.cache_hit_rate
    metrics.abstention_rate = _rate(metrics.abstentions, len(complete))
    metrics.verification_rate = summary.verification_rate
    metrics.mean_confidence = round(float(confidence.mean()), 4) if len(confidence) else None
    metrics.latency_p50_s, metrics.latency_p90_s, metrics.latency_p99_s = (_quantile_s(latency, q) for q in (0.5, 0.9, 0.99))
    metrics.mode_counts = {str(k): int(v) for k, v in turns["response_mode"].fillna("ABSTAIN").value_counts().items()}
    metrics.confidence_distribution = distribution(summary.confidence_scores)
    metrics.authority_distribution = distribution(summary.authority_scores)
    metrics.per_hour = hourly(turns)
    return metrics


def hourly(turns: pd.DataFrame) -> pd.DataFrame:
    """One row per hour from the first to the last turn (hours without turns included, with 0 turns): volume,
    latency percentiles (s) and rates, for the Operations page's charts."""
    if turns.empty:
        return pd.DataFrame()
    frame = turns.assign(hour=turns["created_at"].dt.floor("h"), failed=turns["status"] == "failed",
                         abstained=(turns["response_mode"].fillna("ABSTAIN") == "ABSTAIN") & (turns["status"] != "failed"),
                         latency_s=turns["latency_ms"].astype(float) / 1000,
                         cached=turns["from_cache"].astype(float), confidence=turns["confidence_score"].astype(float))
    grouped = frame.groupby("hour")
    table = pd.DataFrame({
        "turns": grouped.size(),
        "p50_s": grouped["latency_s"].quantile(0.5), "p90_s": grouped["latency_s"].quantile(0.9),
        "p99_s": grouped["latency_s"].quantile(0.99),
        "error_rate": grouped["failed"].mean(), "cache_hit_rate": grouped["cached"].mean(),
        "abstention_rate": grouped["abstained"].sum() / (grouped.size() - grouped["failed"].sum()).where(lambda n: n > 0),
        "mean_confidence": grouped["confidence"].mean(),
    })
    hours = pd.date_range(table.index.min(), table.index.max(), freq="h")
    table = table.reindex(hours)
    table["turns"] = table["turns"].fillna(0).astype(int)
    table.index.name = "hour"
    return table


def service_metrics(db: Database, start: datetime, end: datetime, tenant_id: str | None = None) -> ServiceMetrics:
    """The figures of [start, end) for one tenant, or over all tenants (``tenant_id`` None)."""
    return window_metrics(load_window(db, start, end, tenant_id), load_llm_calls(db, start, end, tenant_id))


# -- counters over every stored turn (Prometheus) ----------------------------------------------------------------
@dataclass(frozen=True)
class TurnCount:
    tenant_id: str
    mode: str
    from_cache: bool
    failed: bool
    count: int


def turn_counters(db: Database) -> list[TurnCount]:
    """Stored turns (one ``rag_traces`` row each) by tenant, response mode, cache and failure."""
    query = (select(RagTrace.tenant_id, RagTrace.response_mode, RagTrace.from_cache, Message.status, func.count())
             .outerjoin(Message, Message.id == RagTrace.message_id)
             .group_by(RagTrace.tenant_id, RagTrace.response_mode, RagTrace.from_cache, Message.status))
    with db.session() as session:
        return [TurnCount(tenant, mode or "ABSTAIN", bool(cached), status == "failed", int(n))
                for tenant, mode, cached, status, n in session.execute(query)]


@dataclass
class LatencyTotals:
    """A cumulative histogram of stored turn latencies (seconds), as Prometheus wants it."""

    buckets: dict[float, int] = field(default_factory=lambda: {b: 0 for b in LATENCY_BUCKETS})
    count: int = 0
    total_s: float = 0.0

    def add(self, seconds: float) -> None:
        self.count += 1
        self.total_s += seconds
        for bound in self.buckets:
            if seconds <= bound:
                self.buckets[bound] += 1

    def prometheus_buckets(self) -> list[tuple[str, int]]:
        return [(repr(float(b)), n) for b, n in self.buckets.items()] + [("+Inf", self.count)]


def latency_totals(db: Database) -> dict[str, LatencyTotals]:
    """Per tenant id, the histogram of every stored turn's ``total_ms``."""
    totals: dict[str, LatencyTotals] = {}
    with db.session() as session:
        for tenant, total_ms in session.execute(select(RagTrace.tenant_id, RagTrace.total_ms)):
            totals.setdefault(tenant, LatencyTotals()).add(float(total_ms or 0.0) / 1000)
    return totals


def as_dict(metrics: ServiceMetrics) -> dict[str, Any]:
    """The figures without the hourly table (what the alert job returns and the CLI could print)."""
    return {k: v for k, v in metrics.__dict__.items() if k != "per_hour"}
