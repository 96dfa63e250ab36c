"""The questions an analyst asks on day one, in a real browser on the demo corpus (offline provider): a definition,
a list, a cross-lingual and a compound question are each answered with a chip of the right article (a question in two
parts with a chip of each part's article, the difference between two defined terms with both definitions, a question
written with an acronym the act never writes from the article it stands for); an opinion and
a question that pastes customers' personal data are refused with suggestions. Questions written for this test,
not taken from the evaluation set (data/eval)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import indexed_demo_app, screenshot, wait_until_drawn

ANSWERED = [  # (question, chip pattern of the article that must be cited, words the answer must quote from it)
    pytest.param("How does the GDPR define pseudonymisation?", r"GDPR · Art\. 4\b",
                 "means the processing of personal data in such a manner", id="definition"),
    pytest.param("Under which conditions is the processing of personal data lawful according to the GDPR?",
                 r"GDPR · Art\. 6\b", "the data subject has given consent", id="list"),
    pytest.param("Which details must appear on a VAT invoice?", r"VAT Directive \(FR\) · Art\. 226\b",
                 "la date d'émission de la facture", id="crosslingual"),
    pytest.param("What does a controller have to do when a personal data breach happens, and within what time?",
                 r"GDPR · Art\. 33\b", "not later than 72 hours", id="compound"),
    # a principle the act names in brackets after stating it, not with "means" (it abstained or quoted another
    # article until session 53)
    pytest.param("What is purpose limitation?", r"GDPR · Art\. 5\b", "(‘purpose limitation’)", id="named-in-brackets"),
    # guidance that asks "Qu’est-ce que le One Stop Shop (OSS) ... ?" in a heading answers it below (the guidance's
    # title unit was quoted until session 54)
    pytest.param("What is the one-stop shop?", r"One Stop Shop \(OSS\) TVA.*Qu’est-ce que le One Stop Shop",
                 "l’application OSS ou One Stop Shop (guichet unique) a remplacé", id="faq-heading"),
    # the act's own English term quoted in a German question: its glossary entry, under a chip naming that entry
    # first (no answer until session 55, and the merged unit's chip named its other entry)
    pytest.param("Was versteht man unter einem Carbon Credit in den ESRS?", r"ESRS · Carbon credit",
                 "A transferable or tradable instrument that represents one metric tonne", id="term-as-written"),
    # a list of provisions asked for in general: the six articles headed "Right ..." closest to the question (Article 15
    # alone until session 56; since session 58's demo corpus model Article 17 is the seventh, Article 18 among the six)
    pytest.param("What rights does the data subject have?", r"GDPR · Art\. 18\b",
                 "The data subject shall have the right to obtain from the controller restriction of processing",
                 id="listed-articles"),
    # a glossary entry split into two parts: the definition in its first part (its second part's opening until 56)
    pytest.param("What is meant by a grievance mechanism?", r"ESRS · Grievance mechanism",
                 "Any routinized, state-based or non-state-based", id="split-glossary-entry"),
]
REFUSED = [
    "Do you think our bank should lobby to soften DORA before it applies?",
    "Can we keep marketing to these customers: an.peeters@example.com, bram.janssens@example.org, "
    "claire.dubois@example.net (born 03/04/1981)?",
]


@pytest.fixture(scope="module")
def answers_app(tmp_path_factory):
    """One app for the module (each question opens a new session and conversation): indexing the demo per question
    cost ~13 s each in CI."""
    with indexed_demo_app(tmp_path_factory.mktemp("answers"), REGINTEL_RESPONSE_CACHE_TTL_SECONDS="0") as (app, _):
        yield app


def ask(page, url: str, question: str):
    """A new conversation with one question; returns the assistant message once its grade badge is shown."""
    page.goto(url)
    page.get_by_text("Offline mode").first.wait_for(timeout=60_000)
    page.get_by_test_id("stChatInputTextArea").fill(question)
    page.get_by_test_id("stChatInputTextArea").press("Enter")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    answer.get_by_text(re.compile(r"^(DIRECT|QUALIFIED|ABSTAIN)$")).first.wait_for(timeout=90_000)
    return answer


@pytest.mark.parametrize("question, chip, quote", ANSWERED)
def test_day_one_questions_are_answered_with_the_right_article(answers_app, page, question, chip, quote):
    answer = ask(page, f"{answers_app.url}/Chat", question)
    assert answer.get_by_text("ABSTAIN", exact=True).count() == 0, answer.inner_text()[:600]
    assert answer.get_by_text("Closest passages (not cited)").count() == 0
    wait_until_drawn(answer)
    chips = [answer.get_by_role("button").nth(i).inner_text() for i in range(answer.get_by_role("button").count())]
    assert any(re.search(r"^\[\d+\] " + chip, name) for name in chips), chips
    assert quote in answer.inner_text(), "the right paragraph of the article is quoted"
    screenshot(page, f"chat_{question.split()[0].lower()}")


def test_a_two_part_question_is_answered_from_both_articles(answers_app, page):
    """Each part has its own article (reporting to the authority: Article 33; telling the people: Article 34): the
    answer quotes both, one chip each."""
    answer = ask(page, f"{answers_app.url}/Chat", "When does a breach of personal data have to be reported to the "
                 "regulator, and when must the people affected be told as well?")
    assert answer.get_by_text("ABSTAIN", exact=True).count() == 0, answer.inner_text()[:600]
    wait_until_drawn(answer)
    chips = [answer.get_by_role("button").nth(i).inner_text() for i in range(answer.get_by_role("button").count())]
    for article in ("33", "34"):
        assert any(re.search(rf"^\[\d+\] GDPR · Art\. {article}\b", name) for name in chips), chips


def test_the_difference_between_two_defined_terms_is_answered_by_both_definitions(answers_app, page):
    """Each side of the comparison is a term Article 4 defines: the answer quotes both definitions, one chip each
    (retrieval alone ranks the processor's duties, Articles 28 and 29, first)."""
    answer = ask(page, f"{answers_app.url}/Chat", "What is the difference between a controller and a processor?")
    wait_until_drawn(answer)
    text = answer.inner_text()
    assert "‘controller’ means" in text and "‘processor’ means" in text, text[:800]
    chips = [answer.get_by_role("button").nth(i).inner_text() for i in range(answer.get_by_role("button").count())]
    assert sum(bool(re.search(r"^\[\d+\] GDPR · Art\. 4\b", name)) for name in chips) == 2, chips


def test_a_question_written_with_a_practitioners_acronym_is_answered_and_kept_as_written(answers_app, page):
    """The GDPR never writes "DPIA": the engine reads it as "data protection impact assessment" (the question was
    refused as out of domain), while the conversation shows the question as the analyst wrote it."""
    question = "What must a DPIA contain?"
    answer = ask(page, f"{answers_app.url}/Chat", question)
    assert answer.get_by_text("ABSTAIN", exact=True).count() == 0, answer.inner_text()[:600]
    wait_until_drawn(answer)
    chips = [answer.get_by_role("button").nth(i).inner_text() for i in range(answer.get_by_role("button").count())]
    assert any(re.search(r"^\[\d+\] GDPR · Art\. 35\b", name) for name in chips), chips
    assert "The assessment shall contain at least" in answer.inner_text()
    asked = page.get_by_test_id("stChatMessage").nth(0).inner_text()
    assert question in asked and "impact assessment" not in asked, asked


@pytest.mark.parametrize("question", REFUSED, ids=["opinion", "pasted_customer_data"])
def test_opinions_and_pasted_personal_data_are_refused_with_suggestions(answers_app, page, question):
    answer = ask(page, f"{answers_app.url}/Chat", question)
    text = answer.inner_text()
    assert "was not answered because" in text and "Instead, try asking:" in text, text[:600]
    assert "an.peeters@example.com" not in text.split("was not answered because", 1)[1]


def test_a_labelled_identifier_in_the_question_is_refused_and_not_shown_back(answers_app, page):
    """A number pasted as a person's identifier, checksum or not ("employee ID 55821"), makes the question an analysis
    of personal data (session 89): refused with suggestions, and the number is not repeated in the reply."""
    question = "Employee ID 55821 asked for his file under Article 15: which parts may we redact?"
    answer = ask(page, f"{answers_app.url}/Chat", question)
    text = answer.inner_text()
    assert "was not answered because" in text and "Instead, try asking:" in text, text[:600]
    assert "55821" not in text.split("was not answered because", 1)[1]


def test_a_german_opinion_question_is_refused_in_german(answers_app, page):
    """The refusal and its reason are in the question's language (a German question was refused in English)."""
    answer = ask(page, f"{answers_app.url}/Chat", "Was halten Sie von der DSGVO, ist sie eine gute Regelung?")
    text = answer.inner_text()
    assert "Ihre Frage wurde nicht beantwortet, weil sie eine Meinung oder Stellungnahme verlangt" in text, text[:600]
    assert "Fragen Sie stattdessen zum Beispiel:" in text and "was not answered" not in text, text[:600]
    # the suggestions too, by the articles' German titles from the corpus's search titles (session 96)
    assert re.search(r"Was (sagt|verlangt) Article \d+", text) and "What does Article" not in text, text[:900]
