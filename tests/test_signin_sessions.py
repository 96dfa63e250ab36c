"""Browser sign-in sessions (a reload keeps a local sign-in) and the per-client sign-in throttle (issue 17), on
SQLite and (postgres lane) PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from regintel.errors import AuthError
from regintel.identity.accounts import Accounts
from regintel.identity.audit import AuditLog
from regintel.identity.sessions import SignInSessions, digest
from regintel.identity.throttle import ClientThrottle
from regintel.store.models import SignInSession
from regintel.tenancy import TenantDirectory
from tests.test_identity import PASSWORD, Clock
from tests.test_store import db  # noqa: F401  (the sqlite + postgres-lane fixture)

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Chrome/140"


class Seconds:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def world(db):  # noqa: F811
    clock, audit = Clock(), AuditLog(db)
    throttle = ClientThrottle(max_failures=3, window_seconds=60, clock=Seconds())
    accounts = Accounts(db, TenantDirectory(db), audit, max_failures=50, bcrypt_rounds=4, clock=clock, throttle=throttle)
    accounts.add("acme", "ana", PASSWORD, "curator")
    sessions = SignInSessions(db, audit, lifetime=timedelta(hours=2), clock=clock)
    return {"db": db, "accounts": accounts, "sessions": sessions, "clock": clock, "throttle": throttle, "audit": audit}


def test_a_session_token_gives_back_the_identity_and_is_stored_only_hashed(world):
    identity = world["accounts"].authenticate("ana", PASSWORD)
    token = world["sessions"].open(identity, BROWSER)
    again = world["sessions"].identity(token, BROWSER)
    assert (again.user_id, again.tenant_id, again.role, again.source) == (identity.user_id, identity.tenant_id, "curator", "local")
    with world["db"].session() as session:
        row = session.scalars(select(SignInSession)).one()
    assert row.token_hash == digest(token) and token not in (row.token_hash, row.agent_hash)


def test_an_expired_revoked_foreign_or_forged_token_is_refused(world):
    sessions, identity = world["sessions"], world["accounts"].authenticate("ana", PASSWORD)
    token = sessions.open(identity, BROWSER)
    with pytest.raises(AuthError):
        sessions.identity(token, "curl/8.0")  # lifted into another client
    for forged in ("", "rgs_", token + "x", "rgs_" + "A" * 43, "rgs_' OR 1=1 --", None):
        with pytest.raises(AuthError):
            sessions.identity(forged, BROWSER)
    world["clock"].now += timedelta(hours=2, seconds=1)
    with pytest.raises(AuthError):
        sessions.identity(token, BROWSER)
    fresh = sessions.open(identity, BROWSER)
    assert sessions.revoke(fresh) and not sessions.revoke(fresh)
    with pytest.raises(AuthError):
        sessions.identity(fresh, BROWSER)


def test_a_password_change_or_a_disabled_account_ends_every_session(world):
    sessions, accounts = world["sessions"], world["accounts"]
    identity = accounts.authenticate("ana", PASSWORD)
    first, second = sessions.open(identity, BROWSER), sessions.open(identity, BROWSER)
    assert sessions.live(identity.user_id) == 2
    accounts.set_password("ana", PASSWORD + " new")
    assert sessions.live(identity.user_id) == 0
    for token in (first, second):
        with pytest.raises(AuthError):
            sessions.identity(token, BROWSER)
    third = sessions.open(accounts.authenticate("ana", PASSWORD + " new"), BROWSER)
    accounts.set_disabled("ana")
    with pytest.raises(AuthError):
        sessions.identity(third, BROWSER)


def test_one_address_spraying_passwords_over_many_logins_is_throttled(world):
    accounts = world["accounts"]
    for login in ("ana", "bob", "carl"):  # three failures, each on a different login: no account lock applies
        with pytest.raises(AuthError, match="Wrong login or password"):
            accounts.authenticate(login, "guess guess guess", client="203.0.113.9")
    with pytest.raises(AuthError, match="from your address"):  # refused before the password is even checked
        accounts.authenticate("ana", PASSWORD, client="203.0.113.9")
    assert accounts.authenticate("ana", PASSWORD, client="198.51.100.4").user_name == "ana"  # another client
    assert [e.outcome for e in world["audit"].events(action="signin", limit=2)] == ["ok", "throttled"]
    world["throttle"].clock.now += 61  # the window slides
    assert accounts.authenticate("ana", PASSWORD, client="203.0.113.9").user_name == "ana"


def test_a_success_does_not_reset_the_client_window_and_no_address_is_not_throttled(world):
    throttle = world["throttle"]
    for _ in range(2):
        throttle.failed("203.0.113.9")
    world["accounts"].authenticate("ana", PASSWORD, client="203.0.113.9")
    throttle.failed("203.0.113.9")
    with pytest.raises(AuthError):
        throttle.check("203.0.113.9")
    for _ in range(10):
        throttle.failed(None)
    throttle.check(None)
    off = ClientThrottle(max_failures=0)
    for _ in range(10):
        off.failed("203.0.113.9")
    off.check("203.0.113.9")
