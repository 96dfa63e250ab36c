"""Isolation and secrets (issues 8 and 17), against the real embedded stores (SQLite, Chroma, BM25, embedded
FalkorDB).

Why: the tenant id is the wall between customers, and the pages reach stored data only through a few functions
(ConversationRepository, ResponseCache, the dashboard and trace loaders). Two tenants get real, different data;
every one of those functions is called as tenant A and must return A's rows alone, treat B's ids exactly like ids
that do not exist, and give dashboard figures equal to what A alone produced. The pages themselves are then run
as signed-in users of both tenants (the tenant comes from the sign-in, and ``?t=``, ``?u=``, ``?c=`` and
``?trace=`` naming B change nothing). A recognisable API key and a database password must never reach logs,
traces, errors or stored rows, even when the LLM server fails or echoes the key back; and an enforce egress policy
must stop a chat turn before anything is sent."""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import select

from regintel.analytics.dashboard import feedback_csv, load_feedback, load_turns, summarise
from regintel.analytics.traces import search_traces, step
from regintel.chat.cache import cache_key
from regintel.runtime import RegIntel
from regintel.chat.repository import NotFound
from regintel.config import load_settings
from regintel.errors import SettingsError, StoreError
from regintel.llm.router import LlmRouter
from regintel.store import Database
from regintel.store.models import Base, ConversationContext, Message, ResponseCacheEntry, Tenant
from tests.conftest import engine_world
from tests.llm_server import LlmTestServer, chat_chunk

pytestmark = pytest.mark.slow  # the indexed demo corpus, an embedded graph server and the engine (engine_world)

SHARED = "What must a controller do when a personal data breach occurs?"  # asked by both tenants
A_ONLY = ["are you sure?", "What are the conditions for consent under the GDPR?",
          "What is the minimum leverage ratio required by Basel III?"]
B_ONLY = ["What must financial entities report about major ICT-related incidents?",
          "How do I bake a sourdough bread with a crispy crust?"]
MARKER = "B-ONLY cached answer: tenant B planted this in its own cache entry."
KEY = "sk-test-SECRET-1234567890abcdef"
DB_PASSWORD = "SECRETPW"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with engine_world(tmp_path_factory.mktemp("isolation"), "isolation") as built:
        yield built


def ask(engine, tenant_id, user_id, conversation_id, question):
    stream = engine.stream_turn(tenant_id, user_id, conversation_id, question)
    deltas = list(stream)
    return deltas, stream.response


@pytest.fixture(scope="module")
def two(world):
    """Tenant B asks first (and plants a marker answer in its own cache entry), then tenant A asks the identical
    question and others; both give feedback with different ratings and comments."""
    engine, repo = world["engine"], world["engine"].repo
    tenants = {}
    for name, users in (("tenant-b", ["bob", "bea"]), ("tenant-a", ["ana", "alex"])):
        tenant = repo.ensure_tenant(name)
        tenants[name] = {"id": tenant.id, "users": {u: repo.ensure_user(tenant.id, u).id for u in users},
                         "conversations": [], "responses": [], "feedback": []}
    a, b = tenants["tenant-a"], tenants["tenant-b"]

    def turn(side, user, conversation, question):
        _, response = ask(engine, side["id"], side["users"][user], conversation, question)
        side["responses"].append(response)
        return response

    def conversation(side, user):
        cid = repo.create_conversation(side["id"], side["users"][user]).id
        side["conversations"].append(cid)
        return cid

    b_first = turn(b, "bob", conversation(b, "bob"), SHARED)
    with world["db"].session() as session:
        (entry,) = session.scalars(select(ResponseCacheEntry).where(ResponseCacheEntry.tenant_id == b["id"])).all()
        entry.response = {**entry.response, "answer": MARKER}
    b["key"] = entry.key
    b_cached = turn(b, "bea", conversation(b, "bea"), SHARED)
    b_ict = turn(b, "bob", conversation(b, "bob"), B_ONLY[0])
    turn(b, "bob", conversation(b, "bob"), B_ONLY[1])

    a_first = turn(a, "ana", conversation(a, "ana"), SHARED)
    a_follow = turn(a, "ana", a["conversations"][0], A_ONLY[0])
    a_consent = turn(a, "alex", conversation(a, "alex"), A_ONLY[1])
    turn(a, "ana", conversation(a, "ana"), A_ONLY[2])

    for side, user, response, rating, comment in (
            (a, "ana", a_first, 1, "A: clear answer"), (a, "ana", a_follow, 1, "A: still clear"),
            (a, "alex", a_consent, -1, "A: missing Article 7"),
            (b, "bob", b_first, -1, "B-SECRET: wrong regulator"), (b, "bea", b_cached, 1, "B-SECRET: fine"),
            (b, "bob", b_ict, -1, "B-SECRET: no DORA article")):
        repo.save_feedback(side["id"], side["users"][user], response.message_id, rating, comment)
        side["feedback"].append((response.message_id, rating, comment, user))
    return {"a": a, "b": b, "first": {"a": a_first, "b": b_first, "b_cached": b_cached}}


