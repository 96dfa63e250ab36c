"""A three-turn conversation with a model through the Chat page (issue 20 item 5): the local OpenAI-compatible
test server plays a model that cites correctly, then mis-cites, then leaves a claim without a citation. The analyst
sees each problem listed under its answer with the numbers on the chips, and every later request re-sends the
earlier answers with citations that name the same passages in the new prompt.

And a question whose answer is interrupted by a page change while the model writes it: the chat input is disabled
while it is answered, and coming back to the Chat page answers it again in its own conversation, none lost, no
empty conversation left behind (regintel/ui/pending_turns.py)."""

from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from regintel.llm.prompt_format import SOURCE_RE
from tests.conftest import make_small_corpus
from tests.e2e.conftest import indexed_demo_app, screenshot, wait_until_drawn
from regintel.store import Database
from regintel.store.models import Conversation, Message
from tests.llm_server import LlmTestServer, chat_chunk, chat_reply

NOTIFY = "notify the personal data breach to the supervisory authority"
PROCESSOR = "The processor shall notify the controller without undue delay after becoming aware of a personal data breach."


def sources_of(request: dict) -> dict[int, str]:
    return {int(n): text for n, _, text in SOURCE_RE.findall(request["body"]["messages"][-1]["content"])}


def holding(sources: dict[int, str], words: str) -> int:
    return next(n for n, text in sources.items() if words in text)


def scripted_model(handler) -> None:
    """Answers from the prompt's own sources: turn 1 cites the passage it quotes; turn 2 quotes the processor's
    duty but cites another passage; turn 3 adds a claim with no citation."""
    request = handler.server.requests[-1]
    sources = sources_of(request)
    question = re.search(r"<question>\n(.*?)\n</question>", request["body"]["messages"][-1]["content"], re.DOTALL).group(1)
    law = holding(sources, NOTIFY)
    supported = f"The controller shall {NOTIFY} within 72 hours [{law}]."
    if "processor" in question:
        words = set(re.findall(r"\w+", PROCESSOR.lower()))  # mis-cite: the passage sharing fewest of its words
        elsewhere = min(sources, key=lambda n: len(words & set(re.findall(r"\w+", sources[n].lower()))))
        text = f"{supported} {PROCESSOR[:-1]} [{elsewhere}]."
    elif "data subject" in question:
        text = f"{supported} Every breach always leads to a fine of four per cent of turnover."
    else:
        text = supported
    chat_reply(handler, text)


@pytest.fixture(scope="module")
def model_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("model-chat")
    corpus = make_small_corpus(root / "corpus", {"eu/gdpr_2016_679.md": {}})
    with LlmTestServer() as llm:
        llm.scripts = [scripted_model]
        with indexed_demo_app(root, corpus_dir=corpus, REGINTEL_LLM_PROVIDER="openai-compatible",
                              REGINTEL_LLM_BASE_URL=llm.base_url, REGINTEL_LLM_MAX_RETRIES="0",
                              REGINTEL_RESPONSE_CACHE_TTL_SECONDS="0") as (app, settings):
            yield app, llm, settings


def send(page, question: str, turn: int):
    page.get_by_test_id("stChatInputTextArea").fill(question)
    page.get_by_test_id("stChatInputTextArea").press("Enter")
    answer = page.get_by_test_id("stChatMessage").nth(2 * turn + 1)
    wait_until_drawn(answer)  # the checks under the answer are read next
    return answer


