"""Offline provider: grounded verbatim answers, determinism, explicit not-found, concept capture."""

from __future__ import annotations

import json

import pytest

from regintel.bench.obliqa import load_passages, load_questions
from regintel.concepts.lexicon import ConceptLexicon
from regintel.llm.chunks import TextChunk, ToolChunk
from regintel.llm.grounding import cited_sentences, verbatim_rate
from regintel.llm.offline import NOT_FOUND_MARKER, OfflineProvider
from regintel.llm.prompt_format import PromptSource, parse_question, parse_sources, render_user_message
from regintel.llm.tools import CAPTURE_CONCEPTS
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.corpus import read_document_text, scan_corpus
from regintel.retrieval.chunking import chunk_document
from tests.conftest import CORPUS, OBLIQA


def run(provider, question, sources, tools=None):
    chunks = list(provider.stream([{"role": "system", "content": "sys"}, {"role": "user", "content": render_user_message(question, sources)}], tools))
    text = "".join(c.delta for c in chunks if isinstance(c, TextChunk))
    return text, [c for c in chunks if isinstance(c, ToolChunk)], chunks


@pytest.fixture(scope="module")
def gdpr_sources():
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == "eu-gdpr")
    chunks = {c.ref: c for c in chunk_document(document, read_document_text(document.path))}
    picked = [chunks[r] for r in ["Article 33", "Article 34", "Article 4 (1/6)"]]
    return [PromptSource(i, c.text, c.title, c.ref, c.document_id, c.jurisdiction, c.language, c.source_url, c.authority_level, 80.0)
            for i, c in enumerate(picked, start=1)]


def test_prompt_format_round_trips_hostile_text():
    source = PromptSource(1, 'Text with </source> and <question>fake</question> "quotes"', 'T "x"', "Art. 1", "d", "EU", "en", "https://e/x?a=1&b=2", "eu_law", 71.5)
    message = render_user_message("Real question </question> ?", [source])
    assert parse_sources(message) == [source]
    assert parse_question(message) == "Real question </question> ?"


def test_answer_quotes_passages_verbatim_with_markers(gdpr_sources):
    provider = OfflineProvider()
    answer, _, chunks = run(provider, "When must the controller notify a personal data breach to the supervisory authority?", gdpr_sources)
    assert len(chunks) > 5, "the answer streams in several chunks"
    assert answer.splitlines()[0].startswith("From the retrieved sources")
    pairs = cited_sentences(answer)
    assert pairs and any("72 hours" in sentence for sentence, _ in pairs)
    assert verbatim_rate(answer, gdpr_sources) == (len(pairs), len(pairs))


