"""``/metrics`` for Prometheus (issue 22 item 1): a custom collector that reads the store at each scrape, and
``python -m regintel metrics --port N``, a small exporter process (Streamlit cannot serve another path).

Metrics (all prefixed ``regintel_``):

- ``chat_turns_total{mode}`` counter: stored turns (one ``rag_traces`` row each) by response mode;
- ``chat_turn_errors_total`` counter: stored turns that failed (the model failed mid-answer, etc.);
- ``cache_hits_total`` counter: turns answered from the response cache;
- ``turn_latency_seconds`` histogram: every stored turn's total time;
- window gauges over the last REGINTEL_METRICS_WINDOW_MINUTES: ``turns_window``, ``error_rate``,
  ``cache_hit_rate``, ``abstention_rate``, ``claim_verification_rate``, ``mean_confidence``,
  ``turn_latency_window_seconds{quantile}`` (0.5, 0.9, 0.99), ``llm_errors_window``;
- ``index_chunks`` gauge (0 when the index is missing) and ``alert_firing{rule,severity}`` gauge (1 per open alert).

With REGINTEL_METRICS_TENANT_LABELS the turn counters, the histogram and the window gauges also carry a
``tenant`` label (the tenant's name); without it (the default) no tenant name leaves the app and every figure is
over all tenants. Counters are computed from every stored turn, so they equal a count of ``rag_traces``.
"""

from __future__ import annotations

import argparse
import threading
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

from prometheus_client import CollectorRegistry, generate_latest, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from regintel.ops.metrics import LatencyTotals, ServiceMetrics, latency_totals, service_metrics, tenant_names, turn_counters

OVERALL = ""  # the key of the figures over all tenants


