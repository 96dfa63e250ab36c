"""Single sign-on: an OpenID Connect identity's claims (``st.user`` after ``st.login``) to a tenant, a role and a
user row.

The tenant is read from a configurable claim (``tenant`` by default; a fixed default tenant may be set for
providers that cannot add one), the role from a groups claim through a mapping (``grp-admins=admin,...``; the
highest mapped role wins, else the default role, else the sign-in is refused). The provider stays the source of
truth: the role is set again at every sign-in (a change is audited). Tenants and users are created at first
sign-in only when the settings allow it; otherwise an admin creates them first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from regintel.errors import AuthError, InputError
from regintel.identity.audit import AuditLog
from regintel.identity.roles import ROLES, Identity, check_role
from regintel.store import Database
from regintel.store.models import Tenant, User
from regintel.tenancy import TenantDirectory
from regintel.text.normalise import printable


def parse_role_map(text: str) -> dict[str, str]:
    """``"grp-a=admin, grp-b=curator"`` -> {group: role}; InputError naming the bad entry."""
    mapping: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in (text or "").split(","))):
        group, sep, role = entry.rpartition("=")
        if not sep or not group.strip():
            raise InputError(f"REGINTEL_OIDC_ROLE_MAP: {entry!r} is not group=role.")
        mapping[group.strip()] = check_role(role)
    return mapping


@dataclass(frozen=True)
class ClaimMapping:
    tenant_claim: str = "tenant"
    groups_claim: str = "groups"
    role_map: Mapping[str, str] | None = None
    default_role: str = "analyst"  # "" refuses a user none of whose groups is mapped
    default_tenant: str = ""  # "" refuses an identity without the tenant claim
    create_tenants: bool = True
    create_users: bool = True

    @classmethod
    def from_settings(cls, settings: Any) -> "ClaimMapping":
        return cls(settings.oidc_tenant_claim, settings.oidc_groups_claim, parse_role_map(settings.oidc_role_map),
                   settings.oidc_default_role, settings.oidc_default_tenant, settings.oidc_create_tenants,
                   settings.oidc_create_users)

    def tenant(self, claims: Mapping[str, Any]) -> str:
        value = claims.get(self.tenant_claim)
        name = printable(value if isinstance(value, str) else "")[:120] or self.default_tenant
        if not name:
            raise AuthError(f"Your identity has no '{self.tenant_claim}' claim, so no tenant can be chosen; ask the "
                            "administrator of the identity provider to add it.")
        return name

    def role(self, claims: Mapping[str, Any]) -> str:
        groups = claims.get(self.groups_claim) or []
        if isinstance(groups, str):
            groups = [g for g in groups.replace(",", " ").split() if g]
        mapped = [self.role_map[g] for g in groups if isinstance(g, str) and g in (self.role_map or {})]
        if mapped:
            return max(mapped, key=ROLES.index)
        if not self.default_role:
            raise AuthError("None of your groups gives access to RegIntel; ask an administrator.")
        return self.default_role


def subject(claims: Mapping[str, Any]) -> tuple[str, str]:
    """(external id "issuer|sub", display name) of an OIDC identity."""
    sub = str(claims.get("sub") or "").strip()
    if not sub:
        raise AuthError("The identity provider sent no subject ('sub' claim).")
    external = f"{claims.get('iss') or ''}|{sub}"[:400]
    name = printable(claims.get("email") or claims.get("preferred_username") or claims.get("name") or sub)[:120]
    return external, name


class SingleSignOn:
    def __init__(self, db: Database, tenants: TenantDirectory, audit: AuditLog, mapping: ClaimMapping) -> None:
        self.db, self.tenants, self.audit, self.mapping = db, tenants, audit, mapping

    def sign_in(self, claims: Mapping[str, Any]) -> Identity:
        """The identity of a signed-in OIDC user (created at first sign-in when allowed); AuthError, audited,
        when the claims cannot be mapped, the tenant or user may not be created, or the user is disabled."""
        try:
            external, name = subject(claims)
            tenant_name, role = self.mapping.tenant(claims), self.mapping.role(claims)
            tenant = self._tenant(tenant_name)
            user = self._user(tenant, external, name, role)
        except AuthError as exc:
            self.audit.record("signin", actor=printable(claims.get("email") or claims.get("sub") or "")[:200],
                              outcome="refused", method="oidc", reason=str(exc)[:200])
            raise
        self.audit.record("signin", tenant_id=tenant.id, actor=user.name, method="oidc")
        return Identity(tenant.id, tenant.name, user.id, user.name, user.role, "oidc")

    def _tenant(self, name: str) -> Tenant:
        with self.db.session() as session:
            found = session.scalars(select(Tenant).where(Tenant.name == name)).first()
        if found is not None:
            return found
        if not self.mapping.create_tenants:
            raise AuthError(f"The tenant {name!r} does not exist here; an administrator has to create it first.")
        tenant = self.tenants.ensure_tenant(name)
        self.audit.record("tenant_create", tenant_id=tenant.id, actor="oidc", target=tenant.name)
        return tenant

    def _user(self, tenant: Tenant, external: str, name: str, role: str) -> User:
        with self.db.session() as session:
            user = session.scalars(select(User).where(User.external_id == external)).first()
            if user is not None:
                if user.tenant_id != tenant.id:
                    raise AuthError("Your identity belongs to another tenant here; ask an administrator.")
                if user.disabled:
                    raise AuthError("This account is disabled.")
                previous, user.role = user.role, role
                if previous != role:
                    self.audit.record("role_change", tenant_id=tenant.id, actor="oidc", target=user.name,
                                      role=role, previous=previous)
                return user
        with self.db.session() as session:  # `users add --sso` made it: bound at first sign-in
            named = session.scalars(select(User).where(User.tenant_id == tenant.id, User.name == name,
                                                       User.external_id.is_(None), User.password_hash.is_(None))).first()
            if named is not None and not named.disabled:
                named.external_id, named.role = external, role
                self.audit.record("user_bind", tenant_id=tenant.id, actor="oidc", target=name, role=role)
                return named
        if not self.mapping.create_users:
            raise AuthError("You have no account here yet; an administrator has to create it first.")
        try:
            with self.db.session() as session:
                user = User(tenant_id=tenant.id, name=name, role=role, external_id=external)
                session.add(user)
        except IntegrityError:  # a concurrent first sign-in of the same identity won the insert
            with self.db.session() as session:
                user = session.scalars(select(User).where(User.external_id == external)).first()
            if user is not None and user.tenant_id == tenant.id:
                return user
            raise AuthError(f"Another account of this tenant is already named {name!r}; ask an administrator.") from None
        self.audit.record("user_add", tenant_id=tenant.id, actor="oidc", target=name, role=role)
        return user
