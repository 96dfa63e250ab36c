"""Response cache: a first turn's ChatResponse kept for an hour.

The key hashes the normalised question, the tenant, the corpus version and the settings that shape an answer
(provider, model, retrieval knobs), so a re-indexed corpus or another model never serves an old answer, and a
tenant never sees another tenant's entry. Follow-up turns are never cached: their answer depends on the
conversation. Entries of another corpus version are purged when the engine sees a new version.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from regintel.store import Database
from regintel.store.models import ResponseCacheEntry
from regintel.text.normalise import fold_for_comparison

TTL = timedelta(hours=1)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)  # SQLite returns naive datetimes


def normalise_question(question: str) -> str:
    return " ".join(fold_for_comparison(question).split())


def cache_key(question: str, tenant_id: str, corpus_version: str, settings_fingerprint: dict[str, Any]) -> str:
    material = json.dumps([normalise_question(question), tenant_id, corpus_version, settings_fingerprint], sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()


class ResponseCache:
    def __init__(self, db: Database, ttl: timedelta = TTL) -> None:
        self.db = db
        self.ttl = ttl

    def get(self, key: str, tenant_id: str) -> dict[str, Any] | None:
        with self.db.session() as session:
            entry = session.get(ResponseCacheEntry, key)
            if entry is None or entry.tenant_id != tenant_id:
                return None
            if _aware(entry.expires_at) <= _now():
                session.delete(entry)
                return None
            session.execute(update(ResponseCacheEntry).where(ResponseCacheEntry.key == key)
                            .values(hits=ResponseCacheEntry.hits + 1))
            return dict(entry.response)

    def put(self, key: str, tenant_id: str, corpus_version: str, question: str, response: dict[str, Any]) -> None:
        """Store (or refresh) an answer. Two sessions answering the same first question at once both miss and
        both store: the second insert loses the race on the key and the first one's answer is kept."""
        try:
            with self.db.session() as session:
                entry = session.get(ResponseCacheEntry, key)
                if entry is None:
                    entry = ResponseCacheEntry(key=key, tenant_id=tenant_id, corpus_version=corpus_version,
                                               question=question[:1000])
                    session.add(entry)
                entry.response = response
                entry.created_at = _now()
                entry.expires_at = _now() + self.ttl
        except IntegrityError:
            pass

    def invalidate_other_versions(self, corpus_version: str) -> int:
        """Drop entries built on another corpus version (and expired ones)."""
        with self.db.session() as session:
            result = session.execute(delete(ResponseCacheEntry).where(
                (ResponseCacheEntry.corpus_version != corpus_version) | (ResponseCacheEntry.expires_at <= _now())))
            return int(result.rowcount or 0)

    def count(self, tenant_id: str | None = None) -> int:
        with self.db.session() as session:
            query = select(func.count()).select_from(ResponseCacheEntry)
            if tenant_id:
                query = query.where(ResponseCacheEntry.tenant_id == tenant_id)
            return int(session.scalar(query) or 0)
