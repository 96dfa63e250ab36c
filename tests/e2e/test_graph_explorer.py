"""Graph Explorer in a real browser: nodes drawn on the canvas, search, a concept written by another process
appearing live, and hostile labels rendered as text."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.runtime import RegIntel
from tests.e2e.conftest import StreamlitApp, app_env, screenshot

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
