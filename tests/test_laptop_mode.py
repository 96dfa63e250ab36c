"""Laptop mode (issue 17): no sign-in only when REGINTEL_LAPTOP_MODE is set AND the server listens on loopback;
the home page says so. Off loopback the setting is ignored (sign-in page, with a warning) and creates nothing."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from sqlalchemy import select

from regintel.store import Database
from regintel.store.models import Tenant
from tests.conftest import app_served_on

pytestmark = pytest.mark.slow  # the app's runtime opens the embedded graph server


@pytest.fixture
def laptop_app(monkeypatch, settings):
    """Start app.py served on a given address (``start(address)``), laptop mode set."""
    env = {"REGINTEL_DATA_DIR": str(settings.data_dir), "REGINTEL_CORPUS_DIR": str(settings.corpus_dir),
           "REGINTEL_LAPTOP_MODE": "true"}
    with ExitStack() as started:
        yield lambda address: started.enter_context(app_served_on(monkeypatch, env, address))
    from regintel.graph.falkordb_server import EmbeddedFalkorDB

    EmbeddedFalkorDB(settings.data_dir / "graph").shutdown(save=False)


def tenant_names(settings) -> list[str]:
    db = Database(settings.sql_url)
    try:
        with db.session() as session:
            return list(session.scalars(select(Tenant.name)))
    finally:
        db.dispose()


def test_off_loopback_the_setting_is_ignored_and_sign_in_is_required(laptop_app, settings):
    page = laptop_app("0.0.0.0")
    assert not page.exception, page.exception
    assert [t.value for t in page.title] == ["Sign in to RegIntel Copilot"]
    assert any("REGINTEL_LAPTOP_MODE is set" in w.value for w in page.warning)
    assert tenant_names(settings) == []


def test_on_loopback_the_home_page_opens_and_says_it_is_laptop_mode(laptop_app, settings):
    page = laptop_app("127.0.0.1")
    assert not page.exception, page.exception
    assert page.title[0].value == "RegIntel Copilot"
    assert any("Laptop mode" in i.value for i in page.info)
    assert any("Signed in as **local** (admin)" in c.value for c in page.caption)
    assert not any(b.label == "Sign out" for b in page.button)
    assert tenant_names(settings) == ["local"]


def test_the_admin_page_lists_users_audit_and_sign_in_settings(laptop_app, settings):
    page = laptop_app("127.0.0.1")
    page.switch_page("views/6_Admin.py").run()
    assert not page.exception, page.exception
    assert [s.value for s in page.subheader] == ["Users", "Audit trail", "Sign-in settings", "Jobs"]
    users, audit, table = (frame.value for frame in page.dataframe)
    assert list(users["user"]) == ["local"] and list(users["role"]) == ["admin"]
    assert "REGINTEL_LAPTOP_MODE" in set(table["setting"]) and "True" in set(table["value"])
    assert audit.empty or set(audit["action"]) <= {"tenant_create", "user_add", "signin"}
