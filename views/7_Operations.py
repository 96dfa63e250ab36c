"""Operations (admins): service figures over a window (volume, latency percentiles, rates, distributions), the
alerts firing now and recent alert events, and the response cache of the tenant (hit rate against its target,
clear). Figures come from ``regintel.ops``; the same ones are served to Prometheus by ``python -m regintel metrics``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import streamlit as st

from regintel.errors import RegIntelError
from regintel.ops.alerts import RULES, evaluate_alerts, open_alerts, recent_events
from regintel.ops.cache_admin import cache_state, clear_response_cache
from regintel.ops.metrics import service_metrics
from regintel.ui import auth, state
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Operations · RegIntel Copilot", page_icon="🩺", layout="wide")
identity = auth.require("dashboard")
try:
    app = state.app()
    db, settings = app.db, app.settings
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()
st.title("Operations")

WINDOWS = {"last hour": 1, "last 6 hours": 6, "last 24 hours": 24, "last 7 days": 24 * 7, "last 30 days": 24 * 30}
with st.sidebar:
    window = st.selectbox("Window", list(WINDOWS), index=2)
    scope = st.radio("Figures of", [f"tenant {markdown_label(identity.tenant_name)}", "all tenants"], key="ops_scope",
                     help="All tenants: the service as a whole (figures only, no other tenant's names or content).")
end = datetime.now(timezone.utc)
start = end - timedelta(hours=WINDOWS[window])
tenant_id = identity.tenant_id if scope.startswith("tenant ") else None
metrics = service_metrics(db, start, end, tenant_id)


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


# -- alerts first: what needs attention -------------------------------------------------------------------------
st.subheader("Alerts")
firing = open_alerts(db)
if firing:
    for event in firing:
        (st.error if event.severity == "critical" else st.warning)(
            f"**{event.rule.replace('_', ' ')}** ({event.severity}, since {event.started_at:%Y-%m-%d %H:%M} UTC): "
            f"{markdown_label(event.message)}")
else:
    st.success("No alert is firing.")
left, right = st.columns([3, 1])
with right:
    if st.button("Evaluate the rules now", help="The worker evaluates them on its schedule; this runs one evaluation "
                 "here (firings and resolutions are stored and sent to the webhook as usual)."):
        auth.require("dashboard")
        with st.spinner("Evaluating…"):
            report = evaluate_alerts(app)
        st.session_state.ops_evaluated = report.to_dict()
        st.rerun()
    if "ops_evaluated" in st.session_state:
        outcome = st.session_state.pop("ops_evaluated")
        st.caption(f"Fired: {', '.join(outcome['fired']) or 'none'} · resolved: {', '.join(outcome['resolved']) or 'none'}"
                   f" · webhook: {outcome['delivered']} sent, {outcome['delivery_failures']} failed")
    if not settings.alert_webhook_url:
        st.caption("No webhook configured (REGINTEL_ALERT_WEBHOOK_URL): events are stored and shown here only.")
with left:
    events = recent_events(db, limit=50)
    if events:
        st.dataframe(pd.DataFrame([{
            "rule": e.rule, "severity": e.severity, "state": e.state, "value": e.value, "threshold": e.threshold,
            "started": e.started_at, "resolved": e.resolved_at, "webhook": "sent" if e.delivered else
            (f"failed ×{e.attempts}: {e.last_error[:80]}" if e.attempts else "not sent"), "message": e.message}
            for e in events]), hide_index=True, width="stretch")
    else:
        st.caption("No alert event yet.")
with st.expander("Rules and thresholds"):
    st.caption(f"Rate rules need {settings.alert_min_turns} turns in the last {settings.metrics_window_minutes} "
               "minutes before they fire (REGINTEL_ALERT_MIN_TURNS, REGINTEL_METRICS_WINDOW_MINUTES).")
    thresholds = {"error_rate": percent(settings.alert_error_rate), "latency_p90": seconds(settings.alert_p90_seconds),
                  "knowledge_base_empty": "0 passages", "llm_failing": f"{settings.alert_llm_failures} failed calls in a row",
                  "cache_hit_rate": percent(settings.alert_cache_hit_rate),
                  "abstention_rate": percent(settings.alert_abstention_rate),
                  "mean_confidence": f"{settings.alert_mean_confidence:.2f}"}
    st.dataframe(pd.DataFrame([{"rule": r.name, "severity": r.severity, "what": r.title, "threshold": thresholds[r.name]}
                               for r in RULES]), hide_index=True, width="stretch")

# -- figures ----------------------------------------------------------------------------------------------------
st.subheader(f"Service figures, {window}")
if metrics.turns == 0:
    st.info(f"No chat turn in the {window}.")
else:
    row = st.columns(5)
    row[0].metric("Turns", metrics.turns)
    row[1].metric("Error rate", percent(metrics.error_rate))
    row[2].metric("Latency p50", seconds(metrics.latency_p50_s))
    row[3].metric("Latency p90", seconds(metrics.latency_p90_s))
    row[4].metric("Latency p99", seconds(metrics.latency_p99_s))
    row = st.columns(5)
    row[0].metric("Cache hit rate", percent(metrics.cache_hit_rate))
    row[1].metric("Abstention rate", percent(metrics.abstention_rate))
    row[2].metric("Mean confidence", "n/a" if metrics.mean_confidence is None else f"{metrics.mean_confidence:.2f}")
    row[3].metric("Claim verification", percent(metrics.verification_rate))
    row[4].metric("LLM errors", f"{metrics.llm_errors} / {metrics.llm_calls}")
    hours = metrics.per_hour
    left, right = st.columns(2)
    with left:
        st.markdown("**Turns per hour**")
        st.bar_chart(hours[["turns"]])
        st.markdown("**Rates per hour**")
        st.line_chart(hours[["error_rate", "cache_hit_rate", "abstention_rate"]])
    with right:
        st.markdown("**Latency percentiles per hour (s)**")
        st.line_chart(hours[["p50_s", "p90_s", "p99_s"]])
        st.markdown("**Confidence and authority scores**")
        st.bar_chart(pd.DataFrame({"confidence": metrics.confidence_distribution,
                                   "authority": metrics.authority_distribution}), stack=False)

# -- response cache of this tenant ------------------------------------------------------------------------------
st.subheader(f"Response cache of {markdown_label(identity.tenant_name)}")
mine = metrics if tenant_id else service_metrics(db, start, end, identity.tenant_id)
cache = cache_state(db, identity.tenant_id)
row = st.columns(3)
target = settings.alert_cache_hit_rate
row[0].metric("Hit rate", percent(mine.cache_hit_rate),
              delta=None if mine.cache_hit_rate is None else f"{mine.cache_hit_rate - target:+.1%} against the {target:.0%} target")
row[1].metric("Cached answers", cache.entries, help=f"{cache.expired} expired, removed at their next lookup")
row[2].metric("Replays from these entries", cache.hits)
with st.form("clear-cache"):
    sure = st.checkbox(f"Clear every cached answer of {markdown_label(identity.tenant_name)} (the next first questions "
                       "are answered afresh)")
    if st.form_submit_button(f"Clear response cache for tenant {markdown_label(identity.tenant_name)}", disabled=cache.entries + cache.expired == 0):
        auth.require("dashboard")
        if not sure:
            st.warning("Tick the box to confirm.")
        else:
            removed = clear_response_cache(db, identity.tenant_id)
            app.audit.record("cache_clear", tenant_id=identity.tenant_id, actor=identity.user_name, removed=removed)
            st.session_state.ops_cleared = removed
            st.rerun()
if "ops_cleared" in st.session_state:
    st.success(f"Cleared {st.session_state.pop('ops_cleared')} cached answers.")
