"""Curation of the shared graph by curators (issue 24): merge, rename, aliases, retire; audited, guarded against
personal data, refused to analysts; the resolver sends a merged concept's names and key to the survivor."""

from __future__ import annotations

import pytest

from regintel.errors import Forbidden, InputError
from regintel.graph.curation import GraphCuration
from regintel.graph.explorer import overview, searchable_names
from regintel.graph.guard import IngressRejected
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.write_service import GraphWriteService
from regintel.identity.audit import AuditLog
from regintel.identity.roles import Identity
from regintel.store import Database
from tests.graph_backends import backend_store

pytestmark = pytest.mark.slow  # an embedded graph server per test

CURATOR = Identity("t1", "alpha", "u1", "carol", "curator", "local")
ANALYST = Identity("t1", "alpha", "u2", "alice", "analyst", "local")
BREACH, LEAK = "DATA_PROTECTION|PERSONAL_DATA_BREACH|EU", "DATA_PROTECTION|DATA_LEAK|EU"


@pytest.fixture
def world(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'audit.db'}")
    db.create_schema()
    with backend_store("falkordb", tmp_path) as store:
        writer = GraphWriteService(store)
        writer.upsert_nodes("Section", [{"key": "eu-gdpr#art-33", "ref": "Article 33"}, {"key": "eu-gdpr#art-34", "ref": "Article 34"}])
        resolver = CanonicalConceptResolver(store)
        resolver.resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "PERSONAL_DATA_BREACH", "EU", "Personal data breach"))
        leak = resolver.resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "DATA_LEAK", "EU", "Data leak", ["leak of data"]))
        writer.upsert_edges("MENTIONED_IN", "Concept", "Section", [{"from": LEAK, "to": "eu-gdpr#art-34", "props": {"evidence": "x"}},
                                                                   {"from": BREACH, "to": "eu-gdpr#art-33"}])
        writer.upsert_edges("RELATES_TO", "Concept", "Concept", [{"from": LEAK, "to": BREACH}])
        audit = AuditLog(db)
        yield {"store": store, "curation": GraphCuration(store, audit), "audit": audit, "resolver": resolver, "leak_id": leak.id}
    db.dispose()


def linked(store, key: str) -> set[tuple[str, str]]:
    rows = store.query("MATCH (c:Concept {key: $key})-[e]->(m) RETURN type(e) AS t, coalesce(m.key, m.code) AS k", {"key": key})
    return {(r["t"], r["k"]) for r in rows}


def test_a_merge_moves_aliases_and_links_and_the_resolver_follows_it(world):
    store, curation = world["store"], world["curation"]
    curation.merge(LEAK, BREACH, by=CURATOR, why="same concept")
    survivor = linked(store, BREACH)
    assert {("MENTIONED_IN", "eu-gdpr#art-33"), ("MENTIONED_IN", "eu-gdpr#art-34")} <= survivor
    assert ("RELATES_TO", BREACH) not in survivor and not any(t != "HAS_LABEL" for t, _ in linked(store, LEAK))
    assert {"EU|data leak", "EU|leak of data"} <= {k for t, k in survivor if t == "HAS_LABEL"}
    state = curation.concept(LEAK)
    assert (state["status"], state["merged_into"]) == ("retired", BREACH)
    # the next chat turn that names the merged concept, by key or by one of its names, links to the survivor
    again = world["resolver"].resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "DATA_LEAK", "EU", "Data leak"))
    by_alias = world["resolver"].resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "OTHER", "EU", "leak of data"))
    assert again.key == BREACH == by_alias.key and again.id != world["leak_id"]
    assert LEAK not in {n["key"] for n in overview(store).nodes} and LEAK not in searchable_names(store)
    event = world["audit"].events(action="concept_merge")[0]
    assert (event.actor, event.target, event.detail["why"], event.detail["after"]) == ("carol", LEAK, "same concept", {"merged_into": BREACH})


def test_rename_keeps_the_old_name_as_an_alias_and_retire_hides(world):
    curation, store = world["curation"], world["store"]
    curation.rename(BREACH, "Breach of personal data", by=CURATOR, why="closer to the text")
    state = curation.concept(BREACH)
    assert state["pref_label"] == "Breach of personal data" and "Personal data breach" in state["alt_labels"]
    assert world["resolver"].resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "X", "EU", "breach of personal data")).key == BREACH
    curation.add_alias(BREACH, "PDB", by=CURATOR, why="acronym")
    curation.remove_alias(BREACH, "PDB", by=CURATOR, why="ambiguous")
    assert "PDB" not in curation.concept(BREACH)["alt_labels"] and "EU|pdb" not in curation.concept(BREACH)["label_keys"]
    curation.retire(BREACH, by=CURATOR, why="obsolete")
    assert BREACH not in {n["key"] for n in overview(store).nodes}
    curation.retire(BREACH, by=CURATOR, why="needed after all", retired=False)
    assert BREACH in {n["key"] for n in overview(store).nodes}
    assert [e.action for e in reversed(world["audit"].events())] == [
        "concept_rename", "concept_alias_add", "concept_alias_remove", "concept_retire", "concept_restore"]


def test_analysts_reasonless_changes_and_personal_data_are_refused_and_change_nothing(world):
    curation = world["curation"]
    before = curation.concept(BREACH)
    with pytest.raises(Forbidden):
        curation.merge(LEAK, BREACH, by=ANALYST, why="x")
    with pytest.raises(Forbidden):
        curation.rename(BREACH, "Other", by=ANALYST, why="x")
    with pytest.raises(InputError, match="why"):
        curation.retire(BREACH, by=CURATOR, why="  ")
    with pytest.raises(IngressRejected):
        curation.add_alias(BREACH, "jane.doe@example.com", by=CURATOR, why="contact")
    assert curation.concept(BREACH) == before and curation.concept(LEAK)["status"] != "retired"
    assert world["audit"].events() == []


def test_each_change_but_a_merge_can_be_undone_from_its_audit_record(world):
    curation = world["curation"]
    curation.rename(BREACH, "Breach of personal data", by=CURATOR, why="closer to the text")
    curation.add_alias(BREACH, "PDB", by=CURATOR, why="acronym")
    curation.remove_alias(BREACH, "leak", by=CURATOR, why="no such alias")  # a no-op remove, undone below adds it
    curation.retire(BREACH, by=CURATOR, why="obsolete")
    history = curation.changes(BREACH, by=CURATOR)
    assert [e.action for e in history] == ["concept_retire", "concept_alias_remove", "concept_alias_add", "concept_rename"]
    with pytest.raises(Forbidden):
        curation.undo(history[0].id, by=ANALYST, why="x")
    for event in history[:1] + history[2:]:
        curation.undo(event.id, by=CURATOR, why="too hasty")
    state = curation.concept(BREACH)
    assert (state["pref_label"], state["status"]) == ("Personal data breach", "active")
    assert "PDB" not in state["alt_labels"] and "EU|pdb" not in state["label_keys"]
    undone = world["audit"].events(action="concept_restore")[0]
    assert (undone.actor, undone.detail["why"]) == ("carol", "undo: too hasty")
    curation.merge(LEAK, BREACH, by=CURATOR, why="same concept")
    with pytest.raises(InputError, match="merge cannot be undone"):
        curation.undo(curation.changes(LEAK, by=CURATOR)[0].id, by=CURATOR, why="x")
    assert curation.concept(LEAK)["merged_into"] == BREACH
