"""One overall deadline per model call (retries and keep-alive trickles included) and a bounded answer size,
against the local server speaking the Chat Completions wire format (tests/llm_server.py)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event, select

from regintel.config import load_settings
from regintel.errors import StoreError
from regintel.llm.chunks import ErrorChunk, TextChunk
from regintel.llm.deadline import DeadlineExceeded, within
from regintel.llm.openai_compatible import OpenAICompatibleProvider
from regintel.llm.router import LlmRouter
from regintel.runtime import RegIntel
from regintel.store.models import Message
from tests.conftest import make_small_corpus
from tests.llm_server import LlmTestServer, chat_chunk

QUESTION = "Faut-il utiliser le guichet unique OSS pour les ventes à distance intracommunautaires de biens ?"
MESSAGES = [{"role": "system", "content": "You are a regulatory assistant."}, {"role": "user", "content": "What is VAT?"}]


def trickler(seconds: float, every: float = 0.1):
    """One word, then only SSE keep-alive comments for ``seconds`` (each resets a per-read timeout)."""
    def script(handler):
        handler.start_stream()
        handler.sse(chat_chunk(content="VAT is "))
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                handler.send_chunk(": keep-alive\n\n")
                time.sleep(every)
            handler.sse(chat_chunk(content="too late.", finish="stop"))
            handler.sse("[DONE]")
            handler.end_stream()
        except OSError:  # the client gave up and closed the connection
            pass
    return script


def router_for(server, **settings) -> LlmRouter:
    options = {"llm_provider": "openai-compatible", "llm_base_url": server.base_url, "llm_timeout": 1.0, **settings}
    configured = load_settings(**options)
    provider = OpenAICompatibleProvider("test-model", server.base_url, "", configured.llm_timeout)
    return LlmRouter(configured, provider=provider)


def readers() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "llm-stream-reader")


@pytest.mark.slow  # waits for a real deadline: ~1.6 s
def test_a_keep_alive_trickle_is_cut_at_the_deadline_and_its_reader_ends():
    with LlmTestServer() as server:
        server.scripts = [trickler(20)]
        router = router_for(server, llm_turn_deadline=1.5)
        chunks, seen = [], []
        for chunk in router.stream("main_chat", MESSAGES):  # (timed from the first chunk: the egress guard's
            chunks.append(chunk)                            # first use loads its language models)
            seen.append(time.monotonic())
        elapsed = seen[-1] - seen[0]
        assert 0.3 < elapsed < 3.0, elapsed  # not the 20 s the server would take, though no read timed out
        assert [c.delta for c in chunks if isinstance(c, TextChunk)] == ["VAT is "]
        assert isinstance(chunks[-1], ErrorChunk) and "did not finish within 2 seconds" in chunks[-1].error
        deadline = time.monotonic() + 3
        while readers() and time.monotonic() < deadline:  # the abandoned response was closed: its reader stops
            time.sleep(0.05)
        assert readers() == 0


def test_the_default_deadline_is_twice_the_llm_timeout():
    assert load_settings(llm_timeout=7).llm_deadline_seconds() == 14
    assert load_settings(llm_timeout=7, llm_turn_deadline=3).llm_deadline_seconds() == 3


@pytest.mark.slow  # real retries and backoff: ~1.1 s
def test_retries_and_their_backoff_stay_inside_the_deadline():
    with LlmTestServer() as server:
        server.scripts = [lambda handler: handler.json_error(503, "overloaded")]
        router = router_for(server, llm_turn_deadline=1.2, llm_max_retries=10)
        list(router.stream("main_chat", MESSAGES[:1]))  # the egress guard's language models, loaded once
        server.requests.clear()
        started = time.monotonic()
        chunks = list(router.stream("main_chat", MESSAGES))
        assert time.monotonic() - started < 2.5
        assert isinstance(chunks[-1], ErrorChunk) and "within 1 seconds (retries included)" in chunks[-1].error
        assert 1 <= len(server.requests) <= 3  # 0.5 s, then 1 s of backoff would pass the deadline


def test_within_hands_over_every_item_and_errors_in_order():
    assert list(within(iter(range(1000)), time.monotonic() + 10)) == list(range(1000))

    def failing():
        yield 1
        raise ValueError("broken")
    got = []
    try:
        for item in within(failing(), time.monotonic() + 10):
            got.append(item)
    except ValueError as exc:
        assert str(exc) == "broken" and got == [1]
    else:
        raise AssertionError("the reader's error reaches the caller")


def test_within_raises_at_the_deadline_when_nothing_comes():
    blocker = threading.Event()

    def stalled():
        blocker.wait(5)
        yield "late"
    abandoned: list[int] = []
    started = time.monotonic()
    try:
        list(within(stalled(), time.monotonic() + 0.3, on_abandon=abandoned.append))
    except DeadlineExceeded:
        pass
    else:
        raise AssertionError("a stalled stream is cut")
    assert time.monotonic() - started < 1.0 and len(abandoned) == 1
    blocker.set()


# -- through the chat engine: what is stored --------------------------------------------------------------------
def flood(handler) -> None:
    """A 300 KB answer (in 3 KB deltas) and then a tool call."""
    handler.start_stream()
    for _ in range(100):
        handler.sse(chat_chunk(content="The controller shall notify the authority [1]. " * 64))
    handler.sse(chat_chunk(finish="stop"))
    handler.sse("[DONE]")
    handler.end_stream()


@pytest.fixture(scope="module")
def engine_over_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("turn-budget")
    corpus = make_small_corpus(root / "corpus", {"be/be-guidance-oss-fr.md": {}})
    with LlmTestServer() as server:
        settings = load_settings(data_dir=root / "data", corpus_dir=corpus, llm_provider="openai-compatible",
                                 llm_base_url=server.base_url, llm_timeout=1.0, llm_turn_deadline=2.0, llm_max_retries=0,
                                 answer_max_chars=2000, response_cache_ttl_seconds=0, chat_rate_limit_per_hour=0)
        app = RegIntel(settings, graph=None)
        app.ingest()
        engine = app.chat
        tenant = engine.repo.ensure_tenant("budget").id
        user = engine.repo.ensure_user(tenant, "ana").id
        yield engine, server, tenant, user
        app.close()


def stored_answers(engine, conversation_id: str) -> list[tuple[str, str]]:
    with engine.db.session() as session:
        rows = session.execute(select(Message.content, Message.status).where(
            Message.conversation_id == conversation_id, Message.role == "assistant")).all()
    return [(content, status) for content, status in rows]


@pytest.mark.slow  # indexes a corpus file
def test_a_huge_answer_is_cut_at_the_limit_with_a_marker_and_stored_cut(engine_over_server):
    engine, server, tenant, user = engine_over_server
    server.scripts = [flood]
    conversation = engine.repo.create_conversation(tenant, user).id
    stream = engine.stream_turn(tenant, user, conversation, QUESTION)
    shown = "".join(stream)
    response = stream.response
    assert response.status == "complete"
    assert "answer cut here" in shown and "REGINTEL_ANSWER_MAX_CHARS" in response.answer
    assert len(response.answer) < 2000 + 200
    ((content, status),) = stored_answers(engine, conversation)
    assert content == response.answer and status == "complete"


@pytest.mark.slow  # indexes a corpus file
def test_a_trickling_server_ends_the_turn_at_the_deadline_and_the_partial_answer_is_kept_as_failed(engine_over_server):
    engine, server, tenant, user = engine_over_server
    server.scripts = [trickler(20)]
    conversation = engine.repo.create_conversation(tenant, user).id
    stream = engine.stream_turn(tenant, user, conversation, QUESTION)
    first = next(iter(stream))
    started = time.monotonic()
    rest = "".join(stream)
    assert time.monotonic() - started < 4.0
    response = stream.response
    assert first.startswith("VAT is") and response.status == "failed" and "did not finish within 2 seconds" in response.error
    ((content, status),) = stored_answers(engine, conversation)
    assert status == "failed" and content.startswith("VAT is") and content == response.answer


@pytest.mark.slow  # indexes a corpus file
def test_a_full_database_gets_a_plain_message_and_keeps_no_half_turn(engine_over_server):
    """A full disk, as SQLite sees it: a page quota (PRAGMA max_page_count) at the database's current size."""
    engine, server, tenant, user = engine_over_server
    server.scripts = [flood]
    conversation = engine.repo.create_conversation(tenant, user).id
    db = engine.db
    with db.engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    quota = event.listens_for(db.engine, "connect")(lambda dbapi, _: dbapi.execute(f"PRAGMA max_page_count={pages}"))
    db.engine.dispose()  # every new connection gets the quota
    try:
        with pytest.raises(StoreError) as refused:
            engine.stream_turn(tenant, user, conversation, QUESTION).consume()
    finally:
        event.remove(db.engine, "connect", quota)
        db.engine.dispose()
    message = str(refused.value)
    assert "could not be saved (database or disk is full)" in message and "Neither the question nor the answer" in message
    assert "/" not in message and "INSERT" not in message
    assert stored_answers(engine, conversation) == []
    with db.session() as session:
        assert session.scalars(select(Message).where(Message.conversation_id == conversation)).all() == []
