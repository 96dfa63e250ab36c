"""SQLAlchemy 2.0 typed ORM models of the SQL store.

Personal and conversational data (users, questions, answers, feedback) live here and only here: nothing in these
tables is ever written to the shared rules graph.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, Optional

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def new_id() -> str:
    return str(uuid.uuid4())


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, datetime: DateTime(timezone=True)}


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    egress_mode: Mapped[Optional[str]] = mapped_column(String(16), default=None)  # enforce / report-only / off
    allow_off_mode: Mapped[bool] = mapped_column(Boolean, default=False)
    allowed_destinations: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    users: Mapped[list["User"]] = relationship(back_populates="tenant", cascade="all, delete-orphan")


class User(Base):
    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    role: Mapped[str] = mapped_column(String(20), default="analyst")  # analyst / curator / admin
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # sign-in (regintel/identity): a local account has a login and a password hash; an SSO user an external id
    login: Mapped[Optional[str]] = mapped_column(String(120), unique=True)  # local accounts only, unique across tenants
    password_hash: Mapped[Optional[str]] = mapped_column(String(200))
    external_id: Mapped[Optional[str]] = mapped_column(String(400), unique=True)  # "issuer|sub" of an OIDC identity
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    failed_signins: Mapped[int] = mapped_column(Integer, default=0)  # consecutive, reset by a good sign-in
    locked_until: Mapped[Optional[datetime]] = mapped_column()
    last_signin_at: Mapped[Optional[datetime]] = mapped_column()

    tenant: Mapped[Tenant] = relationship(back_populates="users")


class ApiToken(Base):
    """A per-user API token for scripted access (Gradio API): only its SHA-256 is stored; revocable."""

    __tablename__ = "api_tokens"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the first characters, to tell tokens apart when listing
    label: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[Optional[datetime]] = mapped_column()
    revoked_at: Mapped[Optional[datetime]] = mapped_column()


class SignInSession(Base):
    """A browser sign-in that survives a reload: the cookie holds a random token, only its SHA-256 is stored;
    it expires, and is revoked at sign-out (regintel/identity/sessions.py)."""

    __tablename__ = "signin_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    agent_hash: Mapped[str] = mapped_column(String(64), default="")  # the browser's User-Agent, hashed
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    last_seen_at: Mapped[Optional[datetime]] = mapped_column()
    revoked_at: Mapped[Optional[datetime]] = mapped_column()


class AuditEvent(Base):
    """Who did what security-relevant thing: sign-ins (and failures), approvals, re-index, user and role changes."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_tenant_at", "tenant_id", "at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    tenant_id: Mapped[Optional[str]] = mapped_column(String(36))  # no FK: the trail outlives a deleted tenant
    actor: Mapped[str] = mapped_column(String(200), default="")  # user name, "cli", or the login tried
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(300), default="")
    outcome: Mapped[str] = mapped_column(String(16), default="ok")  # ok / refused / locked
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class Conversation(Base):
    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="New conversation")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    messages: Mapped[list["Message"]] = relationship(
        back_populates="conversation", cascade="all, delete-orphan", order_by="Message.turn_index"
    )


class Message(Base):
    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_conversation_turn", "conversation_id", "turn_index"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    turn_index: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))  # user / assistant
    content: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="complete")  # complete / failed
    response_mode: Mapped[Optional[str]] = mapped_column(String(16))  # DIRECT / QUALIFIED / ABSTAIN
    abstention_reason: Mapped[Optional[str]] = mapped_column(String(40))
    query_type: Mapped[Optional[str]] = mapped_column(String(40))
    confidence_level: Mapped[Optional[str]] = mapped_column(String(16))
    confidence_score: Mapped[Optional[float]] = mapped_column(Float)
    authority_level: Mapped[Optional[str]] = mapped_column(String(16))
    authority_score: Mapped[Optional[float]] = mapped_column(Float)
    verification_rate: Mapped[Optional[float]] = mapped_column(Float)
    from_cache: Mapped[bool] = mapped_column(Boolean, default=False)
    latency_ms: Mapped[Optional[float]] = mapped_column(Float)
    # the rest of the ChatResponse: claim verification, evidence, referenced nodes, suggestions, refusal
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    trace_id: Mapped[Optional[str]] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

    conversation: Mapped[Conversation] = relationship(back_populates="messages")
    citations: Mapped[list["MessageCitation"]] = relationship(
        back_populates="message", cascade="all, delete-orphan", order_by="MessageCitation.citation_index"
    )


