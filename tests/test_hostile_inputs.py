"""Every row of the hostile-input table (tests/hostile.py) through every entry point, against the real embedded
stores: the chat question, the capture_concepts tool payload, concept titles and definitions (and the notes they
become), pasted quotes and uploaded quote files, corpus files, the graph search box and the feedback comment.

Each input is either refused with a clear message (nothing saved) or kept as plain data: stored exactly as the
cleaned text, never executed as Cypher or SQL, and inert where it is shown (citation chips, concept chips, pyvis
labels, the Gradio citations block). The graph's rules and the SQL tables are intact after all of it.
"""

from __future__ import annotations

import html
import json
import re

import pytest
import yaml
from markdown_it import MarkdownIt
from sqlalchemy import func, select

from regintel.chat.repository import MAX_COMMENT
from regintel.chat.response import ChatResponse, CitedSource
from regintel.chat.validation import InputError, clean_question
from regintel.concepts.capture import handle_concept_metadata
from regintel.config import REPO_ROOT, load_settings
from regintel.egress.sanitiser import sanitise
from regintel.errors import ExtractionError
from regintel.extraction.content import ContentStore, content_from_text, content_from_upload
from regintel.extraction.notes import NoteConcept, note_name, render_note, write_atomically
from regintel.extraction.proposal import Quote
from regintel.graph.explorer import Subgraph, fetch_subgraph
from regintel.llm.prompt_format import PromptSource, parse_sources, render_user_message
from regintel.retrieval.index_io import open_search_index
from regintel.retrieval.ingest import ingest_corpus
from regintel.store.models import Feedback, Message, Tenant
from regintel.text.normalise import printable
from regintel.ui.chat_view import answer_markdown, chip_label, escape_markdown
from regintel.ui.citations_block import citations_markdown
from regintel.ui.graph_view import render_network_html
from tests.conftest import engine_world
from tests.hostile import HOSTILE, IDS, TEXTS

ACTIVE_TAGS = re.compile(r"<(?!/?p>)(?!br\s*/?>)[a-z!/][^>]*>", re.IGNORECASE)  # any tag but the paragraph wrapper
MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"])
PII_MARKERS = ("jane.doe@example.com", "BE71 0961 2345 6769")


def assert_inert(markdown: str, shown: str) -> None:
    """Rendered as markdown (raw HTML allowed, the strictest case), the label makes no tag, link or image and
    reads as ``shown``."""
    rendered = MARKDOWN.render(markdown)
    assert not ACTIVE_TAGS.search(rendered), rendered
    # the word joiners that stop renderers from auto-linking (regintel.ui.untrusted) are invisible: not compared
    visible = html.unescape(re.sub(r"</?p>", "", rendered)).replace("\u2060", "").strip()
    assert " ".join(visible.split()) == " ".join(shown.replace("\u2060", "").split())


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with engine_world(tmp_path_factory.mktemp("hostile") / "data", "hostile", chat_rate_limit_per_hour=0) as built:
        before = fingerprint(built["graph"], built["db"])
        yield built
        after = fingerprint(built["graph"], built["db"])
    assert after["Rule"] == before["Rule"] and after["Section"] == before["Section"], "the rules graph is intact"
    assert after["tables"] >= before["tables"]


def fingerprint(graph, db) -> dict:
    counts = {row["label"]: row["n"] for row in graph.query("MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n")}
    with db.session() as session:
        counts["tables"] = session.scalar(select(func.count()).select_from(Tenant))
    return counts


def new_conversation(engine, tenant: str = "hostile", user: str = "mallory"):
    t = engine.repo.ensure_tenant(tenant)
    u = engine.repo.ensure_user(t.id, user)
    return t.id, u.id, engine.repo.create_conversation(t.id, u.id).id


# -- chat question ---------------------------------------------------------------------------------------------
@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", IDS)
def test_chat_question_is_refused_clearly_or_answered_and_stored_as_plain_text(world, name):
    engine, text = world["engine"], TEXTS[name]
    ids = new_conversation(engine)
    try:
        expected = clean_question(text)
    except InputError:
        expected = None
    if expected is None:
        with pytest.raises(InputError) as refused:
            engine.ask(*ids, text)
        assert len(str(refused.value)) > 20 and engine.repo.turns(ids[0], ids[2]) == []
        return
    response = engine.ask(*ids, text)
    assert response.status == "complete" and response.message_id
    if response.refused and response.query_type == "PERSONAL_DATA_ANALYSIS":
        expected = sanitise(expected).text  # a question refused for its personal data is stored sanitised
    (turn,) = engine.repo.turns(ids[0], ids[2])
    assert turn.question == expected
    with world["db"].session() as session:
        stored = session.scalars(select(Message.content).where(Message.conversation_id == ids[2], Message.role == "user")).all()
    assert stored == [expected]
    for source in response.sources:
        assert_inert(chip_label(source), chip_label_text(source))
    for node in response.referenced_nodes:
        assert_inert(escape_markdown(node["label"]), node["label"])
        assert not any(marker in node["label"] for marker in PII_MARKERS)


