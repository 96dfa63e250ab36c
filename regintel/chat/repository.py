"""Conversations in the SQL store, always scoped by tenant: no function returns a row of another tenant.

Every read and write takes the tenant id and checks that the conversation (or message) belongs to it; a
mismatch is reported exactly like a missing row, so tenant B cannot even learn that tenant A's id exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

from sqlalchemy import func, select

from regintel.chat.context import ContextPassage
from regintel.chat.response import ChatResponse, CitedSource
from regintel.errors import InputError, NotFound
from regintel.retrieval.sources import Source
from regintel.store import Database
from regintel.tenancy import TenantDirectory, owned
from regintel.store.models import (
    Conversation, ConversationContext, Feedback, Message, MessageCitation, RagTrace, Tenant, User,
)
from regintel.text.normalise import printable

MAX_ACTIVE_NODES = 50
MAX_TITLE = 200
MAX_COMMENT = 2000


@dataclass
class Turn:
    """One stored question/answer pair with its numbered passages (full text)."""

    turn_index: int
    question: str
    answer: str
    passages: list[ContextPassage] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    response: ChatResponse | None = None

    @property
    def used_passages(self) -> list[ContextPassage]:
        return [p for p in self.passages if p.index in self.used]

    @property
    def own_passages(self) -> list[ContextPassage]:
        """What this turn retrieved (or, for a follow-up, reused): not what it carried over from older turns."""
        fresh = [p for p in self.passages if p.origin == "current"]
        return fresh or [p for p in self.passages if p.origin == "previous"]


def _source_of(citation: MessageCitation) -> Source:
    return Source(citation.chunk_id, citation.document_id, citation.title, citation.ref, citation.url, citation.text,
                  citation.similarity, citation.authority_level, citation.authority_score, citation.jurisdiction,
                  citation.language, page=citation.page, version=citation.version or "",
                  deprecated=bool(citation.deprecated))


class ConversationRepository:
    def __init__(self, db: Database, tenants: TenantDirectory | None = None) -> None:
        self.db = db
        self.tenants_directory = tenants or TenantDirectory(db)

    # -- tenants and users (their home is regintel.tenancy; kept here for the ownership checks) ---------------
    def ensure_tenant(self, name: str) -> Tenant:
        return self.tenants_directory.ensure_tenant(name)

    def ensure_user(self, tenant_id: str, name: str, role: str = "analyst") -> User:
        return self.tenants_directory.ensure_user(tenant_id, name, role)

    def tenant(self, tenant_id: str) -> Tenant:
        return self.tenants_directory.tenant(tenant_id)

    def tenants(self) -> list[Tenant]:
        return self.tenants_directory.tenants()

    def users(self, tenant_id: str) -> list[User]:
        return self.tenants_directory.users(tenant_id)

    def user_in_tenant(self, tenant_id: str, user_id: str) -> User:
        return self.tenants_directory.user_in_tenant(tenant_id, user_id)

    # -- conversations --------------------------------------------------------------------------------------
    def create_conversation(self, tenant_id: str, user_id: str, title: str = "New conversation") -> Conversation:
        self.user_in_tenant(tenant_id, user_id)
        with self.db.session() as session:
            conversation = Conversation(tenant_id=tenant_id, user_id=user_id, title=printable(title)[:MAX_TITLE] or "New conversation")
            session.add(conversation)
            session.flush()
            return conversation

    def conversation(self, tenant_id: str, conversation_id: str) -> Conversation:
        with self.db.session() as session:
            return owned(session, Conversation, conversation_id, tenant_id,
                          f"No conversation {conversation_id!s:.40} for this tenant.")

    def conversations(self, tenant_id: str, user_id: str | None = None) -> list[Conversation]:
        with self.db.session() as session:
            query = select(Conversation).where(Conversation.tenant_id == tenant_id)
            if user_id:
                query = query.where(Conversation.user_id == user_id)
            return list(session.scalars(query.order_by(Conversation.updated_at.desc())))

    def rename_conversation(self, tenant_id: str, conversation_id: str, title: str) -> None:
        title = printable(title)[:MAX_TITLE]
        if not title:
            raise InputError("The title is empty.")
        self.conversation(tenant_id, conversation_id)
        with self.db.session() as session:
            session.get(Conversation, conversation_id).title = title

    def delete_conversation(self, tenant_id: str, conversation_id: str) -> None:
        self.conversation(tenant_id, conversation_id)
        with self.db.session() as session:
            session.delete(session.get(Conversation, conversation_id))

    # -- turns ----------------------------------------------------------------------------------------------
    def turns(self, tenant_id: str, conversation_id: str) -> list[Turn]:
        """Completed turns, oldest first, with their passages (failed answers are not context)."""
        self.conversation(tenant_id, conversation_id)
        with self.db.session() as session:
            messages = list(session.scalars(select(Message).where(Message.conversation_id == conversation_id)
                                            .order_by(Message.turn_index, Message.role.desc())))
            questions = {m.turn_index: m.content for m in messages if m.role == "user"}
            turns = []
            for message in messages:
                if message.role != "assistant":
                    continue
                passages = [ContextPassage(_source_of(c), c.origin, 0, c.citation_index) for c in message.citations]
                turn = Turn(message.turn_index, questions.get(message.turn_index, ""), message.content, passages,
                            {c.citation_index for c in message.citations if c.used}, _response_of(message))
                turns.append(turn)
            return turns

    def completed_turns(self, tenant_id: str, conversation_id: str) -> list[Turn]:
        return [t for t in self.turns(tenant_id, conversation_id) if t.response and t.response.status == "complete"]

    def questions_since(self, user_id: str, since: datetime) -> int:
        """Questions a user asked since ``since`` (the rate limit counts these)."""
        with self.db.session() as session:
            return int(session.scalar(
                select(func.count(Message.id)).join(Conversation, Conversation.id == Message.conversation_id)
                .where(Conversation.user_id == user_id, Message.role == "user", Message.created_at >= since)) or 0)

    def save_turn(self, tenant_id: str, conversation_id: str, question: str, response: ChatResponse,
                  trace: dict[str, Any]) -> ChatResponse:
        """Question, answer, every passage (full text), the trace, in one transaction; returns the response with
        its message and trace ids."""
        with self.db.session() as session:
            conversation = owned(session, Conversation, conversation_id, tenant_id,
                                  "The conversation was deleted during the turn.")
            current = session.scalar(select(func.max(Message.turn_index)).where(Message.conversation_id == conversation_id))
            turn_index = 0 if current is None else int(current) + 1
            response.turn_index = turn_index
            session.add(Message(conversation_id=conversation_id, turn_index=turn_index, role="user", content=question))
            message = Message(
                conversation_id=conversation_id, turn_index=turn_index, role="assistant", content=response.answer,
                status=response.status, response_mode=response.response_mode, abstention_reason=response.abstention_reason,
                query_type=response.query_type, confidence_level=response.confidence.get("level"),
                confidence_score=response.confidence.get("score"), authority_level=response.authority.get("level"),
                authority_score=response.authority.get("score"),
                verification_rate=response.claim_verification.get("verification_rate"), from_cache=response.from_cache,
                latency_ms=response.latency_ms, details=_details(response),
            )
            session.add(message)
            session.flush()
            for source in response.sources:
                session.add(MessageCitation(
                    message_id=message.id, citation_index=source.index, chunk_id=source.chunk_id,
                    document_id=source.document_id, title=source.title[:500], ref=source.ref[:300], url=source.url[:1000],
                    text=source.text, similarity=source.similarity, authority_level=source.authority_level,
                    authority_score=source.authority_score, jurisdiction=source.jurisdiction, language=source.language,
                    used=source.used, origin=source.origin, page=source.page, version=source.version[:120],
                    deprecated=source.deprecated))
            trace_row = RagTrace(tenant_id=tenant_id, conversation_id=conversation_id, message_id=message.id,
                                 question=question, response_mode=response.response_mode, steps=trace["steps"],
                                 total_ms=trace["total_ms"], from_cache=response.from_cache)
            session.add(trace_row)
            session.flush()
            message.trace_id = trace_row.id
            if conversation.title == "New conversation":
                conversation.title = question[:80]
            conversation.updated_at = datetime.now(timezone.utc)
            response.message_id, response.trace_id = message.id, trace_row.id
        return response

    # -- conversation context -------------------------------------------------------------------------------
    def active_concepts(self, tenant_id: str, conversation_id: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            context = session.get(ConversationContext, conversation_id)
            if context is None or context.tenant_id != tenant_id:
                return []
            return list(context.active_concepts)

    def recent_concept_keys(self, tenant_id: str, conversations: int = 20, limit: int = 40) -> list[str]:
        """The concepts of the tenant's most recently active conversations, most recent first (the Graph
        Explorer's default view starts from them)."""
        with self.db.session() as session:
            contexts = session.scalars(select(ConversationContext).where(ConversationContext.tenant_id == tenant_id)
                                       .order_by(ConversationContext.updated_at.desc()).limit(conversations)).all()
            keys = [c.get("key") for context in contexts for c in reversed(context.active_concepts or [])]
        return [key for key in dict.fromkeys(keys) if key][:limit]

    def add_active_concepts(self, tenant_id: str, conversation_id: str, concepts: Sequence[dict[str, Any]]) -> list[str]:
        """Union of the conversation's node ids with this turn's (most recent kept when over the cap)."""
        with self.db.session() as session:
            context = session.get(ConversationContext, conversation_id)
            if context is None:
                owned(session, Conversation, conversation_id, tenant_id, "Unknown conversation for this tenant.")
                context = ConversationContext(conversation_id=conversation_id, tenant_id=tenant_id,
                                              active_node_ids=[], active_concepts=[])
                session.add(context)
            elif context.tenant_id != tenant_id:
                raise NotFound("Unknown conversation for this tenant.")
            merged = {c["id"]: c for c in context.active_concepts}
            for concept in concepts:
                merged.pop(concept["id"], None)
                merged[concept["id"]] = {"id": concept["id"], "key": concept.get("key", ""), "label": concept.get("label", "")}
            kept = list(merged.values())[-MAX_ACTIVE_NODES:]
            context.active_concepts = kept
            context.active_node_ids = [c["id"] for c in kept]
            return list(context.active_node_ids)

    # -- feedback -------------------------------------------------------------------------------------------
    def message_in_tenant(self, tenant_id: str, message_id: str) -> Message:
        with self.db.session() as session:
            message = session.get(Message, message_id)
            conversation = session.get(Conversation, message.conversation_id) if message else None
            if message is None or conversation is None or conversation.tenant_id != tenant_id or message.role != "assistant":
                raise NotFound("Unknown answer for this tenant.")
            return message

    def save_feedback(self, tenant_id: str, user_id: str, message_id: str, rating: int, comment: str = "") -> Feedback:
        if rating not in (1, -1):
            raise InputError("A rating is +1 (thumbs up) or -1 (thumbs down).")
        comment = printable(comment or "")
        if len(comment) > MAX_COMMENT:
            raise InputError(f"The comment is {len(comment)} characters long; the limit is {MAX_COMMENT}.")
        self.user_in_tenant(tenant_id, user_id)
        self.message_in_tenant(tenant_id, message_id)
        with self.db.session() as session:
            feedback = session.scalars(select(Feedback).where(Feedback.message_id == message_id, Feedback.user_id == user_id)).first()
            if feedback is None:
                feedback = Feedback(tenant_id=tenant_id, user_id=user_id, message_id=message_id, rating=rating)
                session.add(feedback)
            feedback.rating, feedback.comment = rating, comment
            session.flush()
            return feedback

    def feedback_for(self, tenant_id: str, message_id: str) -> Feedback | None:
        with self.db.session() as session:
            return session.scalars(select(Feedback).where(Feedback.tenant_id == tenant_id, Feedback.message_id == message_id)
                                   .order_by(Feedback.created_at.desc())).first()

    def trace(self, tenant_id: str, trace_id: str) -> RagTrace:
        with self.db.session() as session:
            return owned(session, RagTrace, trace_id, tenant_id, "Unknown trace for this tenant.")


def _details(response: ChatResponse) -> dict[str, Any]:
    data = response.to_dict()
    for stored_elsewhere in ("answer", "sources", "conversation_id", "message_id", "trace_id"):
        data.pop(stored_elsewhere, None)
    return data


def _response_of(message: Message) -> ChatResponse:
    """Rebuild the ChatResponse of a stored answer (the Chat page restores chips and badges from it)."""
    details = dict(message.details or {})
    sources = [CitedSource.from_passage(ContextPassage(_source_of(c), c.origin, 0, c.citation_index), c.used)
               for c in message.citations]
    details.update(answer=message.content, sources=[s.__dict__ for s in sources], conversation_id=message.conversation_id,
                   message_id=message.id, trace_id=message.trace_id or "", status=message.status,
                   response_mode=message.response_mode or details.get("response_mode", "ABSTAIN"))
    return ChatResponse.from_dict(details)


def since_hours(hours: float) -> datetime:
    return datetime.now(timezone.utc) - timedelta(hours=hours)
