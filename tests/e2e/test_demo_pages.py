"""Every page from a fresh data directory after ``python -m regintel demo``, in headless Chromium: the main
elements render with the demo's real data (screenshots in tests/artifacts/ for the README), signed in as the
demo tenant's admin (a local account given to the demo's user ``ana``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import func, select

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.store import Database
from regintel.store.models import Message, RagTrace, Tenant
from tests.e2e.conftest import PASSWORD, StreamlitApp, app_env, screenshot, sign_in


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory):
    settings = load_settings(data_dir=tmp_path_factory.mktemp("demo") / "data",
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    env = app_env(settings, laptop_mode=False)
    done = subprocess.run([sys.executable, "-m", "regintel", "demo"], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "OUT_OF_SCOPE" in done.stdout and "[cache]" in done.stdout
    assert "extraction: DORA Article 3 — Definitions -> committed" in done.stdout, done.stdout[-1000:]
    added = subprocess.run([sys.executable, "-m", "regintel", "users", "add", "ana", "--tenant", "demo", "--role", "admin",
                            "--password-stdin"], cwd=REPO_ROOT, env=env, input=PASSWORD + "\n", capture_output=True,
                           text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    app = StreamlitApp(settings.data_dir, env)
    yield app, settings
    app.stop()
    EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


def test_home_page_shows_index_graph_and_llm_mode(demo_app, page):
    app, _ = demo_app
    sign_in(page, app.url, "ana")
    page.get_by_text("Index ready").wait_for(timeout=60_000)
    page.get_by_text("Offline mode").first.wait_for()
    page.get_by_text("Rules graph (falkordb-embedded)").wait_for(timeout=30_000)
    screenshot(page, "home")


def test_chat_page_restores_a_demo_conversation(demo_app, page):
    app, _ = demo_app
    sign_in(page, f"{app.url}/Chat", "ana")
    page.get_by_role("button", name="When must a personal data breach be notified").first.click()
    page.get_by_text("are you sure?").wait_for(timeout=60_000)
    assert page.get_by_role("button", name="[1] GDPR", exact=False).count() >= 1


def test_dashboard_shows_the_demo_figures(demo_app, page):
    app, settings = demo_app
    db = Database(settings.sql_url)
    with db.session() as session:
        demo_id = session.scalar(select(Tenant.id).where(Tenant.name == "demo"))
    sign_in(page, f"{app.url}/Feedback_Dashboard", "ana")
    metric = page.get_by_test_id("stMetric").filter(has_text="Questions").first
    metric.wait_for(timeout=60_000)
    assert metric.get_by_test_id("stMetricValue").inner_text().strip() == "7"  # the demo tenant's 7 turns
    page.get_by_test_id("stVegaLiteChart").nth(3).wait_for(timeout=30_000)
    assert page.get_by_test_id("stVegaLiteChart").count() >= 4
    page.get_by_text("Negative feedback").wait_for()
    page.get_by_test_id("stDataFrame").first.wait_for()  # the thumbs-down table (a canvas grid)
    assert page.get_by_text("No thumbs down in this period.").count() == 0
    page.get_by_test_id("stDownloadButton").wait_for()
    screenshot(page, "dashboard")
    assert demo_id


def test_trace_page_shows_every_step_of_a_turn(demo_app, page):
    app, settings = demo_app
    db = Database(settings.sql_url)
    with db.session() as session:
        trace_id = session.scalar(select(RagTrace.id).where(RagTrace.question == "What must financial entities report about major ICT-related incidents?"))
        assert session.scalar(select(func.count()).select_from(Message)) > 0
    sign_in(page, f"{app.url}/Traces?trace={trace_id}", "ana")
    page.get_by_text("Retrieved passages").wait_for(timeout=60_000)
    page.get_by_text("Guardrail", exact=True).wait_for()
    table = page.get_by_test_id("stDataFrame").first
    table.wait_for()
    assert page.get_by_text("ICT-related incidents", exact=False).count() >= 1
    screenshot(page, "traces")


def test_graph_explorer_has_the_seeded_graph_and_captured_concepts(demo_app, page):
    app, _ = demo_app
    sign_in(page, f"{app.url}/Graph_Explorer", "ana")
    page.get_by_test_id("stIFrame").first.wait_for(timeout=60_000)
    screenshot(page, "graph_explorer_demo")


def test_extraction_review_shows_the_committed_demo_extraction(demo_app, page):
    app, _ = demo_app
    sign_in(page, f"{app.url}/Extraction_Review", "ana")
    page.get_by_role("button", name="DORA Article 3 — Definitions · committed").click()
    page.get_by_text("Committed:").first.wait_for(timeout=60_000)
    assert page.get_by_text("Digital operational resilience (DORA)").first.is_visible()
    page.get_by_role("tab", name="Revisions").click()
    page.get_by_text("title 'Digital operational resilience' → 'Digital operational resilience (DORA)'").first.wait_for(timeout=30_000)
    screenshot(page, "extraction_review_demo")
    assert page.dialogs == []  # type: ignore[attr-defined]
