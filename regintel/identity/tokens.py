"""Per-user API tokens for scripted access (the Gradio API): shown once, stored as SHA-256, revocable.

A token is 32 random bytes, so a fast hash is enough (nothing to brute-force); the lookup is by hash. A token
of a disabled user, or a revoked one, is refused exactly like an unknown one.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timezone

from sqlalchemy import select

from regintel.errors import AuthError, NotFound
from regintel.identity.audit import AuditLog
from regintel.identity.roles import Identity
from regintel.store import Database
from regintel.store.models import ApiToken, Tenant, User

PREFIX = "rgi_"
TOKEN_REFUSED = "A valid API token is required (python -m regintel users token LOGIN)."


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ApiTokens:
    def __init__(self, db: Database, audit: AuditLog) -> None:
        self.db, self.audit = db, audit

    def create(self, user: User, label: str = "", *, actor: str = "cli") -> str:
        """A new token for ``user``; the only time its clear text exists."""
        token = PREFIX + secrets.token_urlsafe(32)
        with self.db.session() as session:
            session.add(ApiToken(tenant_id=user.tenant_id, user_id=user.id, token_hash=digest(token),
                                 prefix=token[:10], label=label[:120]))
        self.audit.record("token_create", tenant_id=user.tenant_id, actor=actor, target=user.name, prefix=token[:10])
        return token

    def list(self, user: User) -> list[ApiToken]:
        with self.db.session() as session:
            return list(session.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.created_at)))

    def revoke(self, user: User, prefix: str, *, actor: str = "cli") -> int:
        """Revoke the user's live tokens starting with ``prefix`` ("" or "all": every one); how many."""
        revoked = 0
        with self.db.session() as session:
            for row in session.scalars(select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))):
                if prefix in ("", "all") or row.prefix.startswith(prefix) or prefix.startswith(row.prefix):
                    row.revoked_at = datetime.now(timezone.utc)
                    revoked += 1
        if not revoked:
            raise NotFound(f"No live token of {user.name} starts with {prefix!r}.")
        self.audit.record("token_revoke", tenant_id=user.tenant_id, actor=actor, target=user.name, count=revoked)
        return revoked

    def identity(self, token: str) -> Identity:
        """The identity a token stands for; AuthError for a missing, unknown, revoked or disabled user's token."""
        token = (token or "").strip()
        if token.lower().startswith("bearer "):
            token = token[7:].strip()
        if not token.startswith(PREFIX) or len(token) > 200:
            raise AuthError(TOKEN_REFUSED)
        with self.db.session() as session:
            row = session.scalars(select(ApiToken).where(ApiToken.token_hash == digest(token))).first()
            user = session.get(User, row.user_id) if row is not None and row.revoked_at is None else None
            if user is None or user.disabled:
                raise AuthError(TOKEN_REFUSED)
            row.last_used_at = datetime.now(timezone.utc)
            tenant = session.get(Tenant, user.tenant_id)
            return Identity(tenant.id, tenant.name, user.id, user.name, user.role, "token")
