"""Who is signed in to this Streamlit session, from a real sign-in only: a local account (the form), single
sign-on (``st.login`` / ``st.user``, Streamlit's ``[auth]`` secrets), or the explicit loopback laptop mode.

Never from the URL or a widget. The identity is read again from the SQL store on every run, so a role change
applies at once and a disabled user is signed out. Pages call :func:`require` with the action they serve.

A local sign-in survives a reload and a new tab: it opens a sign-in session (regintel/identity/sessions.py)
whose random token the browser keeps in a ``SameSite=Strict`` cookie (regintel/ui/cookies.py); sign-out revokes
it. Single sign-on keeps Streamlit's own signed cookie; the page asked for before it is remembered in a
short-lived cookie holding only that page's address, since Streamlit's callback always returns to the root.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from regintel.errors import AuthError, Forbidden
from regintel.identity.roles import Identity, require_role
from regintel.ui import cookies, state
from regintel.ui.navigation import page_urls

_KEY = "regintel_identity"
_TOKEN = "regintel_session_token"  # this browser session's sign-in token (the cookie's value)
SESSION_COOKIE = "regintel_session"
NEXT_COOKIE = "regintel_next"  # the page asked for before single sign-on: a page address, nothing secret
NEXT_SECONDS = 600


def sso_providers() -> list[str] | None:
    """None when ``[auth]`` is not configured; [] for one unnamed provider; else the named providers."""
    try:
        auth = st.secrets.get("auth")
    except Exception:  # no secrets file, or one that does not parse: single sign-on is simply not configured
        return None
    if not auth:
        return None
    named = [name for name, value in auth.items() if hasattr(value, "items")]
    return named


def laptop_mode() -> bool:
    """Laptop mode: set explicitly AND the server listens on loopback only."""
    return bool(state.app().settings.laptop_mode) and state.listens_on_loopback()


def laptop_mode_refused() -> bool:
    """Laptop mode asked for while the server listens beyond loopback (it is then ignored, and the page says so)."""
    return bool(state.app().settings.laptop_mode) and not laptop_mode()


def _sso_claims() -> dict[str, Any] | None:
    try:
        if sso_providers() is not None and st.user.is_logged_in:
            return dict(st.user.to_dict())
    except (AttributeError, KeyError):
        return None
    return None


def _user_agent() -> str:
    try:
        return str(st.context.headers.get("User-Agent") or "")
    except Exception:  # no request context (AppTest)
        return ""


def _client() -> str | None:
    """The client's address (None on loopback, or where Streamlit does not know it): the per-client throttle."""
    try:
        return st.context.ip_address
    except Exception:
        return None


def _from_session_cookie() -> Identity | None:
    """The identity of the browser's sign-in cookie, when it holds a live session (a reload, a new tab)."""
    token = cookies.read(SESSION_COOKIE)
    if not token or token == st.session_state.get("regintel_cookie_refused"):
        return None
    try:
        identity = state.app().signin_sessions.identity(token, _user_agent())
    except AuthError:
        st.session_state["regintel_cookie_refused"] = token  # looked up once per browser session, then cleared
        st.session_state["regintel_cookie_write"] = ""
        return None
    st.session_state[_TOKEN] = token
    return identity


