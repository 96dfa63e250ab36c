"""Home: what the app is, the state of the index, and (admins) building or re-indexing it."""

from __future__ import annotations

import streamlit as st

from regintel.errors import RegIntelError
from regintel.ops.alerts import open_alerts
from regintel.retrieval.corpus import scan_corpus
from regintel.ui import auth, state

identity = auth.require("chat")
st.title("RegIntel Copilot")
st.caption(
    "Regulatory intelligence: ask questions of EU and national regulation, get streamed answers in which every "
    "claim carries a citation, graded DIRECT / QUALIFIED / ABSTAIN by the strength of the evidence."
)
if identity.source == "laptop":
    st.info("**Laptop mode**: sign-in is off (REGINTEL_LAPTOP_MODE) because this server listens on the loopback "
            "address only; you are the admin of the tenant `local`. Set up accounts or single sign-on before "
            "serving it to others (README, \"Sign-in and roles\").", icon=":material/laptop:")

try:
    app = state.app()
    status = app.status()
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()
settings = app.settings
for alert in [e for e in open_alerts(app.db) if e.severity == "critical"]:  # issue 22: the service is degraded
    st.error(f"**Service alert: {alert.rule.replace('_', ' ')}** since {alert.started_at:%Y-%m-%d %H:%M} UTC. "
             + ("See **Operations**." if identity.can("dashboard") else "Answers may fail or be slow until it is resolved."), icon=":material/error:")


def build_index() -> None:
    """Index the corpus with a progress bar, keep the report for the next run, and rerun so the page shows the
    index as it now is (not the state read before the build)."""
    bar = st.progress(0.0, text="Starting…")

    def progress(phase: str, done: int, total: int) -> None:
        bar.progress(min(1.0, done / total) if total else 1.0, text=f"{phase}: {done}/{total}")

    try:
        report = app.ingest(progress=progress, wait=0)  # a page does not wait: it says another one is running
        app.audit.record("reindex", tenant_id=identity.tenant_id, actor=identity.user_name)
    except RegIntelError as exc:
        st.session_state.ingest_outcome = ("error", f"Indexing failed: {exc}", [])
    else:
        warnings = [f"Skipped {name}: {reason}" for name, reason in report.problems]
        warnings += [f"Repaired: {repaired}" for repaired in report.repaired]
        st.session_state.ingest_outcome = ("success", report.summary().replace("\n", "  \n"), warnings)
    st.rerun()


left, right = st.columns(2)
with left:
    st.subheader("Corpus and index")
    try:
        scan = scan_corpus(settings.corpus_dir)
        st.write(f"Corpus folder `{settings.corpus_dir}`: {len(scan.documents)} documents.")
        for name, reason in scan.problems:
            st.warning(f"Skipped {name}: {reason}")
    except RegIntelError as exc:
        st.error(str(exc))
        scan = None
    index = status.index
    if index.problem:
        st.error(f"The index cannot be used: {index.problem.rstrip('.')}. **Re-index corpus** rebuilds it "
                 "(vectors come back from the embedding cache).")
    elif index.ready:
        st.success(f"Index ready: {index.chunks} passages from {len(index.documents)} documents "
                   f"(corpus version {index.corpus_version[:12]}).")
    else:
        st.info("The corpus is not indexed yet. Build the index to start chatting (a few seconds with the shipped "
                "embedding cache of the demo corpus; new or changed documents are embedded, about 5 passages a second).")

    outcome = st.session_state.pop("ingest_outcome", None)
    if outcome is not None:
        kind, message, warnings = outcome
        (st.success if kind == "success" else st.error)(message)
        for warning in warnings:
            st.warning(warning)

    if not identity.can("reindex"):
        st.caption("An admin builds and re-indexes the corpus.")
    elif st.button("Re-index corpus" if index.ready or index.problem else "Build index", type="primary", disabled=scan is None):
        auth.require("reindex")
        build_index()

with right:
    st.subheader("Language model and rules graph")
    llm = status.llm
    if status.offline:
        st.info("**Offline mode**: no language model is configured, nothing leaves this machine. Answers quote the "
                "most relevant sentences of the sources verbatim, with their citations. Set REGINTEL_LLM_API_KEY or "
                "REGINTEL_LLM_BASE_URL to use a model (see README).")
    else:
        st.success(f"Language model: {llm['provider']} · {llm['model']} (personal data is replaced before any request leaves).")
    graph = status.graph
    if not graph.available:
        st.warning(f"The rules graph is not available: {graph.problem}")
    elif graph.counts:
        summary = ", ".join(f"{n} {label}" for label, n in sorted(graph.counts.items()))
        st.write(f"Rules graph ({graph.backend}): {summary}.")
    else:
        st.info(f"The rules graph ({graph.backend}) is empty: **Build index** / **Re-index corpus** seeds it "
                "with the corpus's rules, articles and cross-references; chats and reviews then add concepts.")

    st.subheader("Try a search")
    search_index = app.index_or_none() if index.ready else None
    if search_index is None:
        st.caption("Available once the index is built.")
    else:
        question = st.text_input("Search the regulation", placeholder="e.g. When must a personal data breach be notified?")
        if question.strip():
            for number, source in enumerate(search_index.search(question.strip()[:1000], k=5).sources, start=1):
                with st.expander(f"[{number}] {source.title} — {source.ref} · similarity {source.similarity:.0f} · {source.authority_level}"):
                    st.text(source.text)
                    if source.url:
                        st.markdown(f"[Source]({source.url})")
