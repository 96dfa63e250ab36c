"""The audit trail: security-relevant events in the ``audit_events`` table, shown to admins."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from regintel.store import Database
from regintel.store.models import AuditEvent
from regintel.text.normalise import printable


class AuditLog:
    """Append-only: events are recorded and listed, never edited."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, action: str, *, tenant_id: str | None = None, actor: str = "", target: str = "",
               outcome: str = "ok", **detail: Any) -> None:
        # actor and target may be what a stranger typed (a login tried): kept printable and short
        with self.db.session() as session:
            session.add(AuditEvent(action=action[:40], tenant_id=tenant_id, actor=printable(actor)[:200],
                                   target=printable(target)[:300], outcome=outcome[:16], detail=detail))

    def events(self, tenant_id: str | None = None, limit: int = 200, action: str | None = None) -> list[AuditEvent]:
        """Newest first; ``tenant_id`` limits to that tenant's events (None: all, for the CLI)."""
        query = select(AuditEvent).order_by(AuditEvent.at.desc()).limit(limit)
        if tenant_id is not None:
            query = query.where(AuditEvent.tenant_id == tenant_id)
        if action is not None:
            query = query.where(AuditEvent.action == action)
        with self.db.session() as session:
            return list(session.scalars(query))