def chip_label_text(source: CitedSource) -> str:
    return html.unescape(MARKDOWN.renderInline(chip_label(source)))


@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
def test_pii_in_questions_never_reaches_the_graph(world):
    for name in ("email", "iban"):
        world["engine"].ask(*new_conversation(world["engine"]), TEXTS[name])
    stored = json.dumps(world["graph"].query("MATCH (n) WHERE n:Concept OR n:Label RETURN properties(n) AS p"), default=str)
    assert not any(marker in stored for marker in PII_MARKERS)


# -- capture_concepts tool payload, concept labels and definitions ----------------------------------------------
@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", IDS)
def test_tool_payload_labels_are_stored_as_plain_data_or_skipped_with_a_reason(world, name):
    graph, text = world["graph"], TEXTS[name]
    item = {"domain": "HOSTILE", "kind": f"CASE_{name.upper().replace('-', '_')}", "jurisdiction": "EU",
            "prefLabel": text, "definition": text, "altLabels": [text]}
    outcome = handle_concept_metadata({"concepts": [item]}, graph, None)
    if not outcome.referenced:
        assert outcome.skipped or outcome.errors, "a refused concept says why"
        assert not (text.strip() and any(m in text for m in PII_MARKERS)) or "personal data" in " ".join(outcome.skipped)
        return
    (node,) = outcome.referenced
    rows = graph.query("MATCH (c:Concept {key: $key}) RETURN c.pref_label AS label, c.definition AS definition",
                       {"key": node["key"]})
    assert len(rows) == 1
    assert rows[0]["label"] == printable(text)[:200] and rows[0]["definition"] == printable(text)
    assert_inert(escape_markdown(rows[0]["label"]), " ".join(rows[0]["label"].split()))


@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", ["img-onerror", "cypher-detach", "cypher-brace", "sql-drop", "format-strings"])
def test_hostile_text_in_key_fields_is_data_and_the_graph_is_intact(world, name):
    graph, text = world["graph"], TEXTS[name]
    before = fingerprint(graph, world["db"])
    outcome = handle_concept_metadata({"concepts": [{"domain": text, "kind": text, "jurisdiction": "EU",
                                                     "prefLabel": "Hostile key " + name}]}, graph, None)
    after = fingerprint(graph, world["db"])
    assert after["Rule"] == before["Rule"] and after["Section"] == before["Section"]
    for node in outcome.referenced:
        assert graph.query("MATCH (c:Concept {key: $key}) RETURN count(c) AS n", {"key": node["key"]})[0]["n"] == 1


@pytest.mark.parametrize("name", IDS)
def test_concept_title_and_definition_make_a_note_inside_the_notes_folder_with_intact_frontmatter(tmp_path, name):
    text = TEXTS[name]
    notes = tmp_path / "notes"
    file_name = note_name(text)
    assert file_name and file_name not in {".", ".."} and not re.search(r"[/\\\x00-\x1f]", file_name) and len(file_name) <= 120
    concept = NoteConcept(id="00000000-0000-4000-8000-000000000001", title=text, concept=text, analysis=text,
                          short_summary=text, summary=text, quotes=[Quote(id="q1", key="k", text=text)])
    note = render_note(concept, {"SPECIFIC_OF": [("00000000-0000-4000-8000-000000000002", file_name)]}, text, "", "en")
    path = notes / f"{file_name}.md"
    write_atomically(path, note)
    assert path.resolve().parent == notes.resolve() and [p.name for p in notes.iterdir()] == [path.name]
    assert note.startswith("---\n")
    front = yaml.safe_load(note[4:note.index("\n---\n", 4)])
    assert set(front) == {"entity_id", "entity_type", "short_summary", "summary", "concept_relations"}
    assert front["entity_id"] == concept.id and front["concept_relations"] == {"SPECIFIC_OF": ["00000000-0000-4000-8000-000000000002"]}
    assert front["summary"].split() == text.split() or front["summary"] == printable(text)
    headings = [line for line in note.splitlines() if re.match(r"#{1,2} ", line)]
    assert len(headings) == 5, headings  # the title and the four sections: nothing injected


