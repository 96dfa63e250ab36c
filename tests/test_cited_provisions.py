"""Questions citing a provision: which provisions they cite, and which passages hold them."""

from __future__ import annotations

import re

import pytest

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.cited_provisions import (LEAD_PASSAGES, CitedParagraph, asks_what_it_says, cited_paragraph,
                                                 cited_provisions, holds_provision, paragraph_cited,
                                                 provision_chunk_ids)


@pytest.mark.parametrize("question, provisions", [
    ("What does Article 9 of the VAT Directive say?", ["article 9"]),
    ("Que prévoit l'article 226 bis de la directive TVA ?", ["article 226 bis"]),
    ("¿Qué establece el artículo 17 del RGPD? ¿Y el Art. 5(1)?", ["article 17", "article 5"]),
    ("Explain GOV-1 of ESRS 2 and E1-6", ["GOV-1", "E1-6"]),
    ("What must a DPIA contain?", []),
])
def test_the_provisions_a_question_cites(question, provisions):
    assert cited_provisions(question) == provisions


@pytest.mark.parametrize("ref, provision, held", [
    ("Article 9 (1/3)", "article 9", True),
    ("Article 26; Article 27", "article 27", True),  # two short articles in one passage
    ("Article 4(7)", "article 4", True),  # a definition of Article 4
    ("Article 9 bis", "article 9", False),  # "l'article 9" is not the article inserted after it
    ("Article 3(9)", "article 9", False),
    ("Article 226 bis (1/2)", "article 226 bis", True),
    ("ESRS 2 › Disclosure Requirement GOV-1 – The role of the bodies (2/4)", "GOV-1", True),
    ("ESRS 2 › Disclosure Requirement GOV-10", "GOV-1", False),
])
def test_a_passage_holds_the_provision_its_reference_names(ref, provision, held):
    assert holds_provision(ref, provision) is held


def _chunk(document_id: str, ref: str, position: int) -> Chunk:
    unit = re.sub(r"\s*\(\d+/\d+\)$", "", ref)
    return Chunk(chunk_id=f"{document_id}:{position}", document_id=document_id, title=document_id, ref=ref,
                 heading=unit, section_path=ref, text="text", jurisdiction="EU", language="en",
                 authority_level="eu_law", source_url="", position=position, parent=f"{document_id}#{unit}")


def test_the_cited_provision_is_taken_from_the_first_document_that_holds_it_in_reading_order():
    chunks = [_chunk("gdpr", "Article 33", 40), _chunk("dora", "Article 33 (2/2)", 91), _chunk("dora", "Article 33 (1/2)", 90),
              _chunk("dora", "Article 3(33)", 12), _chunk("vat", "Article 9 bis", 5)]
    assert provision_chunk_ids(chunks, ["article 33"], ["dora", "gdpr"]) == ["dora:90", "dora:91"]
    assert provision_chunk_ids(chunks, ["article 33"], ["vat", "gdpr"]) == ["gdpr:40"]
    assert provision_chunk_ids(chunks, ["article 9"], ["vat"]) == []
    many = [_chunk("esrs", f"ESRS E1 › Disclosure Requirement E1-6 – Emissions ({n}/9)", n) for n in range(1, 10)]
    assert provision_chunk_ids(many, ["E1-6"], ["esrs"]) == [f"esrs:{n}" for n in range(1, LEAD_PASSAGES + 1)]


@pytest.mark.parametrize("question, asks", [
    ("What does Article 33 GDPR say?", True),
    ("Summarise Article 6 of the GDPR", True),
    ("Article 28 DORA", True),
    ("Que dit l'article 226 de la directive TVA ?", True),
    ("¿Qué establece el artículo 17 del RGPD?", True),
    ("Was steht in Artikel 5 DSGVO?", True),
    ("Explain GOV-1 of ESRS 2", True),
    ("What does Article 369 novodecies say?", True),
    ("What does Article 33 GDPR say about the 72 hours?", False),  # asks about one point of it
    ("When must a breach be notified under Article 33?", False),
    ("What does Article 30(2) require?", False),  # one paragraph, not the article's opening
    ("Compare Article 33 and Article 34 GDPR", False),
    ("What is DORA?", False),  # cites no provision
    ("What must be disclosed under ESRS E1-6?", True),  # what it requires, in the asker's words
    ("Que faut-il publier au titre de E1-6 ?", True),
    ("Was müssen wir nach E1-6 offenlegen?", True),
    ("What must be disclosed about Scope 3 emissions under E1-6?", False),  # one point of it
])
def test_a_question_citing_a_provision_and_asking_only_what_it_says(question, asks):
    assert asks_what_it_says(question) is asks


@pytest.mark.parametrize("question, cited", [
    ("What does Article 30(2) GDPR require?", CitedParagraph("article 30", 2)),
    ("What is Article 6(1)(f)?", CitedParagraph("article 6", 1, "f")),
    ("What does point (f) of Article 6(1) GDPR say?", CitedParagraph("article 6", 1, "f")),
    ("Que dit l'article 6, paragraphe 1, point f), du RGPD ?", CitedParagraph("article 6", 1, "f")),
    ("¿Qué dice el artículo 6, apartado 1, letra f), del RGPD?", CitedParagraph("article 6", 1, "f")),
    ("Was steht in Art. 6 Abs. 1 lit. f DSGVO?", CitedParagraph("article 6", 1, "f")),
    ("Que prévoit l'article 226 bis, paragraphe 1, de la directive TVA ?", CitedParagraph("article 226 bis", 1)),
    ("When must a breach be notified under Article 33(1)?", None),  # asks something of its own
    ("What does Article 33 GDPR say?", None),  # the whole article
    ("Compare Article 6(1) and Article 9(2).", None),
])
def test_the_paragraph_a_question_cites_and_asks_what_it_says(question, cited):
    assert cited_paragraph(question) == cited


def test_the_cited_paragraphs_passages_lead_the_provisions_hits():
    """Article 28(8) of DORA is in the fifth of its seven parts, past the first LEAD_PASSAGES in reading order; the
    GDPR's seventh definition is its own unit, Article 4(7)."""
    from dataclasses import replace

    parts = [replace(_chunk("dora", f"Article 28 ({n}/7)", 100 + n), text=f"{n + 2}. A rule.\n\n{n + 3}. Another.")
             for n in range(1, 8)]
    assert paragraph_cited("What does Article 28(8) of DORA say?") == 8
    assert provision_chunk_ids(parts, ["article 28"], ["dora"], 8)[:2] == ["dora:105", "dora:106"]
    assert provision_chunk_ids(parts, ["article 28"], ["dora"]) == [f"dora:{100 + n}" for n in range(1, 5)]
    definitions = [_chunk("gdpr", f"Article 4({n})", n) for n in range(1, 27)]
    assert provision_chunk_ids(definitions, ["article 4"], ["gdpr"], 7)[0] == "gdpr:7"
