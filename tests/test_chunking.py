"""Article-aware chunking on each heading style of the demo corpus."""

from __future__ import annotations

from regintel.retrieval.chunking import Chunk, chunk_document
from regintel.retrieval.corpus import CorpusDocument, read_document_text, scan_corpus

from tests.conftest import CORPUS


def doc(doc_id: str = "doc", language: str = "en") -> CorpusDocument:
    return CorpusDocument(id=doc_id, title="Test Regulation", short_title="TR", path=CORPUS, language=language,
                          authority_level="eu_law", jurisdiction="EU", source_url="https://example.org/tr")


def corpus_chunks(doc_id: str) -> list[Chunk]:
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == doc_id)
    return chunk_document(document, read_document_text(document.path))


def by_ref(chunks: list[Chunk], ref: str) -> list[Chunk]:
    return [c for c in chunks if c.ref == ref or c.ref.startswith(ref + " (")]


def test_eurlex_english_articles_get_article_refs_and_chapter_path():
    chunks = corpus_chunks("eu-gdpr")
    article6 = by_ref(chunks, "Article 6")
    assert article6, "Article 6 must be its own chunk(s)"
    assert article6[0].heading == "Article 6 — Lawfulness of processing"
    assert article6[0].section_path == "CHAPTER II — Principles"
    assert article6[0].chunk_id.startswith("eu-gdpr#art-6")
    assert "Processing shall be lawful only if" in article6[0].text
    assert all(c.jurisdiction == "EU" and c.language == "en" and c.authority_level == "eu_law" for c in chunks)
    assert article6[0].source_url == "https://eur-lex.europa.eu/eli/reg/2016/679/oj"


def test_french_articles_bis_and_premier():
    directive = corpus_chunks("eu-vat-directive-fr")
    assert by_ref(directive, "Article 2"), "'##### Article 2' is recognised"
    bis = [c for c in directive if c.ref.startswith("Article 14 bis")]
    assert bis and bis[0].chunk_id.startswith("eu-vat-directive-fr#art-14-bis")
    assert by_ref(directive, "Article 1")[0].section_path.startswith("TITRE PREMIER")
    regulation = corpus_chunks("eu-vat-ir-282-2011-fr")
    first = [c for c in regulation if "Article 1" in c.ref.split("; ")]
    assert first, "'Article premier' is read as Article 1"


def test_esrs_application_requirements_keep_their_standard_in_the_path():
    chunks = corpus_chunks("eu-esrs")
    ar = [c for c in chunks if "› AR 12" in c.ref]
    assert ar, "#### AR N headings become refs"
    assert all(c.section_path.startswith("ESRS") for c in ar)
    assert ar[0].ref.startswith(ar[0].section_path.split(" › ")[-1])


def test_guidance_question_headings_become_refs():
    chunks = corpus_chunks("be-guidance-asbl-tva-fr")
    assert any("Une ASBL est-elle assujettie à la TVA ?" in c.ref for c in chunks)
    assert all(c.authority_level == "guidance" and c.jurisdiction == "BE" for c in chunks)


def test_chunk_ids_are_unique_and_stable():
    first = corpus_chunks("eu-dora")
    second = corpus_chunks("eu-dora")
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert len({c.chunk_id for c in first}) == len(first)
    assert [c.content_hash for c in first] == [c.content_hash for c in second]


def test_oversized_article_is_split_on_paragraphs_with_overlap():
    paragraphs = [(f"{n}. " + ("Paragraph %d text about obligations. " % n) * 12).strip() for n in range(1, 9)]
    text = "## CHAPTER I — General\n\n### Article 7 — Long article\n\n" + "\n\n".join(paragraphs)
    chunks = chunk_document(doc(), text, max_chars=1200, min_chars=100, overlap_chars=500)
    assert len(chunks) > 1
    assert [c.ref for c in chunks] == [f"Article 7 ({i}/{len(chunks)})" for i in range(1, len(chunks) + 1)]
    assert all(len(c.text) <= 1200 for c in chunks)
    for before, after in zip(chunks, chunks[1:]):  # the next part starts with the last paragraph of the previous
        assert after.text.split("\n\n")[0] == before.text.split("\n\n")[-1]
    joined = "\n\n".join(chunks[0].text.split("\n\n") + [p for c in chunks[1:] for p in c.text.split("\n\n")[1:]])
    assert all(p in joined for p in paragraphs), "no paragraph is lost"


def test_giant_definition_paragraph_is_split_on_sentences_without_losing_text():
    article4 = by_ref(corpus_chunks("eu-gdpr"), "Article 4")
    assert len(article4) > 3
    assert all(len(c.text) <= 1800 for c in article4)
    text = " ".join(c.text for c in article4)
    for term in ["‘personal data’ means", "‘controller’ means", "‘international organisation’ means"]:
        assert term in text


def test_tiny_fragments_are_merged_with_their_neighbour():
    text = (
        "### Article 1 — Subject\n\nShort.\n\n"
        "### Article 2 — Scope\n\n" + "This Regulation applies to everything relevant. " * 10
    )
    chunks = chunk_document(doc(), text, max_chars=1800, min_chars=100, overlap_chars=100)
    assert len(chunks) == 1
    assert chunks[0].ref == "Article 1; Article 2"
    assert chunks[0].text.startswith("Short.")


def test_index_text_carries_document_and_section_context():
    chunk = by_ref(corpus_chunks("eu-gdpr"), "Article 33")[0]
    assert chunk.index_text.startswith("GDPR — Article 33 — Notification of a personal data breach")
