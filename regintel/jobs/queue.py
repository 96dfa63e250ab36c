"""A job queue in the SQL store, safe for several workers and for crashes.

- ``enqueue`` is idempotent per (kind, dedupe key) while a job is queued or running.
- ``claim`` takes one due job with a conditional UPDATE (status must still be 'queued'), so two workers never
  run the same job; it also re-queues jobs whose worker died (lease expired).
- ``fail`` re-queues with exponential backoff until ``max_attempts``, then marks the job failed (visible, with
  its last error). Handlers are idempotent (MERGE), so a job re-run after a crash is not applied twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import func, select, update

from regintel.store import Database
from regintel.store.models import Job

LEASE = timedelta(minutes=5)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class ClaimedJob:
    id: str
    kind: str
    payload: dict[str, Any]
    attempts: int


class JobQueue:
    def __init__(self, db: Database, lease: timedelta = LEASE, base_backoff_s: float = 5.0) -> None:
        self.db = db
        self.lease = lease
        self.base_backoff_s = base_backoff_s

    def enqueue(self, kind: str, dedupe_key: str, payload: dict[str, Any], max_attempts: int = 5) -> tuple[str, bool]:
        """(job id, created): an open job with the same kind and key is reused."""
        with self.db.session() as session:
            existing = session.scalars(
                select(Job).where(Job.kind == kind, Job.dedupe_key == dedupe_key, Job.status.in_(["queued", "running"]))
            ).first()
            if existing is not None:
                return existing.id, False
            job = Job(kind=kind, dedupe_key=dedupe_key, payload=payload, max_attempts=max_attempts)
            session.add(job)
            session.flush()
            return job.id, True

    def claim(self, worker: str, kinds: list[str] | None = None) -> ClaimedJob | None:
        now = _now()
        with self.db.session() as session:
            # jobs of a dead worker (lease expired) become due again
            session.execute(
                update(Job).where(Job.status == "running", Job.locked_at < now - self.lease)
                .values(status="queued", locked_by=None, last_error="worker lease expired (worker stopped mid-job)")
            )
        for _ in range(5):
            with self.db.session() as session:
                query = select(Job.id).where(Job.status == "queued", Job.next_run_at <= now).order_by(Job.next_run_at).limit(5)
                if kinds:
                    query = query.where(Job.kind.in_(kinds))
                candidates = list(session.scalars(query))
            if not candidates:
                return None
            for job_id in candidates:
                with self.db.session() as session:
                    taken = session.execute(
                        update(Job).where(Job.id == job_id, Job.status == "queued")
                        .values(status="running", locked_by=worker, locked_at=_now(), attempts=Job.attempts + 1)
                    ).rowcount
                    if taken == 1:
                        job = session.get(Job, job_id)
                        return ClaimedJob(job.id, job.kind, dict(job.payload), job.attempts)
        return None

    def complete(self, job_id: str, result: dict[str, Any] | None = None) -> None:
        with self.db.session() as session:
            session.execute(update(Job).where(Job.id == job_id).values(status="done", result=result or {}, locked_by=None, last_error=""))

    def fail(self, job_id: str, error: str) -> str:
        """Re-queue with backoff, or mark failed after max_attempts; returns the new status."""
        with self.db.session() as session:
            job = session.get(Job, job_id)
            if job is None:
                return "missing"
            if job.attempts >= job.max_attempts:
                job.status = "failed"
            else:
                job.status = "queued"
                job.next_run_at = _now() + timedelta(seconds=self.base_backoff_s * 2 ** (job.attempts - 1))
            job.locked_by = None
            job.last_error = error[:2000]
            return job.status

    def counts(self) -> dict[str, int]:
        with self.db.session() as session:
            return {status: int(n) for status, n in session.execute(select(Job.status, func.count()).group_by(Job.status))}

    def jobs(self, status: str | None = None) -> list[Job]:
        with self.db.session() as session:
            query = select(Job).order_by(Job.created_at)
            if status:
                query = query.where(Job.status == status)
            return list(session.scalars(query))


__all__ = ["JobQueue", "ClaimedJob"]
