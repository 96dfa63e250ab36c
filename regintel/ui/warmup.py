"""What a server process loads in the background as soon as the app serves its first session, so that nobody waits
for it: the Graph Explorer's pyvis imports IPython and networkx (~0.6 s on two cores, issue 24's first paint), and,
unless ``REGINTEL_WARM_UP=false``, what the first question needs (:meth:`regintel.runtime.RegIntel.warm_up`: the
personal-data detector, the index and its ranker, the chat engine; 15 to 40 s on two cores)."""

from __future__ import annotations

import importlib
import logging
import threading

import streamlit as st

from regintel.runtime import RegIntel

HEAVY_MODULES = ("regintel.ui.graph_view",)
log = logging.getLogger(__name__)


def import_heavy_modules(modules: tuple[str, ...] = HEAVY_MODULES) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # the page itself will import it again and show the error there
            log.warning("warm-up import of %s failed: %s", name, exc)


def _warm_up(runtime: RegIntel) -> None:
    import_heavy_modules()
    if runtime.settings.warm_up:
        log.info("warm-up: %s loaded", ", ".join(runtime.warm_up()) or "nothing")


@st.cache_resource(show_spinner=False)
def warm_up(_runtime: RegIntel) -> threading.Thread:
    """Start the background loading (once per process; the runtime's lock and the import lock make a page or a
    question that needs a part first simply wait for it)."""
    thread = threading.Thread(target=_warm_up, args=(_runtime,), name="regintel-warm-up", daemon=True)
    thread.start()
    return thread
