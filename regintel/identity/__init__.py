"""Who is asking: local accounts, single sign-on claims, roles, API tokens and the audit trail.

The front ends never take a tenant or a user from the URL or a widget: they get an :class:`Identity` from
``app.accounts`` (a password, an OIDC identity, an API token, or the explicit loopback laptop mode) and pass
its tenant and user ids on. ``app.audit`` records what an admin needs to see afterwards.
"""

from regintel.identity.roles import ROLES, Identity, require_role

__all__ = ["ROLES", "Identity", "require_role"]