def period():
    now = datetime.now(timezone.utc)
    return now - timedelta(days=1), now + timedelta(days=1)


def message_ids(side) -> set[str]:
    return {r.message_id for r in side["responses"]}


# -- (a) tenant isolation ---------------------------------------------------------------------------------------
def test_conversation_lists_users_and_turns_hold_only_own_rows(world, two):
    repo, a, b = world["engine"].repo, two["a"], two["b"]
    assert {c.id for c in repo.conversations(a["id"])} == set(a["conversations"])
    assert {c.id for c in repo.conversations(b["id"])} == set(b["conversations"])
    for name, user_id in a["users"].items():
        assert {c.user_id for c in repo.conversations(a["id"], user_id)} == {user_id}
    for user_id in b["users"].values():
        assert repo.conversations(a["id"], user_id) == [], "B's user id with A's tenant lists nothing"
    assert {u.name for u in repo.users(a["id"])} == set(a["users"])
    seen = set()
    for conversation in a["conversations"]:
        for turn in repo.turns(a["id"], conversation):
            seen.add(turn.response.message_id)
            assert turn.question in [SHARED, *A_ONLY] and MARKER not in turn.answer
    assert seen == message_ids(a)
    assert repo.feedback_for(a["id"], two["first"]["a"].message_id).comment == "A: clear answer"
    for message_id in message_ids(b):
        assert repo.feedback_for(a["id"], message_id) is None


FOREIGN_CALLS = {
    "conversation": lambda repo, engine, a, b: repo.conversation(a["id"], b["conversation"]),
    "turns": lambda repo, engine, a, b: repo.turns(a["id"], b["conversation"]),
    "completed_turns": lambda repo, engine, a, b: repo.completed_turns(a["id"], b["conversation"]),
    "rename_conversation": lambda repo, engine, a, b: repo.rename_conversation(a["id"], b["conversation"], "hijacked"),
    "delete_conversation": lambda repo, engine, a, b: repo.delete_conversation(a["id"], b["conversation"]),
    "trace": lambda repo, engine, a, b: repo.trace(a["id"], b["trace"]),
    "message_in_tenant": lambda repo, engine, a, b: repo.message_in_tenant(a["id"], b["message"]),
    "save_feedback": lambda repo, engine, a, b: repo.save_feedback(a["id"], a["user"], b["message"], 1, "A was here"),
    "user_in_tenant": lambda repo, engine, a, b: repo.user_in_tenant(a["id"], b["user"]),
    "create_conversation": lambda repo, engine, a, b: repo.create_conversation(a["id"], b["user"]),
    "stream_turn": lambda repo, engine, a, b: engine.stream_turn(a["id"], a["user"], b["conversation"], SHARED),
}


@pytest.mark.parametrize("call", list(FOREIGN_CALLS))
def test_b_ids_with_a_tenant_raise_not_found_like_missing_ids(world, two, call):
    engine, repo, a, b = world["engine"], world["engine"].repo, two["a"], two["b"]
    real = {"conversation": b["conversations"][0], "trace": two["first"]["b"].trace_id,
            "message": two["first"]["b"].message_id, "user": b["users"]["bob"]}
    missing = {k: str(uuid.uuid4()) for k in real}
    own = {"id": a["id"], "user": a["users"]["ana"]}
    before = [(t.question, t.answer, t.response.message_id) for t in repo.turns(b["id"], real["conversation"])]
    with pytest.raises(NotFound) as foreign:
        FOREIGN_CALLS[call](repo, engine, own, real)
    with pytest.raises(NotFound) as absent:
        FOREIGN_CALLS[call](repo, engine, own, missing)
    as_missing = str(foreign.value)
    for kind in real:
        as_missing = as_missing.replace(real[kind], missing[kind])
    assert as_missing == str(absent.value), "the error must not reveal that B's id exists"
    # nothing of B changed
    assert repo.conversation(b["id"], real["conversation"]).title == SHARED[:80]
    assert [(t.question, t.answer, t.response.message_id) for t in repo.turns(b["id"], real["conversation"])] == before
    assert repo.feedback_for(b["id"], real["message"]).comment == "B-SECRET: wrong regulator"


