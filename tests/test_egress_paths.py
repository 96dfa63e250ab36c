"""Every outbound path through the egress guard, against the local OpenAI-compatible test server (issue 18):
the question, each history turn, retrieved passages, extraction, critique and feedback requests; and no redirect
is followed to another host. Each test plants identifiers and asserts none reaches any request body."""

from __future__ import annotations

import json

import pytest

from regintel.chat.prompt import PromptAspects, build_messages
from regintel.config import load_settings
from regintel.extraction.llm_methods import LlmMethods
from regintel.extraction.offline import OfflineMethods
from regintel.extraction.proposal import ContentInfo, NewConcept, Proposal, Quote
from regintel.llm.chunks import ErrorChunk, TextChunk
from regintel.llm.openai_responses import OpenAIResponsesProvider
from regintel.llm.prompt_format import PromptSource
from regintel.llm.router import LlmRouter
from tests.llm_server import LlmTestServer, ResponsesStream, chat_answer

# One value of each kind the issue saw leak, written as a user would paste them.
PLANTED = {
    "PL_PESEL": "44051401359", "FR_NIR": "2 55 08 14 168 025 38", "IT_FISCAL_CODE": "RSSMRA85T10A562S",
    "PASSPORT": "C01X00T47", "PERSON": "Katarzyna Wiśniewska", "ADDRESS": "Hauptstraße 12, 10115 Berlin",
    "DATE_OF_BIRTH": "12.03.1985", "EMAIL": "k.wisniewska@example.pl",
}
TEXT = (f"Meine Mandantin {PLANTED['PERSON']} (PESEL {PLANTED['PL_PESEL']}, NIR {PLANTED['FR_NIR']}, "
        f"codice fiscale {PLANTED['IT_FISCAL_CODE']}, Reisepass Nr. {PLANTED['PASSPORT']}, geb. "
        f"{PLANTED['DATE_OF_BIRTH']}, wohnhaft {PLANTED['ADDRESS']}) schreibt an k.wisniewska@\nexample.pl.")
FRAGMENTS = ["44051401359", "168 025 38", "RSSMRA85T10A562S", "C01X00T47", "Wiśniewska", "Wi\\u015bniewska",
             "Hauptstra", "12.03.1985", "k.wisniewska", "example.pl"]


ERASE_ANSWER = "The controller must erase the data [1]."


def assert_clean(server: LlmTestServer) -> None:
    assert server.requests, "the call reached the server"
    for request in server.requests:
        body = json.dumps(request["body"], ensure_ascii=False) + json.dumps(request["body"])
        for fragment in FRAGMENTS:
            assert fragment not in body, fragment


def json_answer(payload: dict):
    return chat_answer(json.dumps(payload))


def router_for(server: LlmTestServer) -> LlmRouter:
    settings = load_settings(llm_provider="openai-compatible", llm_base_url=server.base_url, egress_mode="enforce",
                             llm_max_retries=0)
    return LlmRouter(settings)


def test_question_history_and_passages_are_sanitised_with_stable_placeholders() -> None:
    passage = PromptSource(1, f"Article 17 GDPR. Complaint filed by {PLANTED['PERSON']}, {PLANTED['EMAIL']}.",
                           title="eu-gdpr", ref="Art. 17")
    turn_one = build_messages(TEXT, [passage], PromptAspects())
    turn_two = build_messages("And may the bank keep her PESEL 44051401359?", [passage], PromptAspects(),
                              history=[(TEXT, f"Yes, {PLANTED['PERSON']} may ask for erasure [1].")])
    reports: list[dict] = []
    with LlmTestServer() as server:
        server.scripts = [chat_answer(ERASE_ANSWER)]
        router = router_for(server)
        for messages in (turn_one, turn_two):
            assert [c for c in router.stream("main_chat", messages, on_egress=reports.append) if isinstance(c, TextChunk)]
        assert_clean(server)
    first, second = (json.dumps(r["body"]["messages"], ensure_ascii=False) for r in server.requests)
    # the same person and PESEL keep their placeholders from one turn to the next (history re-sent first)
    assert "[PERSON_1]" in first and "[PERSON_1]" in second and "[PL_PESEL_1]" in second
    assert "Article 17 GDPR" in second
    decision = reports[0]
    assert decision["sanitised"] and decision["action"] == "replaced with placeholders"
    assert {"PL_PESEL", "FR_NIR", "IT_FISCAL_CODE", "PASSPORT", "PERSON", "ADDRESS", "DATE_OF_BIRTH",
            "EMAIL"} <= set(decision["pii_counts"])
    assert reports[1] == {"contacted": "127.0.0.1"}
    assert not any(fragment in json.dumps(reports, ensure_ascii=False) for fragment in FRAGMENTS)


