"""Feedback Dashboard: answer quality of one tenant over a period (KPIs, charts, negative feedback, CSV export)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from regintel.analytics.dashboard import feedback_csv, load_feedback, load_turns, summarise
from regintel.ui import auth
from regintel.ui.filters import period_select, repository_or_stop
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Feedback Dashboard · RegIntel Copilot", page_icon="📊", layout="wide")
st.title("Feedback Dashboard")

identity = auth.require("dashboard")
repo = repository_or_stop()
db = repo.db
with st.sidebar:
    st.caption(f"Tenant: {markdown_label(identity.tenant_name)}")
    start, end, period_label = period_select()

turns = load_turns(db, identity.tenant_id, start, end)
feedback = load_feedback(db, identity.tenant_id, start, end)
summary = summarise(turns, feedback)
if summary.questions == 0 and feedback.empty:
    st.info(f"No questions for {markdown_label(identity.tenant_name)} in {period_label}.")
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
            color="kind:N", xOffset="kind:N"), width="stretch")
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
    st.dataframe(table.drop(columns=["trace_id"]), hide_index=True, width="stretch",
                 column_config={"trace": st.column_config.LinkColumn("Trace", display_text="open trace")})
st.download_button("Export feedback (CSV)", feedback_csv(feedback), file_name=f"feedback-{identity.tenant_name}.csv",
                   mime="text/csv", disabled=feedback.empty)