def test_a_model_that_cites_mis_cites_and_omits_citations_is_checked_under_each_answer(model_app, page):
    app, llm, _ = model_app
    page.goto(f"{app.url}/Chat")
    page.get_by_test_id("stChatInputTextArea").wait_for(timeout=60_000)

    first = send(page, "What must a controller do when a personal data breach happens?", 0)
    assert first.get_by_text("ABSTAIN", exact=True).count() == 0, first.inner_text()[:600]
    assert first.get_by_role("button", name=re.compile(r"^\[1\] GDPR · Art\. 33")).count() == 1
    assert "Check:" not in first.inner_text()

    second = send(page, "And what must the processor do?", 1)
    assert second.get_by_text(re.compile("Check: “The processor shall notify")).count() == 1, second.inner_text()[:1500]
    note = second.get_by_text(re.compile("Check: “The processor shall notify")).first.inner_text()
    cited = re.search(r"is not supported by \[(\d+)\]", note)
    assert cited, note
    chips = [b.inner_text() for b in second.get_by_role("button", name=re.compile(r"^\[\d+\] ")).all()]
    assert any(chip.startswith(f"[{cited.group(1)}] ") for chip in chips), (note, chips)  # the number on a chip

    third = send(page, "Must the controller also communicate a personal data breach to the data subject?", 2)
    uncited = "Check: “Every breach always leads to a fine of four per cent of turnover.” has no citation."
    assert third.get_by_text(uncited).count() == 1, third.inner_text()[:1500]
    screenshot(page, "chat_model_checks")

    answered = [r for r in llm.requests if r["path"].endswith("/chat/completions")]
    assert len(answered) == 3, [r["path"] for r in llm.requests]
    last = answered[-1]["body"]["messages"]
    now = sources_of(answered[-1])
    earlier = [m["content"] for m in last if m["role"] == "assistant"]
    assert len(earlier) == 2
    for answer in earlier:  # the quoted duty still cites the passage holding it, under this prompt's number
        quoted = re.search(r"72 hours (?:\[(\d+)\]|\(([^)]*)\))", answer)
        assert quoted, answer
        assert NOTIFY in now[int(quoted.group(1))] if quoted.group(1) else quoted.group(2).startswith("GDPR"), answer


def held_model(release: threading.Event):
    """A model that writes the first words of its answer, then waits for ``release`` before the rest (the cited
    duty): the page is caught in the middle of an answer."""
    def script(handler) -> None:
        law = holding(sources_of(handler.server.requests[-1]), NOTIFY)
        handler.start_stream()
        handler.sse(chat_chunk(content="The controller shall "))
        release.wait(90)
        try:
            handler.sse(chat_chunk(content=f"{NOTIFY} within 72 hours [{law}]."))
            handler.sse(chat_chunk(finish="stop"))
            handler.sse("[DONE]")
            handler.end_stream()
        except OSError:  # the app let this request go when the page ran again
            pass
    return script


def completions(llm) -> int:
    return sum(r["path"].endswith("/chat/completions") for r in llm.requests)


def wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_an_answer_interrupted_by_a_page_change_is_written_again_and_nothing_is_lost(model_app, page):
    app, llm, settings = model_app
    release, scripts = threading.Event(), llm.scripts
    llm.scripts = [held_model(release)]
    db = Database(settings.sql_url)
    try:
        with db.session() as session:
            before = set(session.scalars(select(Conversation.id)))
        page.goto(f"{app.url}/Chat")
        box = page.get_by_test_id("stChatInputTextArea")
        box.wait_for(timeout=60_000)
        asked, question = completions(llm), "What must a controller do about a personal data breach?"
        box.fill(question)
        box.press("Enter")
        page.get_by_test_id("stChatMessage").nth(1).get_by_text("The controller shall").wait_for(timeout=60_000)
        expect(box).to_be_disabled()  # a second question cannot drop this one

        page.get_by_role("link", name="Home").first.click()  # the analyst looks elsewhere meanwhile
        page.get_by_role("heading", name="RegIntel Copilot").first.wait_for(timeout=60_000)
        page.get_by_role("link", name="Chat").first.click()
        page.get_by_text("it is written again").wait_for(timeout=60_000)
        wait_for(lambda: completions(llm) == asked + 2)  # the question went to the model again
        release.set()

        messages = page.get_by_test_id("stChatMessage")
        wait_until_drawn(messages.nth(1))
        assert messages.count() == 2 and messages.nth(0).inner_text().strip().endswith(question)
        assert messages.nth(1).get_by_text("72 hours").count() == 1, messages.nth(1).inner_text()[:600]
        expect(box).to_be_enabled()
        screenshot(page, "chat_interrupted_answer")
        with db.session() as session:
            (new,) = set(session.scalars(select(Conversation.id))) - before  # one conversation, not an empty one too
            stored = session.scalars(select(Message.content).where(Message.conversation_id == new, Message.role == "user")).all()
        assert stored == [question]
        assert f"c={new}" in page.url
    finally:
        release.set()
        llm.scripts = scripts
        db.dispose()
