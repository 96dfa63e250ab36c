"""Imports of the heavier pages done once per server process, in the background, as soon as the app serves its
first session: the Graph Explorer's pyvis imports IPython and networkx (~0.6 s on two cores), which the first
visitor of that page would otherwise wait for before the graph is drawn (issue 24's first paint)."""

from __future__ import annotations

import importlib
import logging
import threading

import streamlit as st

HEAVY_MODULES = ("regintel.ui.graph_view",)
log = logging.getLogger(__name__)


def import_heavy_modules(modules: tuple[str, ...] = HEAVY_MODULES) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # the page itself will import it again and show the error there
            log.warning("warm-up import of %s failed: %s", name, exc)


@st.cache_resource(show_spinner=False)
def warm_up_page_imports() -> threading.Thread:
    """Start the background imports (once per process; the import lock makes a page that needs a module first
    simply wait for it)."""
    thread = threading.Thread(target=import_heavy_modules, name="regintel-warm-imports", daemon=True)
    thread.start()
    return thread
