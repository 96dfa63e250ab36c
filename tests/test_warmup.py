"""The heavier pages' imports are warmed up in the background once per process (issue 24's first paint)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from regintel.config import REPO_ROOT


@pytest.mark.slow  # imports the graph explorer's modules in a fresh interpreter: ~1.5 s
def test_the_warm_up_imports_the_graph_explorers_modules_in_a_background_thread():
    code = ("import sys; from regintel.ui.warmup import warm_up_page_imports, HEAVY_MODULES; "
            "assert not any(m in sys.modules for m in HEAVY_MODULES + ('pyvis',)); "
            "t = warm_up_page_imports(); t.join(60); "
            "assert t.name == 'regintel-warm-imports' and t.daemon; "
            "assert all(m in sys.modules for m in HEAVY_MODULES + ('pyvis',)); "
            "assert warm_up_page_imports() is t, 'once per process'")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
