"""Extraction Review in a real browser: paste a source, run the extraction, send a feedback command, approve, and
find the committed concept in the Graph Explorer."""

from __future__ import annotations

import pytest

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from tests.e2e.conftest import StreamlitApp, app_env, screenshot
from tests.e2e.test_graph_explorer import vis_node_ids, wait_for

SOURCE = "\n\n".join([
    "For the purposes of this Regulation:",
    "(1) ‘personal data’ means any information relating to an identified or identifiable natural person;",
    "(2) ‘genetic data’ means personal data relating to the inherited or acquired genetic characteristics of a natural person;",
    "(3) ‘filing system’ means any structured set of personal data which are accessible according to specific criteria;",
])


@pytest.fixture
def review_app(settings):
    app = StreamlitApp(settings.data_dir, app_env(settings))
    yield app, settings
    app.stop()
    EmbeddedFalkorDB(settings.data_dir / "graph").shutdown(save=False)


def test_extract_feedback_approve_and_find_the_concept_in_the_explorer(review_app, page):
    app, settings = review_app
    page.goto(f"{app.url}/Extraction_Review")
    page.get_by_text("Start an extraction").wait_for(timeout=60_000)
    page.get_by_role("tab", name="Paste text").click()
    page.get_by_label("Title", exact=True).fill("Pasted GDPR definitions")
    page.get_by_label("Text (paragraphs become quotes)").fill(SOURCE)
    page.get_by_test_id("stFormSubmitButton").get_by_role("button", name="Create content and extract").click()

    page.get_by_role("tab", name="New concepts (3)").wait_for(timeout=90_000)
    # (the tab's label can be drawn before its content: under load the first check came too soon, CI session 85)
    page.get_by_text("Genetic data").first.wait_for(state="visible", timeout=30_000)
    screenshot(page, "extraction_review")

    feedback = page.get_by_label("Feedback")
    feedback.fill("drop 3")
    page.get_by_role("button", name="Send feedback").click()
    page.get_by_role("tab", name="New concepts (2)").wait_for(timeout=60_000)
    page.get_by_text("Dropped concept 3 ('Filing system').").first.wait_for(state="visible", timeout=30_000)

    page.get_by_role("button", name="Approve and commit").click()
    page.get_by_text("Committed: 2 concepts").wait_for(timeout=60_000)
    page.get_by_text("Genetic data in the Graph Explorer").click()
    page.get_by_text("Graph Explorer").first.wait_for(timeout=60_000)
    key = "REGULATORY|GENETIC_DATA|EU"
    assert wait_for(lambda: key in vis_node_ids(page), 60), vis_node_ids(page)
    assert "REGULATORY|PERSONAL_DATA|EU" in vis_node_ids(page)  # its SPECIFIC_OF neighbour
    assert page.dialogs == []  # type: ignore[attr-defined]

    graph = FalkorDBStore(settings.graph_name, server=EmbeddedFalkorDB(settings.data_dir / "graph"))
    rows = graph.query("MATCH (a:Concept {key: $key})-[e]->(b:Concept) RETURN type(e) AS t, b.key AS b", {"key": key})
    assert {"t": "SPECIFIC_OF", "b": "REGULATORY|PERSONAL_DATA|EU"} in rows
    assert graph.query("MATCH (c:Concept {pref_label: 'Filing system'}) RETURN count(c) AS n")[0]["n"] == 0
