"""Local accounts, lockout, roles, API tokens, single-sign-on claim mapping and the audit trail (issue 17), on
SQLite and (postgres lane) PostgreSQL. Every refusal is checked to leave the rows it must not create uncreated."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from regintel.errors import AuthError, Forbidden, InputError, NotFound
from regintel.identity.accounts import Accounts
from regintel.identity.audit import AuditLog
from regintel.identity.oidc import ClaimMapping, SingleSignOn, parse_role_map
from regintel.identity.roles import ROLES, allows, require_role
from regintel.identity.tokens import ApiTokens
from regintel.store.models import ApiToken, AuditEvent, Tenant, User
from regintel.tenancy import TenantDirectory
from tests.test_store import db  # noqa: F401  (the sqlite + postgres-lane fixture)

PASSWORD = "correct horse battery"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def world(db):  # noqa: F811
    clock = Clock()
    audit = AuditLog(db)
    tenants = TenantDirectory(db)
    accounts = Accounts(db, tenants, audit, max_failures=3, lockout_seconds=60, bcrypt_rounds=4, clock=clock)
    return {"db": db, "audit": audit, "tenants": tenants, "accounts": accounts, "clock": clock,
            "tokens": ApiTokens(db, audit)}


def count(db, model) -> int:
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(model))


def actions(audit: AuditLog) -> list[tuple[str, str, str]]:
    return [(e.action, e.outcome, e.actor) for e in reversed(audit.events())]


def test_a_local_account_signs_in_as_its_tenant_and_role(world):
    accounts = world["accounts"]
    accounts.add("acme", "ana", PASSWORD, "curator")
    identity = accounts.authenticate("ana", PASSWORD)
    assert (identity.tenant_name, identity.user_name, identity.role, identity.source) == ("acme", "ana", "curator", "local")
    with world["db"].session() as session:
        stored = session.scalars(select(User).where(User.login == "ana")).one()
    assert stored.password_hash and PASSWORD not in stored.password_hash and stored.password_hash.startswith("$2")
    assert ("signin", "ok", "ana") in actions(world["audit"])


def test_wrong_password_and_unknown_login_read_the_same_and_are_audited(world):
    accounts = world["accounts"]
    accounts.add("acme", "ana", PASSWORD)
    with pytest.raises(AuthError) as wrong:
        accounts.authenticate("ana", PASSWORD + "!")
    with pytest.raises(AuthError) as unknown:
        accounts.authenticate("nobody", PASSWORD)
    assert str(wrong.value) == str(unknown.value) == "Wrong login or password."
    assert [a for a in actions(world["audit"]) if a[0] == "signin"] == [("signin", "refused", "ana"),
                                                                        ("signin", "refused", "nobody")]
    assert count(world["db"], User) == 1  # a failed sign-in creates no user


def test_failures_lock_the_account_with_a_doubling_backoff(world):
    accounts, clock = world["accounts"], world["clock"]
    accounts.add("acme", "ana", PASSWORD)
    for _ in range(3):
        with pytest.raises(AuthError, match="Wrong login"):
            accounts.authenticate("ana", "not the password")
    with pytest.raises(AuthError, match="locked for 60 more seconds"):
        accounts.authenticate("ana", PASSWORD)  # even the right password while locked
    clock.now += timedelta(seconds=61)
    with pytest.raises(AuthError, match="Wrong login"):
        accounts.authenticate("ana", "still wrong")  # 4th failure: locked twice as long
    with pytest.raises(AuthError, match="locked for 120 more seconds"):
        accounts.authenticate("ana", PASSWORD)
    clock.now += timedelta(seconds=121)
    assert accounts.authenticate("ana", PASSWORD).user_name == "ana"
    with world["db"].session() as session:
        user = session.scalars(select(User).where(User.login == "ana")).one()
        assert (user.failed_signins, user.locked_until) == (0, None)
    assert ("signin", "locked", "ana") in actions(world["audit"])


def test_disabled_accounts_cannot_sign_in_and_are_signed_out(world):
    accounts = world["accounts"]
    user = accounts.add("acme", "ana", PASSWORD)
    identity = accounts.authenticate("ana", PASSWORD)
    accounts.set_disabled("ana")
    with pytest.raises(AuthError, match="disabled"):
        accounts.authenticate("ana", PASSWORD)
    with pytest.raises(AuthError):
        accounts.identity(identity.user_id, "local")
    accounts.set_disabled("ana", False)
    assert accounts.identity(user.id, "local").user_name == "ana"


def test_logins_are_unique_across_tenants_and_inputs_are_checked(world):
    accounts = world["accounts"]
    accounts.add("acme", "ana", PASSWORD)
    with pytest.raises(InputError, match="taken"):
        accounts.add("beta", "ana", PASSWORD)
    with pytest.raises(InputError, match="at least 12"):
        accounts.add("acme", "bob", "short")
    with pytest.raises(InputError, match="72 bytes"):
        accounts.add("acme", "bob", "é" * 40)
    with pytest.raises(InputError, match="Unknown role"):
        accounts.add("acme", "bob", PASSWORD, "owner")
    with pytest.raises(InputError, match="login"):
        accounts.add("acme", "<script>", PASSWORD)
    with pytest.raises(NotFound):
        accounts.add("gamma", "bob", PASSWORD, create_tenant=False)
    assert [t.name for t in world["tenants"].tenants()] == ["acme", "beta"]  # beta: created before the login clash


def test_role_changes_apply_at_once_and_are_audited(world):
    accounts = world["accounts"]
    user = accounts.add("acme", "ana", PASSWORD)
    accounts.set_role("ana", "admin", actor="root")
    assert accounts.identity(user.id, "local").role == "admin"
    assert ("role_change", "ok", "root") in actions(world["audit"])


def test_roles_include_the_ones_below():
    assert ROLES == ("analyst", "curator", "admin")
    assert allows("analyst", "chat") and not allows("analyst", "approve") and not allows("analyst", "traces")
    assert allows("curator", "approve") and not allows("curator", "dashboard")
    assert all(allows("admin", a) for a in ("chat", "approve", "dashboard", "traces", "reindex", "users", "audit"))
    assert not allows("admin", "no-such-action") and not allows("root", "chat")
    with pytest.raises(Forbidden, match="Sign in"):
        require_role(None, "chat")


def test_the_first_admin_needs_the_setup_token_once(world):
    accounts = world["accounts"]
    token = accounts.setup_token()
    assert token and accounts.setup_token() == token
    with pytest.raises(AuthError, match="setup token"):
        accounts.create_first_admin("guess", "acme", "root", PASSWORD)
    assert count(world["db"], User) == 0
    identity = accounts.create_first_admin(token, "acme", "root", PASSWORD)
    assert identity.role == "admin"
    assert accounts.setup_token() is None
    with pytest.raises(AuthError):
        accounts.create_first_admin(token, "acme", "root2", PASSWORD)  # spent


def test_api_tokens_are_stored_hashed_and_revocable(world):
    accounts, tokens = world["accounts"], world["tokens"]
    user = accounts.add("acme", "ana", PASSWORD)
    token = tokens.create(user, "script")
    assert tokens.identity(token).user_id == user.id
    assert tokens.identity(f"Bearer {token}").tenant_name == "acme"
    with world["db"].session() as session:
        row = session.scalars(select(ApiToken)).one()
    assert token not in (row.token_hash, row.prefix) and len(row.token_hash) == 64
    for bad in ("", "rgi_nope", token + "x", token.upper()):
        with pytest.raises(AuthError):
            tokens.identity(bad)
    accounts.set_disabled("ana")
    with pytest.raises(AuthError):
        tokens.identity(token)
    accounts.set_disabled("ana", False)
    tokens.revoke(user, token[:10])
    with pytest.raises(AuthError):
        tokens.identity(token)
    with pytest.raises(NotFound):
        tokens.revoke(user, "all")  # nothing left to revoke


def sso(world, **mapping) -> SingleSignOn:
    return SingleSignOn(world["db"], world["tenants"], world["audit"],
                        ClaimMapping(role_map=parse_role_map("rg-admins=admin, rg-curators=curator"), **mapping))


def test_sso_claims_give_tenant_and_highest_mapped_role(world):
    identity = sso(world).sign_in({"iss": "http://idp", "sub": "u1", "email": "ana@acme.eu", "tenant": "acme",
                                   "groups": ["rg-curators", "rg-admins", "other"]})
    assert (identity.tenant_name, identity.user_name, identity.role, identity.source) == ("acme", "ana@acme.eu", "admin", "oidc")
    again = sso(world).sign_in({"iss": "http://idp", "sub": "u1", "email": "ana@acme.eu", "tenant": "acme", "groups": []})
    assert again.user_id == identity.user_id and again.role == "analyst"  # the provider is the source of truth
    assert ("role_change", "ok", "oidc") in actions(world["audit"])
    assert count(world["db"], User) == 1


def test_sso_refusals_create_nothing(world):
    with pytest.raises(AuthError, match="'tenant' claim"):
        sso(world).sign_in({"iss": "i", "sub": "u1", "groups": ["rg-admins"]})
    with pytest.raises(AuthError, match="does not exist"):
        sso(world, create_tenants=False).sign_in({"iss": "i", "sub": "u1", "tenant": "acme"})
    with pytest.raises(AuthError, match="groups"):
        sso(world, default_role="").sign_in({"iss": "i", "sub": "u1", "tenant": "acme", "groups": ["x"]})
    assert count(world["db"], Tenant) == 0 and count(world["db"], User) == 0
    assert all(e.outcome == "refused" for e in world["audit"].events())
    world["tenants"].ensure_tenant("acme")
    with pytest.raises(AuthError, match="no account"):
        sso(world, create_users=False).sign_in({"iss": "i", "sub": "u1", "tenant": "acme"})
    assert count(world["db"], User) == 0


def test_sso_identity_cannot_move_to_another_tenant_by_claim(world):
    sso(world).sign_in({"iss": "i", "sub": "u1", "tenant": "acme"})
    with pytest.raises(AuthError, match="another tenant"):
        sso(world).sign_in({"iss": "i", "sub": "u1", "tenant": "beta"})


def test_sso_binds_an_account_an_admin_prepared(world):
    prepared = world["accounts"].add("acme", "ana@acme.eu", None, "curator")
    identity = sso(world, create_users=False, default_role="curator").sign_in(
        {"iss": "i", "sub": "u9", "email": "ana@acme.eu", "tenant": "acme"})
    assert identity.user_id == prepared.id
    with pytest.raises(AuthError):  # an SSO-only account has no password
        world["accounts"].authenticate("ana@acme.eu", PASSWORD)


def test_role_map_setting_is_validated():
    with pytest.raises(InputError):
        parse_role_map("rg-admins=owner")
    with pytest.raises(InputError):
        parse_role_map("justagroup")
    assert parse_role_map(" a=admin ,b = curator,") == {"a": "admin", "b": "curator"}


def test_audit_is_scoped_by_tenant(world):
    accounts = world["accounts"]
    a = accounts.add("acme", "ana", PASSWORD)
    accounts.add("beta", "bob", PASSWORD)
    tenant_a = world["audit"].events(tenant_id=a.tenant_id)
    assert tenant_a and all(e.tenant_id == a.tenant_id for e in tenant_a)
    assert "bob" not in {e.target for e in tenant_a}
    assert count(world["db"], AuditEvent) == len(world["audit"].events())


def test_users_command_line(monkeypatch, tmp_path, capsys):
    """``python -m regintel users ...`` end to end in-process: the password from stdin (never an argument),
    errors as one clear line and exit status 2, a token printed once and refused after revocation."""
    import io

    from regintel.__main__ import main
    from regintel.config import get_settings
    from regintel.runtime import RegIntel

    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
        assert main(["users", "add", "ana", "--tenant", "acme", "--role", "curator", "--password-stdin"]) == 0
        monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
        assert main(["users", "add", "bob", "--tenant", "acme", "--password-stdin"]) == 2
        assert "at least 12 characters" in capsys.readouterr().err
        assert main(["users", "set-role", "ana", "admin"]) == 0
        assert main(["users", "token", "ana"]) == 0
        token = capsys.readouterr().out.strip().splitlines()[-1]
        assert token.startswith("rgi_")
        assert main(["users", "list", "--tenant", "acme"]) == 0
        listing = capsys.readouterr().out
        assert "ana" in listing and "admin" in listing and "bob" not in listing and PASSWORD not in listing
        with RegIntel(get_settings(), graph=None) as app:
            assert app.api_tokens.identity(token).role == "admin"
            assert main(["users", "revoke-token", "ana", token[:10]]) == 0
            with pytest.raises(AuthError):
                app.api_tokens.identity(token)
            assert app.accounts.authenticate("ana", PASSWORD).tenant_name == "acme"
        assert main(["users", "disable", "ana"]) == 0 and main(["users", "audit"]) == 0
        audit = capsys.readouterr().out
        for action in ("user_add", "role_change", "token_create", "token_revoke", "signin", "user_disable"):
            assert action in audit, action
    finally:
        get_settings.cache_clear()
