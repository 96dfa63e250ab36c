"""Questions about an act as a whole ("What is DORA?"): which questions ask it, and which unit answers it."""

from __future__ import annotations

import re

import pytest

from regintel.retrieval.act_overview import (application_chunk_ids, asks_about_the_act, is_opening_unit,
                                             opening_chunk_ids)
from regintel.retrieval.chunking import Chunk


@pytest.mark.parametrize("question", [
    "What is DORA?", "What is the GDPR?", "What is the purpose of the General Data Protection Regulation?",
    "What does the GDPR regulate?", "Qu'est-ce que la directive TVA ?", "Quel est l'objet de DORA ?",
    "¿Cuál es el objeto del RGPD?", "¿Qué es la Directiva del IVA?", "Was regelt die DSGVO?", "Worum geht es in DORA?",
    "What is ESRS E1?", "What is the objective of ESRS S1?", "What is MiFID II?",
    "What does DORA require?", "What are the main obligations under DORA?",  # what it requires, as a whole
    "Quelles sont les principales obligations du RGPD ?", "Was sind die wichtigsten Pflichten nach der DSGVO?",
    "¿Qué exige la Directiva del IVA?",
])
def test_a_question_naming_an_act_and_only_asking_what_it_is_asks_about_the_act(question):
    assert asks_about_the_act(question)


@pytest.mark.parametrize("question", [
    "What is the GDPR fine for a data breach?",  # asks about one of its rules
    "What is DORA Article 5 about?",
    "Does DORA apply to insurance intermediaries?",  # applicability: the act's scope answers
    "What is a DPIA?",  # names no act
    "What is the purpose of a data protection impact assessment?",
    "What is the GDPR and DORA overlap on incident reporting?",
    "What are the key obligations of a controller under the GDPR?",  # one party's obligations: not the act's opening
    "What rules apply to processors under the GDPR?",
])
def test_a_question_about_a_provision_or_naming_no_act_does_not(question):
    assert not asks_about_the_act(question)


def test_an_opening_unit_is_headed_by_the_acts_subject_matter_or_objective_or_is_its_first_article():
    assert is_opening_unit("Article 1 — Subject-matter and objectives", "Article 1")
    assert is_opening_unit("Article 1 — Subject matter", "Article 1 (1/2)")
    assert is_opening_unit("Objective", "ESRS 1 › Objective")
    assert is_opening_unit("Article 1", "Article 1")  # the VAT Directive's articles have no headings
    assert is_opening_unit("Article premier; Chapitre II. CHAMP D’APPLICATION; Article 2", "Article 1; Article 2")
    assert not is_opening_unit("Article 10", "Article 10")
    assert not is_opening_unit("Article 311 — Définitions — «objets d'art»", "Article 311(1)(2)")
    assert not is_opening_unit("Article 5 — Principles relating to processing of personal data", "Article 5")


def _chunk(document_id: str, ref: str, heading: str, position: int, title: str = "Act") -> Chunk:
    unit = re.sub(r"\s*\(\d+/\d+\)$", "", ref)
    return Chunk(chunk_id=f"{document_id}:{position}", document_id=document_id, title=title, ref=ref, heading=heading,
                 section_path=ref, text="text", jurisdiction="EU", language="en", authority_level="eu_law",
                 source_url="", position=position, parent=f"{document_id}#{unit}")


def test_the_opening_unit_is_the_documents_first_unless_the_question_names_one_of_its_standards():
    chunks = [
        _chunk("esrs", "Article 1", "Article 1", 4),
        _chunk("esrs", "ESRS 1 › Objective", "Objective", 9),
        _chunk("esrs", "ESRS E1 › Objective (1/2)", "Objective", 178),
        _chunk("esrs", "ESRS E1 › Objective (2/2)", "Objective", 179),
        _chunk("esrs", "ESRS E1 › Disclosure Requirement E1-1", "Disclosure Requirement E1-1", 180),
        _chunk("other", "Article 1", "Article 1 — Subject matter", 0, title="Other act"),
    ]
    assert opening_chunk_ids(chunks, {"Act"}) == ["esrs:4"]  # "What are the ESRS?": the act's first, not E1's
    assert opening_chunk_ids(chunks, {"Act"}, ["ESRS E1"]) == ["esrs:178", "esrs:179"]  # every part, in order
    assert opening_chunk_ids(chunks, {"Act", "Other act"}) == ["esrs:4", "other:0"]
    assert opening_chunk_ids(chunks, {"Missing"}) == []


def test_the_application_unit_is_headed_by_the_acts_entry_into_force():
    """"When does DORA apply?": Article 64, "Entry into force and application" (a unit of the chunk it shares with
    Article 63), in the named documents only."""
    chunks = [
        _chunk("dora", "Article 2", "Article 2 — Scope", 3, title="DORA"),
        _chunk("dora", "Article 63; Article 64", "Article 63 — Review clause; Article 64 — Entry into force and "
               "application", 410, title="DORA"),
        _chunk("gdpr", "Article 99", "Article 99 — Entry into force and application", 300, title="GDPR"),
        _chunk("vat", "Article 411", "CHAPITRE 3 - Transposition et entrée en vigueur › Article 411", 900, title="TVA"),
    ]
    assert application_chunk_ids(chunks, {"DORA"}) == ["dora:410"]
    assert application_chunk_ids(chunks, {"DORA", "GDPR", "TVA"}) == ["dora:410", "gdpr:300", "vat:900"]
    assert application_chunk_ids(chunks, {"Other"}) == []
