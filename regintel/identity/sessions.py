"""Browser sign-in sessions that survive a reload: a random token the browser keeps in a cookie.

The token is 32 random bytes (``rgs_`` + URL-safe text), so a fast SHA-256 is enough at rest and the lookup is
by hash: a copy of the database hands out no usable token. A session expires after ``lifetime``, is revoked at
sign-out (and all of a user's sessions when their password changes), and is bound to the browser's User-Agent,
so a token lifted into another browser is refused. The token never goes into a URL.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import select, update

from regintel.errors import AuthError
from regintel.identity.accounts import aware, identity_of, utcnow
from regintel.identity.audit import AuditLog
from regintel.identity.roles import Identity
from regintel.store import Database
from regintel.store.models import SignInSession, Tenant, User

PREFIX = "rgs_"
SESSION_ENDED = "Your sign-in has ended: sign in again."


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def looks_like_token(token: str | None) -> bool:
    """Only what :meth:`SignInSessions.open` makes ever reaches the store (no odd cookie value is looked up)."""
    return bool(token) and token.startswith(PREFIX) and 20 < len(token) < 100 and token[len(PREFIX):].replace(
        "-", "").replace("_", "").isalnum()


class SignInSessions:
    def __init__(self, db: Database, audit: AuditLog, *, lifetime: timedelta = timedelta(hours=12),
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.db, self.audit, self.lifetime, self.clock = db, audit, lifetime, clock

    def open(self, identity: Identity, user_agent: str = "") -> str:
        """A new session for a local sign-in; the only time its token exists in clear."""
        token = PREFIX + secrets.token_urlsafe(32)
        now = self.clock()
        with self.db.session() as session:
            session.add(SignInSession(tenant_id=identity.tenant_id, user_id=identity.user_id, token_hash=digest(token),
                                      agent_hash=digest(user_agent or ""), created_at=now,
                                      expires_at=now + self.lifetime, last_seen_at=now))
        return token

    def identity(self, token: str | None, user_agent: str = "") -> Identity:
        """The identity of a live session; AuthError for an unknown, expired, revoked or foreign-browser token,
        or a disabled user."""
        if not looks_like_token(token):
            raise AuthError(SESSION_ENDED)
        now = self.clock()
        with self.db.session() as session:
            row = session.scalars(select(SignInSession).where(SignInSession.token_hash == digest(token))).first()
            if row is None or row.revoked_at is not None or aware(row.expires_at) <= now \
                    or row.agent_hash != digest(user_agent or ""):
                raise AuthError(SESSION_ENDED)
            user = session.get(User, row.user_id)
            if user is None or user.disabled:
                raise AuthError(SESSION_ENDED)
            row.last_seen_at = now
            return identity_of(user, session.get(Tenant, user.tenant_id), "local")

    def revoke(self, token: str | None) -> bool:
        """End one session (sign-out); whether a live one was ended."""
        if not looks_like_token(token):
            return False
        with self.db.session() as session:
            done = session.execute(update(SignInSession).where(SignInSession.token_hash == digest(token),
                                                               SignInSession.revoked_at.is_(None))
                                   .values(revoked_at=self.clock()))
            return bool(done.rowcount)

    def revoke_user(self, user_id: str) -> int:
        """End every live session of a user (password changed, account disabled); how many."""
        with self.db.session() as session:
            done = session.execute(update(SignInSession).where(SignInSession.user_id == user_id,
                                                               SignInSession.revoked_at.is_(None))
                                   .values(revoked_at=self.clock()))
            return int(done.rowcount or 0)

    def live(self, user_id: str) -> int:
        """How many unexpired, unrevoked sessions a user has (the admin page and the tests)."""
        with self.db.session() as session:
            rows = session.scalars(select(SignInSession).where(SignInSession.user_id == user_id,
                                                               SignInSession.revoked_at.is_(None)))
            now = self.clock()
            return sum(1 for row in rows if aware(row.expires_at) > now)
