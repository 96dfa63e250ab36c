"""Graph Explorer in a real browser: nodes drawn on the canvas, search, a concept written by another process
appearing live, and hostile labels rendered as text."""

from __future__ import annotations

import subprocess
import sys
import time
from urllib.parse import quote, unquote

import pytest

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.runtime import RegIntel
from tests.e2e.conftest import StreamlitApp, app_env, pick_option, screenshot, wait_until_drawn

HOSTILE = ['<img src=x onerror=alert(1)>', '"; MATCH (n) DETACH DELETE n //']


def vis_node_ids(page) -> list[str]:
    """Node ids of the vis-network drawn in the page's iframe ([] until it is there)."""
    for frame in page.frames:
        try:
            ids = frame.evaluate("() => (typeof network !== 'undefined' && network.body) ? network.body.data.nodes.getIds() : null")
        except Exception:
            continue
        if ids is not None:
            return ids
    return []


def wait_for(predicate, timeout: float = 30.0, step: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


@pytest.fixture
def graph_app(settings, embedder):
    server = EmbeddedFalkorDB(settings.data_dir / "graph", settings.graph_snapshot_seconds)
    store = FalkorDBStore(settings.graph_name, server=server)
    RegIntel(settings, graph=store, embedder=embedder).ingest()
    resolver = CanonicalConceptResolver(store)
    resolver.resolve_or_create(CanonicalConceptInput("TAX", "VAT", "BE", "Belgian VAT", ["TVA belge"]))
    for text in HOSTILE:
        resolver.resolve_or_create(CanonicalConceptInput("TAX", "HOSTILE_LABEL", "EU", text, [text]))
    app = StreamlitApp(settings.data_dir, app_env(settings))
    yield app, store, settings
    app.stop()
    server.shutdown(save=False)


def test_explorer_draws_searches_and_updates_live(graph_app, page):
    app, store, settings = graph_app
    page.goto(f"{app.url}/Graph_Explorer")
    page.get_by_text("Graph Explorer").first.wait_for(timeout=60_000)
    ids = wait_for(lambda: vis_node_ids(page), 60)
    assert "TAX|VAT|BE" in ids and "be-guidance-oss-fr" in ids, ids
    assert page.locator("iframe").first.is_visible()

    search = page.get_by_label("Search")
    search.fill("tva belge")
    search.press("Enter")
    assert wait_for(lambda: vis_node_ids(page) == ["TAX|VAT|BE"], 30), vis_node_ids(page)
    search.fill("")
    search.press("Enter")
    assert wait_for(lambda: len(vis_node_ids(page)) > 3, 30)

    # another process writes a concept; the page shows it without a reload
    script = (
        "import sys; sys.path.insert(0, '.')\n"
        "from regintel.graph.falkordb_server import EmbeddedFalkorDB\n"
        "from regintel.graph.falkordb_store import FalkorDBStore\n"
        "from regintel.graph.resolver import CanonicalConceptResolver, CanonicalConceptInput\n"
        f"store = FalkorDBStore({settings.graph_name!r}, server=EmbeddedFalkorDB({str(settings.data_dir / 'graph')!r}))\n"
        "CanonicalConceptResolver(store).resolve_or_create(CanonicalConceptInput('OPERATIONAL_RESILIENCE', 'DORA', 'EU', "
        "'Digital Operational Resilience Act', ['DORA']))\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert wait_for(lambda: "OPERATIONAL_RESILIENCE|DORA|EU" in vis_node_ids(page), 30), vis_node_ids(page)
    assert page.get_by_text("live update at").first.is_visible()
    screenshot(page, "graph_explorer")
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_hostile_labels_render_as_text_and_the_graph_stays_intact(graph_app, page):
    app, store, _ = graph_app
    before = store.query("MATCH (n) RETURN count(n) AS n")[0]["n"]
    page.goto(f"{app.url}/Graph_Explorer")
    wait_for(lambda: vis_node_ids(page), 60)
    search = page.get_by_label("Search")
    search.fill("onerror")
    search.press("Enter")
    assert wait_for(lambda: vis_node_ids(page) == ["TAX|HOSTILE_LABEL|EU"], 30)
    labels = [frame.evaluate("() => network.body.data.nodes.get().map(n => n.label)") for frame in page.frames
              if frame.evaluate("() => typeof network !== 'undefined'")][0]
    assert labels == ["<img src=x onerror=alert(1)>"]
    for frame in page.frames:
        assert frame.locator("img[src='x']").count() == 0
    page.wait_for_timeout(1500)
    assert page.dialogs == []  # type: ignore[attr-defined]
    assert store.query("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


LOSER = "TAX|DISTANCE_SELLING_DUPLICATE|EU"
SURVIVOR = "TAX|DISTANCE_SALES|EU"
LINK_TRICKS = ["[Renew your licence](https://evil.example/login)", r"\[click\]\(https://evil.example/x\)",
               "![tracker](https://evil.example/pixel.png)", "<https://evil.example/auto>"]


def test_a_curator_merges_a_duplicate_and_the_next_chat_turn_links_the_survivor(graph_app, page):
    """Issue 24: a curator merges a duplicate concept in the Graph Explorer; the next chat turn that mentions the
    duplicate's name links to the survivor. Issue 21: the node details panel shows link tricks in a concept's
    label, aliases and definition as text (no link to a foreign host, no remote image)."""
    app, store, _ = graph_app
    resolver = CanonicalConceptResolver(store)
    resolver.resolve_or_create(CanonicalConceptInput("TAX", "DISTANCE_SELLING_DUPLICATE", "EU",
                                                     "Ventes à distance intracommunautaires", ["vente à distance"],
                                                     definition=LINK_TRICKS[1]))
    resolver.resolve_or_create(CanonicalConceptInput("TAX", "DISTANCE_SALES", "EU", "Intra-Community distance sales",
                                                     [LINK_TRICKS[0], LINK_TRICKS[2], LINK_TRICKS[3]],
                                                     definition=" ".join(LINK_TRICKS)))
    foreign: list[str] = []
    page.on("request", lambda request: foreign.append(request.url) if "evil.example" in request.url else None)

    page.goto(f"{app.url}/Graph_Explorer?focus={quote(SURVIVOR, safe='')}")
    page.get_by_role("button", name="Ask about this").wait_for(timeout=60_000)
    details = page.get_by_test_id("stMain")
    assert "Renew your licence" in details.inner_text() and "evil.example" in details.inner_text()
    assert page.locator("a[href*='evil.example']").count() == 0 and page.locator("img[src*='evil.example']").count() == 0

    page.goto(f"{app.url}/Graph_Explorer?focus={quote(LOSER, safe='')}")
    page.get_by_text("Curate this concept (curators)").click()
    page.get_by_text("Merge into another concept").click()
    pick_option(page, "Surviving concept", "Intra-Community distance", "Intra-Community distance sales")
    page.get_by_role("textbox", name="Why (kept in the audit trail)").fill("duplicate of the English label")
    page.get_by_role("button", name="Apply").click()
    page.get_by_text("Done: the change is in the graph and in the audit trail.").wait_for(timeout=30_000)
    merged = store.query("MATCH (c:Concept {key: $key}) RETURN c.merged_into AS into, c.status AS status", {"key": LOSER})
    assert merged == [{"into": SURVIVOR, "status": "retired"}]

    page.goto(f"{app.url}/Chat")
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=60_000)
    box.fill("Quelles règles s'appliquent aux ventes à distance intracommunautaires de biens ?")
    box.press("Enter")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    wait_until_drawn(answer)  # concept links come before the feedback
    links = [a.get_attribute("href") or "" for a in answer.locator("a[href*='Graph_Explorer']").all()]
    assert any(unquote(href).endswith(f"focus={SURVIVOR}") for href in links), (links, answer.inner_text()[:1500])
    assert not any(LOSER in unquote(href) for href in links), links
    assert foreign == [] and page.locator("a[href*='evil.example']").count() == 0
    screenshot(page, "graph_merge_then_chat")
