"""The load benchmark's loss audit on a small real run: it reports nothing lost after concurrent sessions, and it
does notice a missing citation row, a missing trace and a missing concept node (so its zeros mean
something). The figures themselves are the benchmark's business (docs/reliability.md), not a test's."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, select

from regintel.bench.load import audit, make_plans, prepare, run_sessions, summarise
from regintel.runtime import RegIntel
from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.store.models import MessageCitation, RagTrace

pytestmark = pytest.mark.slow  # a load bench: concurrent sessions over the indexed demo corpus and a graph server


def test_concurrent_sessions_lose_nothing_and_the_audit_sees_tampering(tmp_path):
    base = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    overrides = prepare(base, tmp_path / "load", "", log=lambda *_: None)
    app = RegIntel(load_settings(**overrides))
    try:
        records = run_sessions(app, make_plans(sessions=4, turns=2, tenants=2, mode="threads"), "threads")
        figures = summarise(records, locked_logged=0)
        assert figures["turns"] == 8 and figures["errors"] == 0 and figures["database_locked"] == 0
        clean = audit(app.db, app.graph, records)
        assert clean["concepts_captured"] > 0
        assert {k: v for k, v in clean.items() if k != "concepts_captured"} == dict.fromkeys(
            [k for k in clean if k != "concepts_captured"], 0)

        victim = next(r for r in records if r.sources and r.concept_keys)
        with app.db.session() as session:
            citation = session.scalars(select(MessageCitation.id).where(MessageCitation.message_id == victim.message_id)).first()
            session.execute(delete(MessageCitation).where(MessageCitation.id == citation))
            session.execute(delete(RagTrace).where(RagTrace.id == victim.trace_id))
        # (a second node with the same key cannot be written: the graph has a unique constraint on Concept.key)
        app.graph.write("MATCH (c:Concept {key: $key}) DETACH DELETE c", {"key": victim.concept_keys[0]})
        tampered = audit(app.db, app.graph, records)
        assert tampered["citation_rows_missing"] == 1 and tampered["traces_missing"] == 1
        assert tampered["concepts_missing"] == 1 and tampered["messages_missing"] == 0
    finally:
        EmbeddedFalkorDB(tmp_path / "load" / "graph").shutdown(save=False)
