"""Issue 18 end to end: a planted identifier in a corpus document, a follow-up (history re-sent) and a model's
tool call never reach the OpenAI-compatible test server or the rules graph, and the trace says what was found
(types and counts) and which host was contacted. Real corpus text, real embedding, real graph server: slow."""

from __future__ import annotations

import json
import uuid

import pytest

from regintel.config import load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.runtime import RegIntel
from tests.conftest import make_small_corpus
from tests.llm_server import LlmTestServer, chat_chunk, chat_tool_deltas

pytestmark = pytest.mark.slow

PLANTED_PARAGRAPH = (
    "\n\n## Guichet unique OSS : exemple d'un dossier\n\n"
    "Le dossier OSS de Katarzyna Wiśniewska (PESEL 44051401359, k.wisniewska@example.pl, Reisepass Nr. C01X00T47) "
    "montre comment une assujettie déclare ses ventes à distance intracommunautaires de biens dans le guichet "
    "unique OSS, au régime de l'Union.\n")
FRAGMENTS = ["44051401359", "Wiśniewska", "Wi\\u015bniewska", "k.wisniewska", "C01X00T47", "Giulia", "Bianchi",
             "Hauptstra", "g.bianchi"]
TOOL_ARGS = json.dumps({"concepts": [
    {"domain": "TAX", "kind": "CONCEPT", "jurisdiction": "BE", "prefLabel": "One Stop Shop",
     "altLabels": ["guichet unique", "Katarzyna Wiśniewska"], "definition": "Guichet unique de la TVA."},
    {"domain": "TAX", "kind": "CONCEPT", "jurisdiction": "BE", "prefLabel": "Vente à distance intracommunautaire",
     "definition": "Vente de biens expédiés vers un autre État membre, voir PESEL 44051401359."},
    {"domain": "TAX", "kind": "CONCEPT", "jurisdiction": "BE", "prefLabel": "Régime de l'Union",
     "definition": "Régime OSS pour les ventes à distance intracommunautaires de biens."},
]}, ensure_ascii=False)


def answer_with_tool_call(handler) -> None:
    handler.start_stream()
    handler.sse(chat_chunk(content="Le guichet unique OSS permet de déclarer les ventes à distance [1]."))
    for event in chat_tool_deltas("capture_concepts", TOOL_ARGS, pieces=3):
        handler.sse(event)
    handler.sse(chat_chunk(finish="tool_calls"))
    handler.sse("[DONE]")
    handler.end_stream()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("egress-engine")
    corpus = make_small_corpus(root / "corpus", {"be/be-guidance-oss-fr.md": {}})
    with (corpus / "be" / "be-guidance-oss-fr.md").open("a", encoding="utf-8") as handle:
        handle.write(PLANTED_PARAGRAPH)
    server = LlmTestServer().__enter__()
    graph_server = EmbeddedFalkorDB(root / "graph")
    try:
        settings = load_settings(data_dir=root / "data", corpus_dir=corpus, embedding_seed_cache=root / "no-seed",
                                 llm_provider="openai-compatible", llm_base_url=server.base_url,
                                 egress_mode="enforce", llm_max_retries=0)
        app = RegIntel(settings, graph=FalkorDBStore(f"egress_{uuid.uuid4().hex[:8]}", server=graph_server))
        app.ingest()
        yield {"app": app, "server": server, "graph": app.graph}
    finally:
        server.__exit__(None, None, None)
        graph_server.shutdown(save=False)


def test_corpus_follow_up_and_tool_call_never_reach_the_server_or_the_graph(world) -> None:
    app, server = world["app"], world["server"]
    server.scripts = [answer_with_tool_call]
    engine = app.chat
    tenant = engine.repo.ensure_tenant("egress-e2e").id
    user = engine.repo.ensure_user(tenant, "ana").id
    conversation = engine.repo.create_conversation(tenant, user).id

    questions = ["Notre cliente Giulia Bianchi doit-elle utiliser le guichet unique OSS pour ses ventes à distance "
                 "intracommunautaires de biens ?",
                 "Et pour le régime de l'Union du guichet unique OSS, écrivez-lui à g.bianchi@example.it ?"]
    responses = []
    for question in questions:
        stream = engine.stream_turn(tenant, user, conversation, question)
        list(stream)
        responses.append(stream.response)
    assert len(server.requests) == 2, [r.response_mode for r in responses]
    bodies = [json.dumps(r["body"], ensure_ascii=False) for r in server.requests]
    for body in bodies + [json.dumps(r["body"]) for r in server.requests]:
        for fragment in FRAGMENTS:
            assert fragment not in body, fragment
    assert "[PL_PESEL_1]" in bodies[0], "the planted corpus passage was sent, sanitised"
    assert "[PERSON_" in bodies[1] and "[EMAIL_" in bodies[1], "the follow-up and its history were sanitised"

    steps = engine.repo.trace(tenant, responses[1].trace_id).steps
    egress = next(s for s in steps if s["step"] == "llm")["egress"]
    assert egress["sanitised"] and egress["contacted"] == "127.0.0.1" and egress["pii_counts"]["PERSON"] >= 2
    # the trace (egress report and the model's tool-call payloads) holds types and counts, never the values
    assert not any(fragment in json.dumps(steps, ensure_ascii=False) for fragment in FRAGMENTS)

    stored = json.dumps(world["graph"].query("MATCH (n) RETURN properties(n) AS p"), ensure_ascii=False)
    for fragment in FRAGMENTS:
        assert fragment not in stored, fragment
    assert "Régime de l'Union" in stored, "the clean concept of the tool call was captured"
