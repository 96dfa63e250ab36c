"""Extraction Review: curators turn a source's quotes into concepts, review the proposal, and commit it."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from regintel.errors import ExtractionError, Forbidden, RegIntelError
from regintel.extraction.content import content_from_corpus, content_from_text, content_from_upload, corpus_sections
from regintel.extraction.report import build_report, diff_revisions
from regintel.extraction.workflow import PHASE_LABELS, PHASES
from regintel.graph.store import GraphError
from regintel.retrieval.corpus import scan_corpus
from regintel.runtime import write_failure
from regintel.ui import auth, state
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Extraction Review · RegIntel Copilot", page_icon="🧩", layout="wide")
identity = auth.require("review")
st.title("Extraction Review")
st.caption("Turn a source's quotes into atomic, de-duplicated concepts. Nothing reaches the shared graph until you "
           "approve. Offline, concepts keep the source's wording and feedback is read as commands.")

try:
    app = state.app()
    workflow = app.extraction
except GraphError as exc:
    st.error(f"Extraction needs the rules graph, which is not available: {exc}")
    st.stop()
except RegIntelError as exc:
    st.error(f"Extraction is not available: {exc}")
    st.stop()

STATUS_ICONS = {"review": ":material/rate_review:", "committed": ":material/check_circle:",
                "notes_sync_pending": ":material/sync_problem:", "commit_pending": ":material/sync_problem:",
                "aborted": ":material/cancel:",
                "running": ":material/hourglass_top:", "committing": ":material/hourglass_top:",
                "already_processed": ":material/done_all:", "failed": ":material/error:"}


def show_error(exc: Exception) -> None:
    st.error(markdown_label(str(exc)), icon=":material/error:")


def progress_display():
    """A progress bar per phase, updated by the workflow's progress callback."""
    box = st.status("Extracting concepts…", expanded=True)
    bars: dict[str, object] = {}

    def update(phase: str, done: int, total: int) -> None:
        if phase not in bars:
            bars[phase] = box.progress(0.0, text=PHASE_LABELS.get(phase, phase))
        fraction = done / total if total else 1.0
        bars[phase].progress(min(fraction, 1.0), text=f"{PHASE_LABELS.get(phase, phase)}: {done}/{total}")  # type: ignore[attr-defined]
    return box, update


def start_extraction(content_key: str) -> None:
    box, update = progress_display()
    try:
        run = workflow.start(content_key, curator=identity.user_name, tenant_id=identity.tenant_id, progress=update)
    except (ExtractionError, GraphError) as exc:
        box.update(label="Extraction failed", state="error")
        show_error(exc)
        return
    box.update(label="Extraction finished: the proposal is ready for review", state="complete", expanded=False)
    st.query_params["run"] = run.id
    st.rerun()


# -- sidebar: curator and runs -----------------------------------------------------------------------------------
runs = workflow.list_runs(tenant_id=identity.tenant_id)
with st.sidebar:
    st.subheader("Runs")
    if st.button("New extraction", icon=":material/add:", width="stretch"):
        st.query_params.pop("run", None)
        st.rerun()
    for run in runs[:30]:
        label = f"{markdown_label(run.content_title[:40])} · {run.status}"
        if st.button(label, key=f"run-{run.id}", icon=STATUS_ICONS.get(run.status), width="stretch"):
            st.query_params["run"] = run.id
            st.rerun()

run_id = st.query_params.get("run", "")

