"""What a server process loads in the background at start: the heavier pages' imports (issue 24's first paint) and,
unless REGINTEL_WARM_UP=false, what the first question needs (the detector, the index and its ranker, the engine)."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from regintel.config import REPO_ROOT, load_settings
from tests.conftest import engine_world


@pytest.mark.slow  # imports the graph explorer's modules in a fresh interpreter: ~1.5 s
def test_the_warm_up_imports_the_graph_explorers_modules_in_a_background_thread(tmp_path):
    code = ("import sys; from regintel.ui.warmup import warm_up, HEAVY_MODULES; "
            "from regintel.runtime import RegIntel; from regintel.config import load_settings; "
            "assert not any(m in sys.modules for m in HEAVY_MODULES + ('pyvis',)); "
            f"runtime = RegIntel(load_settings(data_dir={str(tmp_path)!r})); "
            "t = warm_up(runtime); t.join(60); "
            "assert t.name == 'regintel-warm-up' and t.daemon; "
            "assert all(m in sys.modules for m in HEAVY_MODULES + ('pyvis',)); "
            "assert not runtime.embedder.loaded, 'REGINTEL_WARM_UP=false: the runtime loads on first use'; "
            "assert warm_up(runtime) is t, 'once per process'")
    env = {"PATH": "/usr/bin:/bin", "REGINTEL_WARM_UP": "false", "ANONYMIZED_TELEMETRY": "False"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_background_warm_up_runs_the_front_ends_step_then_the_runtimes_only_when_the_setting_says_so(tmp_path,
                                                                                                     monkeypatch):
    from regintel.runtime import RegIntel

    for enabled in (True, False):
        runtime = RegIntel(load_settings(data_dir=tmp_path / str(enabled), warm_up=enabled), graph=None)
        calls = []
        monkeypatch.setattr(runtime, "warm_up", lambda: calls.append("runtime") or [])
        thread = runtime.warm_up_in_background(before=lambda: calls.append("front end"))
        thread.join(10)
        assert thread.name == "regintel-warm-up" and thread.daemon and not thread.is_alive()
        assert calls == (["front end", "runtime"] if enabled else ["front end"])


@pytest.mark.slow  # the demo corpus indexed (shipped seed) and the spaCy pipeline of the detector loaded
def test_the_runtimes_warm_up_loads_what_a_first_question_needs_and_leaves_a_missing_index_to_first_use(tmp_path):
    from regintel.egress.detector import _cached
    from regintel.runtime import RegIntel

    with engine_world(tmp_path / "data", "warm_up") as world:
        fresh = RegIntel(world["settings"], graph=None)  # a new process's runtime: nothing loaded yet
        assert fresh._chat is None and not fresh.embedder.loaded
        assert fresh.warm_up() == ["personal-data detector", "embedding model", "chat engine"]
        assert _cached.cache_info().currsize == 1 and fresh.embedder.loaded
        assert fresh._chat is not None and fresh._chat.guardrails._model is not None
        answer = fresh.chat.ask(*_someone(fresh), "What is personal data?")
        assert answer.cited  # the warmed-up engine answers

    empty = RegIntel(load_settings(data_dir=tmp_path / "empty", embedding_seed_cache=REPO_ROOT / "data" / "embeddings"),
                     graph=None)
    assert empty.warm_up() == ["personal-data detector", "embedding model"]  # no index yet: no engine, no error


def _someone(app) -> tuple[int, int, int]:
    tenant = app.tenants.ensure_tenant("warm")
    user = app.tenants.ensure_user(tenant.id, "analyst")
    return tenant.id, user.id, app.conversations.create_conversation(tenant.id, user.id).id
