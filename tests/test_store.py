"""SQL models on SQLite (always) and PostgreSQL (when REGINTEL_TEST_POSTGRES_URL is set, as in CI)."""

from __future__ import annotations

import os
import threading
import uuid

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from regintel.errors import StoreError
from regintel.store import Database
from regintel.store.models import Conversation, Feedback, Message, MessageCitation, RagTrace, Tenant, User
from tests.lanes import skip_lane

POSTGRES_URL = os.environ.get("REGINTEL_TEST_POSTGRES_URL", "")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])  # the postgres lane
def db(request, tmp_path):
    if request.param == "sqlite":
        database = Database(f"sqlite:///{tmp_path / 'store.db'}")
        database.create_schema()
        yield database
        database.dispose()
        return
    if not POSTGRES_URL:
        skip_lane("postgres", "REGINTEL_TEST_POSTGRES_URL not set")
    schema = f"t_{uuid.uuid4().hex[:10]}"
    admin = Database(POSTGRES_URL)
    with admin.engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in POSTGRES_URL else "?"
    database = Database(f"{POSTGRES_URL}{separator}options=-csearch_path%3D{schema}")
    database.create_schema()
    yield database
    database.dispose()
    with admin.engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


def seed_turn(db: Database) -> tuple[str, str]:
    with db.session() as session:
        tenant = Tenant(name="acme", egress_mode="enforce", allowed_destinations=["api.openai.com"])
        session.add(tenant)
        session.flush()
        user = User(tenant_id=tenant.id, name="analyst-1")
        session.add(user)
        session.flush()
        conversation = Conversation(tenant_id=tenant.id, user_id=user.id, title="Breach notification")
        session.add(conversation)
        session.flush()
        question = Message(conversation_id=conversation.id, turn_index=0, role="user", content="When must a breach be notified?")
        answer = Message(conversation_id=conversation.id, turn_index=1, role="assistant", content="Within 72 hours [1].",
                         response_mode="DIRECT", confidence_level="high", confidence_score=0.82)
        answer.citations.append(MessageCitation(citation_index=1, chunk_id="eu-gdpr#art-33", document_id="eu-gdpr",
                                                title="GDPR", ref="Article 33", text="…not later than 72 hours…",
                                                similarity=88.5, authority_level="eu_law", authority_score=1.0))
        session.add_all([question, answer])
        session.flush()
        session.add(Feedback(tenant_id=tenant.id, user_id=user.id, message_id=answer.id, rating=-1, comment="too short"))
        session.add(RagTrace(tenant_id=tenant.id, conversation_id=conversation.id, message_id=answer.id,
                             steps=[{"step": "retrieve", "ms": 12.5}], total_ms=40.0, response_mode="DIRECT"))
        return conversation.id, answer.id


def test_a_full_turn_round_trips(db):
    conversation_id, answer_id = seed_turn(db)
    with db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert [m.role for m in conversation.messages] == ["user", "assistant"]
        answer = session.get(Message, answer_id)
        assert answer.citations[0].ref == "Article 33" and answer.citations[0].similarity == pytest.approx(88.5)
        trace = session.scalars(select(RagTrace).where(RagTrace.message_id == answer_id)).one()
        assert trace.steps == [{"step": "retrieve", "ms": 12.5}]
        tenant = session.scalars(select(Tenant)).one()
        assert tenant.allowed_destinations == ["api.openai.com"]


def test_deleting_a_conversation_cascades(db):
    conversation_id, answer_id = seed_turn(db)
    with db.session() as session:
        session.delete(session.get(Conversation, conversation_id))
    with db.session() as session:
        assert session.get(Message, answer_id) is None
        assert session.scalars(select(MessageCitation)).all() == []


def test_user_names_are_unique_per_tenant(db):
    seed_turn(db)
    with pytest.raises(IntegrityError):
        with db.session() as session:
            tenant = session.scalars(select(Tenant)).one()
            session.add(User(tenant_id=tenant.id, name="analyst-1"))


def test_sqlite_runs_in_wal_mode(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'wal.db'}")
    database.create_schema()
    assert database.journal_mode() == "wal"


def test_unreachable_database_names_the_setting():
    database = Database("postgresql+psycopg://nobody:secret@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(StoreError) as error:
        database.create_schema()
    assert "REGINTEL_DATABASE_URL" in str(error.value)
    assert "secret" not in str(error.value)


def test_a_data_directory_from_an_older_version_gains_the_new_columns_and_keeps_its_rows(db):
    conversation_id, answer_id = seed_turn(db)
    with db.engine.begin() as conn:  # an older schema: message_citations had no origin, messages no details
        conn.execute(text("ALTER TABLE message_citations DROP COLUMN origin"))
        conn.execute(text("ALTER TABLE messages DROP COLUMN details"))
        conn.execute(text("ALTER TABLE messages DROP COLUMN from_cache"))
    db.create_schema()
    with db.session() as session:
        answer = session.get(Message, answer_id)
        assert answer.content == "Within 72 hours [1]." and answer.from_cache is False
        assert answer.citations[0].origin == "current" and answer.details is None
        answer.details = {"claim_verification": {"claims": 1}}
    with db.session() as session:
        assert session.get(Message, answer_id).details == {"claim_verification": {"claims": 1}}


def test_concurrent_first_sign_ins_of_one_tenant_and_user_share_one_row(db):
    """Twenty sessions opening the same new tenant and user at once (what the load benchmark does) all get the
    one row: the loser of the insert race reads the winner's row instead of failing."""
    from concurrent.futures import ThreadPoolExecutor

    from regintel.chat.repository import ConversationRepository

    repo = ConversationRepository(db)
    barrier = threading.Barrier(20)

    def sign_in(_: int) -> tuple[str, str]:
        barrier.wait()
        tenant = repo.ensure_tenant("brand-new-tenant")
        return tenant.id, repo.ensure_user(tenant.id, "ana").id

    with ThreadPoolExecutor(20) as pool:
        ids = set(pool.map(sign_in, range(20)))
    assert len(ids) == 1
    with db.session() as session:
        assert len(session.scalars(select(Tenant).where(Tenant.name == "brand-new-tenant")).all()) == 1


def test_concurrent_stores_of_one_cached_answer_keep_one_entry_without_error(db):
    """Two sessions answering the same first question at once both store it (found by the load benchmark)."""
    from concurrent.futures import ThreadPoolExecutor
    from datetime import timedelta

    from regintel.chat.cache import ResponseCache
    from regintel.chat.repository import ConversationRepository

    tenant = ConversationRepository(db).ensure_tenant("cache-race")
    cache = ResponseCache(db, timedelta(hours=1))
    barrier = threading.Barrier(8)

    def store(n: int) -> None:
        barrier.wait()
        cache.put("same-key", tenant.id, "v1", "What is a personal data breach?", {"answer": f"answer {n}"})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(store, range(8)))
    assert cache.count(tenant.id) == 1 and cache.get("same-key", tenant.id)["answer"].startswith("answer ")
