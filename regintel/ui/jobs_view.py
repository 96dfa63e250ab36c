"""The Jobs section of the Admin page, and the app's supervised worker.

``supervised_worker()`` is called once per Streamlit process by ``app.py`` (``st.cache_resource``): it starts the
supervisor thread of ``regintel/jobs/supervisor.py`` unless REGINTEL_WORKER=external. ``jobs_section()`` shows
the worker's status (from its heartbeat and its supervisor's state file, so any app process can show it), the
number of jobs per status, and the queued, running, failed and dead jobs, with Retry and Drop for an admin.

Jobs belong to the deployment, not to a tenant (enrichment and capture work on the shared rules graph): the table
shows kinds, attempts and errors, never payloads.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from regintel.errors import RegIntelError
from regintel.identity.roles import Identity
from regintel.jobs.queue import STATUSES
from regintel.jobs.supervisor import WorkerSupervisor, start_supervisor, worker_status
from regintel.runtime import RegIntel
from regintel.ui import auth, state
from regintel.ui.untrusted import markdown_label


CHOICE, MESSAGE = "regintel_job_choice", "regintel_job_message"


@st.cache_resource(show_spinner=False)
def supervised_worker() -> WorkerSupervisor | None:
    """Once per app process: supervise the data directory's worker (the file lock lets one process own it)."""
    return start_supervisor(state.app().settings)


def _when(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:  # SQLite gives naive UTC datetimes back
        value = value.replace(tzinfo=timezone.utc)
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def jobs_section(app: RegIntel, identity: Identity) -> None:
    st.subheader("Jobs")
    kind, text = st.session_state.pop(MESSAGE, ("", ""))
    if text:
        (st.success if kind == "success" else st.error)(text)
    status = worker_status(app.settings)
    (st.success if status.alive else st.warning)(markdown_label(status.line()), icon=":material/engineering:")
    counts = app.jobs.counts()
    for column, name in zip(st.columns(len(STATUSES)), STATUSES):
        column.metric(name, counts.get(name, 0))
    jobs = app.jobs.listing()
    if not jobs:
        st.caption("No queued, running, failed or dead job.")
        return
    st.dataframe(pd.DataFrame([{
        "job": job.id[:8], "kind": job.kind, "status": job.status, "attempts": f"{job.attempts}/{job.max_attempts}",
        "last error": job.last_error[:300], "next run": _when(job.next_run_at) if job.status == "queued" else "",
        "worker": job.locked_by or "", "updated": _when(job.updated_at)} for job in jobs]),
        hide_index=True, width="stretch")
    choices = {f"{job.id[:8]} · {job.kind} · {job.status}": job.id for job in jobs if job.status != "running"}
    if not choices:
        return
    with st.form("job-action"):
        st.selectbox("Job", list(choices), key=CHOICE)
        retry, drop = st.columns(2)
        retry.form_submit_button("Retry", help="A failed or dead job runs again now, with its full attempts",
                                 on_click=_act, args=(app, identity, "retry", choices))
        drop.form_submit_button("Drop", help="Delete the job (it will not run)",
                                on_click=_act, args=(app, identity, "drop", choices))


def _act(app: RegIntel, identity: Identity, action: str, choices: dict[str, str]) -> None:
    """Button callback: runs before the page is drawn again, so the counts and the table show the change."""
    current = auth.current()  # the role is checked again at the moment of acting
    job_id = choices.get(st.session_state.get(CHOICE, ""), "")
    try:
        if current is None or current.user_id != identity.user_id or not current.can("users"):
            raise RegIntelError("Only an admin can retry or drop jobs; sign in again.")
        if action == "retry":
            app.jobs.retry(job_id)
        else:
            app.jobs.drop(job_id)
        app.audit.record(f"job_{action}", tenant_id=identity.tenant_id, actor=identity.user_name, target=job_id)
        st.session_state[MESSAGE] = ("success", f"Job {job_id[:8]} {'queued again' if action == 'retry' else 'dropped'}.")
    except RegIntelError as exc:
        st.session_state[MESSAGE] = ("error", str(exc))
