"""Chat page in a real browser (offline provider, demo corpus): ask, see the streamed answer, open a citation
chip's passage, give a thumbs down with a comment, reload and find the conversation again."""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import select

from regintel.store import Database
from regintel.store.models import Feedback
from tests.e2e.conftest import indexed_demo_app, screenshot

QUESTION = "What must a controller do when a personal data breach occurs?"


@pytest.fixture
def chat_app(tmp_path):
    with indexed_demo_app(tmp_path) as built:
        yield built


def test_ask_open_a_citation_give_feedback_and_reload(chat_app, page):
    app, settings = chat_app
    page.goto(f"{app.url}/Chat")
    page.get_by_text("Offline mode").first.wait_for(timeout=60_000)
    page.get_by_test_id("stChatInputTextArea").fill(QUESTION)
    page.get_by_test_id("stChatInputTextArea").press("Enter")

    answer = page.get_by_test_id("stChatMessage").nth(1)
    answer.get_by_text("notify", exact=False).first.wait_for(timeout=60_000)
    lengths = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not page.get_by_text("DIRECT").count() + page.get_by_text("QUALIFIED").count():
        lengths.add(len(answer.inner_text()))
        time.sleep(0.05)
    page.get_by_role("button", name=re.compile(r"^\[\d+\] GDPR")).first.wait_for(timeout=30_000)
    assert "c=" in page.url, "the conversation is in the URL"

    screenshot(page, "chat")
    chip = page.get_by_role("button", name=re.compile(r"^\[\d+\] GDPR")).first
    chip.click()
    passage = page.get_by_test_id("stPopoverBody").get_by_text("personal data breach", exact=False).first
    passage.wait_for(timeout=15_000)
    assert page.get_by_role("link", name="Open the source").first.get_attribute("href").startswith("https://eur-lex.europa.eu/")
    screenshot(page, "chat_citation")
    page.keyboard.press("Escape")

    page.get_by_role("radio", name="Thumbs down").first.click()
    comment = page.get_by_label("Comment (optional)").first
    comment.wait_for(timeout=15_000)
    comment.fill("Article 33 deadline should come first")
    comment.press("Enter")
    page.get_by_role("button", name="Send feedback").first.click()
    page.get_by_text("your feedback was saved").wait_for(timeout=15_000)
    db = Database(settings.sql_url)
    with db.session() as session:
        (feedback,) = session.scalars(select(Feedback)).all()
        assert feedback.rating == -1 and feedback.comment == "Article 33 deadline should come first"

    page.reload()
    page.get_by_text(QUESTION).first.wait_for(timeout=60_000)
    page.get_by_role("button", name=re.compile(r"^\[\d+\] GDPR")).first.wait_for(timeout=30_000)
    assert page.dialogs == []