# -- no run selected: choose or create a content -----------------------------------------------------------------
if not run_id:
    st.subheader("Start an extraction")
    from_corpus, from_text, from_file, from_graph = st.tabs(["From the corpus", "Paste text", "Upload quotes", "Existing contents"])
    with from_corpus:
        documents = {d.id: d for d in scan_corpus(workflow.settings.corpus_dir).documents}
        doc_id = st.selectbox("Document", list(documents), format_func=lambda d: documents[d].title, key="xr_doc")
        sections = corpus_sections(documents[doc_id]) if doc_id else []
        ref = st.selectbox("Article or section", [r for r, _ in sections], key="xr_ref",
                           format_func=lambda r: next((h for rr, h in sections if rr == r), r))
        if st.button("Create content and extract", key="xr_corpus_go", type="primary", disabled=not ref):
            domain = app.lexicon.domain_for(doc_id)
            try:
                content = workflow.save_content(content_from_corpus(documents[doc_id], ref, domain))
            except ExtractionError as exc:
                show_error(exc)
            else:
                start_extraction(content.key)
    with from_text:
        with st.form("xr_text_form"):
            title = st.text_input("Title", max_chars=300)
            cols = st.columns(3)
            author = cols[0].text_input("Author", max_chars=300)
            category = cols[1].text_input("Category", max_chars=300)
            url = cols[2].text_input("Source URL", max_chars=300)
            cols = st.columns(2)
            jurisdiction = cols[0].text_input("Jurisdiction", value="EU", max_chars=10)
            domain = cols[1].text_input("Domain", value="REGULATORY", max_chars=60)
            text = st.text_area("Text (paragraphs become quotes)", height=200, max_chars=200_000)
            go = st.form_submit_button("Create content and extract", type="primary")
        if go:
            try:
                content = workflow.save_content(content_from_text(title, text, author=author, category=category,
                                                                   source_url=url, jurisdiction=jurisdiction, domain=domain))
            except ExtractionError as exc:
                show_error(exc)
            else:
                start_extraction(content.key)
    with from_file:
        upload = st.file_uploader("JSON (list of quotes or {\"quotes\": [...]}), CSV (a text column) or markdown",
                                  type=["json", "csv", "md", "markdown", "txt"], key="xr_upload")
        up_title = st.text_input("Title (optional)", key="xr_up_title", max_chars=300)
        if st.button("Create content and extract", key="xr_upload_go", type="primary", disabled=upload is None):
            try:
                draft = content_from_upload(upload.name, upload.getvalue(), title=up_title)
                for problem in draft.problems:
                    st.warning(f"Skipped {markdown_label(problem)}")
                content = workflow.save_content(draft)
            except ExtractionError as exc:
                show_error(exc)
            else:
                start_extraction(content.key)
    with from_graph:
        contents = workflow.list_contents()
        if not contents:
            st.info("No contents yet.")
        else:
            st.dataframe(pd.DataFrame([{"title": c["title"], "quotes": c["quotes"],
                                        "processed": c["processed_date"] or "—"} for c in contents]),
                         hide_index=True, width="stretch")
            pending = [c for c in contents if not c["processed_date"]]
            chosen = st.selectbox("Unprocessed content", [c["key"] for c in pending], key="xr_existing",
                                  format_func=lambda k: next(c["title"] for c in pending if c["key"] == k))
            if st.button("Extract", key="xr_existing_go", disabled=not chosen):
                start_extraction(chosen)
    st.stop()

# -- one run -----------------------------------------------------------------------------------------------------
try:
    run = workflow.run(run_id, tenant_id=identity.tenant_id)
except ExtractionError as exc:
    show_error(exc)
    st.stop()
content = workflow.content(run.content_key)
quotes = workflow.quotes(run.content_key)
revisions = workflow.revisions(run.id)
existing_titles = workflow.existing_titles()

st.subheader(markdown_label(run.content_title))
meta = st.columns(4)
meta[0].metric("Status", run.status)
meta[1].metric("Revision", run.current_revision)
meta[2].metric("Feedback rounds", f"{run.review_rounds}/{workflow.settings.extraction_review_rounds}")
meta[3].metric("Mode", "offline" if run.mode == "offline" else "LLM")
if content is not None and content.source_url:
    st.caption(f"Source: {markdown_label(content.source_url)} · {len(quotes)} quotes")

phase_rows = [{"phase": PHASE_LABELS[p], "done": run.progress.get(p, {}).get("done", ""),
               "total": run.progress.get(p, {}).get("total", ""), "ms": run.progress.get(p, {}).get("ms", "")}
              for p in PHASES if p in run.progress]
with st.expander("Phases", expanded=False, icon=":material/timeline:"):
    st.dataframe(pd.DataFrame(phase_rows), hide_index=True, width="stretch")
for error in run.errors:
    st.warning(markdown_label(f"{error.get('step', '')}: {error.get('error', '')}"), icon=":material/warning:")

if not revisions:
    if run.status == "running" and st.button("Resume extraction", type="primary"):
        box, update = progress_display()
        workflow.resume(run.id, progress=update)
        st.rerun()
    st.stop()

latest = revisions[-1]
report = build_report(latest.proposal, quotes, existing_titles)
if latest.source == "feedback":
    with st.container(border=True):
        st.markdown(f"**Feedback (revision {latest.number}):** {markdown_label(latest.feedback)}")
        for line in latest.interpretation:
            st.markdown(f":material/check: {markdown_label(line)}")
        for line in latest.unresolved:
            st.markdown(f":material/help: Unresolved: {markdown_label(line)}")

proposal_tab, quotes_tab, critique_tab, diff_tab = st.tabs(
    [f"New concepts ({len(report.concepts)})", f"Quotes ({len(quotes)})", "Critique log", "Revisions"])
with proposal_tab:
    for warning in report.warnings:
        st.warning(markdown_label(warning), icon=":material/info:")
    for concept in report.concepts:
        with st.expander(f"{concept['#']}. {markdown_label(concept['title'])}", expanded=len(report.concepts) <= 5):
            st.markdown(markdown_label(concept["concept"]))
            st.caption(f"Rationale: {markdown_label(concept['rationale'])}")
            for quote_id, text in concept["quote_texts"]:
                st.markdown(f"> **{quote_id}** {markdown_label(text)}")
    st.markdown("**Relations** (the reverse of each is written automatically)")
    st.dataframe(pd.DataFrame(report.relations or [{"source": "—"}]), hide_index=True, width="stretch")
    if report.existing:
        st.markdown("**Quotes attributed to existing concepts** (candidates found to be duplicates)")
        st.dataframe(pd.DataFrame(report.existing), hide_index=True, width="stretch")
    if report.disconnected:
        st.caption("Disconnected concepts (no relation): " + ", ".join(markdown_label(d) for d in report.disconnected))
