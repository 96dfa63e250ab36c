"""Alert rules (issue 22 item 2): evaluated on a schedule by the worker, stored as events, sent to a webhook.

Rules and their settings (defaults from the design):

- critical ``error_rate``: share of failed turns in the window > REGINTEL_ALERT_ERROR_RATE (5 %);
- critical ``latency_p90``: 90th percentile of turn latency > REGINTEL_ALERT_P90_SECONDS (10 s);
- critical ``knowledge_base_empty``: the index is missing or holds 0 passages (read live from its manifest);
- critical ``llm_failing``: the last REGINTEL_ALERT_LLM_FAILURES model calls of the window all failed (provider
  errors recorded in the traces), or the configured provider cannot even be built (live check);
- warning ``cache_hit_rate`` < REGINTEL_ALERT_CACHE_HIT_RATE (20 %), ``abstention_rate`` >
  REGINTEL_ALERT_ABSTENTION_RATE (15 %), ``mean_confidence`` < REGINTEL_ALERT_MEAN_CONFIDENCE (0.5).

The rate rules (error, p90, cache, abstention, confidence) need REGINTEL_ALERT_MIN_TURNS turns in the window
(REGINTEL_METRICS_WINDOW_MINUTES) before they may fire: two slow turns in a quiet hour page nobody. With fewer
turns a firing rate rule stays as it is (no evidence either way) rather than resolving.

``evaluate_alerts(app, now)`` opens an :class:`AlertEvent` when a rule starts firing and resolves that same row
when it stops, so a rule that keeps firing makes no second event and no second POST. Each firing and each
resolution is POSTed once as JSON to REGINTEL_ALERT_WEBHOOK_URL; a failed POST is retried at the following
evaluations with exponential backoff (30 s, 1 min, 2 min ... at most MAX_ATTEMPTS). The worker runs this (job kind
``alerts.evaluate``), never a chat turn, so a slow webhook delays no answer.

Egress: the payload is built here from rule names, severities, figures and times only, never a question, an
answer or a tenant name, so there is nothing for the egress sanitiser to remove (and loading its NER model for
fixed strings would cost seconds per worker). The destination is the administrator's configured webhook and
nothing else: redirects are not followed (a 3xx is a failed delivery), as for the LLM providers
(``regintel.llm.http``), and the request has a short timeout.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import httpx
from sqlalchemy import or_, select

from regintel.config import Settings
from regintel.ops.metrics import ServiceMetrics, service_metrics, utc
from regintel.store import Database
from regintel.store.models import AlertEvent

log = logging.getLogger(__name__)

ALERTS_JOB = "alerts.evaluate"
CRITICAL, WARNING = "critical", "warning"
FIRING, RESOLVED = "firing", "resolved"
MAX_ATTEMPTS = 8
BASE_BACKOFF = timedelta(seconds=30)
POST_TIMEOUT_S = 5.0
DELIVERY_HORIZON = timedelta(days=1)  # events older than this are not sent when a webhook is configured later


@dataclass(frozen=True)
class Check:
    """What the live checks found (outside the stored turns)."""

    index_chunks: int
    index_problem: str = ""
    llm_problem: str = ""


@dataclass(frozen=True)
class RuleResult:
    rule: str
    severity: str
    firing: bool | None  # None: not enough turns in the window to say
    value: float | None
    threshold: float | None
    message: str


@dataclass(frozen=True)
class Rule:
    name: str
    severity: str
    title: str
    evaluate: Callable[[ServiceMetrics, Check, Settings], RuleResult]


def _rate_rule(name: str, severity: str, title: str, figure: str, setting: str, above: bool, unit: str = "%") -> Rule:
    def evaluate(metrics: ServiceMetrics, check: Check, settings: Settings) -> RuleResult:
        value, threshold = getattr(metrics, figure), float(getattr(settings, setting))
        if metrics.turns < settings.alert_min_turns or value is None:
            return RuleResult(name, severity, None, value, threshold,
                              f"{metrics.turns} turns in the window, {settings.alert_min_turns} needed to judge")
        firing = value > threshold if above else value < threshold
        shown = (lambda v: f"{v:.1%}") if unit == "%" else (lambda v: f"{v:.2f}{unit}")
        return RuleResult(name, severity, firing, value, threshold,
                          f"{title}: {shown(value)} over {metrics.turns} turns "
                          f"({'above' if above else 'below'} {shown(threshold)} fires)")
    return Rule(name, severity, title, evaluate)


def _knowledge_base(metrics: ServiceMetrics, check: Check, settings: Settings) -> RuleResult:
    firing = check.index_chunks <= 0 or bool(check.index_problem)
    reason = check.index_problem or ("no index" if check.index_chunks <= 0 else "")
    return RuleResult("knowledge_base_empty", CRITICAL, firing, float(check.index_chunks), 0.0,
                      f"Knowledge base: {check.index_chunks} passages indexed" + (f" ({reason})" if reason else ""))


def _llm(metrics: ServiceMetrics, check: Check, settings: Settings) -> RuleResult:
    needed = settings.alert_llm_failures
    firing = bool(check.llm_problem) or metrics.llm_failing_streak >= needed
    detail = (f"the provider cannot be used: {check.llm_problem}" if check.llm_problem else
              f"last {metrics.llm_failing_streak} of {metrics.llm_calls} model calls in the window failed")
    return RuleResult("llm_failing", CRITICAL, firing, float(metrics.llm_failing_streak), float(needed),
                      f"Language model API: {detail} ({needed} consecutive failures fire)")


RULES: tuple[Rule, ...] = (
    _rate_rule("error_rate", CRITICAL, "Error rate", "error_rate", "alert_error_rate", above=True),
    _rate_rule("latency_p90", CRITICAL, "Turn latency p90", "latency_p90_s", "alert_p90_seconds", above=True, unit=" s"),
    Rule("knowledge_base_empty", CRITICAL, "Knowledge base empty", _knowledge_base),
    Rule("llm_failing", CRITICAL, "LLM API failing", _llm),
    _rate_rule("cache_hit_rate", WARNING, "Cache hit rate", "cache_hit_rate", "alert_cache_hit_rate", above=False),
    _rate_rule("abstention_rate", WARNING, "Abstention rate", "abstention_rate", "alert_abstention_rate", above=True),
    _rate_rule("mean_confidence", WARNING, "Mean confidence", "mean_confidence", "alert_mean_confidence", above=False,
               unit=""),
)


def live_check(app: Any) -> Check:
    """The index read from its manifest (not loaded: cheap), and whether the language-model provider builds."""
    from regintel.retrieval.index_io import index_status

    status = index_status(app.settings)
    llm_problem = ""
    try:
        app.router.describe()
    except Exception as exc:  # a provider that cannot be built (bad key file, missing package) is an outage
        llm_problem = f"{exc.__class__.__name__}: {str(exc)[:200]}"
    return Check(int(status.get("chunks", 0) or 0) if status.get("ready") else 0, str(status.get("error", "")), llm_problem)


def evaluate_rules(metrics: ServiceMetrics, check: Check, settings: Settings) -> list[RuleResult]:
    return [rule.evaluate(metrics, check, settings) for rule in RULES]


# -- events ------------------------------------------------------------------------------------------------------
@dataclass
class AlertReport:
    results: list[RuleResult] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    delivered: int = 0
    delivery_failures: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"firing": sorted(r.rule for r in self.results if r.firing), "fired": self.fired,
                "resolved": self.resolved, "delivered": self.delivered, "delivery_failures": self.delivery_failures}


def record_events(db: Database, results: list[RuleResult], now: datetime) -> tuple[list[str], list[str]]:
    """Open an event for each rule that starts firing, resolve the open event of each rule that stopped; a rule
    still firing keeps its event (its latest value is updated). Returns (fired, resolved) rule names."""
    fired, resolved = [], []
    with db.session() as session:
        open_events = {e.rule: e for e in session.scalars(
            select(AlertEvent).where(AlertEvent.state == FIRING, AlertEvent.tenant_id.is_(None)))}
        for result in results:
            event = open_events.get(result.rule)
            if result.firing and event is None:
                session.add(AlertEvent(rule=result.rule, severity=result.severity, state=FIRING, value=result.value,
                                       threshold=result.threshold, message=result.message, started_at=now))
                fired.append(result.rule)
            elif result.firing and event is not None:
                event.value, event.message = result.value, result.message
            elif result.firing is False and event is not None:
                event.state, event.resolved_at, event.value = RESOLVED, now, result.value
                event.message = result.message
                event.delivered, event.attempts, event.next_attempt_at, event.last_error = False, 0, None, ""
                resolved.append(result.rule)
    return fired, resolved


def open_alerts(db: Database) -> list[AlertEvent]:
    """The rules firing now, critical first."""
    with db.session() as session:
        events = list(session.scalars(select(AlertEvent).where(AlertEvent.state == FIRING)))
    return sorted(events, key=lambda e: (e.severity != CRITICAL, e.started_at))


def recent_events(db: Database, limit: int = 100) -> list[AlertEvent]:
    with db.session() as session:
        return list(session.scalars(select(AlertEvent).order_by(AlertEvent.started_at.desc()).limit(limit)))


# -- webhook -----------------------------------------------------------------------------------------------------
def payload(event: AlertEvent) -> dict[str, Any]:
    """What the webhook receives: rule names and figures, never tenant content. ``text`` is for chat tools'
    incoming webhooks (Slack, Mattermost, Teams' simple cards read it)."""
    icon = "RESOLVED" if event.state == RESOLVED else event.severity.upper()
    return {"text": f"[RegIntel {icon}] {event.message}", "rule": event.rule, "severity": event.severity,
            "state": event.state, "value": event.value, "threshold": event.threshold,
            "started_at": utc(event.started_at).isoformat(),
            "resolved_at": utc(event.resolved_at).isoformat() if event.resolved_at else None, "event_id": event.id}


def post(url: str, body: dict[str, Any], timeout: float = POST_TIMEOUT_S) -> None:
    """One JSON POST; raises on a network error or any status but 2xx (a redirect is not followed)."""
    with httpx.Client(follow_redirects=False, timeout=timeout) as client:
        response = client.post(url, content=json.dumps(body).encode("utf-8"),
                               headers={"Content-Type": "application/json"})
    if not 200 <= response.status_code < 300:
        raise httpx.HTTPStatusError(f"webhook answered {response.status_code}", request=response.request,
                                    response=response)


def deliver_pending(db: Database, url: str, now: datetime, send: Callable[[str, dict[str, Any]], None] = post) -> tuple[int, int]:
    """POST every event whose current state the webhook has not received and whose backoff has passed; returns
    (delivered, failed)."""
    if not url:
        return 0, 0
    delivered = failed = 0
    with db.session() as session:
        due = list(session.scalars(select(AlertEvent).where(
            AlertEvent.delivered.is_(False), AlertEvent.attempts < MAX_ATTEMPTS,
            or_(AlertEvent.next_attempt_at.is_(None), AlertEvent.next_attempt_at <= now),
            or_(AlertEvent.started_at >= now - DELIVERY_HORIZON, AlertEvent.resolved_at >= now - DELIVERY_HORIZON))
            .order_by(AlertEvent.started_at)))
        for event in due:
            try:
                send(url, payload(event))
            except (httpx.HTTPError, OSError) as exc:
                event.attempts += 1
                event.next_attempt_at = now + BASE_BACKOFF * 2 ** (event.attempts - 1)
                event.last_error = f"{exc.__class__.__name__}: {str(exc)[:300]}"
                failed += 1
                log.warning("alert webhook failed for %s (%s), attempt %d: %s", event.rule, event.state, event.attempts, exc)
            else:
                event.delivered, event.delivered_state, event.attempts = True, event.state, 0
                event.next_attempt_at, event.last_error = None, ""
                delivered += 1
    return delivered, failed


def evaluate_alerts(app: Any, now: datetime | None = None) -> AlertReport:
    """Evaluate every rule over the window ending at ``now``, store firings and resolutions, deliver them."""
    now = utc(now or datetime.now(timezone.utc))
    settings = app.settings
    metrics = service_metrics(app.db, now - timedelta(minutes=settings.metrics_window_minutes), now)
    report = AlertReport(evaluate_rules(metrics, live_check(app), settings))
    report.fired, report.resolved = record_events(app.db, report.results, now)
    report.delivered, report.delivery_failures = deliver_pending(app.db, settings.alert_webhook_url, now)
    return report


def alerts_job_handler(app: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The worker's ``alerts.evaluate`` job: one evaluation (the supervised worker schedules it periodically)."""
    def handle(payload: dict[str, Any]) -> dict[str, Any]:
        return evaluate_alerts(app).to_dict()
    return handle
