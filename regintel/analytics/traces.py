"""Trace search for the Traces page: a tenant's rag_traces filtered by conversation, period and response mode."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
from sqlalchemy import select

from regintel.store import Database
from regintel.store.models import RagTrace

TRACE_COLUMNS = ["trace_id", "created_at", "question", "response_mode", "from_cache", "total_ms", "conversation_id"]


def search_traces(db: Database, tenant_id: str, start: datetime, end: datetime, conversation_id: str = "",
                  response_mode: str = "", limit: int = 200) -> pd.DataFrame:
    query = select(RagTrace).where(RagTrace.tenant_id == tenant_id, RagTrace.created_at >= start, RagTrace.created_at < end)
    if conversation_id:
        query = query.where(RagTrace.conversation_id == conversation_id.strip())
    if response_mode:
        query = query.where(RagTrace.response_mode == response_mode)
    with db.session() as session:
        rows = [[t.id, pd.Timestamp(t.created_at), t.question, t.response_mode, t.from_cache, t.total_ms, t.conversation_id]
                for t in session.scalars(query.order_by(RagTrace.created_at.desc()).limit(limit))]
    return pd.DataFrame(rows, columns=TRACE_COLUMNS)


def step(trace_steps: list[dict], name: str) -> dict:
    """The first step of that name ({} when the turn did not run it, e.g. no retrieval on a follow-up)."""
    return next((s for s in trace_steps if s.get("step") == name), {})
