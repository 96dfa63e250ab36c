"""Feedback Dashboard: answer quality of one tenant over a period (KPIs, charts, negative feedback, CSV export)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

import altair as alt
import pandas as pd
import streamlit as st

from regintel.analytics.dashboard import feedback_csv, load_feedback, load_turns, summarise
from regintel.chat.repository import ConversationRepository
from regintel.errors import RegIntelError
from regintel.ui import state

st.set_page_config(page_title="Feedback Dashboard · RegIntel Copilot", page_icon="📊", layout="wide")
st.title("Feedback Dashboard")

try:
    db = state.database()
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()
repo = ConversationRepository(db)
tenants = repo.tenants()
if not tenants:
    st.info("No conversations yet: ask a question on the Chat page (or run `python -m regintel demo`).")
    st.stop()

with st.sidebar:
    names = [t.name for t in tenants]
    wanted = st.query_params.get("t", names[0])
    tenant = tenants[names.index(wanted) if wanted in names else 0]
    tenant = tenants[names.index(st.selectbox("Tenant", names, index=names.index(tenant.name), key="dash_tenant"))]
    today = date.today()
    period = st.date_input("Period", (today - timedelta(days=30), today), max_value=today, key="dash_period")
if not isinstance(period, (tuple, list)) or len(period) != 2:
    st.info("Choose the end of the period.")
    st.stop()
start = datetime.combine(period[0], time.min, tzinfo=timezone.utc)
end = datetime.combine(period[1] + timedelta(days=1), time.min, tzinfo=timezone.utc)

turns = load_turns(db, tenant.id, start, end)
feedback = load_feedback(db, tenant.id, start, end)
summary = summarise(turns, feedback)
if summary.questions == 0 and feedback.empty:
    st.info(f"No questions for {tenant.name} between {period[0]} and {period[1]}.")
    st.stop()

kpis = st.columns(7)
kpis[0].metric("Questions", summary.questions)
kpis[1].metric("Thumbs up / down", f"{summary.thumbs_up} / {summary.thumbs_down}",
               help="Share of positive ratings: " + (f"{summary.satisfaction:.0%}" if summary.satisfaction is not None else "n/a"))
kpis[2].metric("Claim verification", f"{summary.verification_rate:.0%}" if summary.verification_rate is not None else "n/a")
kpis[3].metric("Cache hit rate", f"{summary.cache_hit_rate:.0%}" if summary.cache_hit_rate is not None else "n/a")
kpis[4].metric("Latency p50", f"{summary.latency_p50_ms or 0:.0f} ms")
kpis[5].metric("Latency p95", f"{summary.latency_p95_ms or 0:.0f} ms")
kpis[6].metric("Failed answers", summary.failed)
MODE_COLOURS = {"ABSTAIN": "#d62728", "DIRECT": "#2ca02c", "QUALIFIED": "#ff7f0e"}

left, right = st.columns(2)
with left:
    st.subheader("Questions per day")
    if not summary.per_day.empty:
        st.bar_chart(summary.per_day, color=[MODE_COLOURS[m] for m in summary.per_day.columns], stack=True)
    st.subheader("Response modes")
    st.bar_chart(pd.DataFrame({"share": summary.mode_shares}), horizontal=True)
    st.subheader("Abstention reasons")
    if summary.abstention_reasons:
        st.bar_chart(pd.DataFrame({"answers": summary.abstention_reasons}), horizontal=True)
    else:
        st.caption("No abstention in this period.")
with right:
    st.subheader("Confidence and authority scores")
    scores = pd.concat([pd.DataFrame({"score": summary.confidence_scores, "kind": "confidence"}),
                        pd.DataFrame({"score": summary.authority_scores, "kind": "authority"})])
    if not scores.empty:
        st.altair_chart(alt.Chart(scores).mark_bar(opacity=0.7).encode(
            x=alt.X("score:Q", bin=alt.Bin(maxbins=10), title="score"), y=alt.Y("count():Q", title="answers"),
            color="kind:N", xOffset="kind:N"), use_container_width=True)
    st.subheader("Top captured concepts")
    if summary.top_concepts:
        st.bar_chart(pd.DataFrame(summary.top_concepts, columns=["concept", "turns"]).set_index("concept"), horizontal=True)
    else:
        st.caption("No concept captured in this period.")

st.subheader("Negative feedback")
if summary.negative_feedback.empty:
    st.caption("No thumbs down in this period.")
else:
    table = summary.negative_feedback.assign(trace=lambda f: "Traces?trace=" + f["trace_id"].fillna(""))
    st.dataframe(table.drop(columns=["trace_id"]), hide_index=True, use_container_width=True,
                 column_config={"trace": st.column_config.LinkColumn("Trace", display_text="open trace")})
st.download_button("Export feedback (CSV)", feedback_csv(feedback), file_name=f"feedback-{tenant.name}.csv",
                   mime="text/csv", disabled=feedback.empty)
