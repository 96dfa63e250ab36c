"""The worker's retry of an extraction commit the graph did not confirm (run status ``commit_pending``).

The approval enqueues this job when the read-back after its transaction misses something (the graph died or
lost the write); the worker approves the run again, which rewrites the proposal (every write is a MERGE) and reads
it back. While the graph still does not confirm it, the job fails and the queue retries it with backoff.
"""

from __future__ import annotations

from typing import Any, Callable

COMMIT_JOB = "extraction_commit"


class CommitStillPending(RuntimeError):
    """The graph has not confirmed the commit yet (the job is retried)."""


def commit_job_handler(workflow: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def handle(payload: dict[str, Any]) -> dict[str, Any]:
        run = workflow.runs.get(payload["run_id"])
        if run.status == "commit_pending":
            run = workflow.approve(run.id)
        if run.status == "commit_pending":
            raise CommitStillPending(f"run {run.id} is not confirmed by the graph yet")
        return {"run_id": run.id, "status": run.status}
    return handle