def test_active_concepts_of_b_are_neither_readable_nor_writable_by_a(world, two):
    repo, a, b = world["engine"].repo, two["a"], two["b"]
    with_concepts = [r.conversation_id for r in two["b"]["responses"] if r.referenced_nodes]
    assert with_concepts, "the offline provider captured concepts for B"
    for conversation in with_concepts:
        assert repo.active_concepts(b["id"], conversation) != []
        assert repo.active_concepts(a["id"], conversation) == []
        with pytest.raises(NotFound):
            repo.add_active_concepts(a["id"], conversation, [{"id": "a-node", "key": "A", "label": "A"}])
    fresh = repo.create_conversation(b["id"], b["users"]["bob"]).id  # no context row yet
    with pytest.raises(NotFound):
        repo.add_active_concepts(a["id"], fresh, [{"id": "a-node", "key": "A", "label": "A"}])
    with world["db"].session() as session:
        assert session.get(ConversationContext, fresh) is None, "A must not create a context row in B's conversation"
    assert repo.add_active_concepts(b["id"], fresh, [{"id": "b-node", "key": "B", "label": "B"}]) == ["b-node"]
    repo.delete_conversation(b["id"], fresh)


def test_response_cache_never_serves_b_answer_to_a(world, two):
    engine, a, b, first = world["engine"], two["a"], two["b"], two["first"]
    assert first["b_cached"].from_cache and first["b_cached"].answer == MARKER, "B's planted entry is live for B"
    assert not first["a"].from_cache and MARKER not in first["a"].answer
    lookup = step(engine.repo.trace(a["id"], first["a"].trace_id).steps, "cache_lookup")
    with world["db"].session() as session:
        entries = session.scalars(select(ResponseCacheEntry)).all()
    assert lookup == {"step": "cache_lookup", "hit": False, "ms": lookup["ms"]}
    fingerprint = engine.settings_fingerprint()
    key_a = cache_key(SHARED, a["id"], engine.corpus_version, fingerprint)
    assert cache_key(SHARED, b["id"], engine.corpus_version, fingerprint) == b["key"] != key_a
    assert engine.cache.get(b["key"], a["id"]) is None
    assert engine.cache.get(b["key"], b["id"])["answer"] == MARKER
    assert engine.cache.get(key_a, a["id"])["answer"] == first["a"].answer
    for side, questions in ((a, {SHARED, *A_ONLY}), (b, {SHARED, *B_ONLY})):
        assert {e.question for e in entries if e.tenant_id == side["id"]} <= questions
    assert not any(MARKER in json.dumps(e.response) for e in entries if e.tenant_id != b["id"])
    assert engine.cache.count(a["id"]) == sum(e.tenant_id == a["id"] for e in entries) > 0