# -- pasted quotes, uploaded quote files -------------------------------------------------------------------------
@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", IDS)
def test_pasted_and_uploaded_quotes_are_refused_clearly_or_saved_verbatim(world, name):
    text = TEXTS[name]
    store = ContentStore(world["graph"])
    files = {"quotes.json": json.dumps({"title": text, "quotes": [text, {"text": text}]}).encode(),
             "quotes.md": f"# {text}\n\n{text}\n".encode("utf-8", "surrogatepass"),
             "quotes.csv": ("quote\n" + json.dumps(text) + "\n").encode("utf-8", "surrogatepass")}
    attempts = [lambda: content_from_text(f"Pasted {name}", text)]
    attempts += [lambda f=f, d=d: content_from_upload(f, d) for f, d in files.items()]
    for attempt in attempts:
        try:
            draft = attempt()
            saved = store.save(draft)
        except ExtractionError as exc:
            assert len(str(exc)) > 15
            continue
        assert saved.title == draft.title and "\x00" not in draft.title
        assert [q.text for q in store.quotes(saved.key)] == draft.quotes
        assert all(q.strip() for q in draft.quotes)


BAD_FILES = {
    "invalid-utf8.json": b'{"quotes": ["caf\xe9"]}',
    "invalid-utf8.md": b"# Title\n\nbad \xff\xfe bytes",
    "binary.csv": b"quote\n\x00\x01\x02binary",
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-object.json": b'{"a":' * 50 + b"1" + b"}" * 50,
    "huge.json": b'{"quotes": ["' + b"x" * 5_000_001 + b'"]}',
    "wrong-shape.json": b'{"not_quotes": 1}',
    "not-json.json": b"{'single': 'quotes'}",
    "script.exe": b"MZ\x90\x00",
    "../../etc/passwd.md": b"# passwd\n\nroot:x:0:0",
    "empty.md": b"",
    "bom-only.csv": "\ufeff".encode(),
    "too-many.json": json.dumps([f"quote {i}" for i in range(5001)]).encode(),
}


@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("filename", sorted(BAD_FILES))
def test_broken_uploads_get_a_clear_error_or_a_safe_content(world, filename):
    try:
        draft = content_from_upload(filename, BAD_FILES[filename])
    except ExtractionError as exc:
        assert len(str(exc)) > 15 and "Traceback" not in str(exc)
        return
    assert filename in {"../../etc/passwd.md", "empty.md", "bom-only.csv"}
    assert "/" not in draft.title and "\x00" not in "".join(draft.quotes)


