"""Applicability questions lead with the named act's scope provisions (regintel/retrieval/scope_search.py)."""

from __future__ import annotations

import pytest

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.scope_search import (asks_applicability, asks_exclusion, asks_when_it_applies, led_by_scope,
                                             scope_chunk_ids, states_non_application, with_scope_hits,
                                             without_exclusion_frame)
from regintel.retrieval.sources import Source


def hit(chunk_id: str) -> Source:
    return Source(chunk_id, "doc", "Act", chunk_id.split("~")[0], "", "text", 85.0, "eu_law", 1.0)


def unit(source: Source) -> str:
    return source.chunk_id.split("~")[0]


def chunk(chunk_id: str, title: str, heading: str) -> Chunk:
    return Chunk(chunk_id, "doc", title, heading.split(" — ")[0], heading, "", "text", "EU", "en", "eu_law", "", 0)


@pytest.mark.parametrize("question", [
    "Does the GDPR apply to a private person keeping an address book?",
    "Which types of financial entities are covered by DORA?",
    "Is our small insurance broker subject to DORA?",
    "Le RGPD s'applique-t-il à une association de quartier ?",
    "¿Se aplica DORA a los intermediarios de seguros que son pymes?",
    "Fällt ein Verein mit Mitgliederliste unter die DSGVO?",
    "Which entities does DORA cover?",
])
def test_questions_asking_whether_an_act_applies(question):
    assert asks_applicability(question)


@pytest.mark.parametrize("question", [
    "Within how many hours must a personal data breach be notified?",
    "Which details must appear on a VAT invoice?",
    "Quelles conditions l'assujetti doit-il remplir pour déduire la TVA ?",
    "What must a threat-led penetration test under DORA cover?",  # content, not applicability
    # which of the act's rules of a kind apply, not whether the act applies (answered from Article 2 before)
    "What penalties apply under DORA?", "Quelles sanctions s'appliquent en vertu du RGPD ?",
    "¿Qué sanciones se aplican según DORA?", "Welche Sanktionen gelten nach DORA?",
    "Which reduced rates apply to books?",
])
def test_other_questions_do_not_ask_about_applicability(question):
    assert not asks_applicability(question)


def test_scope_units_are_those_headed_by_the_acts_scope_in_the_named_documents():
    chunks = [chunk("g2", "GDPR", "Article 2 — Material scope"), chunk("g3", "GDPR", "Article 3 — Territorial scope"),
              chunk("g6", "GDPR", "Article 6 — Lawfulness of processing"),
              chunk("d2", "DORA", "Article 2 — Scope"),
              chunk("e1", "ESRS", "ANNEX II › Scope 3 GHG emissions"),  # an emissions scope, not the act's
              chunk("v1", "TVA", "Chapitre II. CHAMP D’APPLICATION")]
    assert scope_chunk_ids(chunks, {"GDPR"}) == ["g2", "g3"]
    assert scope_chunk_ids(chunks, {"ESRS", "TVA"}) == ["v1"]
    assert scope_chunk_ids(chunks, {"DORA"}) == ["d2"]


def test_the_best_passage_of_each_scope_unit_leads_the_hits():
    whole = [hit("A86"), hit("A9~p3"), hit("A35"), hit("A2~p1"), hit("A13")]
    merged = with_scope_hits(whole, [hit("A2~p2"), hit("A3"), hit("A2~p1")], unit, k=5)
    # A2 is among the hits already: that passage moves up; A3 is new and the last hit makes room
    assert [s.chunk_id for s in merged] == ["A2~p1", "A3", "A86", "A9~p3", "A35"]


def test_without_scope_hits_the_hits_stand():
    whole = [hit("A86"), hit("A9")]
    assert [s.chunk_id for s in with_scope_hits(whole, [], unit, k=5)] == ["A86", "A9"]


def test_led_by_scope_needs_an_applicability_question_and_a_scope_article_first():
    from dataclasses import replace

    scope = replace(hit("eu-dora#art-2~p1"), heading="Article 2 — Scope")
    other = replace(hit("eu-dora#art-26"), heading="Article 26 — Advanced testing of ICT tools")
    scope3 = replace(hit("eu-esrs#e1-6"), heading="Disclosure Requirement E1-6 › Scope 3 GHG emissions")
    assert led_by_scope("Which financial entities are covered by DORA?", [scope, other])
    assert not led_by_scope("Which financial entities are covered by DORA?", [other, scope])
    assert not led_by_scope("What must a threat-led penetration test cover?", [scope, other])
    assert not led_by_scope("Does the ESRS apply to Scope 3 emissions?", [scope3])
    assert not led_by_scope("Which financial entities are covered by DORA?", [])


@pytest.mark.parametrize("question", [
    "Who is exempt from DORA?", "Which entities are excluded from DORA?", "Who does the GDPR not apply to?",
    "Qui est exclu du RGPD ?", "Qui n'est pas concerné par le RGPD ?", "¿Quién está exento del RGPD?",
    "¿A quién no se aplica DORA?", "Wer ist von DORA ausgenommen?", "Für wen gilt DORA nicht?",
])
def test_questions_asking_whom_an_act_leaves_out(question):
    assert asks_applicability(question) and asks_exclusion(question)


@pytest.mark.parametrize("question", [
    "Which financial entities are covered by DORA?", "Does the GDPR apply to a household's photo album?",
    "Le RGPD s'applique-t-il à une association ?",
])
def test_questions_asking_whom_an_act_covers_are_no_exclusion_questions(question):
    assert asks_applicability(question) and not asks_exclusion(question)


def test_sentences_saying_that_an_act_does_not_apply():
    assert states_non_application("3. This Regulation does not apply to:")
    assert states_non_application("4. Member States may exclude from the scope of this Regulation entities ...")
    assert states_non_application("Paragraph 1 shall not apply to processing carried out by courts.")
    assert states_non_application("La présente directive ne s'applique pas aux opérations suivantes :")
    assert not states_non_application("Without prejudice to paragraphs 3 and 4, this Regulation applies to the following "
                                      "entities: (b) payment institutions, including payment institutions exempted ...")


def test_the_exclusion_frame_and_the_acts_names_leave_the_questions_own_subject():
    assert without_exclusion_frame("Who is exempt from DORA?").split() == ["Who", "is", "from", "?"]
    assert "record-keeping" in without_exclusion_frame("Are small companies exempt from the GDPR record-keeping duty?")


def test_exclusively_is_no_exclusion():
    assert not asks_exclusion("Does the GDPR apply to processing done exclusively for a family's household purposes?")


@pytest.mark.parametrize("question", [
    "When does DORA apply?", "From when does the GDPR apply?", "Wann gilt die DORA?", "Ab wann gilt die DSGVO?",
    "À partir de quand le RGPD s'applique-t-il ?", "Quand la directive TVA est-elle entrée en vigueur ?",
    "¿Desde cuándo se aplica DORA?", "When does DORA enter into force?",
])
def test_questions_asking_from_when_an_act_applies(question):
    """The date an act applies from, asked with nothing but its name: its final provisions answer, not its scope."""
    assert asks_when_it_applies(question)
    assert not asks_applicability(question)


@pytest.mark.parametrize("question", [
    "When does the GDPR apply to a shop outside the EU?",  # in which cases: its scope answers
    "When does it apply?",  # names no act (a follow-up)
    "Does DORA apply to insurance intermediaries?",
    "When must a breach be notified under the GDPR?",
])
def test_questions_not_asking_from_when_an_act_applies(question):
    assert not asks_when_it_applies(question)