def test_dashboard_figures_for_a_equal_what_a_alone_produced(world, two):
    db, a, b = world["db"], two["a"], two["b"]
    start, end = period()
    turns, feedback = load_turns(db, a["id"], start, end), load_feedback(db, a["id"], start, end)
    assert set(turns["message_id"]) == message_ids(a) and len(turns) == len(a["responses"])
    assert set(turns["conversation_id"]) == set(a["conversations"])
    assert set(turns["question"]) <= {SHARED, *A_ONLY} and not turns["answer"].str.contains(MARKER, regex=False).any()
    rows = set(feedback[["message_id", "rating", "comment", "user"]].itertuples(index=False, name=None))
    assert rows == set(a["feedback"])

    summary = summarise(turns, feedback, top=1000)
    responses = a["responses"]
    ratings = [rating for _, rating, _, _ in a["feedback"]]
    assert summary.questions == len(responses)
    assert (summary.thumbs_up, summary.thumbs_down) == (ratings.count(1), ratings.count(-1))
    assert summary.satisfaction == round(ratings.count(1) / len(ratings), 4)
    assert list(summary.negative_feedback["comment"]) == [c for _, r, c, _ in a["feedback"] if r < 0]
    modes = [r.response_mode for r in responses]
    assert summary.mode_shares == {m: round(modes.count(m) / len(modes), 4) for m in ("DIRECT", "QUALIFIED", "ABSTAIN")}
    assert summary.abstention_reasons == dict(Counter(r.abstention_reason for r in responses if r.abstention_reason))
    rates = [r.claim_verification["verification_rate"] for r in responses if r.claim_verification]
    assert summary.verification_rate == round(sum(rates) / len(rates), 4)
    assert summary.cache_hit_rate == round(sum(r.from_cache for r in responses) / len(responses), 4)
    latency = pd.Series([r.latency_ms for r in responses])
    assert summary.latency_p50_ms == round(float(latency.quantile(0.5)), 1)
    assert summary.latency_p95_ms == round(float(latency.quantile(0.95)), 1)
    assert summary.failed == sum(r.status == "failed" for r in responses)
    assert int(summary.per_day.to_numpy().sum()) == len(responses)
    assert sorted(summary.confidence_scores) == sorted(r.confidence["score"] for r in responses)
    assert sorted(summary.authority_scores) == sorted(r.authority["score"] for r in responses)
    assert dict(summary.top_concepts) == dict(Counter(n["label"] or n["key"] for r in responses for n in r.concept_nodes))

    csv = feedback_csv(feedback).decode()
    assert "A: missing Article 7" in csv
    assert "B-SECRET" not in csv and not any(q in csv for q in B_ONLY) and "bob" not in csv
    # B's own figures differ, so a mixed-up query could not pass the checks above
    b_summary = summarise(load_turns(db, b["id"], start, end), load_feedback(db, b["id"], start, end))
    assert (b_summary.questions, b_summary.thumbs_up, b_summary.thumbs_down) == (len(b["responses"]), 1, 2)
    assert (b_summary.thumbs_up, b_summary.thumbs_down) != (summary.thumbs_up, summary.thumbs_down)


def test_trace_search_and_trace_rows_show_only_own_turns(world, two):
    db, repo, a, b = world["db"], world["engine"].repo, two["a"], two["b"]
    start, end = period()
    found = search_traces(db, a["id"], start, end)
    assert set(found["trace_id"]) == {r.trace_id for r in a["responses"]}
    assert set(found["question"]) <= {SHARED, *A_ONLY}
    for conversation in b["conversations"]:
        assert search_traces(db, a["id"], start, end, conversation_id=conversation).empty
    for mode in ("DIRECT", "QUALIFIED", "ABSTAIN"):
        by_mode = search_traces(db, a["id"], start, end, response_mode=mode)
        assert set(by_mode["trace_id"]) == {r.trace_id for r in a["responses"] if r.response_mode == mode}
    for response in a["responses"]:
        trace = repo.trace(a["id"], response.trace_id)
        assert trace.conversation_id in a["conversations"]
        text = json.dumps(trace.steps) + trace.question
        assert MARKER not in text and not any(q in text for q in B_ONLY)
    with db.session() as session:
        stored = session.scalars(select(Message).where(Message.conversation_id.in_(a["conversations"]))).all()
    assert {m.id for m in stored if m.role == "assistant"} == message_ids(a)
    assert not any(MARKER in m.content or m.content in B_ONLY for m in stored)


# -- (a') the pages as signed-in users (issue 17): tenant and user come from sign-in, never from the URL ----------
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def accounts(world, two):
    """Local accounts for A's ana (admin) and alex (analyst) and B's bob (admin): the users who own the data."""
    accounts = world["app"].accounts
    for tenant, login, role in (("tenant-a", "ana", "admin"), ("tenant-a", "alex", "analyst"), ("tenant-b", "bob", "admin")):
        accounts.add(tenant, login, PASSWORD, role)
    return accounts


