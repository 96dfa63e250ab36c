"""The scale-out configuration run for real (issue 22 item 6): the Chroma server that the chromadb package ships,
PostgreSQL and Neo4j, all on 127.0.0.1 (``.ci/run`` starts them), shared by concurrent sessions in threads and in
two processes (each its own engine, as two Streamlit processes would be). Nothing may be lost: every turn has its
message, citations, trace and concept nodes (the load benchmark's audit), and no turn errs. The figures of the
same run at a larger size are in docs/deploy.md."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import text

from regintel.bench.load import audit, make_plans, prepare, run_processes, run_sessions, summarise
from regintel.config import REPO_ROOT, load_settings
from regintel.graph.factory import open_graph_store
from regintel.runtime import RegIntel
from regintel.store.db import Database
from tests.lanes import skip_lane

pytestmark = pytest.mark.slow  # three servers and concurrent sessions over the indexed demo corpus


@pytest.fixture
def servers():
    urls = {lane: os.environ.get(f"REGINTEL_TEST_{lane.upper()}_URL", "") for lane in ("chroma", "postgres", "neo4j")}
    for lane, url in urls.items():
        if not url:
            skip_lane(lane, f"REGINTEL_TEST_{lane.upper()}_URL not set")
    schema = f"scale_{uuid.uuid4().hex[:10]}"
    admin = Database(urls["postgres"])
    with admin.engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in urls["postgres"] else "?"
    urls["database"] = f"{urls['postgres']}{separator}options=-csearch_path%3D{schema}"
    urls["collection"] = schema
    try:
        yield urls
    finally:
        with admin.engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_threads_and_two_processes_share_chroma_postgres_and_neo4j_and_lose_nothing(servers, tmp_path):
    base = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings",
                         chroma_url=servers["chroma"], chroma_collection=servers["collection"], graph_backend="neo4j",
                         graph_url=servers["neo4j"], graph_name="neo4j")
    clear_graph = open_graph_store(base)
    clear_graph.clear()  # the Neo4j of the suite is shared: start from an empty graph (ingestion seeds it)
    clear_graph.close()
    overrides = prepare(base, tmp_path / "run", servers["database"], log=lambda *_: None)
    app = RegIntel(load_settings(**overrides))
    try:
        assert app.status().index.ready and app.graph is not None, app.graph_problem
        assert not (tmp_path / "run" / "chroma").exists()  # the vectors are on the server, not in the data dir
        records = run_sessions(app, make_plans(sessions=3, turns=2, tenants=2, mode="threads"), "threads")
        processes, _ = run_processes(overrides, make_plans(sessions=2, turns=2, tenants=2, mode="processes"), 2)
        figures = summarise(records + processes, locked_logged=0)
        assert figures["turns"] == 10 and figures["errors"] == 0, figures
        lost = audit(app.db, app.graph, records + processes)
        assert lost["concepts_captured"] > 0
        assert {k: v for k, v in lost.items() if k != "concepts_captured"} == dict.fromkeys(
            [k for k in lost if k != "concepts_captured"], 0), lost
    finally:
        app.close()
