"""Users and audit (admins): the signed-in tenant's users (add a local account, change a role, disable) and its
audit trail (sign-ins and failures, approvals, re-index, user and role changes)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from regintel.errors import RegIntelError
from regintel.identity.roles import ROLES
from regintel.ui import auth, state
from regintel.ui.chat_view import escape_markdown

st.set_page_config(page_title="Users and audit · RegIntel Copilot", page_icon="🛡️", layout="wide")
identity = auth.require("users")
app = state.app()
st.title("Users and audit")
st.caption(f"Tenant {escape_markdown(identity.tenant_name)}")

users = [user for user, _ in app.accounts.users(identity.tenant_name) if user.tenant_id == identity.tenant_id]
st.subheader("Users")
st.dataframe(pd.DataFrame([{"user": u.name, "role": u.role, "sign-in": "local" if u.password_hash else "single sign-on",
                            "disabled": u.disabled, "last sign-in": u.last_signin_at} for u in users]),
             hide_index=True, width="stretch")

left, right = st.columns(2)
with left:
    with st.form("add-user", clear_on_submit=True):
        st.markdown("**Add a local account**")
        login = st.text_input("Login", max_chars=120)
        password = st.text_input("Password (at least 12 characters)", type="password", max_chars=200)
        role = st.selectbox("Role", ROLES)
        if st.form_submit_button("Add"):
            try:
                auth.require("users")
                app.accounts.add(identity.tenant_name, login, password, role, actor=identity.user_name, create_tenant=False)
                st.rerun()
            except RegIntelError as exc:
                st.error(str(exc))
with right:
    names = [u.name for u in users if u.id != identity.user_id]  # an admin cannot lock themself out here
    with st.form("change-user"):
        st.markdown("**Change a user**")
        target = st.selectbox("User", names)
        new_role = st.selectbox("New role", ["(unchanged)", *ROLES])
        state_change = st.radio("Account", ["(unchanged)", "disable", "enable"], horizontal=True)
        if st.form_submit_button("Apply", disabled=not names):
            try:
                auth.require("users")
                if new_role in ROLES:
                    app.accounts.set_role(target, new_role, actor=identity.user_name, tenant_id=identity.tenant_id)
                if state_change != "(unchanged)":
                    app.accounts.set_disabled(target, state_change == "disable", actor=identity.user_name,
                                              tenant_id=identity.tenant_id)
                st.rerun()
            except RegIntelError as exc:
                st.error(str(exc))

st.subheader("Audit trail")
events = app.audit.events(tenant_id=identity.tenant_id, limit=500)
st.dataframe(pd.DataFrame([{"at": e.at, "action": e.action, "outcome": e.outcome, "actor": e.actor, "target": e.target,
                            "detail": ", ".join(f"{k}={v}" for k, v in (e.detail or {}).items())} for e in events]),
             hide_index=True, width="stretch")

st.subheader("Sign-in settings")
st.caption("Read-only: they come from REGINTEL_* variables and `.streamlit/secrets.toml` (README, \"Sign-in and roles\").")
settings = app.settings
st.dataframe(pd.DataFrame([
    {"setting": "single sign-on ([auth])", "value": "configured" if auth.sso_providers() is not None else "not configured"},
    {"setting": "REGINTEL_LOCAL_ACCOUNTS", "value": str(settings.local_accounts)},
    {"setting": "REGINTEL_LAPTOP_MODE", "value": str(settings.laptop_mode)},
    {"setting": "REGINTEL_SIGNIN_MAX_FAILURES", "value": str(settings.signin_max_failures)},
    {"setting": "REGINTEL_SIGNIN_LOCKOUT_SECONDS", "value": str(settings.signin_lockout_seconds)},
    {"setting": "REGINTEL_OIDC_TENANT_CLAIM", "value": settings.oidc_tenant_claim},
    {"setting": "REGINTEL_OIDC_GROUPS_CLAIM", "value": settings.oidc_groups_claim},
    {"setting": "REGINTEL_OIDC_ROLE_MAP", "value": settings.oidc_role_map or "(none)"},
    {"setting": "REGINTEL_OIDC_DEFAULT_ROLE", "value": settings.oidc_default_role or "(refuse)"},
    {"setting": "REGINTEL_OIDC_CREATE_TENANTS / _USERS", "value": f"{settings.oidc_create_tenants} / {settings.oidc_create_users}"},
    {"setting": "REGINTEL_CHAT_RATE_LIMIT_PER_HOUR (per user)", "value": str(settings.chat_rate_limit_per_hour)},
]), hide_index=True, width="stretch")

from regintel.ui.jobs_view import jobs_section  # noqa: E402  (the worker and its jobs: regintel/ui/jobs_view.py)

jobs_section(app, identity)