def open_page(monkeypatch, world, login: str | None, script: str, **params: str):
    """Run app.py like ``streamlit run`` over the world's data, sign in through the form as ``login`` (None: stay
    signed out), then open ``script`` with ``params`` in the URL."""
    from streamlit.testing.v1 import AppTest
    import streamlit as st

    from regintel.config import REPO_ROOT, get_settings

    settings = world["settings"]
    for name, value in (("DATA_DIR", settings.data_dir), ("CORPUS_DIR", settings.corpus_dir),
                        ("EMBEDDING_SEED_CACHE", settings.embedding_seed_cache)):
        monkeypatch.setenv(f"REGINTEL_{name}", str(value))
    get_settings.cache_clear()
    st.cache_resource.clear()
    page = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=300).run()
    assert [t.value for t in page.title] == ["Sign in to RegIntel Copilot"]
    if login is not None:
        page.text_input[0].input(login)
        page.text_input[1].input(PASSWORD)
        next(b for b in page.button if b.label == "Sign in").click().run()
        assert any(f"Signed in as **{login}**" in c.value for c in page.caption), [c.value for c in page.caption]
    for name, value in params.items():
        page.query_params[name] = value
    (page.switch_page(script) if script else page).run()
    assert not page.exception, page.exception
    return page


def shown(page) -> str:
    """Every text the page rendered (markdown, captions, alerts, buttons, metrics, tables)."""
    parts = [e.value for kind in ("markdown", "caption", "info", "error", "warning", "success", "title", "header",
                                  "subheader", "text") for e in getattr(page, kind)]
    parts += [b.label for b in page.button] + [f"{m.label}={m.value}" for m in page.metric]
    parts += [frame.value.to_csv() for frame in page.dataframe]
    return "\n".join(str(p) for p in parts)


def b_traces(two) -> list[str]:
    return [r.trace_id for r in two["b"]["responses"]]


