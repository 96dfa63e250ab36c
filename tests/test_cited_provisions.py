"""Questions citing a provision: which provisions they cite, and which passages hold them."""

from __future__ import annotations

import re

import pytest

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.cited_provisions import (LEAD_PASSAGES, asks_what_it_says, cited_provisions, holds_provision,
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