# -- corpus files ----------------------------------------------------------------------------------------------
@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
def test_hostile_corpus_files_are_indexed_as_text_or_skipped_by_name(tmp_path, world):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    manifest = []
    for number, (name, _, text) in enumerate(HOSTILE):
        path = corpus / f"doc-{number:02d}.md"
        path.write_bytes(f"# Article {number}\n\n{text}\n\nThe controller shall keep records of processing {number}.\n"
                         .encode("utf-8", "surrogatepass"))
        manifest.append({"id": f"hostile-{number:02d}", "file": path.name, "title": text[:200] or "untitled",
                         "jurisdiction": "EU", "language": "en", "authority_level": "guidance",
                         "source_url": TEXTS["md-js-link"] if number % 2 else "https://example.org/x"})
    (corpus / "invalid.md").write_bytes(b"# Bad\n\n\xff\xfe not utf-8")
    (corpus / "binary.md").write_bytes(b"\x00\x01\x02\x03")
    (corpus / "empty.md").write_bytes(b"")
    (corpus / "manifest.json").write_text(json.dumps({"documents": manifest}), encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus,
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    report = ingest_corpus(settings, embedder=world["embedder"])
    skipped = dict(report.problems)
    unreadable = {f"doc-{IDS.index('nul-bytes'):02d}.md": "binary", f"doc-{IDS.index('lone-surrogate'):02d}.md": "UTF-8",
                  "invalid.md": "UTF-8", "binary.md": "binary", "empty.md": "empty"}
    assert set(skipped) == set(unreadable), skipped
    assert all(unreadable[name] in reason for name, reason in skipped.items()), skipped
    index = open_search_index(settings, embedder=world["embedder"])
    assert report.documents == len(HOSTILE) - 2
    for chunk in index.chunks.values():
        assert "\x00" not in chunk.text
    for name in ("img-onerror", "cypher-detach", "ignore-instructions"):
        sources = index.search(TEXTS[name], k=3).sources
        assert any(TEXTS[name] in s.text for s in sources), name
        for number, s in enumerate(sources, start=1):
            cited = CitedSource(number, s.chunk_id, s.document_id, s.title, s.ref, s.url, s.text, s.similarity,
                                s.authority_level, s.authority_score, s.jurisdiction, s.language)
            assert_inert(chip_label(cited), chip_label_text(cited))


def test_prompt_injection_in_a_source_cannot_break_out_of_its_source_element():
    hostile = [PromptSource(index=i + 1, text=text, title=text[:100], ref="Article 1", document_id="d", jurisdiction="EU",
                            language="en", url="https://example.org", authority="guidance", similarity=50.0)
               for i, (_, _, text) in enumerate(HOSTILE) if text.strip()]
    message = render_user_message(TEXTS["fake-question"], hostile)
    parsed = parse_sources(message)
    assert [p.index for p in parsed] == [p.index for p in hostile]
    assert [p.text for p in parsed] == [p.text for p in hostile]
    assert message.count("<question>") == 1 and message.count("</question>") == 1


# -- the graph search box -----------------------------------------------------------------------------------------
@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", IDS)
def test_graph_search_box_treats_the_text_as_a_search_term(world, name):
    before = fingerprint(world["graph"], world["db"])
    result = fetch_subgraph(world["graph"], search=TEXTS[name])
    assert isinstance(result, Subgraph)
    after = fingerprint(world["graph"], world["db"])
    assert {k: after.get(k) for k in ("Rule", "Section", "Jurisdiction")} == {k: before.get(k) for k in ("Rule", "Section", "Jurisdiction")}


# -- feedback comment -----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def answered(world):
    engine = world["engine"]
    ids = new_conversation(engine, "hostile-feedback", "fiona")
    return ids, engine.ask(*ids, "What is a personal data breach?").message_id


@pytest.mark.slow  # the indexed demo corpus, a graph server and the engine (world)
@pytest.mark.parametrize("name", IDS)
def test_feedback_comment_is_refused_clearly_or_stored_exactly(world, answered, name):
    (tenant, user, _), message_id = answered
    text, repo = TEXTS[name], world["engine"].repo
    if len(printable(text)) > MAX_COMMENT:
        with pytest.raises(InputError, match="limit"):
            repo.save_feedback(tenant, user, message_id, -1, text)
        return
    repo.save_feedback(tenant, user, message_id, -1, text)
    with world["db"].session() as session:
        (stored,) = session.scalars(select(Feedback.comment).where(Feedback.message_id == message_id)).all()
    assert stored == printable(text)


# -- where the text is shown -------------------------------------------------------------------------------------
def hostile_response(text: str) -> ChatResponse:
    source = CitedSource(index=1, chunk_id="c1", document_id="d1", title=text, ref=text, url=text, text=text,
                         similarity=80.0, authority_level=text, authority_score=0.5, jurisdiction="EU", language="en",
                         used=True, origin="current")
    return ChatResponse(text, "QUALIFIED", "conv", "DEFINITION", None, sources=[source],
                        referenced_nodes=[{"id": "1", "key": "K|K|EU", "label": text}],
                        confidence={"level": "low", "score": 0.1}, authority={"level": "low", "score": 0.1})


@pytest.mark.parametrize("name", IDS)
def test_gradio_citations_block_and_chips_render_hostile_titles_as_text(name):
    text = TEXTS[name]
    response = hostile_response(text)
    block = citations_markdown(response)
    rendered = MARKDOWN.render(block)
    tags = {t.lower() for t in re.findall(r"<([a-z0-9]+)", rendered)}
    if text.startswith(("http://", "https://")):  # a corpus source URL is linked, to itself only
        assert re.findall(r'<a href="([^"]*)"', rendered) == [html.escape(text)]
        tags.discard("a")
    assert tags <= {"p", "strong", "ul", "li"}, tags  # no other link, no image, script or embed
    assert_inert(chip_label(response.sources[0]), chip_label_text(response.sources[0]))


@pytest.mark.slow  # renders a pyvis page per case (about 0.5 s each)
@pytest.mark.parametrize("name", IDS)
def test_pyvis_labels_and_tooltips_carry_hostile_text_as_data(name):
    text = TEXTS[name]
    benign = render_network_html(Subgraph([{"key": "K", "caption": "benign", "labels": ["Concept"]}], [], False, 10))
    page = render_network_html(Subgraph([{"key": text or "K", "caption": text, "labels": ["Concept"], "jurisdiction": text}],
                                        [], False, 10))
    for tag in ("<script", "<img", "<svg", "<iframe", "<style", "<a "):
        assert page.lower().count(tag) == benign.lower().count(tag), tag


@pytest.mark.parametrize("name", IDS)
def test_answers_keep_their_words_but_draw_no_link_image_or_html(name):
    text = TEXTS[name].strip() + " [1]"  # (inside a code block escapes show as typed: answers are prose)
    rendered = MARKDOWN.render(answer_markdown(text))
    assert not re.search(r"<(a|img|script|iframe|svg|style|html|b)\b", rendered, re.IGNORECASE), rendered
    assert "[1]" in html.unescape(rendered)