with quotes_tab:
    st.markdown("**Quote attributions** (quotes that support several concepts are marked)")
    st.dataframe(pd.DataFrame(report.attributions or [{"quote": "—"}]), hide_index=True, width="stretch")
    st.markdown("**Unattributed quotes**")
    st.dataframe(pd.DataFrame(report.unattributed or [{"quote": "—"}]), hide_index=True, width="stretch")
with critique_tab:
    for revision in revisions:
        critique = revision.critique
        st.markdown(f"**Revision {revision.number}** ({revision.source}): {markdown_label(critique.summary)}")
        rows = [{"check": name, "passes": check.passes, "issues": len(check.issues),
                 "first issue": check.issues[0].issue if check.issues else ""} for name, check in critique.checks.items()]
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        for note in revision.proposal.notes:
            st.caption(markdown_label(note))
with diff_tab:
    if len(revisions) < 2:
        st.caption("One revision so far.")
    else:
        numbers = [r.number for r in revisions]
        cols = st.columns(2)
        a = cols[0].selectbox("From revision", numbers, index=len(numbers) - 2, key="xr_diff_a")
        b = cols[1].selectbox("To revision", numbers, index=len(numbers) - 1, key="xr_diff_b")
        by_number = {r.number: r for r in revisions}
        lines = diff_revisions(by_number[a].proposal, by_number[b].proposal)
        st.code("\n".join(lines) or "No changes.", language="diff")

# -- review actions ----------------------------------------------------------------------------------------------
if run.status == "review":
    st.divider()
    with st.form("xr_feedback_form", clear_on_submit=True):
        feedback = st.text_area("Feedback", max_chars=4000, placeholder=(
            "merge 2 and 5 · split 3 · drop 4 · rename 2 to Controller · relate 1 PART_OF 6 · "
            "quote q7 supports 1 (one per line)" if run.mode == "offline" else "Tell the model what to change"))
        sent = st.form_submit_button("Send feedback", icon=":material/send:")
    if sent:
        try:
            workflow.feedback(run.id, feedback)
        except ExtractionError as exc:
            show_error(exc)
        else:
            st.rerun()
    cols = st.columns([1, 1, 4])
    if cols[0].button("Approve and commit", type="primary", icon=":material/done_all:"):
        auth.require("approve")
        with st.spinner("Committing to the graph…"):
            try:
                committed = workflow.approve(run.id, by=identity)
            except (ExtractionError, Forbidden) as exc:
                app.audit.record("approve", tenant_id=identity.tenant_id, actor=identity.user_name, target=run.id,
                                 outcome="refused", reason=str(exc)[:200])
                show_error(exc)
            except Exception as exc:  # a full disk or read-only data directory: a sentence, not a traceback
                if write_failure(exc) is None:
                    raise
                st.error(f"The approval could not be recorded ({markdown_label(write_failure(exc))}): the data store "
                         "is full or read-only. Approve again once there is space: the commit is written again "
                         "safely (every write is a merge).", icon=":material/error:")
            else:
                app.audit.record("approve", tenant_id=identity.tenant_id, actor=identity.user_name, target=run.id,
                                 title=run.content_title[:200], status=committed.status)
                st.rerun()
    if cols[1].button("Abort", icon=":material/cancel:"):
        auth.require("approve")
        workflow.abort(run.id, by=identity)
        app.audit.record("abort", tenant_id=identity.tenant_id, actor=identity.user_name, target=run.id)
        st.rerun()

if run.status == "commit_pending":
    st.divider()
    st.warning("Approved, but the graph has not confirmed the commit yet: it stays pending and the worker "
               "(`python -m regintel worker`) writes it again until the graph holds it.", icon=":material/sync_problem:")
    if st.button("Retry the commit now"):
        auth.require("approve")
        try:
            workflow.approve(run.id)
        except ExtractionError as exc:
            show_error(exc)
        else:
            st.rerun()

if run.status in ("committed", "notes_sync_pending"):
    st.divider()
    st.success(f"Committed: {len(run.committed.get('concepts', []))} concepts, {run.committed.get('relations', 0)} relations, "
               f"{run.committed.get('supports', 0)} quote attributions.", icon=":material/check_circle:")
    for concept in run.committed.get("concepts", []):
        st.page_link("views/2_Graph_Explorer.py", label=f"{markdown_label(concept['title'])} in the Graph Explorer",
                     icon=":material/hub:", query_params={"focus": concept["key"]})
    if run.status == "notes_sync_pending":
        st.warning("The markdown notes could not be written; the graph is committed.")
        if st.button("Write the notes again"):
            workflow.export_notes(run.id)
            st.rerun()
    else:
        st.caption(f"Notes: {len(run.committed.get('notes', []))} files in {workflow.settings.notes_path}")
    st.download_button("Download the committed proposal (JSON)", json.dumps(latest.proposal.model_dump(), ensure_ascii=False, indent=2),
                       file_name=f"extraction-{run.id[:8]}.json", mime="application/json")
