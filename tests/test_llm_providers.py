"""Contract tests of the HTTP providers against a local server speaking the real streaming wire formats.

Covered for both the Responses API (provider ``openai``) and Chat Completions (provider ``openai-compatible``):
text only; text and tool call in any order; tool arguments split over 10+ events; malformed tool JSON; an HTTP
error (retried by the router); a connection dropped mid-stream; a timeout.
"""

from __future__ import annotations

import json
import time

import pytest

from regintel.config import load_settings
from regintel.llm.base import ProviderError
from regintel.llm.chunks import ErrorChunk, TextChunk, ToolChunk
from regintel.llm.openai_compatible import OpenAICompatibleProvider
from regintel.llm.openai_responses import OpenAIResponsesProvider
from regintel.llm.router import LlmRouter
from regintel.llm.tools import CAPTURE_CONCEPTS
from tests.llm_server import LlmTestServer, ResponsesStream, chat_chunk, chat_tool_deltas

CONCEPTS = {"concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value added tax",
                          "altLabels": ["sales tax in Ireland"], "definition": "A general tax on consumption."}]}
ARGS = json.dumps(CONCEPTS)
MESSAGES = [{"role": "system", "content": "You are a regulatory assistant."}, {"role": "user", "content": "What is VAT?"}]


def text_of(chunks) -> str:
    return "".join(c.delta for c in chunks if isinstance(c, TextChunk))


def tools_of(chunks) -> list[ToolChunk]:
    return [c for c in chunks if isinstance(c, ToolChunk)]


# -- Responses API ----------------------------------------------------------------------------------------------
def responses_script(order: str, pieces: int = 1, arguments: str = ARGS):
    def script(handler):
        stream = ResponsesStream(handler)
        stream.created()
        if order == "tool-first":
            stream.tool("capture_concepts", arguments, pieces)
        stream.message_item()
        for word in ["VAT ", "is a ", "consumption ", "tax."]:
            stream.text(word)
            if order == "interleaved" and word == "is a ":
                stream.tool("capture_concepts", arguments, pieces)
        if order == "tool-last":
            stream.tool("capture_concepts", arguments, pieces)
        stream.completed()
    return script


def responses_provider(server, timeout: float = 10.0) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider("test-model", "sk-test-secret", base_url=server.base_url, timeout=timeout)


def test_responses_text_only():
    with LlmTestServer() as server:
        server.scripts = [responses_script("none")]
        chunks = list(responses_provider(server).stream(MESSAGES))
    assert text_of(chunks) == "VAT is a consumption tax."
    assert tools_of(chunks) == [] and not any(isinstance(c, ErrorChunk) for c in chunks)
    assert server.requests[0]["path"] == "/v1/responses" and server.requests[0]["body"]["stream"] is True


