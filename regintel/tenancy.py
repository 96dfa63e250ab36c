"""Tenants and their users in the SQL store, and each tenant's egress policy.

One home for "who is asking": the chat engine, extraction, the pages and the CLI all resolve tenants and users
here, and every model call of a tenant gets its egress policy from :meth:`TenantDirectory.egress_policy` (so
extraction's model calls honour the tenant's policy exactly like chat's).
"""

from __future__ import annotations

from typing import Any, Callable

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from regintel.egress.client import EgressPolicy
from regintel.errors import InputError, NotFound
from regintel.store import Database
from regintel.store.models import Tenant, User
from regintel.text.normalise import printable

MAX_NAME = 120


def owned(session: Any, model: type, row_id: str, tenant_id: str, message: str) -> Any:
    """The row of ``model`` with that id if it belongs to the tenant; NotFound otherwise (same message either
    way, so a tenant cannot learn that another tenant's id exists)."""
    row = session.get(model, row_id) if row_id else None
    if row is None or row.tenant_id != tenant_id:
        raise NotFound(message)
    return row


def get_or_create(db: Database, query: Any, make: Callable[[], Any]) -> Any:
    """The row ``query`` finds, else a new one; when a concurrent session inserts the same unique name first,
    its row is returned (the loser's insert fails on the unique constraint and is rolled back)."""
    with db.session() as session:
        row = session.scalars(query).first()
        if row is not None:
            return row
    try:
        with db.session() as session:
            row = make()
            session.add(row)
        return row
    except IntegrityError:
        with db.session() as session:
            row = session.scalars(query).first()
        if row is None:
            raise
        return row


class TenantDirectory:
    """Tenants, users and tenant policies (every read scoped by tenant)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def ensure_tenant(self, name: str) -> Tenant:
        name = printable(name)[:MAX_NAME]
        if not name:
            raise InputError("The tenant name is empty.")
        return get_or_create(self.db, select(Tenant).where(Tenant.name == name), lambda: Tenant(name=name))

    def ensure_user(self, tenant_id: str, name: str, role: str = "analyst") -> User:
        name = printable(name)[:MAX_NAME]
        if not name:
            raise InputError("The user name is empty.")
        return get_or_create(self.db, select(User).where(User.tenant_id == tenant_id, User.name == name),
                             lambda: User(tenant_id=tenant_id, name=name, role=role))

    def tenant(self, tenant_id: str) -> Tenant:
        with self.db.session() as session:
            tenant = session.get(Tenant, tenant_id)
            if tenant is None:
                raise NotFound("Unknown tenant.")
            return tenant

    def tenants(self) -> list[Tenant]:
        with self.db.session() as session:
            return list(session.scalars(select(Tenant).order_by(Tenant.name)))

    def users(self, tenant_id: str) -> list[User]:
        with self.db.session() as session:
            return list(session.scalars(select(User).where(User.tenant_id == tenant_id).order_by(User.name)))

    def user_in_tenant(self, tenant_id: str, user_id: str) -> User:
        with self.db.session() as session:
            return owned(session, User, user_id, tenant_id, "Unknown user for this tenant.")

    @staticmethod
    def egress_policy(tenant: Tenant | None) -> EgressPolicy:
        """The policy stored on the tenant row (no tenant: the global default applies)."""
        if tenant is None:
            return EgressPolicy()
        return EgressPolicy(tenant.egress_mode, bool(tenant.allow_off_mode), tuple(tenant.allowed_destinations or ()))

    def policy_for(self, tenant_id: str | None) -> EgressPolicy:
        return self.egress_policy(self.tenant(tenant_id) if tenant_id else None)