def test_signed_out_every_page_shows_only_sign_in(monkeypatch, world, two, accounts):
    page = open_page(monkeypatch, world, None, "", c=two["b"]["conversations"][0], t="tenant-b", u="bob",
                     trace=b_traces(two)[0])
    text = shown(page)
    assert [t.value for t in page.title] == ["Sign in to RegIntel Copilot"]
    assert MARKER not in text and "B-SECRET" not in text and not any(q in text for q in B_ONLY)
    assert "Signed in as" not in text and not page.metric and not page.dataframe
    for script in ("views/0_Home.py", "views/1_Chat.py", "views/3_Feedback_Dashboard.py", "views/4_Traces.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            page.switch_page(script)  # no page script is registered before sign-in


def test_chat_as_a_user_of_a_never_opens_b_conversations_whatever_the_url_says(monkeypatch, world, two, accounts):
    b = two["b"]
    page = open_page(monkeypatch, world, "ana", "views/1_Chat.py", c=b["conversations"][0], t="tenant-b", u="bob")
    text = shown(page)
    assert "tenant **tenant\\-a**" in text  # the tenant name is shown as text: markdown characters escaped
    assert MARKER not in text and not any(q in text for q in B_ONLY) and "B-SECRET" not in text
    own = {c.title for c in world["engine"].repo.conversations(two["a"]["id"], two["a"]["users"]["ana"])}
    listed = {b.label for b in page.button} - {"Sign out", "New conversation"}
    assert listed and listed <= {t[:60] for t in own}, listed  # ana's own conversations only
    assert page.query_params.get("t") == "tenant-b"  # ignored, not obeyed


def test_no_page_view_creates_a_tenant_or_a_user_or_offers_re_index_to_an_analyst(monkeypatch, world, two, accounts):
    from sqlalchemy import func

    from regintel.store.models import User

    def counts():
        with world["db"].session() as session:
            return (session.scalar(select(func.count()).select_from(Tenant)), session.scalar(select(func.count()).select_from(User)))

    before = counts()
    for script in ("views/0_Home.py", "views/1_Chat.py"):
        page = open_page(monkeypatch, world, "alex", script, t="brand-new-tenant", u="brand-new-user")
        labels = {b.label for b in page.button}
        assert not labels & {"Build index", "Re-index corpus"}, labels  # re-index is an admin action
    page = open_page(monkeypatch, world, None, "", t="brand-new-tenant", u="brand-new-user")
    assert counts() == before


def test_dashboard_and_traces_as_a_admin_show_a_alone(monkeypatch, world, two, accounts):
    page = open_page(monkeypatch, world, "ana", "views/3_Feedback_Dashboard.py", t="tenant-b")
    questions = next(m for m in page.metric if m.label == "Questions")
    assert questions.value == str(len(two["a"]["responses"]))
    assert "B-SECRET" not in shown(page)
    for trace_id in b_traces(two):
        page = open_page(monkeypatch, world, "ana", "views/4_Traces.py", trace=trace_id, t="tenant-b")
        assert any("Unknown trace for this tenant." in e.value for e in page.error)
        assert MARKER not in shown(page) and not any(q in shown(page) for q in B_ONLY)
    page = open_page(monkeypatch, world, "bob", "views/4_Traces.py", trace=b_traces(two)[0])
    assert any(q in shown(page) for q in [SHARED, *B_ONLY]), "B's admin opens B's own trace"


def test_an_analyst_reaches_no_admin_page_by_address(monkeypatch, world, two, accounts):
    page = open_page(monkeypatch, world, "alex", "views/1_Chat.py")
    for script in ("views/4_Traces.py", "views/3_Feedback_Dashboard.py", "views/6_Admin.py", "views/5_Extraction_Review.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            page.switch_page(script)  # not in an analyst's navigation


@pytest.mark.parametrize("script", ["views/4_Traces.py", "views/3_Feedback_Dashboard.py", "views/6_Admin.py",
                                    "views/5_Extraction_Review.py"])
def test_each_page_checks_the_role_itself(monkeypatch, world, two, accounts, script):
    """Run a page script on its own (no navigation in front of it) as the signed-in analyst, then signed out."""
    from streamlit.testing.v1 import AppTest

    from regintel.config import REPO_ROOT

    alex = accounts.identity(two["a"]["users"]["alex"], "local")
    for identity, expected in ((alex, "does not allow"), (None, "Sign in first")):
        open_page(monkeypatch, world, None, "")  # settings and cached runtime of the world
        page = AppTest.from_file(str(REPO_ROOT / script), default_timeout=300)
        if identity is not None:
            page.session_state["regintel_identity"] = identity
        page.query_params["trace"] = two["a"]["responses"][0].trace_id
        page.run()
        text = shown(page)
        assert any(expected in e.value for e in page.error), (script, text)
        assert "Retrieved passages" not in text and "Audit trail" not in text and not page.metric, script
        assert not any(q in text for q in [SHARED, *A_ONLY]), script


# -- (b) secrets ------------------------------------------------------------------------------------------------
def _answer(handler):
    handler.start_stream()
    for piece in ["The controller shall notify ", "the personal data breach ", "to the supervisory authority. [1]"]:
        handler.sse(chat_chunk(content=piece))
    handler.sse(chat_chunk(finish="stop"))
    handler.sse("[DONE]")
    handler.end_stream()


def _echo_key(status):
    def script(handler):  # a server that echoes the credentials back: the worst case
        handler.json_error(status, f"rejected credentials {handler.headers.get('Authorization')}")
    return script


def _dropped(handler):
    handler.start_stream()
    handler.sse(chat_chunk(content="The controller shall notify "))
    handler.drop()


SCRIPTS = {"answer": _answer, "http_401": _echo_key(401), "http_500": _echo_key(500), "dropped": _dropped}


def _everything_stored(db: Database) -> str:
    with db.session() as session:
        return "\n".join(repr(row) for table in Base.metadata.sorted_tables for row in session.execute(select(table)))


def _sql_files(settings) -> bytes:
    path = Path(settings.sql_url.removeprefix("sqlite:///"))
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


@pytest.mark.parametrize("case", list(SCRIPTS))
def test_api_key_never_reaches_logs_traces_errors_or_rows(world, caplog, case):
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "httpx", "httpcore", "regintel"):
        caplog.set_level(logging.DEBUG, logger=name)
    with LlmTestServer() as server:
        server.scripts = [SCRIPTS[case]]
        settings = load_settings(data_dir=world["settings"].data_dir, llm_provider="openai-compatible",
                                 llm_base_url=server.base_url, llm_api_key=KEY, llm_max_retries=1)
        router = LlmRouter(settings, sleep=lambda _: None)
        engine = RegIntel(settings, db=world["db"], index=world["index"], graph=None, router=router).chat
        tenant = engine.repo.ensure_tenant(f"secrets-{case}")
        user = engine.repo.ensure_user(tenant.id, "sam")
        conversation = engine.repo.create_conversation(tenant.id, user.id).id
        deltas, response = ask(engine, tenant.id, user.id, conversation, SHARED)
    assert server.requests and all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in server.requests), \
        "the key was really configured and sent"
    expected = {"answer": ("complete", 1), "http_401": ("failed", 1), "http_500": ("failed", 2), "dropped": ("failed", 1)}
    assert (response.status, len(server.requests)) == expected[case]
    if case == "http_401":
        assert "REGINTEL_LLM_API_KEY" in response.error
    trace = engine.repo.trace(tenant.id, response.trace_id)
    places = {
        "logs": caplog.text + "\n".join(repr(r.__dict__) for r in caplog.records),
        "deltas": "".join(deltas), "response": json.dumps(response.to_dict()), "error": response.error,
        "trace": json.dumps(trace.steps), "turns": repr([t.response for t in engine.repo.turns(tenant.id, conversation)]),
        "rows": _everything_stored(world["db"]), "sql files": _sql_files(world["settings"]).decode("utf-8", "replace"),
        "describe": json.dumps(router.describe()), "settings": repr(settings) + str(settings) + settings.model_dump_json(),
    }
    assert step(trace.steps, "llm")["llm"] == router.describe()
    for secret in (KEY, KEY.removeprefix("sk-test-")):
        leaked = [place for place, text in places.items() if secret in text]
        assert leaked == [], f"the API key appears in {leaked}"


