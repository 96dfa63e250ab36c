"""The sign-in page, the only page a signed-out visitor gets: single sign-on buttons, the local-account form,
and on a fresh install the one-time setup of the first admin (the setup token is printed in the server log)."""

from __future__ import annotations

import streamlit as st

from regintel.errors import RegIntelError
from regintel.ui import auth, state


def _single_sign_on(providers: list[str]) -> None:
    st.subheader("Single sign-on")
    if not providers:
        if st.button("Sign in with single sign-on", type="primary", icon=":material/login:"):
            st.login()
    for name in providers:
        if st.button(f"Sign in with {name}", key=f"sso-{name}", type="primary", icon=":material/login:"):
            st.login(name)


def _local_form() -> None:
    app = state.app()
    st.subheader("Local account")
    with st.form("signin"):
        login = st.text_input("Login", max_chars=120, autocomplete="username")
        password = st.text_input("Password", type="password", max_chars=200, autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        try:
            auth.sign_in_local(login, password)
        except RegIntelError as exc:
            st.error(str(exc))
        else:
            st.rerun()


def _first_admin(token_expected: bool) -> None:
    if not token_expected:
        return
    with st.expander("First start: create the first admin", expanded=True):
        st.caption("No admin exists yet. Enter the one-time setup token printed in the server log at start, or "
                   "create the admin with `python -m regintel users add LOGIN --tenant NAME --role admin`.")
        with st.form("first-admin"):
            token = st.text_input("Setup token", type="password", max_chars=200)
            tenant = st.text_input("Tenant", max_chars=120)
            login = st.text_input("Admin login", max_chars=120)
            password = st.text_input("Password (at least 12 characters)", type="password", max_chars=200)
            submitted = st.form_submit_button("Create the admin and sign in")
        if submitted:
            try:
                auth.remember(state.app().accounts.create_first_admin(token, tenant, login, password))
            except RegIntelError as exc:
                st.error(str(exc))
            else:
                st.rerun()


def sign_in_page() -> None:
    st.title("Sign in to RegIntel Copilot")
    app = state.app()
    auth.sync_cookies()  # a sign-out or an ended session clears the browser's sign-in cookie
    problem = st.session_state.pop("regintel_signin_error", "")
    if problem:
        st.error(problem)
    if auth.laptop_mode_refused():
        st.warning("REGINTEL_LAPTOP_MODE is set, but this server listens beyond the loopback address, so sign-in "
                   "is required (laptop mode needs `server.address = \"127.0.0.1\"`).")
    providers = auth.sso_providers()
    if providers is not None and auth.signed_in_to_provider():
        st.caption("You are signed in to the identity provider, but RegIntel cannot use that identity.")
        if st.button("Sign out of single sign-on", icon=":material/logout:"):
            st.session_state.pop("regintel_sso_refused", None)
            st.logout()
    elif providers is not None:
        auth.ask_for_page_after_sso(st.session_state.get("regintel_asked_page", ""))
        _single_sign_on(providers)
    if app.settings.local_accounts:
        _local_form()
        _first_admin(app.accounts.setup_token() is not None)
    elif providers is None:
        st.error("No way to sign in is configured: set up single sign-on (`[auth]` in .streamlit/secrets.toml) or "
                 "turn REGINTEL_LOCAL_ACCOUNTS on.")
