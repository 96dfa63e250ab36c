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


@st.cache_resource(show_spinner=False)
def warm_up(_runtime: RegIntel) -> threading.Thread:
    """Start the background loading once per process (:meth:`RegIntel.warm_up_in_background`, after the heavy page
    imports; the import lock makes a page that needs one first simply wait for it)."""
    return _runtime.warm_up_in_background(before=import_heavy_modules)
