"""The articles a list question asks for one by one, by the first word of their headings
(regintel/retrieval/listed_articles.py)."""

from __future__ import annotations

import pytest

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.crosslingual import load_glossary
from regintel.retrieval.listed_articles import (heading_lead_word, listed_article_chunk_ids, listed_noun,
                                                listed_noun_stems, one_word_equivalents)


def chunk(chunk_id: str, ref: str, heading: str, document_id: str = "eu-gdpr") -> Chunk:
    return Chunk(chunk_id, document_id, "GDPR", ref, heading, "", "text", "EU", "en", "eu_law", "", 0)


CHUNKS = [
    chunk("a15~1", "Article 15 (1/2)", "Article 15 — Right of access by the data subject"),
    chunk("a15~2", "Article 15 (2/2)", "Article 15 — Right of access by the data subject"),
    chunk("a16", "Article 16", "Article 16 — Right to rectification"),
    chunk("a17", "Article 17", "Article 17 — Right to erasure ('right to be forgotten')"),
    chunk("a39", "Article 39", "Article 39 — Tasks of the data protection officer"),
    chunk("a57", "Article 57", "Article 57 — Tasks"),
    chunk("other-right", "Article 3", "Article 3 — Right of appeal", document_id="other-act"),
    chunk("section", "CHAPTER III › Section 1", "Section 1 — Rights and transparency"),
]


def test_the_first_part_of_each_article_headed_by_the_listed_noun_in_the_acts_order():
    assert heading_lead_word("Article 17 — Right to erasure ('right to be forgotten')", "en") == "right"
    assert listed_article_chunk_ids(CHUNKS, "eu-gdpr", {"right", "data", "subject"}) == ["a15~1", "a16", "a17"]


def test_none_when_the_noun_heads_fewer_articles_or_another_act_is_asked():
    assert listed_article_chunk_ids(CHUNKS, "eu-gdpr", {"task", "board"}) == [], "two 'Tasks' articles are no list"
    assert listed_article_chunk_ids(CHUNKS, "other-act", {"right"}) == []
    assert listed_article_chunk_ids(CHUNKS, "eu-gdpr", {"erasur"}) == []


def test_a_word_introduced_by_a_preposition_is_no_noun_the_question_lists():
    """"What are the lawful bases for processing?" lists bases: read as listing "processing", it was answered with the
    six GDPR articles headed "Processing of ..." (Article 10 on criminal convictions first) instead of Article 6."""
    assert listed_noun_stems("What are the lawful bases for processing?", "en") == {"lawful", "basi"}
    assert listed_noun_stems("What are the rights of data subjects?", "en") == {"right"}
    assert listed_noun_stems("Quels sont les droits de la personne concernée ?", "fr") == {"droit"}
    assert listed_noun_stems("What rights does the data subject have?", "en") == {"right"}
    assert listed_noun_stems("What are the lawful bases for processing personal data of employees?", "en") is None


@pytest.mark.parametrize("question, language", [
    ("What must the processing contract include?", "en"),  # a document's contents, not the "Processing ..." articles
    ("Was muss ein Vertrag enthalten?", "de"),
    ("Rights of data subjects?", "en"),
])
def test_a_question_not_opening_on_the_noun_it_lists_lists_no_articles(question, language):
    """"What must the processing contract include?" was read as listing "processing": the answer quoted the openings
    of six GDPR articles headed "Processing ..." (Articles 10, 11, 29, 85, 86, 88) instead of Article 28(3)."""
    assert listed_noun_stems(question, language) is None


@pytest.mark.parametrize("question, language, stems", [
    # the listed noun's own phrase: what the listed things do, or whom they concern, is not listed
    ("Which grounds make processing lawful?", "en", {"ground"}),
    ("What are the data subject's rights?", "en", {"data", "subject", "right"}),
    ("What are the main rights?", "en", {"main", "right"}),
    ("Welche Pflichten hat der Auftragsverarbeiter?", "de", {"pflicht"}),
    ("¿Qué derechos tienen los interesados según el RGPD?", "es", {"derech"}),
])
def test_the_listed_noun_is_the_phrase_after_the_interrogative(question, language, stems):
    """"Which grounds make processing lawful?" (issue 16's own example of a list question) was read as listing
    "processing": the GDPR's eight articles headed "Processing of ..." (Article 10 on criminal convictions first) led
    the passages, and the turn abstained with Article 6 ranked first by retrieval."""
    assert listed_noun_stems(question, language) == stems


