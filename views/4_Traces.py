"""Traces: why an answer came out as it did. Every step of a turn with its timing and decision."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from regintel.analytics.traces import search_traces, step
from regintel.errors import RegIntelError
from regintel.ui import auth
from regintel.ui.filters import period_select, repository_or_stop
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Traces · RegIntel Copilot", page_icon="🔎", layout="wide")
st.title("Traces")

identity = auth.require("traces")
repo = repository_or_stop()
db = repo.db
with st.sidebar:
    st.caption(f"Tenant: {markdown_label(identity.tenant_name)}")
    start, end, _ = period_select()
    conversation = st.text_input("Conversation id", max_chars=40)
    mode = st.selectbox("Response mode", ["", "DIRECT", "QUALIFIED", "ABSTAIN"], format_func=lambda m: m or "Any")

trace_id = st.query_params.get("trace", "")
if not trace_id:
    found = search_traces(db, identity.tenant_id, start, end, conversation, mode)
    if found.empty:
        st.info("No trace matches.")
        st.stop()
    found = found.assign(open="Traces?trace=" + found["trace_id"])
    st.dataframe(found.drop(columns=["trace_id"]), hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("Trace", display_text="open")})
    trace_id = st.selectbox("Trace", list(found["trace_id"]),
                            format_func=lambda t: f"{found.set_index('trace_id').loc[t, 'question'][:80]} ({t[:8]})")

try:
    trace = repo.trace(identity.tenant_id, trace_id)
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()

st.subheader("Question")
st.text(trace.question)
top = st.columns(4)
top[0].metric("Response mode", trace.response_mode or "—")
top[1].metric("Total", f"{trace.total_ms:.0f} ms")
top[2].metric("From cache", "yes" if trace.from_cache else "no")
top[3].metric("Steps", len(trace.steps))
st.caption(f"trace {trace.id} · conversation {trace.conversation_id} · {trace.created_at:%Y-%m-%d %H:%M:%S}")

st.subheader("Steps")
st.dataframe(pd.DataFrame([{"step": s.get("step"), "ms": s.get("ms")} for s in trace.steps]), hide_index=True)

guardrails, decision, evidence = step(trace.steps, "guardrails"), step(trace.steps, "context_decision"), step(trace.steps, "evidence")
cols = st.columns(3)
with cols[0]:
    st.markdown("**Guardrail**")
    st.json({k: guardrails.get(k) for k in ("query_type", "allowed", "matched")}, expanded=True)
with cols[1]:
    st.markdown("**Context decision**")
    st.json({k: decision.get(k) for k in ("reuse_previous", "reason", "similarity")}, expanded=True)
with cols[2]:
    st.markdown("**Evidence analysis**")
    st.json({k: v for k, v in evidence.items() if k not in ("step", "ms")}, expanded=True)

retrieval = step(trace.steps, "retrieval")
st.markdown("**Retrieved passages** (BM25, dense and fused ranks and scores)")
if retrieval.get("chunks"):
    st.dataframe(pd.DataFrame(retrieval["chunks"]), hide_index=True, width="stretch")
    st.caption("Timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in retrieval.get("timings_ms", {}).items()))
else:
    st.caption("No retrieval in this turn (the previous turn's passages were reused, or the answer came from the cache).")

llm = step(trace.steps, "llm")
with st.expander("Model call: prompt sent (sanitised), egress report, errors", expanded=bool(llm)):
    st.json({"llm": llm.get("llm"), "first_token_ms": llm.get("first_token_ms"), "error": llm.get("error"),
             "sanitiser": llm.get("egress"), "tool_calls": llm.get("tool_calls")})
    st.text((llm.get("prompt") or {}).get("system", ""))
concepts, verification, grading = step(trace.steps, "concepts"), step(trace.steps, "verification"), step(trace.steps, "grading")
with st.expander("Tool payload and resolved concepts"):
    st.json({"payloads": concepts.get("payloads"), "referenced": concepts.get("referenced"),
             "skipped": concepts.get("skipped"), "errors": concepts.get("errors"), "queued": concepts.get("queued")})
with st.expander("Claim verification and grade", expanded=True):
    st.json({"verification": {k: v for k, v in verification.items() if k not in ("step", "ms")},
             "grade": {k: v for k, v in grading.items() if k not in ("step", "ms")}})
cache = step(trace.steps, "cache_lookup")
st.caption(f"Cache: lookup {'hit' if cache.get('hit') else 'miss' if cache else 'not used (follow-up)'}"
           + ("; stored" if step(trace.steps, "cache_store") else ""))
st.download_button("Download trace (JSON)", json.dumps({"id": trace.id, "question": trace.question, "steps": trace.steps},
                   ensure_ascii=False, indent=1).encode(), file_name=f"trace-{trace.id}.json", mime="application/json")