class MessageCitation(Base):
    """A cited passage with its full text, so a citation from many turns ago still opens its passage."""

    __tablename__ = "message_citations"
    __table_args__ = (UniqueConstraint("message_id", "citation_index"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"), index=True)
    citation_index: Mapped[int] = mapped_column(Integer)
    chunk_id: Mapped[str] = mapped_column(String(200))
    document_id: Mapped[str] = mapped_column(String(120))
    title: Mapped[str] = mapped_column(String(500))
    ref: Mapped[str] = mapped_column(String(300), default="")
    url: Mapped[str] = mapped_column(String(1000), default="")
    text: Mapped[str] = mapped_column(Text)
    similarity: Mapped[float] = mapped_column(Float, default=0.0)
    authority_level: Mapped[str] = mapped_column(String(40), default="guidance")
    authority_score: Mapped[float] = mapped_column(Float, default=0.4)
    jurisdiction: Mapped[str] = mapped_column(String(16), default="")
    language: Mapped[str] = mapped_column(String(8), default="")
    used: Mapped[bool] = mapped_column(Boolean, default=True)
    origin: Mapped[str] = mapped_column(String(16), default="current")  # current / previous / history (of its turn)
    page: Mapped[Optional[int]] = mapped_column(Integer)  # the PDF page the passage starts on (issue 23)
    version: Mapped[str] = mapped_column(String(120), default="")  # the source's version when it was cited
    deprecated: Mapped[bool] = mapped_column(Boolean, default=False)  # the source was deprecated when it was cited

    message: Mapped[Message] = relationship(back_populates="citations")


class Feedback(Base):
    __tablename__ = "feedback"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"), index=True)
    rating: Mapped[int] = mapped_column(Integer)  # +1 / -1
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RagTrace(Base):
    """Every step of one chat turn with its timing and decision (sanitiser report: types and counts only)."""

    __tablename__ = "rag_traces"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    conversation_id: Mapped[Optional[str]] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), index=True)
    message_id: Mapped[Optional[str]] = mapped_column(String(36))
    question: Mapped[str] = mapped_column(Text, default="")
    response_mode: Mapped[Optional[str]] = mapped_column(String(16))
    steps: Mapped[list[Any]] = mapped_column(default=list)
    total_ms: Mapped[float] = mapped_column(Float, default=0.0)
    from_cache: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class ConversationContext(Base):
    """What a conversation has touched so far: the graph concepts in scope (ids and labels, union, capped)."""

    __tablename__ = "conversation_context"

    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    active_node_ids: Mapped[list[Any]] = mapped_column(default=list)
    active_concepts: Mapped[list[Any]] = mapped_column(default=list)  # [{id, key, label}], for the prompt
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class ResponseCacheEntry(Base):
    """A first-turn answer kept for an hour, keyed by normalised question, tenant, corpus version and settings."""

    __tablename__ = "response_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    corpus_version: Mapped[str] = mapped_column(String(64), index=True)
    question: Mapped[str] = mapped_column(Text)
    response: Mapped[dict[str, Any]] = mapped_column(default=dict)
    hits: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class Job(Base):
    """A background job (graph enrichment). Survives crashes: a job whose lease expired is claimed again."""

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status_next", "status", "next_run_at"), Index("ix_jobs_kind_key", "kind", "dedupe_key"))

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(String(40))
    dedupe_key: Mapped[str] = mapped_column(String(400))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued / running / done / failed / dead (regintel/jobs/queue.py)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=5)
    next_run_at: Mapped[datetime] = mapped_column(default=utcnow)
    locked_by: Mapped[Optional[str]] = mapped_column(String(100))
    locked_at: Mapped[Optional[datetime]] = mapped_column()
    last_error: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class ExtractionRun(Base):
    """One concept extraction over a Content: its phase, status and counters; proposals live in revisions.

    status: running / review / committing / committed / notes_sync_pending / aborted / failed / already_processed.
    """

    __tablename__ = "extraction_runs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[Optional[str]] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    curator: Mapped[str] = mapped_column(String(120), default="")
    content_key: Mapped[str] = mapped_column(String(400), index=True)
    content_title: Mapped[str] = mapped_column(String(500), default="")
    status: Mapped[str] = mapped_column(String(24), default="running", index=True)
    phase: Mapped[str] = mapped_column(String(40), default="")
    progress: Mapped[dict[str, Any]] = mapped_column(default=dict)  # {phase: {"done": n, "total": m, "ms": t}}
    current_revision: Mapped[int] = mapped_column(Integer, default=0)
    review_rounds: Mapped[int] = mapped_column(Integer, default=0)
    mode: Mapped[str] = mapped_column(String(20), default="offline")  # offline / llm
    errors: Mapped[list[Any]] = mapped_column(default=list)
    committed: Mapped[dict[str, Any]] = mapped_column(default=dict)  # concept keys/ids, counts, notes written
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    revisions: Mapped[list["ExtractionRevision"]] = relationship(
        back_populates="run", cascade="all, delete-orphan", order_by="ExtractionRevision.number"
    )


