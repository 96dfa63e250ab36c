"""Roles and what each may do, and the signed-in :class:`Identity` every front end passes around.

analyst: chat, own conversations, feedback, the (public) rules graph. curator: the above plus Extraction Review
(start, feedback, approve, abort) and Sources (add, edit, deprecate, remove the shared corpus's documents).
admin: the above plus the tenant's dashboard, traces, re-index, users, audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from regintel.errors import Forbidden, InputError

ROLES = ("analyst", "curator", "admin")  # each role includes the ones before it

# the least role an action needs
ACTIONS = {
    "chat": "analyst", "feedback": "analyst", "graph": "analyst",
    "review": "curator", "approve": "curator", "sources": "curator",
    "dashboard": "admin", "traces": "admin", "reindex": "admin", "users": "admin", "audit": "admin",
}


def check_role(role: str) -> str:
    """The role, or InputError naming the valid ones."""
    role = (role or "").strip().lower()
    if role not in ROLES:
        raise InputError(f"Unknown role {role!r}: use one of {', '.join(ROLES)}.")
    return role


def allows(role: str, action: str) -> bool:
    """Whether ``role`` may do ``action`` (an unknown role or action allows nothing)."""
    needed = ACTIONS.get(action)
    return needed is not None and role in ROLES and ROLES.index(role) >= ROLES.index(needed)


@dataclass(frozen=True)
class Identity:
    """The signed-in user: where tenant and user ids come from, for every page and API call."""

    tenant_id: str
    tenant_name: str
    user_id: str
    user_name: str
    role: str
    source: str  # "local", "oidc", "token" or "laptop"

    def can(self, action: str) -> bool:
        return allows(self.role, action)


def require_role(identity: Identity | None, action: str) -> Identity:
    """The identity when it may do ``action``; Forbidden otherwise (signed out included)."""
    if identity is None:
        raise Forbidden("Sign in first.")
    if not identity.can(action):
        raise Forbidden(f"Your role ({identity.role}) does not allow this: it needs {ACTIONS.get(action, 'admin')}.")
    return identity
