"""A three-turn conversation with a model through the Chat page (issue 20 item 5): the local OpenAI-compatible
test server plays a model that cites correctly, then mis-cites, then leaves a claim without a citation. The analyst
sees each problem listed under its answer with the numbers on the chips, and every later request re-sends the
earlier answers with citations that name the same passages in the new prompt."""

from __future__ import annotations

import re

import pytest

from regintel.llm.prompt_format import SOURCE_RE
from tests.conftest import make_small_corpus
from tests.e2e.conftest import indexed_demo_app, screenshot, wait_until_drawn
from tests.llm_server import LlmTestServer, chat_reply

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
                              REGINTEL_RESPONSE_CACHE_TTL_SECONDS="0") as (app, _):
            yield app, llm


def send(page, question: str, turn: int):
    page.get_by_test_id("stChatInputTextArea").fill(question)
    page.get_by_test_id("stChatInputTextArea").press("Enter")
    answer = page.get_by_test_id("stChatMessage").nth(2 * turn + 1)
    wait_until_drawn(answer)  # the checks under the answer are read next
    return answer


def test_a_model_that_cites_mis_cites_and_omits_citations_is_checked_under_each_answer(model_app, page):
    app, llm = model_app
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
