"""One conformance suite for every graph backend: schema, guarded writes, timestamps, reverse relations,
atomic batches, canonical concept resolution (including concurrency), seeding and change detection."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from regintel.graph.changes import GraphChangeDetector
from regintel.graph.guard import IngressRejected
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.seed import seed_graph
from regintel.graph.store import GraphQueryError
from regintel.graph.write_service import GraphWriteService
from tests.graph_backends import BACKENDS, backend_store

pytestmark = pytest.mark.slow  # graph servers: embedded FalkorDB, Neo4j, Memgraph

HOSTILE = ['"; MATCH (n) DETACH DELETE n //', "<img src=x onerror=alert(1)>", "') RETURN 1 UNION MATCH (n) DELETE n //"]


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    with backend_store(request.param, tmp_path) as store:
        yield store


def count(store, cypher: str = "MATCH (n) RETURN count(n) AS n", **params) -> int:
    return int(store.query(cypher, params)[0]["n"])


def test_schema_is_idempotent(store):
    store.ensure_schema()
    store.ensure_schema()
    assert store.ping()


def test_nodes_get_created_and_updated_timestamps(store):
    writer = GraphWriteService(store)
    writer.upsert_nodes("Rule", [{"key": "eu-gdpr", "title": "GDPR"}])
    first = store.query("MATCH (r:Rule {key: 'eu-gdpr'}) RETURN r.created_at AS c, r.updated_at AS u")[0]
    assert first["c"] == first["u"] and first["c"] > 1_600_000_000_000
    time.sleep(0.01)
    writer.upsert_nodes("Rule", [{"key": "eu-gdpr", "title": "General Data Protection Regulation"}])
    second = store.query("MATCH (r:Rule {key: 'eu-gdpr'}) RETURN r.created_at AS c, r.updated_at AS u, r.title AS t")[0]
    assert second["c"] == first["c"] and second["u"] > first["u"] and second["t"] == "General Data Protection Regulation"
    assert count(store, "MATCH (r:Rule) RETURN count(r) AS n") == 1


def test_semantic_relations_get_their_reverse_and_symmetric_ones_a_mirror(store):
    resolver = CanonicalConceptResolver(store)
    vat = resolver.resolve_or_create(CanonicalConceptInput("TAX", "VAT", "EU", "Value added tax"))
    tax = resolver.resolve_or_create(CanonicalConceptInput("TAX", "CONSUMPTION_TAX", "EU", "Consumption tax"))
    oss = resolver.resolve_or_create(CanonicalConceptInput("TAX", "OSS", "EU", "One Stop Shop"))
    writer = GraphWriteService(store)
    writer.upsert_edges("GENERALIZES", "Concept", "Concept", [{"from": tax.key, "to": vat.key, "props": {"explanation": "VAT is a consumption tax"}}])
    writer.upsert_edges("RELATES_TO", "Concept", "Concept", [{"from": vat.key, "to": oss.key}])
    rows = store.query("MATCH (a:Concept)-[e]->(b:Concept) RETURN a.kind AS a, type(e) AS t, b.kind AS b ORDER BY a, t, b")
    assert {(r["a"], r["t"], r["b"]) for r in rows} == {
        ("CONSUMPTION_TAX", "GENERALIZES", "VAT"), ("VAT", "SPECIFIC_OF", "CONSUMPTION_TAX"),
        ("VAT", "RELATES_TO", "OSS"), ("OSS", "RELATES_TO", "VAT")}
    edge = store.query("MATCH (:Concept)-[e:SPECIFIC_OF]->(:Concept) RETURN e.created_at AS c, e.explanation AS x")[0]
    assert edge["c"] > 0 and edge["x"] == "VAT is a consumption tax"


def test_batches_are_atomic(store):
    writer = GraphWriteService(store)
    writer.upsert_nodes("Jurisdiction", [{"key": "EU", "code": "EU", "name": "European Union"}])
    with pytest.raises(GraphQueryError):
        with writer.batch():
            writer.upsert_nodes("Rule", [{"key": "r1", "title": "first"}])
            writer._emit("CREATE (:Jurisdiction {code: $code})", {"code": "EU"})  # violates the unique constraint
    assert count(store, "MATCH (r:Rule) RETURN count(r) AS n") == 0


@pytest.mark.parametrize("label, key, props, reason", [
    ("Concept", "TAX|VAT|IE", {"definition": "Ask jean.dupont@example.ie for details"}, "personal data"),
    ("Concept", "TAX|VAT|IE", {"definition": "call +353 1 234 5678"}, "personal data"),
    ("Concept", "TAX|VAT|IE", {"user_id": "u1"}, "not allowed"),
    ("Concept", "TAX|VAT|IE", {"pref_label": "conversation 3f2b9c1e-8d4a-4c2e-9b1a-7e6f5d4c3b2a"}, "identifier"),
    ("Concept", "TAX|VAT|IE", {"definition": "x" * 5000}, "longer than"),
    ("Person", "p1", {}, "unknown node label"),
])
def test_guard_rejects_and_writes_nothing(store, label, key, props, reason):
    writer = GraphWriteService(store)
    with pytest.raises(IngressRejected, match=reason):
        writer.upsert_nodes(label, [{"key": key, **props}])
    assert count(store) == 0


def test_guard_rejects_unknown_relation_types(store):
    writer = GraphWriteService(store)
    with pytest.raises(IngressRejected, match="unknown relation type"):
        writer.upsert_edges("KNOWS]->(x) DETACH DELETE x //", "Concept", "Concept", [{"from": "a", "to": "b"}])
    with pytest.raises(IngressRejected, match="not allowed"):
        writer.upsert_edges("CITES", "Section", "Section", [{"from": "a", "to": "b", "props": {"conversation": "c1"}}])


def test_cypher_and_html_looking_strings_are_stored_as_plain_data(store):
    resolver = CanonicalConceptResolver(store)
    store_count_before = count(store)
    for text in HOSTILE:
        resolver.resolve_or_create(CanonicalConceptInput("TAX", "HOSTILE", "EU", "Hostile", [text], definition=text))
    labels = {r["t"] for r in store.query("MATCH (l:Label) RETURN l.text AS t")}
    assert set(HOSTILE) <= labels
    assert count(store) == store_count_before + 1 + 1 + len(HOSTILE)  # concept, pref label, 3 aliases


def test_alias_resolution_keeps_jurisdictions_apart(store):
    resolver = CanonicalConceptResolver(store)
    ie = resolver.resolve_or_create(CanonicalConceptInput("TAX", "VAT", "IE", "Value added tax", ["VAT", "sales tax in Ireland"]))
    es = resolver.resolve_or_create(CanonicalConceptInput("TAX", "VAT", "ES", "Impuesto sobre el valor añadido", ["IVA", "VAT"]))
    assert ie.created and es.created and ie.id != es.id
    again = resolver.resolve_or_create(CanonicalConceptInput("tax", "sales tax", "ie", "Sales tax in Ireland"))
    assert again.id == ie.id and again.matched_by == "alias" and not again.created
    by_key = resolver.resolve_or_create(CanonicalConceptInput("Tax", "vat", "IE", "VAT", ["Irish VAT"], "A consumption tax."))
    assert by_key.id == ie.id and by_key.matched_by == "key"
    row = store.query("MATCH (c:Concept {key: 'TAX|VAT|IE'}) RETURN c.alt_labels AS a, c.definition AS d, labels(c) AS l")[0]
    assert "Irish VAT" in row["a"] and row["d"] == "A consumption tax." and "TaxConcept" in row["l"]
    assert count(store, "MATCH (c:Concept) RETURN count(c) AS n") == 2


def _resolve_in_process(args) -> str:
    backend_kind, graph_dir, graph_name, payload = args
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore

    store = FalkorDBStore(graph_name, server=EmbeddedFalkorDB(graph_dir, snapshot_seconds=1))
    ids = [CanonicalConceptResolver(store).resolve_or_create(CanonicalConceptInput(**payload)).id for _ in range(5)]
    return ",".join(sorted(set(ids)))


def test_concurrent_resolution_from_threads_and_processes_yields_one_node(store):
    payload = dict(domain="DATA_PROTECTION", kind="PERSONAL_DATA_BREACH", jurisdiction="EU", pref_label="Personal data breach",
                   alt_labels=["data breach"])
    ids: list[str] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        resolver = CanonicalConceptResolver(store)
        barrier.wait()
        ids.append(resolver.resolve_or_create(CanonicalConceptInput(**payload)).id)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(ids)) == 1
    if getattr(store, "server", None) is not None:  # two more processes against the same embedded server
        context = multiprocessing.get_context("spawn")
        with context.Pool(2) as pool:
            results = pool.map(_resolve_in_process, [("falkordb", str(store.server.directory), store.graph_name, payload)] * 2)
        assert set(results) == {ids[0]}
    assert count(store, "MATCH (c:Concept) RETURN count(c) AS n") == 1
    assert count(store, "MATCH (l:Label) RETURN count(l) AS n") == 2


def test_seeding_from_real_articles(store):
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus
    from tests.conftest import CORPUS

    documents = [d for d in scan_corpus(CORPUS).documents if d.id in {"eu-gdpr", "eu-vat-directive-fr", "eu-vat-ir-282-2011-fr"}]
    chunks = [c for d in documents for c in chunk_document(d, read_document_text(d.path))]
    report = seed_graph(GraphWriteService(store), documents, chunks)
    assert report.rules == 3 and report.sections > 500 and report.citations > 300
    cited = {r["t"] for r in store.query("MATCH (:Section {key: 'eu-gdpr#art-6'})-[:CITES]->(t:Section) RETURN t.key AS t")}
    assert {"eu-gdpr#art-9", "eu-gdpr#art-23"} <= cited
    cross = store.query("MATCH (:Section {key: 'eu-vat-ir-282-2011-fr#art-3'})-[c:CITES]->(t:Section) RETURN t.key AS t, c.reference_text AS r")
    assert any(r["t"] == "eu-vat-directive-fr#art-56" for r in cross), "French IR article 3 cites article 56 of the Directive"
    assert count(store, "MATCH (:Section)-[:PART_OF_RULE]->(:Rule {key: 'eu-gdpr'}) RETURN count(*) AS n") > 90
    assert count(store, "MATCH (:Rule {key: 'eu-gdpr'})-[:IN_JURISDICTION]->(:Jurisdiction {code: 'EU'}) RETURN count(*) AS n") == 1
    again = seed_graph(GraphWriteService(store), documents, chunks)  # idempotent
    assert again.sections == report.sections
    assert count(store, "MATCH (s:Section) RETURN count(s) AS n") == report.sections


def test_change_detector_batches_and_classifies(store):
    clock = [0.0]
    writer = GraphWriteService(store)
    writer.upsert_nodes("Rule", [{"key": "before-start", "title": "written just before the detector starts"}])
    detector = GraphChangeDetector(store, batch_window_ms=500, clock=lambda: clock[0])
    detector.start_from_now()
    writer.upsert_nodes("Rule", [{"key": "r1", "title": "one"}, {"key": "r2", "title": "two"}])
    assert detector.poll() is None  # held for the batching window
    time.sleep(0.005)
    writer.upsert_nodes("Rule", [{"key": "r1", "title": "one, amended"}])
    writer.upsert_nodes("Jurisdiction", [{"key": "EU", "code": "EU"}])
    writer.upsert_edges("IN_JURISDICTION", "Rule", "Jurisdiction", [{"from": "r2", "to": "EU"}])
    clock[0] = 0.6
    patch = detector.poll()
    assert patch is not None
    assert {n["key"] for n in patch.nodes_added} == {"r1", "r2", "EU"}
    assert {n["key"] for n in patch.nodes_updated} == {"r1"}
    assert [(e["type"], e["source"], e["target"]) for e in patch.edges_added] == [("IN_JURISDICTION", "r2", "EU")]
    clock[0] = 2.0
    assert detector.poll() is None  # nothing new, and nothing reported twice


def test_polling_fallback_sees_the_same_changes_and_deletions(store):
    detector = GraphChangeDetector(store, mode="polling", batch_window_ms=0)
    detector.start_from_now()
    writer = GraphWriteService(store)
    writer.upsert_nodes("Rule", [{"key": "r1", "title": "one"}])
    patch = detector.poll()
    assert [n["key"] for n in patch.nodes_added] == ["r1"]
    store.write("MATCH (r:Rule {key: 'r1'}) DETACH DELETE r")
    patch = detector.poll()
    assert [n["key"] for n in patch.removed] == ["r1"]


@pytest.mark.parametrize("backend", ["neo4j"])
def test_a_query_running_past_the_timeout_is_ended_by_the_server_and_fails_as_an_outage(backend, tmp_path):
    """Neo4j ends a transaction that runs past the store's timeout (the driver's ``unit_of_work``): the caller gets
    GraphUnavailable in about that time instead of waiting on a runaway query; the next query works."""
    from regintel.graph.store import GraphUnavailable

    with backend_store(backend, tmp_path) as store:
        store.timeout = 1.0
        started = time.monotonic()
        with pytest.raises(GraphUnavailable, match="within 1 s"):
            store.query("UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS n")
        assert time.monotonic() - started < 30
        assert store.query("RETURN 1 AS n") == [{"n": 1}]
