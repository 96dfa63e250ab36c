"""The one module that owns Streamlit resources: one cached :class:`RegIntel` runtime per process.

Pages call ``state.app()`` and use its public surface (``chat``, ``conversations``, ``tenants``, ``extraction``,
``ingest()``, ``status()``); the runtime opens its stores lazily and is shared by every session (thread safe).
"""

from __future__ import annotations

import sys

import streamlit as st

from regintel.runtime import RegIntel


LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def listens_on_loopback() -> bool:
    """Whether this Streamlit server listens on a loopback address only (laptop mode needs it)."""
    return str(st.get_option("server.address") or "") in LOOPBACK


@st.cache_resource(show_spinner="Starting RegIntel…")
def app() -> RegIntel:
    """The process's runtime; a bad setting raises SettingsError here (the page shows it and stops)."""
    runtime = RegIntel()
    runtime.db  # fail early on an unreachable SQL store, with the setting named
    if runtime.settings.laptop_mode and listens_on_loopback():
        runtime.accounts.laptop_identity()  # the local tenant and admin are made at start, never by a page view
    elif runtime.settings.local_accounts:
        token = runtime.accounts.setup_token()  # None once an admin exists
        if token:
            print(f"RegIntel: no admin yet. One-time setup token for the sign-in page: {token}", file=sys.stderr, flush=True)
    return runtime
