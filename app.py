"""RegIntel Copilot entry point: sign-in gate and role-based navigation.

A signed-out visitor gets the sign-in page only. A signed-in user gets ``st.navigation`` with the pages of their
role (``regintel/ui/navigation.py``), Home first; tenant and user come from the identity, never from the URL.
"""

from __future__ import annotations

import streamlit as st

from regintel.errors import RegIntelError
from regintel.ui import auth, state
from regintel.ui.jobs_view import supervised_worker
from regintel.ui.navigation import page_urls, pages_for
from regintel.ui.signin import sign_in_page
from regintel.ui.untrusted import markdown_label
from regintel.ui.warmup import warm_up

st.set_page_config(page_title="RegIntel Copilot", page_icon="⚖️", layout="wide")

try:
    runtime = state.app()
    supervised_worker()  # REGINTEL_WORKER=embedded: this data directory's worker, one for all app processes
    warm_up(runtime)  # what the first question and the Graph Explorer need, in the background, before anyone asks
    identity = auth.current()
except RegIntelError as exc:
    st.error(str(exc))
    st.stop()

if identity is None:  # every page's address leads to the sign-in page, which then opens the page asked for
    gate = [st.Page(sign_in_page, title="Sign in", icon=":material/login:", url_path=url or "signin", default=not url,
                    visibility="visible" if not url else "hidden") for url in page_urls()]
    asked = st.navigation(gate, position="hidden")
    st.session_state["regintel_asked_page"] = asked.url_path  # single sign-on returns here afterwards
    asked.run()
    st.stop()

auth.sync_cookies()  # first, so the browser keeps a fresh local sign-in (reloads, new tabs) before anything shows
with st.sidebar:
    st.caption(f"Signed in as **{markdown_label(identity.user_name)}** ({identity.role}) · tenant "
               f"**{markdown_label(identity.tenant_name)}**")
    if identity.source != "laptop" and st.button("Sign out", icon=":material/logout:"):
        auth.sign_out()
        st.rerun()

pages = {url: st.Page(path, title=title, icon=icon, url_path=url or None, default=not url)
         for path, title, icon, url in pages_for(identity.role)}
shown = st.navigation(list(pages.values()))
asked = auth.page_asked_before_sso() if identity.source == "oidc" else None
if asked and not shown.url_path and asked in pages:  # Streamlit's sign-on callback lands on Home: go on
    st.switch_page(pages[asked])
shown.run()