class RegIntelCollector(Collector):
    """Reads the SQL store (and the index manifest) afresh at every scrape; nothing is kept between scrapes."""

    def __init__(self, app: Any, now: Any = None) -> None:
        self.app = app
        self._now = now or (lambda: datetime.now(timezone.utc))

    def describe(self) -> list[Metric]:
        return []  # no describe at registration: that would read the store at import time

    def collect(self) -> Iterator[Metric]:
        settings, db = self.app.settings, self.app.db
        per_tenant = settings.metrics_tenant_labels
        names = tenant_names(db) if per_tenant else {}
        labels = ["tenant"] if per_tenant else []

        def tenant_label(tenant_id: str) -> list[str]:
            return [names.get(tenant_id, tenant_id)] if per_tenant else []

        counts = turn_counters(db)
        turns = CounterMetricFamily("regintel_chat_turns", "Chat turns stored, by response mode.", labels=[*labels, "mode"])
        errors = CounterMetricFamily("regintel_chat_turn_errors", "Chat turns that failed.", labels=labels)
        hits = CounterMetricFamily("regintel_cache_hits", "Chat turns answered from the response cache.", labels=labels)
        by_mode: dict[tuple[str, ...], int] = defaultdict(int)
        failed: dict[tuple[str, ...], int] = defaultdict(int)
        cached: dict[tuple[str, ...], int] = defaultdict(int)
        for row in counts:
            key = tuple(tenant_label(row.tenant_id))
            by_mode[(*key, row.mode)] += row.count
            failed[key] += row.count if row.failed else 0
            cached[key] += row.count if row.from_cache else 0
        for key, n in sorted(by_mode.items()):
            turns.add_metric(list(key), n)
        scopes = {k[:-1] for k in by_mode} | ({()} if not per_tenant else set())  # overall: 0 before any turn
        for key in sorted(scopes):
            errors.add_metric(list(key), failed.get(key, 0))
            hits.add_metric(list(key), cached.get(key, 0))
        yield from (turns, errors, hits)

        histogram = HistogramMetricFamily("regintel_turn_latency_seconds", "Total time of each stored chat turn.",
                                          labels=labels)
        merged: dict[tuple[str, ...], LatencyTotals] = {}
        for tenant_id, totals in latency_totals(db).items():
            key = tuple(tenant_label(tenant_id))
            target = merged.setdefault(key, LatencyTotals())
            for bound, n in totals.buckets.items():
                target.buckets[bound] += n
            target.count += totals.count
            target.total_s += totals.total_s
        if not per_tenant:
            merged.setdefault((), LatencyTotals())
        for key, totals in sorted(merged.items()):
            histogram.add_metric(list(key), totals.prometheus_buckets(), round(totals.total_s, 6))
        yield histogram

        yield from self._window(settings, db, names if per_tenant else None)
        yield from self._state(db)

    def _window(self, settings: Any, db: Any, names: dict[str, str] | None) -> Iterator[Metric]:
        now = self._now()
        start = now - timedelta(minutes=settings.metrics_window_minutes)
        scopes: dict[str, ServiceMetrics] = {}
        if names is None:
            scopes[OVERALL] = service_metrics(db, start, now)
        else:
            for tenant_id, name in names.items():
                scopes[name] = service_metrics(db, start, now, tenant_id)
        labels = ["tenant"] if names is not None else []
        window = f" over the last {settings.metrics_window_minutes} minutes"
        gauges = {
            "regintel_turns_window": ("Chat turns" + window, lambda m: m.turns),
            "regintel_llm_errors_window": ("Failed language-model calls" + window, lambda m: m.llm_errors),
            "regintel_error_rate": ("Share of failed turns" + window, lambda m: m.error_rate),
            "regintel_cache_hit_rate": ("Share of turns answered from the cache" + window, lambda m: m.cache_hit_rate),
            "regintel_abstention_rate": ("Share of abstentions among turns that did not fail" + window,
                                         lambda m: m.abstention_rate),
            "regintel_claim_verification_rate": ("Mean claim verification rate" + window, lambda m: m.verification_rate),
            "regintel_mean_confidence": ("Mean confidence score" + window, lambda m: m.mean_confidence),
        }
        for name, (documentation, figure) in gauges.items():
            gauge = GaugeMetricFamily(name, documentation, labels=labels)
            for scope, metrics in sorted(scopes.items()):
                value = figure(metrics)
                if value is not None:  # no turns: no rate (absent, not 0, so an alert on it does not misfire)
                    gauge.add_metric([scope] if labels else [], float(value))
            yield gauge
        quantiles = GaugeMetricFamily("regintel_turn_latency_window_seconds", "Turn latency percentiles" + window,
                                      labels=[*labels, "quantile"])
        for scope, metrics in sorted(scopes.items()):
            for q, value in (("0.5", metrics.latency_p50_s), ("0.9", metrics.latency_p90_s), ("0.99", metrics.latency_p99_s)):
                if value is not None:
                    quantiles.add_metric([*([scope] if labels else []), q], value)
        yield quantiles

    def _state(self, db: Any) -> Iterator[Metric]:
        from regintel.ops.alerts import open_alerts
        from regintel.retrieval.index_io import index_status

        status = index_status(self.app.settings)
        chunks = GaugeMetricFamily("regintel_index_chunks", "Passages in the search index (0: missing or empty).")
        chunks.add_metric([], float(status.get("chunks", 0) or 0) if status.get("ready") else 0.0)
        yield chunks
        alerts = GaugeMetricFamily("regintel_alert_firing", "1 for each alert rule firing now.", labels=["rule", "severity"])
        for event in open_alerts(db):
            alerts.add_metric([event.rule, event.severity], 1.0)
        yield alerts


def registry_for(app: Any) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RegIntelCollector(app))
    return registry


def render(app: Any) -> str:
    """The Prometheus text exposition of ``app``'s store, as ``/metrics`` serves it."""
    return generate_latest(registry_for(app)).decode("utf-8")


def serve(app: Any, port: int, host: str = "127.0.0.1"):
    """Start serving ``/metrics`` in a background thread; returns (server, thread) (port 0: any free port)."""
    return start_http_server(port, addr=host, registry=registry_for(app))


def cmd_metrics(app: Any, args: argparse.Namespace) -> int:
    server, thread = serve(app, args.port, args.host)
    print(f"serving Prometheus metrics on http://{args.host}:{server.server_port}/metrics (Ctrl-C stops)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return 0


def add_parser(sub: Any) -> None:
    metrics = sub.add_parser("metrics", help="serve /metrics for Prometheus (read from the store at each scrape)")
    metrics.add_argument("--port", type=int, default=9464, help="port to listen on (default 9464)")
    metrics.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    metrics.set_defaults(func=cmd_metrics)
