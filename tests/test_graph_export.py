"""Graph export (issue 24): GraphML that networkx parses with the graph's node and edge counts, JSON lines, and a
Cypher script that loads into an empty graph (FalkorDB here, the CI's Neo4j in its lane) with the same counts and
values, hostile text included."""

from __future__ import annotations

import io
import json

import networkx as nx
import pytest

from regintel.graph.export import read_graph, to_cypher, to_graphml, to_jsonl
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.write_service import GraphWriteService
from tests.graph_backends import backend_store

pytestmark = pytest.mark.slow  # an embedded graph server per test

TRICKY = 'Quote "marks", back\\slash, `tick`, newline\nand }) MATCH (n) DETACH DELETE n //'


def build(store) -> None:
    writer = GraphWriteService(store)
    writer.upsert_nodes("Jurisdiction", [{"key": "EU", "code": "EU", "name": "EU"}])
    writer.upsert_nodes("Rule", [{"key": "eu-gdpr", "title": "GDPR", "short_title": "GDPR", "jurisdiction": "EU"}])
    writer.upsert_nodes("Section", [{"key": "eu-gdpr#art-33", "rule_key": "eu-gdpr", "ref": "Article 33",
                                     "heading": TRICKY}])
    writer.upsert_edges("IN_JURISDICTION", "Rule", "Jurisdiction", [{"from": "eu-gdpr", "to": "EU"}])
    writer.upsert_edges("PART_OF_RULE", "Section", "Rule", [{"from": "eu-gdpr#art-33", "to": "eu-gdpr"}])
    resolver = CanonicalConceptResolver(store)
    breach = resolver.resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "PERSONAL_DATA_BREACH", "EU",
                                                              "Personal data breach", ["data breach"]))
    writer.upsert_edges("MENTIONED_IN", "Concept", "Section", [{"from": breach.key, "to": "eu-gdpr#art-33",
                                                                "props": {"evidence": TRICKY}}])


def counts(store) -> tuple[int, int]:
    return (store.query("MATCH (n) RETURN count(n) AS n")[0]["n"], store.query("MATCH ()-[e]->() RETURN count(e) AS n")[0]["n"])


def test_graphml_and_json_lines_hold_every_node_and_edge(tmp_path):
    with backend_store("falkordb", tmp_path) as store:
        build(store)
        nodes, edges = counts(store)
        dump = read_graph(store)
    parsed = nx.read_graphml(io.BytesIO(to_graphml(dump).encode("utf-8")))
    assert (parsed.number_of_nodes(), parsed.number_of_edges()) == (nodes, edges)
    assert parsed.nodes["eu-gdpr#art-33"]["heading"] == TRICKY
    assert parsed.nodes["DATA_PROTECTION|PERSONAL_DATA_BREACH|EU"]["label"].startswith("Concept")
    lines = [json.loads(line) for line in to_jsonl(dump).splitlines()]
    assert [line["kind"] for line in lines].count("node") == nodes and len(lines) == nodes + edges


@pytest.mark.parametrize("target", ["falkordb", "neo4j"])
def test_the_cypher_script_loads_into_an_empty_graph_with_the_same_counts(tmp_path, target):
    with backend_store("falkordb", tmp_path / "source") as source:
        build(source)
        expected = counts(source)
        script = to_cypher(read_graph(source))
    with backend_store(target, tmp_path / "target") as loaded:
        for statement in filter(None, script.splitlines()):
            loaded.write(statement.rstrip(";"))
        assert counts(loaded) == expected
        row = loaded.query("MATCH (:Concept)-[e:MENTIONED_IN]->(s:Section) RETURN e.evidence AS evidence, s.heading AS heading")
        assert row == [{"evidence": TRICKY, "heading": TRICKY}]
        assert loaded.query("MATCH (c:Concept) RETURN c.alt_labels AS alt")[0]["alt"] == ["data breach"]
