"""The graph never holds personal data (issue 18): the ingress guard and the concept validator use the Presidio
detector (names included) on every property; ``graph scan`` reports and ``--purge`` removes, audited, what an
older graph already holds. The guard and validator tests are fast; the scan runs on real graph servers (slow)."""

from __future__ import annotations

import json

import pytest

from regintel.concepts.capture import validate_payload
from regintel.config import REPO_ROOT
from regintel.graph.guard import IngressGuard, IngressRejected
from regintel.graph.scan import purge, scan_graph
from tests.graph_backends import BACKENDS, backend_store

CONCEPT = {"domain": "DATA_PROTECTION", "kind": "CONCEPT", "jurisdiction": "EU", "prefLabel": "Personal data",
           "definition": "Any information relating to an identified or identifiable natural person."}


@pytest.mark.parametrize("field, value", [
    ("altLabels", ["Katarzyna Wiśniewska"]),
    ("altLabels", ["PESEL 44051401359"]),
    ("definition", "As in the file of Jan Kowalski, born 12.03.1985 (geb. 12.03.1985)."),
    ("definition", "NIR 2 55 08 14 168 025 38 of the employee."),
    ("prefLabel", "Codice fiscale RSSMRA85T10A562S"),
    ("sourceUrls", ["https://example.com/?mail=jan.kowalski@example.pl"]),
])
def test_concept_validator_drops_a_model_tool_call_with_personal_data(field: str, value) -> None:
    valid, skipped = validate_payload({"concepts": [{**CONCEPT, field: value}]})
    assert valid == [] and "personal data" in skipped[0]
    assert validate_payload({"concepts": [CONCEPT]})[0], "the clean concept passes"


@pytest.mark.parametrize("label, props", [
    ("Quote", {"text": "Frau Anna Müller, Hauptstraße 12, 10115 Berlin, widerspricht."}),
    ("Content", {"title": "Letter", "author": "Giulia Bianchi"}),
    ("Concept", {"alt_labels": ["Personal data", "Piotr Zieliński"]}),
    ("Concept", {"definition": "passport no. 12AB34567"}),
])
def test_ingress_guard_rejects_names_and_identifiers_on_every_property(label: str, props: dict) -> None:
    with pytest.raises(IngressRejected, match="personal data") as rejected:
        IngressGuard().check_node(label, "k1", props)
    for value in props.values():
        for piece in (value if isinstance(value, list) else [value]):
            assert piece not in str(rejected.value)


def test_ingress_guard_keeps_regulatory_text() -> None:
    IngressGuard().check_node("Concept", "DATA_PROTECTION|CONCEPT|EU|lead-overseer", {
        "pref_label": "Lead Overseer", "alt_labels": ["Oversight Forum"],
        "definition": "Article 31 of Regulation (EU) 2022/2554 (OJ L 333, 27.12.2022, p. 1): fines of EUR 5 000 000."})


def test_every_label_of_the_seed_taxonomy_passes_the_concept_validator() -> None:
    """The concepts the offline provider captures carry the taxonomy's labels in four languages: Title Case
    Spanish or German terms ("Normas Europeas de Información sobre Sostenibilidad") are vocabulary, not persons."""
    taxonomy = json.loads((REPO_ROOT / "data" / "taxonomy.json").read_text(encoding="utf-8"))
    items = [{"domain": c.get("domain") or "REGULATORY", "kind": c.get("kind") or "CONCEPT",
              "jurisdiction": c.get("jurisdiction") or "EU", "prefLabel": c["prefLabel"],
              "altLabels": c.get("altLabels", []), "definition": c.get("definition", "")}
             for c in taxonomy["concepts"]]
    for start in range(0, len(items), 10):  # a tool call carries at most ten concepts
        valid, skipped = validate_payload({"concepts": items[start:start + 10]})
        assert not skipped and len(valid) == len(items[start:start + 10]), skipped


# -- graph scan on real backends ----------------------------------------------------------------------------------
@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    with backend_store(request.param, tmp_path) as store:
        yield store


@pytest.mark.slow
def test_graph_scan_reports_types_only_and_purge_removes_with_an_audit(store) -> None:
    # written directly, as an older graph (before the Presidio guard) could hold them
    store.write("CREATE (:Concept {key: 'DP|CONCEPT|EU|personal-data', pref_label: 'Personal data', "
                "alt_labels: ['Personal data', 'Jan Kowalski'], definition: 'See Article 4(1) GDPR.'})")
    store.write("CREATE (:Quote {key: 'c1#q1', text: 'PESEL 44051401359 of the client', content_key: 'c1'})")
    store.write("CREATE (:Concept {key: 'DP|CONCEPT|EU|erasure', pref_label: 'Right to erasure', "
                "definition: 'Ask marie.dubois@example.fr', summary: 'Article 17 GDPR.'})")
    store.write("CREATE (:Concept {key: 'DP|CONCEPT|EU|clean', pref_label: 'Lead Overseer', "
                "definition: 'Article 31 DORA.'})")
    hits = scan_graph(store)
    assert sorted((h.label, h.prop, h.action) for h in hits) == [
        ("Concept", "alt_labels", "drop list items"), ("Concept", "definition", "remove property"),
        ("Quote", "text", "delete node")]
    report = json.dumps([(h.label, h.ref, h.prop, h.types, h.action) for h in hits])
    for value in ("Kowalski", "44051401359", "marie.dubois", "personal-data", "c1#q1"):
        assert value not in report
    audit: list[tuple] = []
    assert purge(store, hits, lambda action, **detail: audit.append((action, detail))) == 3
    assert scan_graph(store) == []
    assert [a for a, _ in audit] == ["graph_purge"] * 3 and "Kowalski" not in json.dumps(audit)
    kept = store.query("MATCH (n:Concept) RETURN n.key AS key, n.alt_labels AS alt, n.summary AS summary "
                       "ORDER BY n.key")
    assert [(r["key"], r["alt"], r["summary"]) for r in kept] == [
        ("DP|CONCEPT|EU|clean", None, None), ("DP|CONCEPT|EU|erasure", None, "Article 17 GDPR."),
        ("DP|CONCEPT|EU|personal-data", ["Personal data"], None)]
    assert store.query("MATCH (n:Quote) RETURN count(n) AS n")[0]["n"] == 0
