"""Sources (curators and admins): the documents the corpus holds, with their metadata and currency; add a PDF,
EUR-Lex HTML, DOCX or markdown file, edit its metadata, deprecate it or remove it (issue 23). The page and
``python -m regintel sources`` share one service (regintel/sources/service.py)."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

import pandas as pd
import streamlit as st

from regintel.errors import RegIntelError
from regintel.retrieval.corpus import AUTHORITY_SCORES
from regintel.ui import auth, state
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Sources · RegIntel Copilot", page_icon="📚", layout="wide")
identity = auth.require("sources")
app = state.app()
st.title("Sources")
st.caption("The documents every tenant's answers cite. Adding or removing one re-indexes the corpus: only new or "
           "changed passages are embedded.")

LANGUAGES = ["", "en", "fr", "de", "es", "nl", "it"]
FORMATS = ["pdf", "html", "htm", "xhtml", "docx", "md", "markdown", "txt"]


def _date_text(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _progress_bar():
    bar = st.progress(0.0, text="Indexing…")

    def progress(phase: str, done: int, total: int) -> None:
        bar.progress(min(1.0, done / total) if total else 0.0, text=f"{phase}: {done}/{total}")

    return progress


def _show_change(change) -> None:
    source = change.source
    st.success(markdown_label(f"{source.title}: {source.articles} articles"
                              + (f", {source.pages} pages" if source.pages else "")
                              + f", {source.chunks} passages indexed."))
    for problem in change.problems:
        st.warning(markdown_label(f"{source.file_name}: {problem}"))


FLASH = "sources_flash"  # what the last action did, shown once after the page reloads with its result
if FLASH in st.session_state:
    st.success(markdown_label(st.session_state.pop(FLASH)))

try:
    sources = app.sources.list(include_removed=True)
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()
active = [s for s in sources if s.status == "active"]

st.dataframe(pd.DataFrame([{
    "id": s.id, "title": s.title, "format": s.format, "articles": s.articles, "pages": s.pages or "",
    "passages": s.chunks, "version": s.version, "last verified": s.last_verified, "valid until": s.valid_until,
    "deprecated": s.deprecated, "status": s.status, "origin": s.origin} for s in sources]),
    hide_index=True, width="stretch")

add_tab, edit_tab, remove_tab = st.tabs(["Add a source", "Edit or deprecate", "Remove"])

with add_tab:
    with st.form("add-source", clear_on_submit=False):
        uploads = st.file_uploader("Files (PDF with a text layer, EUR-Lex HTML, DOCX, markdown)", type=FORMATS,
                                   accept_multiple_files=True)
        left, right = st.columns(2)
        with left:
            title = st.text_input("Title (empty: the document's own)", max_chars=500)
            short_title = st.text_input("Short title (shown on citation chips)", max_chars=60)
            jurisdiction = st.text_input("Jurisdiction (EU, BE, DE …)", max_chars=16)
            language = st.selectbox("Language (empty: detected)", LANGUAGES)
            authority = st.selectbox("Authority level", list(AUTHORITY_SCORES), index=list(AUTHORITY_SCORES).index("guidance"))
        with right:
            version = st.text_input("Version", max_chars=120)
            source_url = st.text_input("Source URL (citations open its article or page)", max_chars=1000)
            licence = st.text_input("Licence", max_chars=300)
            valid_from = st.date_input("Valid from", value=None)
            valid_until = st.date_input("Valid until", value=None)
            supersedes = st.selectbox("Supersedes (an older version of the same act)", [""] + [s.id for s in active])
        deprecated = st.checkbox("Deprecated")
        submitted = st.form_submit_button("Add and index", type="primary")
    if submitted:
        if not uploads:
            st.error("Choose a file first.")
        else:
            fields = {"title": title, "short_title": short_title, "jurisdiction": jurisdiction, "language": language,
                      "authority_level": authority, "version": version, "source_url": source_url, "license": licence,
                      "valid_from": _date_text(valid_from), "valid_until": _date_text(valid_until),
                      "supersedes": supersedes, "deprecated": deprecated or None}
            if len(uploads) > 1:  # title, short title and URL name one document: each file keeps its own
                fields.update(title=None, short_title=None, source_url=None)
            with tempfile.TemporaryDirectory() as folder:
                saved = []
                for number, upload in enumerate(uploads):
                    path = Path(folder) / f"upload-{number}"
                    path.write_bytes(upload.getvalue())
                    saved.append((path, upload.name))
                try:
                    auth.require("sources")
                    names = ", ".join(upload.name for upload in uploads)
                    with st.status(f"Adding {names}…", expanded=True) as status:
                        batch = app.source_service.add_many(saved, fields, actor=identity.user_name,
                                                            progress=_progress_bar())
                        status.update(label=f"Added {len(batch.added)} of {len(uploads)} file(s)",
                                      state="complete" if not batch.refused else "error")
                    for change in batch.added:
                        app.audit.record("source_add", tenant_id=identity.tenant_id, actor=identity.user_name,
                                         target=change.source.id, file=change.source.file_name[:200])
                        _show_change(change)
                    for name, reason in batch.refused:
                        st.error(markdown_label(f"{name}: {reason}"))
                    if batch.report is not None:
                        for name, reason in batch.report.problems:
                            st.warning(markdown_label(f"{name}: {reason}"))
                except RegIntelError as exc:
                    st.error(str(exc))

with edit_tab:
    if not active:
        st.info("No source yet.")
    else:
        chosen = st.selectbox("Source", [s.id for s in active], format_func=lambda i: next(
            f"{s.short_title or s.title} ({s.id})" for s in active if s.id == i))
        current = next(s for s in active if s.id == chosen)
        with st.form(f"edit-{current.id}"):
            left, right = st.columns(2)
            with left:
                title = st.text_input("Title", value=current.title, max_chars=500)
                short_title = st.text_input("Short title", value=current.short_title, max_chars=60)
                jurisdiction = st.text_input("Jurisdiction", value=current.jurisdiction, max_chars=16)
                language = st.selectbox("Language", LANGUAGES, index=LANGUAGES.index(current.language)
                                        if current.language in LANGUAGES else 0)
                levels = list(AUTHORITY_SCORES)
                authority = st.selectbox("Authority level", levels, index=levels.index(current.authority_level)
                                         if current.authority_level in levels else levels.index("guidance"))
            with right:
                version = st.text_input("Version", value=current.version, max_chars=120)
                source_url = st.text_input("Source URL", value=current.source_url, max_chars=1000)
                last_verified = st.date_input("Last verified", value=date.fromisoformat(current.last_verified)
                                              if current.last_verified else None)
                valid_until = st.date_input("Valid until", value=date.fromisoformat(current.valid_until)
                                            if current.valid_until else None)
            saved_edit = st.form_submit_button("Save")
        if saved_edit:
            try:
                auth.require("sources")
                change = app.source_service.edit(current.id, {
                    "title": title, "short_title": short_title, "jurisdiction": jurisdiction, "language": language,
                    "authority_level": authority, "version": version, "source_url": source_url,
                    "last_verified": _date_text(last_verified), "valid_until": _date_text(valid_until)},
                    progress=_progress_bar())
                app.audit.record("source_edit", tenant_id=identity.tenant_id, actor=identity.user_name,
                                 target=current.id)
                st.session_state[FLASH] = ("Saved." + (" Re-indexed." if change.report is not None else
                                                       " Answers citing it reflect this from the next question."))
                st.rerun()
            except RegIntelError as exc:
                st.error(str(exc))
        # Deprecation is one action on the chosen source, not a form field: a form is replaced when another source is
        # chosen, and a tick given while it was being replaced was submitted as the old value ("Saved.", still
        # current). A button keyed by the source acts on that source or, pressed while being replaced, on nothing.
        st.markdown(f"**{markdown_label(current.short_title or current.title)}** is "
                    + ("marked **deprecated**: answers citing it are QUALIFIED with a warning."
                       if current.deprecated else "current."))
        deprecating = not current.deprecated  # what the button does
        if st.button("Mark deprecated" if deprecating else "Mark current again", key=f"deprecate-{current.id}"):
            try:
                auth.require("sources")
                app.source_service.deprecate(current.id, deprecated=deprecating)
                app.audit.record("source_edit", tenant_id=identity.tenant_id, actor=identity.user_name,
                                 target=current.id, deprecated=deprecating)
                st.session_state[FLASH] = (("Marked deprecated." if deprecating else "Marked current.")
                                           + " Answers citing it reflect this from the next question.")
                st.rerun()
            except RegIntelError as exc:
                st.error(str(exc))

with remove_tab:
    if not active:
        st.info("No source yet.")
    else:
        doomed = st.selectbox("Source to remove", [s.id for s in active], key="remove-choice")
        sure = st.checkbox("Remove it from search and the rules graph (old answers keep the text they cited)")
        if st.button("Remove", type="secondary", disabled=not sure):
            try:
                auth.require("sources")
                with st.spinner("Removing and re-indexing…"):
                    app.source_service.remove(doomed)
                app.audit.record("source_remove", tenant_id=identity.tenant_id, actor=identity.user_name, target=doomed)
                st.session_state[FLASH] = (f"{doomed} removed from search and the rules graph; old answers keep the "
                                           "text they cited.")
                st.rerun()
            except RegIntelError as exc:
                st.error(str(exc))
