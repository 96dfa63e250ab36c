"""The one module that owns Streamlit resources: one cached :class:`RegIntel` runtime per process.

Pages call ``state.app()`` and use its public surface (``chat``, ``conversations``, ``tenants``, ``extraction``,
``ingest()``, ``status()``); the runtime opens its stores lazily and is shared by every session (thread safe).
"""

from __future__ import annotations

import sys

import streamlit as st

from regintel.runtime import RegIntel


@st.cache_resource(show_spinner="Starting RegIntel…")
def app() -> RegIntel:
    """The process's runtime; a bad setting raises SettingsError here (the page shows it and stops)."""
    runtime = RegIntel()
    runtime.db  # fail early on an unreachable SQL store, with the setting named
    if runtime.settings.local_accounts and not runtime.settings.laptop_mode:
        token = runtime.accounts.setup_token()  # None once an admin exists
        if token:
            print(f"RegIntel: no admin yet. One-time setup token for the sign-in page: {token}", file=sys.stderr, flush=True)
    return runtime
