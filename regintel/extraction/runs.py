"""extraction_runs and their numbered revisions in the SQL store: the workflow's checkpoint.

Each step writes what it produced before the next starts, so a restarted app (or another process) finds the
run at the same phase and revision. Short transactions, one per write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from regintel.errors import ExtractionError
from regintel.extraction.proposal import Critique, Proposal
from regintel.store import Database
from regintel.store.models import ExtractionRevision, ExtractionRun

ACTIVE = ("running", "review")


@dataclass
class RunView:
    id: str
    content_key: str
    content_title: str
    status: str
    phase: str
    progress: dict[str, Any]
    current_revision: int
    review_rounds: int
    mode: str
    errors: list[Any]
    committed: dict[str, Any]
    curator: str
    tenant_id: str | None
    created_at: datetime
    updated_at: datetime


@dataclass
class RevisionView:
    number: int
    source: str
    proposal: Proposal
    critique: Critique
    feedback: str = ""
    interpretation: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    created_at: datetime | None = None


def _view(run: ExtractionRun) -> RunView:
    return RunView(run.id, run.content_key, run.content_title, run.status, run.phase, dict(run.progress or {}),
                   run.current_revision, run.review_rounds, run.mode, list(run.errors or []), dict(run.committed or {}),
                   run.curator, run.tenant_id, run.created_at, run.updated_at)


class RunRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, content_key: str, content_title: str, mode: str, curator: str = "", tenant_id: str | None = None,
               status: str = "running") -> RunView:
        with self.db.session() as s:
            run = ExtractionRun(content_key=content_key, content_title=content_title[:500], mode=mode,
                                curator=curator[:120], tenant_id=tenant_id, status=status)
            s.add(run)
            s.flush()
            return _view(run)

    def get(self, run_id: str, tenant_id: str | None = None) -> RunView:
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is None or (tenant_id is not None and run.tenant_id != tenant_id):  # tenant-less: CLI only
                raise ExtractionError(f"No extraction run {run_id[:8]}.")
            return _view(run)

    def runs(self, tenant_id: str | None = None, limit: int = 100) -> list[RunView]:
        with self.db.session() as s:
            query = select(ExtractionRun).order_by(ExtractionRun.created_at.desc()).limit(limit)
            if tenant_id is not None:
                query = query.where(ExtractionRun.tenant_id == tenant_id)
            return [_view(r) for r in s.scalars(query)]

    def assign_tenant(self, curator: str, tenant_id: str) -> int:
        """Give the tenant-less runs of ``curator`` to a tenant (the demo's runs from before runs had tenants)."""
        with self.db.session() as s:
            rows = list(s.scalars(select(ExtractionRun).where(ExtractionRun.tenant_id.is_(None),
                                                               ExtractionRun.curator == curator)))
            for row in rows:
                row.tenant_id = tenant_id
            return len(rows)

    def active_for_content(self, content_key: str) -> RunView | None:
        with self.db.session() as s:
            run = s.scalars(select(ExtractionRun).where(ExtractionRun.content_key == content_key,
                                                        ExtractionRun.status.in_(ACTIVE))
                            .order_by(ExtractionRun.created_at.desc())).first()
            return _view(run) if run else None

    def update(self, run_id: str, **fields: Any) -> RunView:
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is None:
                raise ExtractionError(f"No extraction run {run_id[:8]}.")
            for name, value in fields.items():
                setattr(run, name, value)
            s.flush()
            return _view(run)

    def progress(self, run_id: str, phase: str, done: int, total: int, ms: float | None = None) -> None:
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is None:
                return
            progress = dict(run.progress or {})
            entry = dict(progress.get(phase) or {})
            entry.update({"done": done, "total": total})
            if ms is not None:
                entry["ms"] = round(ms, 1)
            progress[phase] = entry
            run.progress = progress
            run.phase = phase

    def add_egress(self, run_id: str, reports: list[dict[str, Any]]) -> None:
        """Sum the egress reports of model calls into ``progress["egress"]``: calls, how many were sanitised or
        blocked, types with counts and the hosts contacted (never a value)."""
        if not reports:
            return
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is None:
                return
            progress = dict(run.progress or {})
            summary = dict(progress.get("egress") or {"calls": 0, "sanitised": 0, "blocked": 0, "pii_counts": {},
                                                      "contacted": []})
            counts, hosts = dict(summary["pii_counts"]), set(summary["contacted"])
            for report in reports:
                summary["calls"] += 1
                summary["sanitised"] += bool(report.get("sanitised"))
                summary["blocked"] += bool(report.get("blocked"))
                for pii_type, n in (report.get("pii_counts") or {}).items():
                    counts[pii_type] = counts.get(pii_type, 0) + n
                if report.get("contacted"):
                    hosts.add(report["contacted"])
            summary.update(pii_counts=counts, contacted=sorted(hosts))
            progress["egress"] = summary
            run.progress = progress

    def add_error(self, run_id: str, step: str, message: str) -> None:
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is not None:
                run.errors = [*list(run.errors or []), {"step": step, "error": message[:1000],
                                                        "at": datetime.now().isoformat(timespec="seconds")}]

    def add_revision(self, run_id: str, source: str, proposal: Proposal, critique: Critique, feedback: str = "",
                     interpretation: list[str] | None = None, unresolved: list[str] | None = None) -> int:
        with self.db.session() as s:
            run = s.get(ExtractionRun, run_id)
            if run is None:
                raise ExtractionError(f"No extraction run {run_id[:8]}.")
            number = run.current_revision + 1
            s.add(ExtractionRevision(run_id=run_id, number=number, source=source, proposal=proposal.model_dump(),
                                     critique=critique.model_dump(), feedback=feedback,
                                     interpretation=list(interpretation or []), unresolved=list(unresolved or [])))
            run.current_revision = number
            return number

    def revision(self, run_id: str, number: int | None = None) -> RevisionView | None:
        with self.db.session() as s:
            query = select(ExtractionRevision).where(ExtractionRevision.run_id == run_id)
            query = query.where(ExtractionRevision.number == number) if number else query.order_by(ExtractionRevision.number.desc())
            row = s.scalars(query).first()
            return _revision(row) if row else None

    def revisions(self, run_id: str) -> list[RevisionView]:
        with self.db.session() as s:
            rows = s.scalars(select(ExtractionRevision).where(ExtractionRevision.run_id == run_id)
                             .order_by(ExtractionRevision.number))
            return [_revision(r) for r in rows]

    def by_status(self, status: str) -> list[RunView]:
        with self.db.session() as s:
            return [_view(r) for r in s.scalars(select(ExtractionRun).where(ExtractionRun.status == status))]


def _revision(row: ExtractionRevision) -> RevisionView:
    return RevisionView(row.number, row.source, Proposal.model_validate(row.proposal or {}),
                        Critique.model_validate(row.critique or {}), row.feedback, list(row.interpretation or []),
                        list(row.unresolved or []), row.created_at)