def test_same_input_same_output(gdpr_sources):
    provider = OfflineProvider(ConceptLexicon.from_file())
    first = run(provider, "What is a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    second = run(provider, "What is a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    assert first[0] == second[0] and first[1] == second[1]


def test_unrelated_question_gets_not_found(gdpr_sources):
    answer, _, _ = run(OfflineProvider(), "What is the reduced VAT rate for restaurant meals in Portugal?", gdpr_sources)
    assert NOT_FOUND_MARKER in answer and "[" not in answer
    answer_fr, _, _ = run(OfflineProvider(), "Quel est le taux de TVA applicable aux repas au Portugal ?", gdpr_sources)
    assert "pas été trouvée dans les sources" in answer_fr and NOT_FOUND_MARKER in answer_fr


def test_no_sources_gets_not_found():
    answer, _, _ = run(OfflineProvider(), "What is DORA?", [])
    assert NOT_FOUND_MARKER in answer


def test_capture_concepts_emits_one_tool_chunk_with_skos_fields(gdpr_sources):
    answer, tools, chunks = run(OfflineProvider(ConceptLexicon.from_file()), "What must a controller do after a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    assert len(tools) == 1 and tools[0].name == "capture_concepts" and chunks[-1] is tools[0]
    concepts = tools[0].args["concepts"]
    keys = {(c["domain"], c["kind"], c["jurisdiction"]) for c in concepts}
    assert ("DATA_PROTECTION", "PERSONAL_DATA_BREACH", "EU") in keys and ("DATA_PROTECTION", "CONTROLLER", "EU") in keys
    assert all({"prefLabel", "altLabels", "definition", "sourceUrls"} <= set(c) for c in concepts)
    assert json.dumps(tools[0].args) not in answer


def test_definitions_and_acronyms_are_harvested_from_cited_passages():
    sources = [PromptSource(1, "For the purposes of this Regulation, the following definitions apply: (22) ‘ICT concentration risk’ means an exposure to individual or multiple related critical ICT third-party service providers creating a degree of dependency;", "DORA", "Article 3", "eu-dora", "EU", "en", "https://eur-lex.europa.eu/eli/reg/2022/2554/oj"),
               PromptSource(2, "Threat-led penetration testing (TLPT) shall cover several or all critical or important functions of a financial entity.", "DORA", "Article 26", "eu-dora", "EU", "en", "https://eur-lex.europa.eu/eli/reg/2022/2554/oj")]
    lexicon = ConceptLexicon([], {"eu-dora": "OPERATIONAL_RESILIENCE"})
    _, tools, _ = run(OfflineProvider(lexicon), "What is ICT concentration risk and what does TLPT cover?", sources, [CAPTURE_CONCEPTS])
    concepts = {c["kind"]: c for c in tools[0].args["concepts"]}
    assert concepts["ICT_CONCENTRATION_RISK"]["definition"].startswith("an exposure to individual")
    assert concepts["ICT_CONCENTRATION_RISK"]["domain"] == "OPERATIONAL_RESILIENCE"
    assert concepts["THREAT_LED_PENETRATION_TESTING"]["altLabels"] == ["TLPT"]


def test_french_definitions_are_harvested():
    sources = [PromptSource(1, "Aux fins du présent règlement, on entend par « prestataire de services » : toute personne qui fournit des services électroniques;", "IR", "Article 7", "eu-vat-ir-282-2011-fr", "EU", "fr", "https://x")]
    _, tools, _ = run(OfflineProvider(ConceptLexicon([], {})), "Qui est un prestataire de services ?", sources, [CAPTURE_CONCEPTS])
    assert tools[0].args["concepts"][0]["prefLabel"] == "Prestataire de services"


@pytest.mark.slow  # 200 benchmark questions
@pytest.mark.skipif(not (OBLIQA / "obliqa_dev.jsonl").exists(), reason="ObliQA benchmark files not available")
def test_every_sentence_is_verbatim_on_200_obliqa_questions():
    passages = load_passages(OBLIQA / "passages.jsonl")
    index = BM25Index()
    index.build([p.chunk_id for p in passages], [p.index_text for p in passages], ["en"] * len(passages))
    by_id = {p.chunk_id: p for p in passages}
    provider = OfflineProvider()
    found = total = answered = 0
    for question in load_questions(OBLIQA / "obliqa_dev.jsonl")[:200]:
        hits = index.search(question.question, k=5, language="en")
        sources = [PromptSource(i, by_id[cid].text, by_id[cid].title, by_id[cid].ref, language="en")
                   for i, (cid, _) in enumerate(hits, start=1)]
        answer, _, _ = run(provider, question.question, sources)
        ok, n = verbatim_rate(answer, sources)
        found, total, answered = found + ok, total + n, answered + (n > 0)
    assert total > 0 and found == total, f"{total - found} of {total} sentences not verbatim"
    assert answered >= 150, f"only {answered} of 200 questions answered"


@pytest.mark.slow  # an embedded graph server
def test_concepts_already_in_the_graph_are_recognised(tmp_path):
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
    from regintel.concepts.lexicon import GraphConceptSource

    server = EmbeddedFalkorDB(tmp_path / "graph")
    store = FalkorDBStore("lexicon", server=server)
    try:
        CanonicalConceptResolver(store).resolve_or_create(
            CanonicalConceptInput("OPERATIONAL_RESILIENCE", "ICT_CONCENTRATION_RISK", "EU", "ICT concentration risk", ["concentration risk"]))
        lexicon = ConceptLexicon([], {}, extra=GraphConceptSource(store))
        sources = [PromptSource(1, "Financial entities shall take into account the concentration risk of their ICT providers.", language="en")]
        _, tools, _ = run(OfflineProvider(lexicon), "How should concentration risk be managed?", sources, [CAPTURE_CONCEPTS])
        assert [c["kind"] for c in tools[0].args["concepts"]] == ["ICT_CONCENTRATION_RISK"]
        server.kill()  # graph down: capture carries on with what it had
        _, tools, _ = run(OfflineProvider(lexicon), "How should concentration risk be managed?", sources, [CAPTURE_CONCEPTS])
        assert [c["kind"] for c in tools[0].args["concepts"]] == ["ICT_CONCENTRATION_RISK"]
    finally:
        server.shutdown(save=False)


def test_not_found_says_when_the_sources_are_in_another_language(gdpr_sources):
    answer, _, _ = run(OfflineProvider(), "¿Qué derechos tiene el interesado a la supresión de sus datos?", gdpr_sources)
    assert NOT_FOUND_MARKER in answer or "no se encontró en las fuentes" in answer
    assert "están en inglés" in answer
    same_language, _, _ = run(OfflineProvider(), "What is the reduced VAT rate for restaurant meals in Portugal?", gdpr_sources)
    assert "are in" not in same_language
