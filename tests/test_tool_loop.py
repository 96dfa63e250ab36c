"""The tool-call loop through the chat engine (issue 20 item 2), for both OpenAI wire formats (Chat Completions:
provider ``openai-compatible``; Responses: provider ``openai``) against the local test server: a model that answers
and calls in one go, one whose first reply is only a tool call, one that calls two tools in parallel, one that
never calls, and one that never stops calling. A tool-only reply gets its results sent back in the provider's own
format and the answer that follows is shown; no turn ends with an empty answer."""

from __future__ import annotations

import json

import pytest

from regintel.chat.engine import NO_ANSWER_AFTER_TOOLS
from regintel.config import load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.llm.openai_responses import OpenAIResponsesProvider
from regintel.llm.router import LlmRouter
from regintel.runtime import RegIntel
from tests.conftest import make_small_corpus
from tests.llm_server import LlmTestServer, ResponsesStream, chat_reply

pytestmark = pytest.mark.slow  # indexes a corpus file and starts a graph server

QUESTION = "Faut-il utiliser le guichet unique OSS pour les ventes à distance intracommunautaires de biens ?"
ANSWER = "Le guichet unique OSS est un régime optionnel de déclaration de la TVA [1]."
PROVIDERS = ["openai-compatible", "openai"]


def concepts(*kinds: str) -> str:
    return json.dumps({"concepts": [{"domain": "TAX", "kind": kind, "jurisdiction": "EU",
                                     "prefLabel": kind.replace("_", " ").capitalize()} for kind in kinds]})


def reply(provider: str, text: str = "", calls: tuple[tuple[str, str], ...] = ()):
    """One scripted model reply: ``text`` then the tool calls ((call id, arguments), ...) in the provider's format."""
    def script(handler) -> None:
        if provider == "openai":
            stream = ResponsesStream(handler)
            stream.created()
            if text:
                stream.message_item()
                stream.text(text)
            for position, (call_id, arguments) in enumerate(calls, start=1):
                stream.tool("capture_concepts", arguments, pieces=2, item_id=call_id, output_index=position)
            stream.completed()
            return
        chat_reply(handler, text, calls)
    return script


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("tool-loop")
    corpus = make_small_corpus(root / "corpus", {"be/be-guidance-oss-fr.md": {}})
    settings = load_settings(data_dir=root / "data", corpus_dir=corpus, response_cache_ttl_seconds=0,
                             chat_rate_limit_per_hour=0)
    server = EmbeddedFalkorDB(settings.graph_dir)
    graph = FalkorDBStore("tool-loop", server=server)
    graph.ensure_schema()
    app = RegIntel(settings, graph=graph)
    app.ingest(seed_graph=False)
    yield app, graph
    app.close()
    server.shutdown(save=False)


def ask(world, provider: str, scripts: list, **overrides):
    """One question through the engine with the test server playing ``scripts``: (response, the requests)."""
    app, graph = world
    with LlmTestServer() as llm:
        llm.scripts = scripts
        settings = load_settings(data_dir=app.settings.data_dir, corpus_dir=app.settings.corpus_dir,
                                 response_cache_ttl_seconds=0, chat_rate_limit_per_hour=0, llm_provider=provider,
                                 llm_base_url=llm.base_url, llm_api_key="sk-test", llm_max_retries=0, **overrides)
        router = LlmRouter(settings)
        if provider == "openai":  # the Responses provider pointed at the local server
            router.provider = OpenAIResponsesProvider("test-model", "sk-test", base_url=llm.base_url)
            router.egress.default_allowed.add("127.0.0.1")
        engine = RegIntel(settings, db=app.db, index=app.index, graph=graph, router=router).chat
        tenant = engine.repo.ensure_tenant("tools").id
        user = engine.repo.ensure_user(tenant, "ana").id
        response = engine.ask(tenant, user, engine.repo.create_conversation(tenant, user).id, QUESTION)
    return response, [r["body"] for r in llm.requests]


def sent_back(provider: str, body: dict) -> tuple[list[str], list[tuple[str, dict]]]:
    """The tool calls a request re-sends and their results, read from its wire format: (call ids, [(id, result)])."""
    if provider == "openai":
        items = body["input"]
        calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
        results = [(i["call_id"], json.loads(i["output"])) for i in items if i.get("type") == "function_call_output"]
        return calls, results
    messages = body["messages"]
    calls = [c["id"] for m in messages if m.get("tool_calls") for c in m["tool_calls"]]
    results = [(m["tool_call_id"], json.loads(m["content"])) for m in messages if m["role"] == "tool"]
    return calls, results


def captured_keys(response) -> set[str]:
    return {n["key"] for n in response.referenced_nodes}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_with_its_tool_call_in_one_reply_takes_one_request(world, provider):
    response, requests = ask(world, provider, [reply(provider, ANSWER, (("call_a", concepts("ONE_GO")),))])
    assert len(requests) == 1 and response.answer == ANSWER and response.status == "complete"
    assert captured_keys(response) == {"TAX|ONE_GO|EU"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tool_only_first_reply_gets_its_result_back_and_the_answer_is_shown(world, provider):
    response, requests = ask(world, provider, [reply(provider, "", (("call_b", concepts("TOOL_FIRST")),)),
                                               reply(provider, ANSWER)])
    assert len(requests) == 2 and response.answer == ANSWER and response.response_mode != "ABSTAIN"
    calls, results = sent_back(provider, requests[1])
    expected_id = "call_b" if provider == "openai-compatible" else "call_call_b"
    assert calls == [expected_id] and results == [(expected_id, {"captured": ["Tool first"], "skipped": [],
                                                                 "queued_for_later": False})]
    assert captured_keys(response) == {"TAX|TOOL_FIRST|EU"}
    assert requests[1].get("tools"), "the follow-up still offers the tool"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_parallel_tool_calls_each_get_a_result(world, provider):
    response, requests = ask(world, provider, [
        reply(provider, "", (("call_c", concepts("PARALLEL_ONE")), ("call_d", concepts("PARALLEL_TWO")))),
        reply(provider, ANSWER)])
    assert len(requests) == 2 and response.answer == ANSWER
    calls, results = sent_back(provider, requests[1])
    assert len(calls) == 2 and [call for call, _ in results] == calls
    assert captured_keys(response) == {"TAX|PARALLEL_ONE|EU", "TAX|PARALLEL_TWO|EU"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_model_that_never_calls_the_tool_answers_in_one_request(world, provider):
    response, requests = ask(world, provider, [reply(provider, ANSWER)])
    assert len(requests) == 1 and response.answer == ANSWER and response.referenced_nodes == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_model_that_only_ever_calls_tools_stops_after_the_rounds_with_a_sentence(world, provider):
    response, requests = ask(world, provider, [reply(provider, "", (("call_e", concepts("LOOPING")),))],
                             llm_tool_rounds=2)
    assert len(requests) == 3, "the first reply and two rounds of results"
    assert response.answer.strip() and NO_ANSWER_AFTER_TOOLS in response.answer and response.status == "failed"
    assert captured_keys(response) <= {"TAX|LOOPING|EU"}
