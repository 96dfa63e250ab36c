"""Feedback Dashboard figures: one tenant, one period, computed with pandas from plain rows.

``load_turns`` / ``load_feedback`` read the tenant's rows (the only SQL); ``summarise`` is a pure function of
those frames, unit-tested against hand-computed values.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd
from sqlalchemy import and_, select
from sqlalchemy.orm import aliased

from regintel.graph.referenced import concept_nodes
from regintel.store import Database
from regintel.store.models import Conversation, Feedback, Message, User

TURN_COLUMNS = ["message_id", "created_at", "question", "answer", "response_mode", "abstention_reason", "status",
                "confidence_score", "authority_score", "verification_rate", "from_cache", "latency_ms", "concepts",
                "trace_id", "conversation_id"]
FEEDBACK_COLUMNS = ["message_id", "created_at", "rating", "comment", "user", "question", "answer", "trace_id"]


def load_turns(db: Database, tenant_id: str, start: datetime, end: datetime) -> pd.DataFrame:
    """One row per answer of the tenant in [start, end)."""
    question = aliased(Message)
    query = (
        select(Message, question.content, Conversation.id)
        .join(Conversation, Conversation.id == Message.conversation_id)
        .outerjoin(question, and_(question.conversation_id == Message.conversation_id,
                                  question.turn_index == Message.turn_index, question.role == "user"))
        .where(Conversation.tenant_id == tenant_id, Message.role == "assistant",
               Message.created_at >= start, Message.created_at < end)
    )
    rows = []
    with db.session() as session:
        for message, question_text, conversation_id in session.execute(query):
            details = message.details or {}
            rows.append([message.id, pd.Timestamp(message.created_at), question_text or "", message.content,
                         message.response_mode, message.abstention_reason, message.status, message.confidence_score,
                         message.authority_score, message.verification_rate, bool(message.from_cache),
                         message.latency_ms, [n.get("label") or n.get("key") for n in concept_nodes(details.get("referenced_nodes", []))],
                         message.trace_id, conversation_id])
    return pd.DataFrame(rows, columns=TURN_COLUMNS)


def load_feedback(db: Database, tenant_id: str, start: datetime, end: datetime) -> pd.DataFrame:
    question = aliased(Message)
    query = (
        select(Feedback, User.name, Message.content, Message.trace_id, question.content)
        .join(Message, Message.id == Feedback.message_id)
        .join(User, User.id == Feedback.user_id)
        .outerjoin(question, and_(question.conversation_id == Message.conversation_id,
                                  question.turn_index == Message.turn_index, question.role == "user"))
        .where(Feedback.tenant_id == tenant_id, Feedback.created_at >= start, Feedback.created_at < end)
    )
    with db.session() as session:
        rows = [[f.message_id, pd.Timestamp(f.created_at), f.rating, f.comment, user, question_text or "", answer, trace_id]
                for f, user, answer, trace_id, question_text in session.execute(query)]
    return pd.DataFrame(rows, columns=FEEDBACK_COLUMNS)


@dataclass
class DashboardSummary:
    questions: int = 0
    thumbs_up: int = 0
    thumbs_down: int = 0
    satisfaction: float | None = None  # up / (up + down)
    mode_shares: dict[str, float] = field(default_factory=dict)
    abstention_reasons: dict[str, int] = field(default_factory=dict)
    verification_rate: float | None = None
    cache_hit_rate: float | None = None
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    failed: int = 0
    per_day: pd.DataFrame = field(default_factory=pd.DataFrame)
    confidence_scores: list[float] = field(default_factory=list)
    authority_scores: list[float] = field(default_factory=list)
    top_concepts: list[tuple[str, int]] = field(default_factory=list)
    negative_feedback: pd.DataFrame = field(default_factory=pd.DataFrame)


def summarise(turns: pd.DataFrame, feedback: pd.DataFrame, top: int = 10) -> DashboardSummary:
    summary = DashboardSummary(questions=len(turns))
    if len(feedback):
        summary.thumbs_up = int((feedback["rating"] > 0).sum())
        summary.thumbs_down = int((feedback["rating"] < 0).sum())
        summary.satisfaction = round(summary.thumbs_up / (summary.thumbs_up + summary.thumbs_down), 4)
        negative = feedback[feedback["rating"] < 0].copy()
        negative["answer"] = negative["answer"].str.slice(0, 200)
        summary.negative_feedback = negative[["created_at", "question", "answer", "comment", "user", "trace_id"]] \
            .sort_values("created_at", ascending=False).reset_index(drop=True)
    if not len(turns):
        return summary
    modes = turns["response_mode"].fillna("ABSTAIN")
    summary.mode_shares = {mode: round(float((modes == mode).mean()), 4) for mode in ("DIRECT", "QUALIFIED", "ABSTAIN")}
    summary.abstention_reasons = {str(k): int(v) for k, v in turns["abstention_reason"].dropna().value_counts().items()}
    verified = turns["verification_rate"].dropna()
    summary.verification_rate = round(float(verified.mean()), 4) if len(verified) else None
    summary.cache_hit_rate = round(float(turns["from_cache"].mean()), 4)
    latency = turns["latency_ms"].dropna()
    if len(latency):
        summary.latency_p50_ms = round(float(latency.quantile(0.5)), 1)
        summary.latency_p95_ms = round(float(latency.quantile(0.95)), 1)
    summary.failed = int((turns["status"] == "failed").sum())
    per_day = turns.assign(day=turns["created_at"].dt.floor("D").dt.date, mode=modes)
    summary.per_day = per_day.pivot_table(index="day", columns="mode", values="message_id", aggfunc="count", fill_value=0)
    summary.confidence_scores = [float(v) for v in turns["confidence_score"].dropna()]
    summary.authority_scores = [float(v) for v in turns["authority_score"].dropna()]
    summary.top_concepts = Counter(label for labels in turns["concepts"] for label in labels if label).most_common(top)
    return summary


def feedback_csv(feedback: pd.DataFrame) -> bytes:
    """The feedback export; cells starting with = + - @ are prefixed so spreadsheets do not run them as formulas."""
    safe = feedback.copy()
    for column in ("comment", "question", "answer", "user"):
        safe[column] = safe[column].map(lambda v: "'" + v if isinstance(v, str) and v[:1] in ("=", "+", "-", "@") else v)
    return safe.to_csv(index=False).encode("utf-8")