def current() -> Identity | None:
    """The signed-in identity of this session, or None (signed out)."""
    app = state.app()
    if laptop_mode():
        return app.accounts.laptop_identity()
    held: Identity | None = st.session_state.get(_KEY)
    if held is None and not signed_in_to_provider():
        held = _from_session_cookie()
    claims = _sso_claims()
    if claims is not None:
        if held is None or held.source != "oidc":
            refused = st.session_state.get("regintel_sso_refused")
            if refused and refused[0] == claims.get("sub"):  # refused once this session: not again on every rerun
                st.session_state["regintel_signin_error"] = refused[1]
                return None
            try:
                held = app.sso.sign_in(claims)
            except AuthError as exc:
                st.session_state["regintel_sso_refused"] = (claims.get("sub"), str(exc))
                st.session_state["regintel_signin_error"] = str(exc)
                return None
            st.session_state[_KEY] = held
    elif held is not None and held.source == "oidc":  # the provider's session cookie is gone (signed out elsewhere)
        st.session_state.pop(_KEY, None)
        return None
    if held is None:
        return None
    try:
        token = st.session_state.get(_TOKEN)
        if held.source == "local" and token:  # the session may have been revoked (signed out in another tab)
            fresh = app.signin_sessions.identity(token, _user_agent())
        else:
            fresh = app.accounts.identity(held.user_id, held.source)
    except AuthError as exc:
        st.session_state.pop(_KEY, None)
        st.session_state.pop(_TOKEN, None)
        st.session_state["regintel_signin_error"] = str(exc)
        return None
    st.session_state[_KEY] = fresh
    return fresh


def sign_in_local(login: str, password: str) -> Identity:
    """A local-account sign-in (throttled per account and per client address), remembered by this browser."""
    identity = state.app().accounts.authenticate(login, password, client=_client())
    remember(identity)
    return identity


def remember(identity: Identity) -> None:
    """Hold ``identity`` for this session; a local one also opens a sign-in session the browser keeps."""
    st.session_state[_KEY] = identity
    st.session_state.pop("regintel_signin_error", None)
    if identity.source == "local":
        token = state.app().signin_sessions.open(identity, _user_agent())
        st.session_state[_TOKEN] = token
        st.session_state["regintel_cookie_write"] = token


def sync_cookies() -> None:
    """Write or clear the sign-in cookie this run decided on (after a sign-in, a sign-out or a dead token)."""
    if st.session_state.pop("regintel_next_clear", False):
        cookies.clear(NEXT_COOKIE)
    value = st.session_state.pop("regintel_cookie_write", None)
    if value is None:
        return
    if value:
        cookies.write(SESSION_COOKIE, value, max_age=state.app().settings.signin_session_hours * 3600)
    else:
        cookies.clear(SESSION_COOKIE)


def ask_for_page_after_sso(url_path: str) -> None:
    """On the sign-in page: remember the page asked for, so single sign-on returns there (not to Home)."""
    if url_path and url_path in page_urls():
        cookies.write(NEXT_COOKIE, url_path, max_age=NEXT_SECONDS, same_site="Lax")
    elif cookies.read(NEXT_COOKIE):
        cookies.clear(NEXT_COOKIE)


def page_asked_before_sso() -> str | None:
    """Once per browser session after single sign-on: the page asked for before it (and the cookie is cleared)."""
    if st.session_state.get("regintel_next_done"):
        return None
    st.session_state["regintel_next_done"] = True
    asked = cookies.read(NEXT_COOKIE)
    if not asked:
        return None
    st.session_state["regintel_next_clear"] = True  # cleared by sync_cookies on the page it opens
    return asked if asked in page_urls() else None


def signed_in_to_provider() -> bool:
    """Whether the browser holds a provider session (st.user) even though the app refused or dropped it."""
    return _sso_claims() is not None


def sign_out() -> None:
    st.session_state.pop("regintel_sso_refused", None)
    token = st.session_state.pop(_TOKEN, None)
    if token:
        state.app().signin_sessions.revoke(token)
        st.session_state["regintel_cookie_write"] = ""
        st.session_state["regintel_cookie_refused"] = token
    held: Identity | None = st.session_state.pop(_KEY, None)
    if held is not None:
        state.app().audit.record("signout", tenant_id=held.tenant_id, actor=held.user_name, method=held.source)
    if held is not None and held.source == "oidc":
        st.logout()


def require(action: str) -> Identity:
    """The signed-in identity when it may do ``action``; otherwise the page says why and stops."""
    try:
        return require_role(current(), action)
    except Forbidden as exc:
        st.error(str(exc), icon=":material/lock:")
        st.stop()
        raise  # unreachable: st.stop() raises