def _methods(server: LlmTestServer) -> LlmMethods:
    router = router_for(server)
    return LlmMethods(router, router.settings, OfflineMethods())


QUOTES = [Quote(id="q1", key="quote-1", text=TEXT), Quote(id="q2", key="quote-2", text="Article 17 GDPR applies.")]
CONTENT = ContentInfo(key="content-1", title=f"Letter of {PLANTED['PERSON']}", author=PLANTED["PERSON"])
CONCEPT = NewConcept(id="n1", title="Right to erasure", concept=f"As asked by {PLANTED['PERSON']}", source_quote_ids=["q1"])


def test_extraction_request_with_an_uploaded_quote_is_sanitised() -> None:
    with LlmTestServer() as server:
        server.scripts = [json_answer({"novel_concepts": [], "unattributed_quotes": []})]
        _methods(server).candidates(CONTENT, QUOTES)
        assert_clean(server)


def test_extraction_calls_leave_their_egress_reports_in_the_run(tmp_path) -> None:
    from regintel.extraction.runs import RunRepository
    from regintel.store.db import Database

    with LlmTestServer() as server:
        server.scripts = [json_answer({"novel_concepts": [], "unattributed_quotes": []})]
        methods = _methods(server)
        methods.candidates(CONTENT, QUOTES)
    reports = methods.drain_egress()
    assert len(reports) == len(server.requests) >= 1  # one report per call (an invalid reply is asked again)
    assert all(r["task"] == "extraction" and r["contacted"] == "127.0.0.1" for r in reports)
    assert all(r["sanitised"] and r["pii_counts"]["PL_PESEL"] == 1 for r in reports)
    db = Database(f"sqlite:///{tmp_path / 'runs.db'}")
    db.create_schema()
    runs = RunRepository(db)
    run = runs.create("content-1", "Letter", "llm")
    runs.add_egress(run.id, reports)
    runs.add_egress(run.id, reports[:1])
    summary = runs.get(run.id).progress["egress"]
    calls = len(reports) + 1
    assert summary["calls"] == summary["sanitised"] == calls and summary["contacted"] == ["127.0.0.1"]
    assert summary["pii_counts"]["PL_PESEL"] == calls
    assert not any(fragment in json.dumps(summary, ensure_ascii=False) for fragment in FRAGMENTS)


def test_critique_request_is_sanitised() -> None:
    with LlmTestServer() as server:
        server.scripts = [json_answer({"quality_assessment": {}, "overall_passes": True})]
        _methods(server).critique(Proposal(concepts=[CONCEPT]), QUOTES)
        assert_clean(server)


def test_feedback_request_is_sanitised() -> None:
    with LlmTestServer() as server:
        server.scripts = [json_answer({"novel_concepts": []})]
        _methods(server).feedback(Proposal(concepts=[CONCEPT]), f"Add {PLANTED['EMAIL']} as contact.", QUOTES, {}, "de")
        assert_clean(server)


# -- redirects ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("status", [307, 308, 302])
def test_chat_completions_client_follows_no_redirect_and_reports_the_host_contacted(status: int) -> None:
    reports: list[dict] = []
    with LlmTestServer() as elsewhere, LlmTestServer() as server:
        elsewhere.scripts = [chat_answer("stolen")]
        target = elsewhere.base_url.replace("127.0.0.1", "localhost") + "/chat/completions"
        server.scripts = [lambda h: h.redirect(target, status)]
        chunks = list(router_for(server).stream("main_chat", [{"role": "user", "content": "What is Article 17?"}],
                                                on_egress=reports.append))
        assert elsewhere.requests == [], "the prompt must not follow the redirect"
    assert len(server.requests) == 1
    assert isinstance(chunks[-1], ErrorChunk) and "redirect" in chunks[-1].error
    assert reports[-1] == {"contacted": "127.0.0.1"}


def test_responses_client_follows_no_redirect() -> None:
    with LlmTestServer() as elsewhere, LlmTestServer() as server:
        def answer(handler):
            stream = ResponsesStream(handler)
            stream.created()
            stream.completed()
        elsewhere.scripts = [answer]
        server.scripts = [lambda h: h.redirect(elsewhere.base_url.replace("127.0.0.1", "localhost") + "/responses")]
        router = router_for(server)
        router.provider = OpenAIResponsesProvider("test-model", "sk-test", base_url=server.base_url)
        chunks = list(router.stream("main_chat", [{"role": "user", "content": "What is Article 17?"}]))
        assert elsewhere.requests == []
    assert isinstance(chunks[-1], ErrorChunk) and "redirect" in chunks[-1].error