@pytest.mark.parametrize("order", ["tool-first", "interleaved", "tool-last"])
def test_responses_text_and_tool_in_any_order(order):
    with LlmTestServer() as server:
        server.scripts = [responses_script(order)]
        chunks = list(responses_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert text_of(chunks) == "VAT is a consumption tax."
    tools = tools_of(chunks)
    assert len(tools) == 1 and tools[0].name == "capture_concepts" and tools[0].args == CONCEPTS
    assert ARGS not in text_of(chunks)
    sent_tools = server.requests[0]["body"]["tools"]
    assert sent_tools[0]["type"] == "function" and sent_tools[0]["name"] == "capture_concepts"


def test_responses_tool_arguments_split_over_many_events():
    with LlmTestServer() as server:
        server.scripts = [responses_script("tool-last", pieces=15)]
        chunks = list(responses_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert sum(1 for r in server.requests) == 1
    assert [t.args for t in tools_of(chunks)] == [CONCEPTS]


def test_responses_malformed_tool_json_is_flagged_not_raised():
    with LlmTestServer() as server:
        server.scripts = [responses_script("tool-last", pieces=3, arguments='{"concepts": [{"domain": "TAX",')]
        chunks = list(responses_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert text_of(chunks) == "VAT is a consumption tax."
    (tool,) = tools_of(chunks)
    assert tool.malformed and tool.args is None and tool.raw.startswith('{"concepts"')


def test_responses_connection_dropped_mid_stream_gives_an_error_chunk():
    def script(handler):
        stream = ResponsesStream(handler)
        stream.created()
        stream.message_item()
        stream.text("VAT is ")
        handler.drop()

    with LlmTestServer() as server:
        server.scripts = [script]
        chunks = list(responses_provider(server).stream(MESSAGES))
    assert text_of(chunks) == "VAT is "
    assert isinstance(chunks[-1], ErrorChunk)


def test_responses_error_event_mid_stream():
    def script(handler):
        stream = ResponsesStream(handler)
        stream.created()
        stream.message_item()
        stream.text("VAT ")
        handler.sse({"type": "error", "error": {"message": "overloaded", "code": "server_error"}}, event="error")
        handler.end_stream()

    with LlmTestServer() as server:
        server.scripts = [script]
        chunks = list(responses_provider(server).stream(MESSAGES))
    assert isinstance(chunks[-1], ErrorChunk) and "sk-test-secret" not in chunks[-1].error


def test_responses_http_error_before_streaming_raises_a_retryable_provider_error():
    with LlmTestServer() as server:
        server.scripts = [lambda h: h.json_error(503, "busy")]
        with pytest.raises(ProviderError) as error:
            list(responses_provider(server).stream(MESSAGES))
    assert error.value.retryable and "503" in str(error.value)


# -- Chat Completions -------------------------------------------------------------------------------------------
def chat_script(order: str, pieces: int = 1, arguments: str = ARGS, finish: bool = True):
    def script(handler):
        handler.start_stream()
        events = [chat_chunk(content=w) for w in ["VAT ", "is a ", "consumption ", "tax."]]
        tool_events = chat_tool_deltas("capture_concepts", arguments, pieces)
        if order == "tool-first":
            events = tool_events + events
        elif order == "interleaved":
            events = events[:2] + tool_events + events[2:]
        elif order == "tool-last":
            events = events + tool_events
        for event in events:
            handler.sse(event)
        if finish:
            handler.sse(chat_chunk(finish="tool_calls" if order != "none" else "stop"))
            handler.sse("[DONE]")
        handler.end_stream()
    return script


def compatible_provider(server, timeout: float = 10.0, tools: bool = True) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider("test-model", server.base_url, "", timeout, supports_tools=tools)


def test_chat_text_only():
    with LlmTestServer() as server:
        server.scripts = [chat_script("none")]
        chunks = list(compatible_provider(server).stream(MESSAGES))
    assert text_of(chunks) == "VAT is a consumption tax." and tools_of(chunks) == []
    assert server.requests[0]["path"] == "/v1/chat/completions"


@pytest.mark.parametrize("order", ["tool-first", "interleaved", "tool-last"])
def test_chat_text_and_tool_in_any_order(order):
    with LlmTestServer() as server:
        server.scripts = [chat_script(order)]
        chunks = list(compatible_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert text_of(chunks) == "VAT is a consumption tax."
    assert [t.args for t in tools_of(chunks)] == [CONCEPTS]
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "capture_concepts"


def test_chat_tool_arguments_split_over_many_events_and_two_calls():
    second = json.dumps({"concepts": []})

    def script(handler):
        handler.start_stream()
        for event in chat_tool_deltas("capture_concepts", ARGS, 12) + chat_tool_deltas("capture_concepts", second, 4, index=1, call_id="call_2"):
            handler.sse(event)
        handler.sse(chat_chunk(finish="tool_calls"))
        handler.sse("[DONE]")
        handler.end_stream()

    with LlmTestServer() as server:
        server.scripts = [script]
        chunks = list(compatible_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert [(t.call_id, t.args) for t in tools_of(chunks)] == [("call_1", CONCEPTS), ("call_2", {"concepts": []})]


def test_chat_malformed_tool_json_is_flagged():
    with LlmTestServer() as server:
        server.scripts = [chat_script("tool-last", pieces=4, arguments='{"concepts": [oops')]
        chunks = list(compatible_provider(server).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    (tool,) = tools_of(chunks)
    assert tool.malformed and text_of(chunks) == "VAT is a consumption tax."


def chat_dropped_after_first_word(handler):
    handler.start_stream()
    handler.sse(chat_chunk(content="VAT "))
    handler.drop()


def test_chat_connection_dropped_mid_stream():
    with LlmTestServer() as server:
        server.scripts = [chat_dropped_after_first_word]
        chunks = list(compatible_provider(server).stream(MESSAGES))
    assert text_of(chunks) == "VAT " and isinstance(chunks[-1], ErrorChunk)


def test_chat_stream_without_finish_is_an_error():
    with LlmTestServer() as server:
        server.scripts = [chat_script("none", finish=False)]
        chunks = list(compatible_provider(server).stream(MESSAGES))
    assert isinstance(chunks[-1], ErrorChunk)


@pytest.mark.parametrize("make_provider, script", [
    (lambda server: responses_provider(server, timeout=0.5), lambda: responses_script("none")),
    (lambda server: compatible_provider(server, timeout=0.5), lambda: chat_script("none")),
], ids=["responses", "chat-completions"])
def test_timeout_raises_a_retryable_provider_error(make_provider, script):
    def slow(handler):
        time.sleep(3)
        script()(handler)

    with LlmTestServer() as server:
        server.scripts = [slow]
        with pytest.raises(ProviderError) as error:
            list(make_provider(server).stream(MESSAGES))
    assert error.value.retryable and "in time" in str(error.value)


def test_provider_without_tools_sends_none():
    with LlmTestServer() as server:
        server.scripts = [chat_script("none")]
        list(compatible_provider(server, tools=False).stream(MESSAGES, [CAPTURE_CONCEPTS]))
    assert "tools" not in server.requests[0]["body"]


# -- Router over the real providers -----------------------------------------------------------------------------
def router_for(server, provider: str = "openai-compatible", **overrides):
    settings = load_settings(llm_provider=provider, llm_base_url=server.base_url, llm_api_key="sk-test-secret",
                             llm_max_retries=2, **overrides)
    sleeps: list[float] = []
    router = LlmRouter(settings, sleep=sleeps.append)
    if provider == "openai":  # point the Responses provider at the local server too
        router.provider = responses_provider(server)
        router.egress.default_allowed.add("127.0.0.1")
    return router, sleeps


def test_router_retries_transient_http_errors_then_succeeds():
    with LlmTestServer() as server:
        server.scripts = [lambda h: h.json_error(503), lambda h: h.json_error(502), chat_script("none")]
        router, sleeps = router_for(server)
        chunks = list(router.stream("main_chat", MESSAGES))
    assert text_of(chunks) == "VAT is a consumption tax."
    assert len(server.requests) == 3 and sleeps == [0.5, 1.0]


def test_router_gives_up_with_a_safe_error_chunk():
    with LlmTestServer() as server:
        server.scripts = [lambda h: h.json_error(500)]
        router, sleeps = router_for(server)
        chunks = list(router.stream("main_chat", MESSAGES))
    assert len(chunks) == 1 and isinstance(chunks[0], ErrorChunk)
    assert "sk-test-secret" not in chunks[0].error and len(server.requests) == 3


def test_router_does_not_retry_after_output_has_started():
    with LlmTestServer() as server:
        server.scripts = [chat_dropped_after_first_word]
        router, _ = router_for(server)
        chunks = list(router.stream("main_chat", MESSAGES))
    assert len(server.requests) == 1 and isinstance(chunks[-1], ErrorChunk)


def test_router_sends_the_sanitised_request_and_reports_counts_only():
    reports = []
    messages = [{"role": "user", "content": "My client jean.dupont@example.fr (IBAN DE89 3704 0044 0532 0130 00) asks about Article 6(1)(f)."}]
    with LlmTestServer() as server:
        server.scripts = [responses_script("none")]
        router, _ = router_for(server, provider="openai")
        list(router.stream("main_chat", messages, on_egress=reports.append))
    sent = json.dumps(server.requests[0]["body"])
    assert "jean.dupont@example.fr" not in sent and "DE89" not in sent and "Article 6(1)(f)" in sent
    assert reports[0]["pii_counts"] == {"EMAIL": 1, "IBAN": 1} and reports[0]["mode"] == "enforce"
    assert "jean" not in json.dumps(reports)


def test_router_picks_models_per_task():
    settings = load_settings(llm_provider="openai-compatible", llm_base_url="http://127.0.0.1:9/v1",
                             llm_model="main-m", llm_model_extraction="extract-m")
    router = LlmRouter(settings)
    assert router.model_for("main_chat") == "main-m" and router.model_for("extraction") == "extract-m"
    assert router.model_for("critique") == "main-m"
    with pytest.raises(ValueError):
        router.model_for("poetry")
