"""Search titles (regintel.retrieval.search_titles): a unit's titles in the other languages reach what BM25 indexes
and what is embedded, never the text that is quoted; the shipped file covers the untitled French articles."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from regintel.retrieval.chunking import chunk_document
from regintel.retrieval.corpus import CorpusDocument, read_document_text, scan_corpus
from regintel.retrieval.search_titles import SEARCH_TITLES_PATH, SearchTitles, load_search_titles
from tests.conftest import CORPUS

FRENCH_TEXT = """# Directive

## TITRE XI - OBLIGATIONS

#### Section 4 - Contenu des factures

##### Article 226

Seules les mentions suivantes doivent figurer obligatoirement sur les factures: 1) la date d'émission; 2) un numéro séquentiel.

##### Article 226 bis

Lorsque la facture est émise par un assujetti qui n'est pas établi dans l'État membre, les mentions sont réduites.
"""


def french_doc() -> CorpusDocument:
    return CorpusDocument(id="vat-fr", title="Directive TVA", short_title="TVA", path=CORPUS, language="fr",
                          authority_level="eu_law", jurisdiction="EU", source_url="https://example.org/tva")


def titles() -> SearchTitles:
    return SearchTitles.from_records([
        {"document_id": "vat-fr", "article": "226",
         "titles": {"fr": "Contenu des factures", "en": "Content of invoices", "es": "Contenido de las facturas",
                    "de": "Inhalt der Rechnungen"},
         "summary_en": "Lists the details every invoice must show."},
        {"document_id": "guide", "heading": "Qu’est-ce que le OSS ?", "titles": {"en": "What the OSS is"}},
    ])


def test_a_titled_article_is_searched_with_its_titles_but_quotes_only_its_own_text():
    chunks = chunk_document(french_doc(), FRENCH_TEXT, min_chars=10, titles=titles())
    article = next(c for c in chunks if c.ref == "Article 226")
    assert article.gloss.splitlines() == [
        "Content of invoices · Contenido de las facturas · Inhalt der Rechnungen · Contenu des factures",
        "Lists the details every invoice must show."]
    for searched in (article.index_text, article.crosslingual_embed_text):
        assert "Content of invoices" in searched and "Inhalt der Rechnungen" in searched
        assert searched.endswith(article.text)
    # the vector a same-language question reads is the passage's own (heading and text)
    assert article.embed_text == f"Article 226\n{article.text}"
    assert "invoice" not in article.text and article.heading == "Article 226"
    untitled = next(c for c in chunks if c.ref == "Article 226 bis")
    assert untitled.gloss == "" and untitled.crosslingual_embed_text == ""
    assert "invoice" not in untitled.index_text + untitled.embed_text


def test_a_passage_without_titles_is_indexed_as_before():
    with_none = chunk_document(french_doc(), FRENCH_TEXT, min_chars=10, titles=SearchTitles({}, {}))
    assert all(c.gloss == "" for c in with_none)
    article = next(c for c in with_none if c.ref == "Article 226")
    assert article.embed_text == f"Article 226\n{article.text}"


def test_titles_match_merged_units_part_suffixes_and_headings():
    table = titles()
    assert table.gloss("vat-fr", "Article 226 (2/3)", "Article 226", "fr").startswith("Content of invoices")
    merged = table.gloss("vat-fr", "Article 225; Article 226", "Article 225; Article 226", "fr")
    assert merged.startswith("Content of invoices")
    assert table.gloss("vat-fr", "Article 2260", "Article 2260", "fr") == ""
    # a heading keyed entry matches whatever apostrophe the heading uses; the document's own language comes last
    assert table.gloss("guide", "Qu'est-ce que le OSS ?", "Qu'est-ce que le OSS ?", "fr") == "What the OSS is"
    assert table.gloss("other", "Article 226", "Article 226", "fr") == ""


def test_a_ref_keyed_entry_titles_only_that_unit_not_another_with_the_same_heading():
    # ESRS headings repeat across standards ("Objective"): its units are keyed by their ref
    table = SearchTitles.from_records([
        {"document_id": "esrs", "ref": "ESRS S1 › Objective",
         "titles": {"en": "Objective of ESRS S1 Own workforce", "fr": "Objectif de l'ESRS S1 Effectifs de l'entreprise"}},
    ])
    assert table.gloss("esrs", "ESRS S1 › Objective (2/3)", "Objective", "en") == \
        "Objectif de l'ESRS S1 Effectifs de l'entreprise · Objective of ESRS S1 Own workforce"
    assert table.gloss("esrs", "ESRS E1 › Objective", "Objective", "en") == ""
    assert table.gloss("other", "ESRS S1 › Objective", "Objective", "en") == ""


def test_the_shipped_titles_cover_every_article_of_the_french_vat_texts():
    lines = [json.loads(line) for line in SEARCH_TITLES_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    for line in lines:
        if "_meta" in line:
            continue
        assert set(line["titles"]) >= {"en", "fr", "es", "de"}, line
        assert all(title.strip() for title in line["titles"].values()), line
    shipped = load_search_titles()
    for doc_id in ("eu-vat-directive-fr", "eu-vat-ir-282-2011-fr", "eu-gdpr", "eu-dora"):
        document = next(d for d in scan_corpus(CORPUS).documents if d.id == doc_id)
        chunks = chunk_document(document, read_document_text(document.path))
        articles = [c for c in chunks if c.ref.startswith("Article")]
        missing = sorted({c.ref for c in articles if not c.gloss})
        assert not missing, f"{doc_id}: articles without search titles: {missing[:10]}"
    assert len(shipped) >= 600


def test_every_esrs_unit_has_its_own_titles_by_ref():
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == "eu-esrs")
    chunks = chunk_document(document, read_document_text(document.path))
    assert chunks and not [c.ref for c in chunks if not c.gloss]
    # two units with the same heading ("Objective") in different standards get different titles
    objectives = {re.sub(r" \(\d+/\d+\)$", "", c.ref): c.gloss for c in chunks if c.heading == "Objective"}
    assert len(objectives) >= 2 and len(set(objectives.values())) == len(objectives)


def test_a_document_without_entries_keeps_its_text():
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == "eu-gdpr")
    other = CorpusDocument(id="user-upload", title=document.title, short_title="U", path=document.path,
                           language="en", authority_level="eu_law", jurisdiction="EU", source_url="")
    assert all(c.gloss == "" for c in chunk_document(other, read_document_text(document.path))[:50])


class _Store:
    """The stored (same-language) vectors of a tiny index."""

    def __init__(self, vectors):
        self._vectors = vectors

    def vectors(self, ids):
        return {cid: self._vectors[cid] for cid in ids if cid in self._vectors}


class _Embedder:
    """Embeds a text with search titles to a fixed cross-language vector, and counts the texts it is asked for."""

    def __init__(self, vector):
        self.vector, self.asked = vector, []

    def embed(self, texts, kind="passage"):
        self.asked += list(texts)
        return np.array([self.vector for _ in texts], dtype=np.float32)


def test_a_question_in_another_language_reads_the_cross_language_vector_and_its_own_language_the_stored_one():
    from regintel.retrieval.chunking import Chunk
    from regintel.retrieval.search_index import SearchIndex

    def chunk(chunk_id, language, gloss=""):
        return Chunk(chunk_id=chunk_id, document_id=f"doc-{language}", title="T", ref="Article 1", heading="Article 1",
                     section_path="", text="texte", jurisdiction="EU", language=language, authority_level="eu_law",
                     source_url="", position=0, gloss=gloss)

    stored = {"fr1": np.array([1.0, 0.0], np.float32), "fr2": np.array([0.0, 1.0], np.float32),
              "en1": np.array([0.6, 0.8], np.float32)}
    embedder = _Embedder([0.8, 0.6])
    index = SearchIndex([chunk("fr1", "fr", "Content of invoices"), chunk("fr2", "fr"), chunk("en1", "en")],
                        None, _Store(stored), embedder)
    english = index.stored_vectors(["fr1", "fr2", "en1"], "en")
    assert english["fr1"].tolist() == pytest.approx([0.8, 0.6])  # titled, another language: cross-language vector
    assert english["fr2"].tolist() == [0.0, 1.0] and english["en1"].tolist() == pytest.approx([0.6, 0.8])
    french = index.stored_vectors(["fr1"], "fr")
    assert french["fr1"].tolist() == [1.0, 0.0]  # the question's own language: the passage's own vector
    assert embedder.asked == ["Article 1\nContent of invoices\ntexte"]  # embedded once, for the titled passage only
    ids, view = index._passage_vectors("en")
    assert view[ids.index("fr1")].tolist() == pytest.approx([0.8, 0.6])
    ids, own = index._passage_vectors("fr")
    assert own[ids.index("fr1")].tolist() == [1.0, 0.0]
    assert index._passage_vectors()[1][ids.index("fr1")].tolist() == [1.0, 0.0]


def test_cross_language_vectors_are_stored_beside_the_index_and_a_bad_file_is_ignored(tmp_path, caplog):
    from regintel.retrieval.index_io import read_crosslingual_vectors, write_crosslingual_vectors

    chunks = chunk_document(french_doc(), FRENCH_TEXT, min_chars=10, titles=titles())
    titled = [c.chunk_id for c in chunks if c.gloss]
    path = tmp_path / "crosslingual_vectors.npz"
    assert read_crosslingual_vectors(path, chunks) is None  # none written yet: embedded on first use
    write_crosslingual_vectors(path, titled, np.ones((len(titled), 3), np.float32))
    read = read_crosslingual_vectors(path, chunks)
    assert set(read) == set(titled) and read[titled[0]].tolist() == [1.0, 1.0, 1.0]
    other = chunk_document(french_doc(), FRENCH_TEXT, min_chars=10, titles=SearchTitles({}, {}))
    assert read_crosslingual_vectors(path, other) is None  # written for other chunks
    path.write_bytes(b"not a numpy file")
    assert read_crosslingual_vectors(path, chunks) is None
    assert "unreadable" in caplog.text
