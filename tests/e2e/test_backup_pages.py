"""Backup and restore as an admin meets it (issue 22): the demo's data directory is backed up while its app runs,
restored into an empty deployment with the CLI, and a second app on the restored directory shows the same
conversations, dashboard figures, extraction runs and graph overview as the original, signed in as the same
user (the store-level comparison of rows and graph is tests/test_backup.py)."""

from __future__ import annotations

import re
import subprocess
import sys

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from tests.e2e.conftest import StreamlitApp, app_env, sign_in
from tests.e2e.test_demo_pages import drawn_nodes, network_frame


def regintel_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "regintel", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def what_the_pages_show(browser, url: str) -> dict[str, object]:
    """What a signed-in admin of the demo tenant reads: the conversation list and the first conversation's
    answer, the dashboard's figures, the extraction runs and the graph overview's labelled nodes."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        sign_in(page, f"{url}/Chat", "ana")
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_role("button", name="When must a personal data breach be notified").first.wait_for(timeout=60_000)
        conversations = [b.inner_text().strip() for b in sidebar.get_by_role("button").all()]
        sidebar.get_by_role("button", name="When must a personal data breach be notified").first.click()
        page.get_by_text("are you sure?").wait_for(timeout=60_000)
        messages = page.get_by_test_id("stChatMessage")
        messages.nth(3).get_by_text("thumb_down").wait_for(timeout=30_000)  # the last turn drawn to its feedback
        answers = [m.inner_text() for m in messages.all()]

        page.goto(f"{url}/Feedback_Dashboard")
        page.get_by_test_id("stMetric").filter(has_text="Questions").first.wait_for(timeout=60_000)
        page.get_by_test_id("stVegaLiteChart").first.wait_for(timeout=30_000)
        figures = [m.inner_text() for m in page.get_by_test_id("stMetric").all()]

        page.goto(f"{url}/Extraction_Review")
        page.get_by_role("button", name="DORA Article 3 — Definitions · committed").wait_for(timeout=60_000)
        runs = [b.inner_text().strip() for b in page.get_by_test_id("stSidebar").get_by_role("button").all()]

        page.goto(f"{url}/Graph_Explorer")
        frame = network_frame(page)
        assert frame is not None, "the graph was not drawn"
        overview = sorted((n["id"], n["label"]) for n in drawn_nodes(frame))
        return {"conversations": conversations, "answers": answers, "figures": figures, "runs": runs,
                "overview": overview}
    finally:
        context.close()


def test_a_backup_of_the_demo_restored_into_an_empty_deployment_shows_the_same_pages(demo_app, browser, tmp_path):
    app, settings = demo_app
    folder = tmp_path / "backup"
    backed_up = regintel_cli(app_env(settings, laptop_mode=False), "backup", str(folder))
    assert backed_up.returncode == 0, backed_up.stdout[-1500:] + backed_up.stderr[-1500:]
    original = what_the_pages_show(browser, app.url)

    restored_settings = load_settings(data_dir=tmp_path / "restored" / "data",
                                      embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    env = app_env(restored_settings, laptop_mode=False)
    restored_run = regintel_cli(env, "restore", str(folder))
    assert restored_run.returncode == 0, restored_run.stdout[-1500:] + restored_run.stderr[-1500:]
    restored_app = StreamlitApp(restored_settings.data_dir, env)
    try:
        restored = what_the_pages_show(browser, restored_app.url)
    finally:
        restored_app.stop()
        EmbeddedFalkorDB(restored_settings.graph_dir).shutdown(save=False)

    assert len(original["conversations"]) > 3 and original["runs"] and len(original["overview"]) >= 10, original
    assert len(original["answers"]) == 4 and "[1] GDPR · Art. 33" in original["answers"][1], original["answers"]
    for part in ("conversations", "answers", "figures", "runs", "overview"):
        assert restored[part] == original[part], part