def test_unreachable_database_error_names_the_setting_and_hides_the_password(world, caplog):
    caplog.set_level(logging.DEBUG)
    url = f"postgresql://user:{DB_PASSWORD}@127.0.0.1:1/db"
    settings = load_settings(data_dir=world["settings"].data_dir, database_url=url)
    with pytest.raises(StoreError) as caught:
        RegIntel(settings, index=world["index"], graph=None).chat
    message = str(caught.value)
    assert "REGINTEL_DATABASE_URL" in message and "127.0.0.1" in message
    everything = message + "".join(traceback.format_exception(caught.value)) + caplog.text
    assert DB_PASSWORD not in everything
    assert DB_PASSWORD not in repr(settings) + str(settings), "printing the settings must not show the password"
    with pytest.raises(SettingsError, match="REGINTEL_DATABASE_URL") as invalid:
        load_settings(database_url=f"mysql://user:{DB_PASSWORD}@127.0.0.1/db")
    assert DB_PASSWORD not in str(invalid.value)


# -- (c) egress through the engine ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode, allowed, sent", [
    ("enforce", ["api.groq.com"], False),
    ("off", ["api.groq.com"], False),  # the tenant may not turn the guard off: enforced
    ("enforce", ["127.0.0.1"], True),
    ("report-only", ["api.groq.com"], True),
])
def test_tenant_egress_policy_decides_whether_the_turn_reaches_the_llm(world, mode, allowed, sent):
    with LlmTestServer() as server:
        server.scripts = [_answer]
        settings = load_settings(data_dir=world["settings"].data_dir, llm_provider="openai-compatible",
                                 llm_base_url=server.base_url, egress_mode="enforce", llm_max_retries=0)
        engine = RegIntel(settings, db=world["db"], index=world["index"], graph=None, router=LlmRouter(settings)).chat
        assert "127.0.0.1" in engine.router.egress.default_allowed, "without the tenant policy the host is allowed"
        tenant_id = engine.repo.ensure_tenant(f"egress-{mode}-{allowed[0]}").id
        with world["db"].session() as session:
            tenant = session.get(Tenant, tenant_id)
            tenant.egress_mode, tenant.allowed_destinations, tenant.allow_off_mode = mode, allowed, False
        user = engine.repo.ensure_user(tenant_id, "eve")
        conversation = engine.repo.create_conversation(tenant_id, user.id).id
        question = SHARED + " Reply to maria@example.es please."
        deltas, response = ask(engine, tenant_id, user.id, conversation, question)
    egress = step(engine.repo.trace(tenant_id, response.trace_id).steps, "llm")["egress"]
    if not sent:
        assert server.requests == [], "nothing may reach a destination the tenant does not allow"
        assert deltas == [] and response.status == "failed" and response.response_mode == "ABSTAIN"
        assert "egress policy" in response.error and "127.0.0.1" in response.error and response.error in response.answer
        assert egress == {"mode": "enforce", "destination": "127.0.0.1", "allowed": False, "blocked": True}
        assert engine.repo.completed_turns(tenant_id, conversation) == []
        assert engine.cache.count(tenant_id) == 0
    else:
        assert len(server.requests) == 1 and response.status == "complete"
        assert egress["mode"] == mode and egress["allowed"] is True and egress["pii_counts"] == {"EMAIL": 1}
        assert bool(egress["violations"]) == (mode == "report-only")
        assert "maria@example.es" not in json.dumps(server.requests[0]["body"]), "the sent prompt is sanitised"
