"""Local accounts in the SQL store: create, list, disable, change role, sign in with lockout, first admin.

Sign-in failures are counted per account; from ``max_failures`` on, each further failure locks the account for
twice as long as the last (``lockout_seconds``, then 2x, 4x ... capped at an hour), and a locked account is
refused without its password being checked. Failures are also counted per client address (throttle.py), so one
client spraying a password over many logins is stopped too. An unknown login costs the same bcrypt work as a known one, so the
answer time does not tell which logins exist. Logins are unique across tenants: the sign-in form asks for a
login and a password only, and the tenant comes from the account.
"""

from __future__ import annotations

import hmac
import math
import re
import secrets
import threading
from datetime import datetime, timedelta, timezone
from typing import Callable

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from regintel.errors import AuthError, InputError, NotFound
from regintel.identity.audit import AuditLog
from regintel.identity.passwords import check_password_rules, hash_password, verify_password
from regintel.identity.roles import Identity, check_role
from regintel.identity.throttle import ClientThrottle
from regintel.store import Database
from regintel.store.models import SignInSession, Tenant, User
from regintel.tenancy import TenantDirectory

LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{1,119}$")
MAX_LOCK = timedelta(hours=1)
SIGNIN_REFUSED = "Wrong login or password."  # the same words for an unknown login and a wrong password


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes for timezone-aware columns: they were stored in UTC."""
    return moment.replace(tzinfo=timezone.utc) if moment is not None and moment.tzinfo is None else moment


def check_login(login: str) -> str:
    login = (login or "").strip()
    if not LOGIN.match(login):
        raise InputError("A login has 2-120 characters: letters, digits and . _ @ + - (starting with a letter or digit).")
    return login


def identity_of(user: User, tenant: Tenant, source: str) -> Identity:
    return Identity(tenant.id, tenant.name, user.id, user.name, user.role, source)


class Accounts:
    """Local accounts and the identities they sign in as (the store of SSO users and API tokens is shared)."""

    def __init__(self, db: Database, tenants: TenantDirectory, audit: AuditLog, *, max_failures: int = 5,
                 lockout_seconds: float = 30.0, bcrypt_rounds: int = 12, clock: Callable[[], datetime] = utcnow,
                 throttle: ClientThrottle | None = None) -> None:
        self.db, self.tenants, self.audit = db, tenants, audit
        self.throttle = throttle or ClientThrottle()
        self.max_failures, self.lockout = max_failures, timedelta(seconds=lockout_seconds)
        self.rounds, self.clock = bcrypt_rounds, clock
        self._dummy_hash: str | None = None  # compared against for unknown logins (made on first need)
        self._setup_token: str | None = None
        self._lock = threading.Lock()

    # -- administration (CLI, admin page) -----------------------------------------------------------------------
    def add(self, tenant_name: str, login: str, password: str | None, role: str = "analyst", *, actor: str = "cli",
            create_tenant: bool = True) -> User:
        """A local account; ``password=None`` makes a single-sign-on account instead (no password, bound to the
        OIDC identity whose e-mail or user name equals ``login`` at its first sign-in)."""
        login, role = check_login(login), check_role(role)
        if password is not None:
            check_password_rules(password)
        tenant = self._tenant(tenant_name, create=create_tenant, actor=actor)
        with self.db.session() as session:  # a user the CLI or the demo created by name gets its account
            user = session.scalars(select(User).where(User.tenant_id == tenant.id, User.name == login,
                                                      User.login.is_(None), User.password_hash.is_(None),
                                                      User.external_id.is_(None))).first()
            if user is not None and password is not None:
                user.login, user.role = login, role
                user.password_hash = hash_password(password, self.rounds)
        if user is not None and password is not None:
            self.audit.record("user_add", tenant_id=tenant.id, actor=actor, target=login, role=role, existing=True)
            return user
        try:
            with self.db.session() as session:
                user = User(tenant_id=tenant.id, name=login, login=login if password is not None else None, role=role,
                            password_hash=hash_password(password, self.rounds) if password is not None else None)
                session.add(user)
        except IntegrityError:
            raise InputError(f"The login {login!r} is taken (logins are unique across tenants).") from None
        self.audit.record("user_add", tenant_id=tenant.id, actor=actor, target=login, role=role)
        return user

    def users(self, tenant_name: str | None = None) -> list[tuple[User, Tenant]]:
        query = select(User, Tenant).join(Tenant, User.tenant_id == Tenant.id).order_by(Tenant.name, User.name)
        if tenant_name:
            query = query.where(Tenant.name == tenant_name)
        with self.db.session() as session:
            return [(u, t) for u, t in session.execute(query)]

    def user(self, login: str, tenant_id: str | None = None) -> User:
        """The account with that login (local) or that user name when it is unique (an SSO user); with
        ``tenant_id``, only within that tenant (an admin page never reaches another tenant's users)."""
        with self.db.session() as session:
            scope = [User.tenant_id == tenant_id] if tenant_id else []
            user = session.scalars(select(User).where(User.login == login, *scope)).first()
            if user is None:
                named = list(session.scalars(select(User).where(User.name == login, *scope).limit(2)))
                user = named[0] if len(named) == 1 else None
            if user is None:
                raise NotFound(f"No user with the login {login!r}.")
            return user

    def set_role(self, login: str, role: str, *, actor: str = "cli", tenant_id: str | None = None) -> User:
        role = check_role(role)
        user = self._update(login, tenant_id, role=role)
        self.audit.record("role_change", tenant_id=user.tenant_id, actor=actor, target=user.name, role=role)
        return user

    def set_disabled(self, login: str, disabled: bool = True, *, actor: str = "cli", tenant_id: str | None = None) -> User:
        user = self._update(login, tenant_id, disabled=disabled)  # a disabled user's API tokens stop working too (tokens.py)
        if disabled:
            self._end_sessions(user.id)
        self.audit.record("user_disable" if disabled else "user_enable", tenant_id=user.tenant_id, actor=actor, target=user.name)
        return user

    def set_password(self, login: str, password: str, *, actor: str = "cli") -> User:
        user = self._update(login, None, password_hash=hash_password(password, self.rounds), failed_signins=0, locked_until=None)
        self._end_sessions(user.id)  # whoever signed in with the old password is signed out
        self.audit.record("password_set", tenant_id=user.tenant_id, actor=actor, target=user.name)
        return user

    def _end_sessions(self, user_id: str) -> None:
        with self.db.session() as session:
            session.execute(update(SignInSession).where(SignInSession.user_id == user_id, SignInSession.revoked_at.is_(None))
                            .values(revoked_at=self.clock()))

    def _update(self, login: str, tenant_id: str | None, **values: object) -> User:
        with self.db.session() as session:
            user = session.get(User, self.user(login, tenant_id).id)
            for name, value in values.items():
                setattr(user, name, value)
            return user

    def _tenant(self, name: str, *, create: bool, actor: str) -> Tenant:
        name = (name or "").strip()
        with self.db.session() as session:
            found = session.scalars(select(Tenant).where(Tenant.name == name)).first()
        if found is not None:
            return found
        if not create:
            raise NotFound(f"No tenant named {name!r}.")
        tenant = self.tenants.ensure_tenant(name)
        self.audit.record("tenant_create", tenant_id=tenant.id, actor=actor, target=tenant.name)
        return tenant

    # -- sign-in --------------------------------------------------------------------------------------------------
    def authenticate(self, login: str, password: str, client: str | None = None) -> Identity:
        """The identity of a local account; AuthError (audited) for a wrong login or password, a disabled or a
        locked account, or a ``client`` address that failed too often (checked before any password)."""
        login = (login or "").strip()[:120]
        now = self.clock()
        try:
            self.throttle.check(client)
        except AuthError:
            self.audit.record("signin", actor=login, outcome="throttled", client=client)
            raise
        with self.db.session() as session:
            user = session.scalars(select(User).where(User.login == login)).first() if login else None
            if user is None:
                if self._dummy_hash is None:
                    self._dummy_hash = hash_password("x" * 16, self.rounds)
                verify_password(password, self._dummy_hash)
                self.throttle.failed(client)
                self.audit.record("signin", actor=login, outcome="refused", reason="unknown login", client=client)
                raise AuthError(SIGNIN_REFUSED)
            locked_until = aware(user.locked_until)
            if locked_until is not None and locked_until > now:
                self.throttle.failed(client)
                self.audit.record("signin", tenant_id=user.tenant_id, actor=login, outcome="locked", client=client)
                seconds = math.ceil((locked_until - now).total_seconds())
                raise AuthError(f"Too many failed sign-ins: this account is locked for {seconds} more seconds.")
            if not verify_password(password, user.password_hash):
                user.failed_signins = (user.failed_signins or 0) + 1
                over = user.failed_signins - self.max_failures
                if over >= 0:
                    user.locked_until = now + min(self.lockout * (2 ** over), MAX_LOCK)
                tenant_id, failures = user.tenant_id, user.failed_signins
            elif user.disabled:
                tenant_id, failures = user.tenant_id, -1
            else:
                user.failed_signins, user.locked_until, user.last_signin_at = 0, None, now
                identity = identity_of(user, session.get(Tenant, user.tenant_id), "local")
                tenant_id, failures = user.tenant_id, 0
        if failures > 0:
            self.throttle.failed(client)
            self.audit.record("signin", tenant_id=tenant_id, actor=login, outcome="refused", reason="wrong password",
                              consecutive_failures=failures, client=client)
            raise AuthError(SIGNIN_REFUSED)
        if failures < 0:
            self.audit.record("signin", tenant_id=tenant_id, actor=login, outcome="refused", reason="disabled")
            raise AuthError("This account is disabled.")
        self.audit.record("signin", tenant_id=tenant_id, actor=login, method="local")
        return identity

    def identity(self, user_id: str, source: str) -> Identity:
        """The identity of a user as it is now (role changes apply at once; a disabled user is signed out)."""
        with self.db.session() as session:
            user = session.get(User, user_id) if user_id else None
            if user is None or user.disabled:
                raise AuthError("This account is disabled or no longer exists: sign in again.")
            return identity_of(user, session.get(Tenant, user.tenant_id), source)

    # -- first admin ----------------------------------------------------------------------------------------------
    def has_admin(self) -> bool:
        with self.db.session() as session:
            return bool(session.scalar(select(func.count()).select_from(User).where(User.role == "admin",
                                                                                     User.disabled.is_(False))))

    def setup_token(self) -> str | None:
        """A one-time token that lets the first admin be created from the sign-in page (printed at start); None
        once an admin exists. One per process, spent when used."""
        with self._lock:
            if self.has_admin():
                return None
            if self._setup_token is None:
                self._setup_token = secrets.token_urlsafe(24)
            return self._setup_token

    def create_first_admin(self, token: str, tenant_name: str, login: str, password: str) -> Identity:
        with self._lock:
            expected = self._setup_token
            if not expected or not hmac.compare_digest(expected.encode(), (token or "").strip().encode()):
                self.audit.record("setup_admin", actor=login, outcome="refused", reason="wrong setup token")
                raise AuthError("Wrong setup token: use the one printed in the server log at start.")
            if self.has_admin():
                raise AuthError("An admin already exists: sign in instead.")
            user = self.add(tenant_name, login, password, "admin", actor="setup-token")
            self._setup_token = None
        return self.identity(user.id, "local")

    # -- laptop mode ----------------------------------------------------------------------------------------------
    def laptop_identity(self) -> Identity:
        """The one local admin of laptop mode (the front end has checked the setting and the loopback address)."""
        tenant = self.tenants.ensure_tenant("local")
        user = self.tenants.ensure_user(tenant.id, "local", role="admin")
        return identity_of(user, tenant, "laptop")