class ExtractionRevision(Base):
    """A numbered proposal of a run: what produced it (extraction / refinement / feedback) and its critique."""

    __tablename__ = "extraction_revisions"
    __table_args__ = (UniqueConstraint("run_id", "number", name="uq_extraction_revision"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(ForeignKey("extraction_runs.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(20))  # extraction / refinement / feedback
    proposal: Mapped[dict[str, Any]] = mapped_column(default=dict)
    critique: Mapped[dict[str, Any]] = mapped_column(default=dict)
    feedback: Mapped[str] = mapped_column(Text, default="")
    interpretation: Mapped[list[Any]] = mapped_column(default=list)
    unresolved: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    run: Mapped[ExtractionRun] = relationship(back_populates="revisions")


class ContentDraftRow(Base):
    """An uploaded content and its quotes before its extraction is approved: kept here, out of the shared rules
    graph, and published (Content, Quote nodes) only when a run over it is approved (issue 18)."""

    __tablename__ = "content_drafts"

    key: Mapped[str] = mapped_column(String(400), primary_key=True)
    props: Mapped[dict[str, Any]] = mapped_column(default=dict)  # title and metadata, as the Content node will hold
    quotes: Mapped[list[Any]] = mapped_column(default=list)  # quote texts in order (position 1..n)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SourceDocument(Base):
    """A document of the served corpus with its metadata and currency (issue 23). The registry is the source of
    truth: a corpus folder's manifest.json is imported into it, and ``sources`` add/edit/deprecate/remove change it.
    The corpus is shared by every tenant (one index), so the registry is not per tenant."""

    __tablename__ = "source_documents"

    id: Mapped[str] = mapped_column(String(120), primary_key=True)  # also the document_id of its chunks
    title: Mapped[str] = mapped_column(String(500))
    short_title: Mapped[str] = mapped_column(String(200), default="")
    format: Mapped[str] = mapped_column(String(16), default="markdown")  # markdown / html / pdf / docx
    origin: Mapped[str] = mapped_column(String(16), default="upload")  # upload (file kept in the data dir) / folder
    file_name: Mapped[str] = mapped_column(String(300), default="")
    file_path: Mapped[str] = mapped_column(String(1000), default="")  # the original file (absolute, or data-dir relative)
    file_sha256: Mapped[str] = mapped_column(String(64), default="")
    jurisdiction: Mapped[str] = mapped_column(String(16), default="")
    language: Mapped[str] = mapped_column(String(8), default="")
    authority_level: Mapped[str] = mapped_column(String(40), default="guidance")
    version: Mapped[str] = mapped_column(String(120), default="")
    source_url: Mapped[str] = mapped_column(String(1000), default="")
    license: Mapped[str] = mapped_column(String(300), default="")
    celex: Mapped[str] = mapped_column(String(40), default="")
    valid_from: Mapped[Optional[str]] = mapped_column(String(10))  # ISO date
    valid_until: Mapped[Optional[str]] = mapped_column(String(10))
    last_verified: Mapped[Optional[str]] = mapped_column(String(10))
    deprecated: Mapped[bool] = mapped_column(Boolean, default=False)
    supersedes: Mapped[str] = mapped_column(String(120), default="")  # id of the older version this one replaces
    status: Mapped[str] = mapped_column(String(16), default="active")  # active / removed
    articles: Mapped[int] = mapped_column(Integer, default=0)
    pages: Mapped[Optional[int]] = mapped_column(Integer)
    chunks: Mapped[int] = mapped_column(Integer, default=0)
    anchors: Mapped[dict[str, Any]] = mapped_column(default=dict)  # heading -> URL fragment (EUR-Lex art_N)
    problems: Mapped[list[Any]] = mapped_column(default=list)
    added_by: Mapped[str] = mapped_column(String(200), default="")
    edited_at: Mapped[Optional[datetime]] = mapped_column()  # metadata edited by a person: a manifest no longer overrides it
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class AlertEvent(Base):
    """One firing of an alert rule (issue 22): opened when the rule starts firing, resolved when it stops; one row
    per episode, so a rule that keeps firing is not stored (or sent) twice. ``delivered`` / ``attempts`` track
    the webhook POST of the firing and of the resolution (``delivered_state`` says which was last sent)."""

    __tablename__ = "alert_events"
    __table_args__ = (Index("ix_alert_events_rule_state", "rule", "state"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    rule: Mapped[str] = mapped_column(String(60))
    severity: Mapped[str] = mapped_column(String(16))  # critical / warning
    state: Mapped[str] = mapped_column(String(16), default="firing")  # firing / resolved
    value: Mapped[Optional[float]] = mapped_column(Float)
    threshold: Mapped[Optional[float]] = mapped_column(Float)
    tenant_id: Mapped[Optional[str]] = mapped_column(String(36))  # None: over all tenants; no FK, the event outlives it
    message: Mapped[str] = mapped_column(Text, default="")
    started_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    resolved_at: Mapped[Optional[datetime]] = mapped_column()
    delivered: Mapped[bool] = mapped_column(Boolean, default=False)  # the webhook got the current state
    delivered_state: Mapped[str] = mapped_column(String(16), default="")  # the last state the webhook received
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # failed POSTs of the current state
    next_attempt_at: Mapped[Optional[datetime]] = mapped_column()
    last_error: Mapped[str] = mapped_column(Text, default="")
