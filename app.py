"""RegIntel Copilot home page: what the app is, the state of the index, and building it when it is empty."""

from __future__ import annotations

import streamlit as st

from regintel.errors import RegIntelError
from regintel.retrieval.corpus import scan_corpus
from regintel.retrieval.ingest import index_status, ingest_corpus
from regintel.ui import state

st.set_page_config(page_title="RegIntel Copilot", page_icon="⚖️", layout="wide")
st.title("RegIntel Copilot")
st.caption(
    "Regulatory intelligence: ask questions of EU and national regulation, get streamed answers in which every "
    "claim carries a citation, graded DIRECT / QUALIFIED / ABSTAIN by the strength of the evidence."
)

try:
    settings = state.settings()
    state.database()
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()

status = index_status(settings)
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
    problem = status.get("error", "")
    if status.get("ready"):
        try:
            state.search_index()
        except RegIntelError as exc:  # a corrupt or half-written index: say so, re-indexing rebuilds it
            problem = str(exc)
    if problem:
        st.error(f"The index cannot be used: {problem.rstrip('.')}. **Re-index corpus** rebuilds it "
                 "(vectors come back from the embedding cache).")
    elif status.get("ready"):
        st.success(
            f"Index ready: {status['chunks']} passages from {len(status.get('documents', []))} documents "
            f"(corpus version {str(status['corpus_version'])[:12]})."
        )
    else:
        st.info("The corpus is not indexed yet. Build the index to start chatting (about a minute with the shipped embedding cache).")

    if st.button("Re-index corpus" if status.get("ready") or problem else "Build index", type="primary", disabled=scan is None):
        bar = st.progress(0.0, text="Starting…")

        def progress(phase: str, done: int, total: int) -> None:
            bar.progress(min(1.0, done / total) if total else 1.0, text=f"{phase}: {done}/{total}")

        try:
            try:
                graph = state.graph_store()
            except RegIntelError as exc:  # the graph is a side feature: index without it
                graph = None
                st.warning(f"The rules graph is not available, indexing without it: {exc}")
            report = ingest_corpus(settings, progress=progress, graph=graph)
        except RegIntelError as exc:
            st.error(f"Indexing failed: {exc}")
        else:
            state.search_index.clear()
            state.engine.clear()  # the engine keys its response cache by corpus version
            bar.progress(1.0, text="Done")
            st.success(report.summary().replace("\n", "  \n"))
            for name, reason in report.problems:
                st.warning(f"Skipped {name}: {reason}")
            for repaired in report.repaired:
                st.warning(f"Repaired: {repaired}")

with right:
    st.subheader("Language model and rules graph")
    llm = state.llm_router().describe()
    if llm["offline"]:
        st.info("**Offline mode**: no language model is configured, nothing leaves this machine. Answers quote the "
                "most relevant sentences of the sources verbatim, with their citations. Set REGINTEL_LLM_API_KEY or "
                "REGINTEL_LLM_BASE_URL to use a model (see README).")
    else:
        st.success(f"Language model: {llm['provider']} · {llm['model']} (personal data is replaced before any request leaves).")
    try:
        counts = state.graph_store().query("MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n")
        summary = ", ".join(f"{row['n']} {row['label']}" for row in sorted(counts, key=lambda r: r["label"]))
        if summary:
            st.write(f"Rules graph ({settings.graph_backend}): {summary}.")
        else:
            st.info(f"The rules graph ({settings.graph_backend}) is empty: **Build index** / **Re-index corpus** seeds it "
                    "with the corpus's rules, articles and cross-references; chats and reviews then add concepts.")
    except RegIntelError as exc:
        st.warning(f"The rules graph is not available: {exc}")

    st.subheader("Try a search")
    index = state.search_index_or_none()
    if index is None:
        st.caption("Available once the index is built.")
    else:
        question = st.text_input("Search the regulation", placeholder="e.g. When must a personal data breach be notified?")
        if question.strip():
            for number, source in enumerate(index.search(question.strip()[:1000], k=5).sources, start=1):
                with st.expander(f"[{number}] {source.title} — {source.ref} · similarity {source.similarity:.0f} · {source.authority_level}"):
                    st.text(source.text)
                    if source.url:
                        st.markdown(f"[Source]({source.url})")
