"""A job queue in the SQL store, safe for several workers and for crashes.

- ``enqueue`` is idempotent per (kind, dedupe key) while a job is queued or running.
- ``claim`` takes one due job with a conditional UPDATE (status must still be 'queued'), so two workers never
  run the same job; it also re-queues jobs whose worker died (lease expired).
- ``fail`` re-queues with exponential backoff until ``max_attempts``, then marks the job failed (visible, with
  its last error). Handlers are idempotent (MERGE), so a job re-run after a crash is not applied twice.
- A job whose worker died while running its last attempt is marked **dead**, not queued again: a job that kills
  its worker (out of memory, a crash in a native library) would otherwise take the worker down forever.
- ``release_worker`` hands back at once the jobs of a worker known to be gone (the supervised worker of a data
  directory knows its predecessor), instead of waiting for their lease; ``renew`` keeps a long job's lease.
- ``retry`` and ``drop`` are the admin's hands on failed and dead jobs (the Jobs section of the Admin page).

Statuses: queued / running / done / failed (its handler kept failing) / dead (its worker kept dying).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import delete, func, select, update

from regintel.errors import InputError
from regintel.store import Database
from regintel.store.models import Job

LEASE = timedelta(minutes=5)
STATUSES = ("queued", "running", "done", "failed", "dead")
OPEN = ("queued", "running")
LEASE_EXPIRED = "worker lease expired (worker stopped mid-job)"
WORKER_GONE = "its worker stopped mid-job"


class JobNotChangeable(InputError):
    """A retry or drop the job's state does not allow (it is running, already open again, or gone)."""


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
            self._hand_back(session, (Job.status == "running") & (Job.locked_at < now - self.lease), LEASE_EXPIRED)
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

    @staticmethod
    def _hand_back(session, condition, reason: str) -> int:
        """Jobs matching ``condition`` (running ones) back to queued, or to dead on their last attempt."""
        dead = session.execute(update(Job).where(condition, Job.attempts >= Job.max_attempts)
                               .values(status="dead", locked_by=None, last_error=f"{reason} on its last attempt")).rowcount
        queued = session.execute(update(Job).where(condition)
                                 .values(status="queued", locked_by=None, last_error=reason)).rowcount
        return dead + queued

    def release_worker(self, worker: str) -> int:
        """Hand back the running jobs of ``worker``, known to be gone (its successor holds its lock): they are
        claimed again at once instead of after the lease. Returns how many."""
        with self.db.session() as session:
            return self._hand_back(session, (Job.status == "running") & (Job.locked_by == worker),
                                   f"{WORKER_GONE} ({worker})")

    def renew(self, job_id: str, worker: str) -> bool:
        """Extend the lease of a job ``worker`` still runs (a job longer than the lease is not taken twice)."""
        with self.db.session() as session:
            return session.execute(update(Job).where(Job.id == job_id, Job.locked_by == worker, Job.status == "running")
                                   .values(locked_at=_now())).rowcount == 1

    def get(self, job_id: str) -> Job | None:
        with self.db.session() as session:
            return session.get(Job, job_id)

    def retry(self, job_id: str) -> Job:
        """A failed or dead job runs again now, with its full number of attempts; its last error stays visible."""
        with self.db.session() as session:
            job = session.get(Job, job_id)
            if job is None:
                raise JobNotChangeable("This job no longer exists (it was dropped); nothing to retry.")
            if job.status not in ("failed", "dead"):
                raise JobNotChangeable(f"Only failed or dead jobs can be retried; this one is {job.status}.")
            twin = session.scalars(select(Job.id).where(Job.kind == job.kind, Job.dedupe_key == job.dedupe_key,
                                                        Job.status.in_(OPEN), Job.id != job.id)).first()
            if twin is not None:
                raise JobNotChangeable(f"The same {job.kind} job is already queued or running (job {twin[:8]}); "
                                       "drop this one instead.")
            job.status, job.attempts, job.next_run_at, job.locked_by = "queued", 0, _now(), None
            return job

    def drop(self, job_id: str) -> None:
        """Delete a job that is not running (a running one finishes first: its worker would write it back)."""
        with self.db.session() as session:
            job = session.get(Job, job_id)
            if job is None:
                return  # already gone: dropping twice (two admins, a double click) is not an error
            if job.status == "running":
                raise JobNotChangeable("This job is running; it can be dropped once it has finished or failed.")
            session.delete(job)

    def prune(self, kind: str, older_than: timedelta, statuses: tuple[str, ...] = ("done", "failed")) -> int:
        """Delete finished jobs of ``kind`` older than ``older_than`` (periodic duties add one a minute)."""
        with self.db.session() as session:
            return session.execute(delete(Job).where(Job.kind == kind, Job.status.in_(statuses),
                                                     Job.updated_at < _now() - older_than)).rowcount

    def listing(self, statuses: tuple[str, ...] = ("queued", "running", "failed", "dead"), limit: int = 500) -> list[Job]:
        """Jobs in ``statuses``, the most recently changed first, at most ``limit`` (what the Jobs section shows)."""
        with self.db.session() as session:
            query = select(Job).where(Job.status.in_(statuses)).order_by(Job.updated_at.desc()).limit(limit)
            return list(session.scalars(query))

    def counts(self) -> dict[str, int]:
        with self.db.session() as session:
            return {status: int(n) for status, n in session.execute(select(Job.status, func.count()).group_by(Job.status))}

    def jobs(self, status: str | None = None) -> list[Job]:
        with self.db.session() as session:
            query = select(Job).order_by(Job.created_at)
            if status:
                query = query.where(Job.status == status)
            return list(session.scalars(query))


__all__ = ["JobQueue", "ClaimedJob", "JobNotChangeable", "STATUSES"]
