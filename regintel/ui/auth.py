"""Who is signed in to this Streamlit session, from a real sign-in only: a local account (the form), single
sign-on (``st.login`` / ``st.user``, Streamlit's ``[auth]`` secrets), or the explicit loopback laptop mode.

Never from the URL or a widget. The identity is read again from the SQL store on every run, so a role change
applies at once and a disabled user is signed out. Pages call :func:`require` with the action they serve.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from regintel.errors import AuthError, Forbidden
from regintel.identity.roles import Identity, require_role
from regintel.ui import state

_KEY = "regintel_identity"


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


def current() -> Identity | None:
    """The signed-in identity of this session, or None (signed out)."""
    app = state.app()
    if laptop_mode():
        return app.accounts.laptop_identity()
    held: Identity | None = st.session_state.get(_KEY)
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
        fresh = app.accounts.identity(held.user_id, held.source)
    except AuthError as exc:
        st.session_state.pop(_KEY, None)
        st.session_state["regintel_signin_error"] = str(exc)
        return None
    st.session_state[_KEY] = fresh
    return fresh


def remember(identity: Identity) -> None:
    st.session_state[_KEY] = identity
    st.session_state.pop("regintel_signin_error", None)


def signed_in_to_provider() -> bool:
    """Whether the browser holds a provider session (st.user) even though the app refused or dropped it."""
    return _sso_claims() is not None


def sign_out() -> None:
    st.session_state.pop("regintel_sso_refused", None)
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
