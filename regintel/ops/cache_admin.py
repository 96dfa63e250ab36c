"""The response cache seen by an admin (issue 22 item 5): how many answers a tenant has cached, and clearing them.

Clearing is per tenant and audited: after a correction of the corpus metadata or a prompt change an admin wants
the next first-turn question answered afresh, without waiting an hour for the entries to expire. The cache
itself (``regintel.chat.cache``) keys entries by tenant, so deleting a tenant's rows touches no other tenant.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import delete, func, select

from regintel.store import Database
from regintel.store.models import ResponseCacheEntry


@dataclass(frozen=True)
class CacheState:
    entries: int  # live (not expired) cached answers
    expired: int  # still stored, removed at their next lookup or by a clear
    hits: int  # replays served from the live entries


def cache_state(db: Database, tenant_id: str) -> CacheState:
    now = datetime.now(timezone.utc)
    with db.session() as session:
        rows = session.execute(
            select(ResponseCacheEntry.expires_at > now, func.count(), func.coalesce(func.sum(ResponseCacheEntry.hits), 0))
            .where(ResponseCacheEntry.tenant_id == tenant_id).group_by(ResponseCacheEntry.expires_at > now)).all()
    live = next(((n, h) for alive, n, h in rows if alive), (0, 0))
    expired = sum(n for alive, n, _ in rows if not alive)
    return CacheState(int(live[0]), int(expired), int(live[1]))


def clear_response_cache(db: Database, tenant_id: str) -> int:
    """Delete every cached answer of the tenant; returns how many were deleted."""
    with db.session() as session:
        return int(session.execute(delete(ResponseCacheEntry).where(ResponseCacheEntry.tenant_id == tenant_id)).rowcount or 0)