def test_a_word_after_the_listed_phrase_selects_no_articles():
    processing = [chunk(f"p{n}", f"Article {n}", f"Article {n} — Processing of special data {n}") for n in (9, 10, 11)]
    stems = listed_noun_stems("Which grounds make processing lawful?", "en")
    assert listed_article_chunk_ids(processing, "eu-gdpr", stems) == []
    assert listed_article_chunk_ids(processing, "eu-gdpr", {"process"}) == ["p9", "p10", "p11"], "the helper lists them"


@pytest.mark.parametrize("question, noun", [
    ("Quels sont les droits de la personne concernée ?", "droits"),
    ("Welche Rechte hat die betroffene Person?", "Rechte"),
    ("¿Cuáles son los derechos del interesado?", "derechos"),
    ("What rights does the data subject have?", "rights"),
    ("Quelles sont les différentes obligations du sous-traitant ?", "obligations"),
    # no noun right after the interrogative: nothing is listed (carried, "Auftragsverarbeitungsvertrag" brought
    # "processing", the first word of Articles 85 to 91's headings)
    ("Was muss ein Auftragsverarbeitungsvertrag nach DSGVO mindestens regeln?", ""),
    ("Wann müssen wir die Behörde informieren?", ""),
])
def test_the_noun_a_list_question_asks_for_is_the_word_after_its_interrogative(question, noun):
    assert listed_noun(question) == noun


@pytest.mark.parametrize("request_, question", [
    ("List the rights of the data subject.", "What are the rights of the data subject?"),
    ("Name all the principles of processing", "What are the principles of processing?"),
    ("Liste les droits de la personne concernée.", "Quels sont les droits de la personne concernée ?"),
    ("Enumera los derechos del interesado.", "¿Cuáles son los derechos del interesado?"),
    ("Nennen Sie die Rechte der betroffenen Person.", "Welche sind die Rechte der betroffenen Person?"),
    ("What rights does the data subject have?", "What rights does the data subject have?"),  # asked already
    ("Listen to this: is consent needed?", "Listen to this: is consent needed?"),
])
def test_a_list_asked_for_in_the_imperative_is_read_as_the_question_it_stands_for(request_, question):
    """"List the rights of the data subject" was no list question: "list" counted as one of its words, so no article
    headed "Right ..." was looked up, and the answer quoted Article 21 alone."""
    from regintel.retrieval.listed_articles import read_as_question

    assert read_as_question(request_) == question
    if request_ != question:
        assert listed_noun(request_) == listed_noun(question)


@pytest.mark.parametrize("noun, language, wanted", [
    ("incidents", "fr", {"incident", "incidents"}),
    ("Vorfälle", "de", {"incident", "incidents"}),
    ("droits", "fr", {"right"}),
    ("derechos", "es", {"right"}),
])
def test_a_listed_noun_asked_in_another_language_is_carried_as_its_one_word_equivalents(noun, language, wanted):
    """"Quels incidents doivent être déclarés au titre de DORA ?": the term list carries "incidents" as "ICT-related
    incident" too, whose "ICT" opens the headings of DORA's risk management articles, which the answer listed."""
    found = set(one_word_equivalents(noun, language, "en", load_glossary()))
    assert wanted <= found, found
    assert not any(" " in word or "-" in word for word in found), found


def test_the_first_word_of_a_longer_wording_lists_the_articles_it_opens():
    """Why the listed noun is carried by its one-word equivalents: the words of all the wordings of "incidents" list
    DORA's "ICT ..." articles; "incident" alone opens none of these headings."""
    dora = [chunk(f"d{n}", f"Article {n}", f"Article {n} — {heading}", "eu-dora") for n, heading in (
        (6, "ICT risk management framework"), (7, "ICT systems, protocols and tools"),
        (17, "ICT-related incident management process"), (19, "Reporting of major ICT-related incidents"))]
    every_word = {"ict", "relat", "incid", "cyber"}
    assert listed_article_chunk_ids(dora, "eu-dora", every_word) == ["d6", "d7", "d17"]
    assert listed_article_chunk_ids(dora, "eu-dora", {"incid"}) == []
