"""Definition questions lead with the passage defining the asked term (regintel/retrieval/defining_passages.py)."""

from __future__ import annotations

import pytest

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.defining_passages import DefiningPassages, definitions_first, definitions_last
from regintel.retrieval.term_definitions import (asked_by_heading, glossary_title_names, term_variants,
                                                 terms_defined_by)
from regintel.text.asked_terms import asked_term
from regintel.text.question_kinds import asks_penalty_for_infringement, asks_what_is_provided_on, asks_who_when_or_how


def chunk(chunk_id: str, text: str, ref: str, heading: str = "", language: str = "en") -> Chunk:
    return Chunk(chunk_id, "doc", "Act", ref, heading, "", text, "EU", language, "eu_law", "", 0)


CHUNKS = {c.chunk_id: c for c in (
    chunk("e1-7", "The undertaking shall disclose GHG removals and carbon credits: the carbon credits it purchased, "
          "the carbon credits planned to be cancelled in the future and the quality standards of carbon credits.",
          "ESRS E1 › Disclosure Requirement E1-7", "Disclosure Requirement E1-7 – carbon credits"),
    chunk("annex-ii", "A transferable or tradable instrument that represents one metric tonne of CO2eq emission "
          "reduction or removal.\n\nThe universal unit of measurement to indicate the global warming potential.",
          "ANNEX II › Carbon credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq)",
          "Carbon credit; Carbon dioxide (CO2) equivalent (eq)"),
    chunk("gdpr-4-7", "(7) ‘controller’ means the natural or legal person which determines the purposes and means of "
          "the processing of personal data;", "Article 4(7)", "Article 4 — Definitions — ‘controller’"),
    chunk("vat-9", "1. Est considéré comme «assujetti» quiconque exerce, d'une façon indépendante et quel qu'en soit "
          "le lieu, une activité économique.", "Article 9", "Article 9", language="fr"),
)}


def defining_among(question: str, language: str, candidates: list[str]) -> list[str]:
    return DefiningPassages(CHUNKS).among(asked_term(question), language, candidates)


def test_the_defining_passage_of_the_asked_term_is_found_among_candidates():
    assert defining_among("What is a carbon credit for ESRS purposes?", "en", list(CHUNKS)) == ["annex-ii"]
    assert defining_among("Who is the 'controller' of a processing operation?", "en", list(CHUNKS)) == ["gdpr-4-7"]
    assert defining_among("Qu'entend-on par « assujetti » ?", "fr", list(CHUNKS)) == ["vat-9"]
    assert defining_among("Que faut-il entendre par « assujetti » ?", "fr", list(CHUNKS)) == ["vat-9"]
    assert defining_among("Que doit-on comprendre par assujetti dans la directive ?", "fr", list(CHUNKS)) == ["vat-9"]


def test_a_glossary_entry_split_into_parts_is_defined_by_its_first_part_only():
    """Chunking numbers the parts of a long entry ("ANNEX II › Grievance mechanism (1/2)"): the entry was read as
    defining nothing (its reference, with the part number, is not its heading), so a definition question found no
    defining passage; the later parts go on about the term and define nothing."""
    parts = {c.chunk_id: c for c in (
        chunk("gm~1", "Any routinized, state-based or non-state-based, judicial or non-judicial processes through "
              "which stakeholders can raise grievances and seek remedy.", "ANNEX II › Grievance mechanism (1/2)",
              "Grievance mechanism"),
        chunk("gm~2", "In addition to these criteria, effective operational-level grievance mechanisms are also based "
              "on engagement and dialogue.", "ANNEX II › Grievance mechanism (2/2)", "Grievance mechanism"),
    )}
    assert terms_defined_by(parts["gm~1"].text, parts["gm~1"].heading, parts["gm~1"].ref) == ["Grievance mechanism"]
    assert terms_defined_by(parts["gm~2"].text, parts["gm~2"].heading, parts["gm~2"].ref) == []
    section = chunk("dm~1", "The principle of double materiality is the basis for sustainability disclosures.",
                    "ESRS 1 › 3.3 Double materiality (1/2)", "3.3 Double materiality")
    assert terms_defined_by(section.text, section.heading, section.ref) == [], "a numbered section is no glossary entry"
    assert DefiningPassages(parts).among(asked_term("What is a grievance mechanism?"), "en", ["gm~2", "gm~1"]) == ["gm~1"]


def test_a_glossary_title_giving_a_word_and_its_other_name_defines_both():
    """ESRS's glossary writes "BREF or EU Best Available Techniques reference documents", "Biodiversity or biological
    diversity": "Was ist ein BREF?" found the entry first and quoted a requirement mentioning BREFs (the title, eight
    words, was no glossary title). A title with "or" inside a term or a list of things is one term."""
    bref = chunk("bref", "Documents drawn up under Directive 2010/75/EU describing the best available techniques.",
                 "ANNEX II › BREF or EU Best Available Techniques reference documents",
                 "BREF or EU Best Available Techniques reference documents")
    assert DefiningPassages({"bref": bref}).among(asked_term("Was ist ein BREF?"), "de", ["bref"]) == ["bref"]
    assert glossary_title_names("Biodiversity or biological diversity") == [
        "Biodiversity or biological diversity", "Biodiversity", "biological diversity"]
    for one_term in ("Confirmed incident of corruption or bribery", "Biosphere integrity or ecological integrity",
                     "Purchased or acquired electricity, heat, steam, or cooling"):
        assert glossary_title_names(one_term) == [one_term]
    assert term_variants("critical or important function") == ["critical or important function"], \
        "a quoted definition's term is one term"


def test_across_languages_the_term_is_carried_by_the_legal_term_list():
    assert defining_among("Who counts as a 'taxable person' for VAT?", "en", list(CHUNKS)) == ["vat-9"]


def test_across_languages_a_term_quoted_as_the_act_writes_it_is_that_term():
    """Analysts quote the act's own term in a sentence of their language ("Was ist ein Carbon Credit im Sinne der
    ESRS?"): the term list does not carry an English term written in a German question, but it is the term the
    English entry defines."""
    assert defining_among("Was ist ein Carbon Credit im Sinne der ESRS?", "de", list(CHUNKS)) == ["annex-ii"]
    assert defining_among("¿Qué es un carbon credit según las ESRS?", "es", list(CHUNKS)) == ["annex-ii"]
    assert defining_among("Was ist ein Emissionszertifikat?", "de", list(CHUNKS)) == []


def test_across_languages_a_borrowed_term_spelled_almost_alike_is_the_term_an_entry_defines():
    """"Desertifikation" is written almost as the ESRS entry "Desertification" (neither the term list nor the entry's
    German search title, "Wüstenbildung", names it); a word merely resembling a defined term is not it."""
    entries = {c.chunk_id: c for c in (
        Chunk("desertification", "eu-esrs", "ESRS", "ANNEX II › Desertification", "Desertification", "ANNEX II",
              "Land degradation in arid, semi-arid and dry sub-humid areas resulting from various factors.", "EU",
              "en", "eu_law", "", 0),
        Chunk("controller", "eu-gdpr", "GDPR", "Article 4(7)", "Article 4 — Definitions — ‘controller’", "",
              "(7) ‘controller’ means the natural or legal person which determines the purposes and means of the "
              "processing of personal data;", "EU", "en", "eu_law", "", 1),
    )}
    passages = DefiningPassages(entries)
    assert passages.among(asked_term("Was ist Desertifikation?"), "de", list(entries)) == ["desertification"]
    assert passages.among(asked_term("¿Qué es la desertificación?"), "es", list(entries)) == ["desertification"]
    assert passages.among(asked_term("Was ist Kontrolle?"), "de", list(entries)) == []  # not "controller"


def test_a_question_asking_about_no_term_or_an_undefined_one_changes_nothing():
    assert defining_among("How must carbon credits be disclosed under E1-7?", "en", list(CHUNKS)) == []
    assert defining_among("What is the deadline for notifying a breach?", "en", list(CHUNKS)) == []
    assert defining_among("What is a carbon credit?", "en", ["e1-7", "gdpr-4-7"]) == [], "only candidates count"


def test_terms_of_numbered_definitions_and_of_a_term_with_a_qualifier():
    """Definitions written without "means" right after the term: the French VAT texts' numbered items («1) «bon», un
    instrument», «2) «exigibilité de la taxe» le droit», «1. “régime non-UE”: le régime», two terms joined by "et") and
    the GDPR's "‘consent’ of the data subject means". A number in running text defines nothing."""
    from regintel.retrieval.term_definitions import terms_defined_by

    assert terms_defined_by("Aux fins de la présente directive, on entend par:  1) «bon», un instrument qui est "
                            "assorti d'une obligation") == ["bon"]
    assert terms_defined_by("2) «exigibilité de la taxe» le droit que le Trésor peut faire valoir") == \
        ["exigibilité de la taxe"]
    assert terms_defined_by("2) «État membre d’identification», l’État membre dans lequel") == \
        ["État membre d’identification"]
    assert terms_defined_by("1. “régime non-UE”: le régime particulier applicable aux services") == ["régime non-UE"]
    assert terms_defined_by("1) «Communauté» et «territoire de la Communauté», les territoires des États membres") == \
        ["Communauté", "territoire de la Communauté"]
    assert terms_defined_by("(11) ‘consent’ of the data subject means any freely given, specific indication") == \
        ["consent"]
    assert terms_defined_by("Un payeur au sens de l’article 4, point 8), de la directive (UE) 2015/2366;") == []
    assert terms_defined_by("The request may be made by electronic means.") == []


def test_a_qualified_definition_is_found_across_languages():
    chunks = {**CHUNKS, "gdpr-4-11": chunk(
        "gdpr-4-11", "(11) ‘consent’ of the data subject means any freely given, specific, informed and unambiguous "
        "indication of the data subject's wishes;", "Article 4(11)", "Article 4 — Definitions")}
    question = "Was versteht man unter Einwilligung nach der DSGVO?"
    assert DefiningPassages(chunks).among(asked_term(question), "de", list(chunks)) == ["gdpr-4-11"]


def test_defining_passages_move_to_the_front_in_their_order():
    ranked = [("a", 0.9), ("b", 0.8), ("c", 0.7)]
    scores = {"a": 0.9, "b": 0.8, "c": 0.7, "z": 0.1}
    assert definitions_first(ranked, ["z", "b"], scores, k=3) == [("z", 0.1), ("b", 0.8), ("a", 0.9)]
    assert definitions_first(ranked, [], scores, k=2) == [("a", 0.9), ("b", 0.8)]


def test_definitions_follow_the_other_passages_in_their_order():
    chunks = {cid: chunk(cid, "text", ref) for cid, ref in (
        ("dora-3~def-23", "Article 3(23)"), ("dora-3~def-29", "Article 3(29)"), ("dora-31~p1", "Article 31 (1/5)"),
        ("dora-31~p2", "Article 31 (2/5)"))}
    ranked = [("dora-3~def-23", 0.9), ("dora-3~def-29", 0.8), ("dora-31~p2", 0.7), ("dora-31~p1", 0.6)]
    assert definitions_last(ranked, chunks, k=3) == [("dora-31~p2", 0.7), ("dora-31~p1", 0.6), ("dora-3~def-23", 0.9)]
    assert definitions_last(ranked[:2], chunks, k=2) == ranked[:2], "only definitions: unchanged"


@pytest.mark.parametrize("question, asks", [
    ("Who designates critical ICT third-party service providers under DORA?", True),
    ("Wann muss ein Verantwortlicher personenbezogene Daten löschen?", True),
    ("¿Quién debe aprobar las normas corporativas vinculantes?", True),
    ("Et comment le prestataire identifie-t-il l'établissement stable du preneur ?", True),
    ("Who counts as a data subject?", False),  # what a definition says
    ("Quand une personne est-elle considérée comme assujettie ?", False),
    ("How is 'personal data' defined?", False),  # a definition question
    ("Who is a 'controller'?", False),
    ("What must an invoice contain?", False),
    # whether someone is bound to act: the term's definition says what the thing is, not who must do it
    ("Do small banks need threat-led penetration testing?", True),
    ("Must a processor keep a record of processing activities?", True),
    ("Are processors required to keep records?", True),
    ("Doit-on facturer la TVA sur les services financiers ?", True),
    ("¿Tenemos que nombrar un delegado de protección de datos?", True),
    ("Müssen wir schwerwiegende IKT-Vorfälle melden?", True),
    ("Is a bank a financial entity?", False),  # what something counts as
    ("Does the GDPR apply to small businesses?", False),
    # which of a kind of actor must act asks who
    ("Which financial entities must carry out threat-led penetration testing?", True),
    ("Quelles entreprises doivent tenir un registre des activités de traitement ?", True),
    ("¿Qué entidades financieras deben realizar pruebas de penetración basadas en amenazas?", True),
    ("Welche Finanzunternehmen müssen ein Informationsregister führen?", True),
    ("Which financial entities are covered by DORA?", False),  # which ones the act covers: a list, not who acts
    ("What do joint controllers have to agree on between themselves?", False),  # what, not which of them
])
def test_a_question_asking_who_acts_when_or_how(question, asks):
    assert asks_who_when_or_how(question) is asks


@pytest.mark.parametrize("question, asks", [
    ("Welche Strafen drohen bei einem Verstoß gegen die DSGVO?", True),
    ("Quelles sanctions encourt une entreprise qui enfreint le RGPD ?", True),
    ("What fines apply for breaches of the GDPR?", True),
    ("¿Qué multas se imponen por infracciones del RGPD?", True),
    ("When must a personal data breach be notified?", False),  # a breach, no penalty
    ("What is an administrative fine?", False),  # a penalty, no infringement
    ("What does 'infringement' mean in the context of administrative fines?", False),  # what a term means
])
def test_a_question_asking_what_penalty_an_infringement_incurs(question, asks):
    """No definition says what penalty applies: search puts the definitions behind for these questions too."""
    assert asks_penalty_for_infringement(question) is asks


@pytest.mark.parametrize("question, asks", [
    ("What does DORA say about ICT concentration risk?", True),
    ("What does the GDPR require for records of processing activities?", True),
    ("Qu'est-ce que le RGPD prévoit sur le consentement ?", True),
    ("Que dit DORA sur la gestion des incidents ?", True),
    ("¿Qué establece el RGPD sobre los corresponsables del tratamiento?", True),
    ("Was regelt die DSGVO zur Datenübertragbarkeit?", True),
    ("Was sieht die DSGVO bei einer Datenpanne vor?", True),
    # what a term means: its definition answers
    ("What does the GDPR say about 'personal data'?", False),
    ("Qu'est-ce que la pseudonymisation ?", False),
    ("What does 'main establishment' mean?", False),
    ("Que faut-il pour le consentement ?", False),
])
def test_a_question_asking_what_an_act_provides_on_a_subject(question, asks):
    """The subject's definition does not say what the act does with it ("¿Qué dice DORA sobre el riesgo de
    concentración TIC?" quoted the definition of "ICT concentration risk", Article 29 sets the rules): search puts the
    definitions behind, as for who / when / how questions, unless the question asks what a term means."""
    assert asks_what_is_provided_on(question) is asks


@pytest.mark.parametrize("question, term", [
    ("Was versteht man unter einem Carbon Credit in den ESRS?", "Carbon Credit"),
    ("Was ist ein Auftragsverarbeiter laut DSGVO?", "Auftragsverarbeiter"),
    ("Was ist ein Auftragsverarbeiter nach der DSGVO?", "Auftragsverarbeiter"),
    ("Was ist ein Intermediär in dem OSS-Verfahren?", "Intermediär"),
])
def test_a_german_question_names_its_term_before_the_act_it_reads_it_in(question, term):
    """"in den ESRS", "laut DSGVO" say where the term is read, like "nach der DSGVO" (the term was "Carbon Credit in
    den ESRS", which no passage defines, until session 55)."""
    assert asked_term(question) == term


@pytest.mark.parametrize("question, term", [
    ("¿Qué se considera residuo peligroso según las ESRS?", "residuo peligroso"),
    ("C'est quoi un mécanisme de réclamation selon les ESRS ?", "mécanisme de réclamation"),
    ("Was gilt als gefährlicher Abfall nach den ESRS?", "gefährlicher Abfall"),
    ("C'est quoi le problème avec notre facture ?", ""),  # a short noun phrase only, as for "qu'est-ce que"
])
def test_what_counts_as_and_the_spoken_cest_quoi_ask_about_a_term(question, term):
    """"¿Qué se considera ...?", "C'est quoi ...?" and "Was gilt als ...?" ask what a term means, like "What is
    considered ...?" (they were read as questions about no term until session 55)."""
    assert asked_term(question) == term


def test_the_usual_spanish_wording_of_a_personal_data_breach_is_carried_to_the_gdprs_term():
    from regintel.retrieval.term_definitions import asked_term_stems
    from regintel.text.analysis import tokenize

    gdpr_term = frozenset(tokenize("personal data breach", "en"))
    assert gdpr_term in asked_term_stems("violación de datos personales", "es", "en")
    assert gdpr_term in asked_term_stems("brecha de datos personales", "es", "en")


def test_who_counts_as_and_is_considered_ask_about_a_term():
    from regintel.text.asked_terms import asked_term

    assert asked_term("Who counts as a taxable person for VAT purposes?") == "taxable person"
    assert asked_term("What is considered a major ICT-related incident?") == "major ICT-related incident"
    assert asked_term("Who is regarded as the recipient?") == "recipient"
    assert asked_term("Who must notify the supervisory authority?") == ""


@pytest.mark.parametrize("question, term", [
    ("Qu'est-ce que la pseudonymisation ?", "pseudonymisation"),
    ("Qu'est-ce que le droit à l'oubli ?", "droit à l'oubli"),
    ("Qu'est-ce que la base d'imposition au sens de la directive TVA ?", "base d'imposition"),
    ("Qu'est-ce qu'un assujetti ?", "assujetti"),
    ("Qu'est-ce qu'on appelle un assujetti ?", "assujetti"),
    # not definition questions: what a thing does, what the asker must do
    ("Concrètement, qu'est-ce que l'OSS permet de faire ?", ""),
    ("Qu'est-ce que nous devons indiquer sur la facture ?", ""),
    ("Qu'est-ce qu'il faut déclarer ?", ""),
    ("Qu'est-ce qu'on doit faire ?", ""),
])
def test_quest_ce_que_asks_about_a_term_only_when_a_short_noun_phrase_closes_the_question(question, term):
    """"Qu'est-ce que la pseudonymisation ?" found no term ("qu'est-ce qu'un" did), so a one-word French definition
    question was never matched with the passage defining it."""
    assert asked_term(question) == term


@pytest.mark.parametrize("question, term", [
    ("Was versteht DORA unter einem IKT-Drittdienstleister?", "IKT-Drittdienstleister"),
    ("Was versteht die DSGVO unter einer Einwilligung?", "Einwilligung"),
    ("Was versteht man unter einem Verantwortlichen?", "Verantwortlichen"),
    ("What does DORA mean by an ICT-related incident?", "ICT-related incident"),
    ("Qu'entend le RGPD par pseudonymisation ?", "pseudonymisation"),
    ("¿Qué entiende DORA exactamente por riesgo relacionado con las TIC?", "riesgo relacionado con las TIC"),
    ("What does 'consent' mean?", "consent"),
])
def test_a_question_asking_what_an_act_means_by_a_term_asks_about_the_term(question, term):
    """"Was versteht DORA unter einem IKT-Drittdienstleister?" found no term (only "was versteht man unter" was read,
    and "unter einem" was not): the answer quoted the definition of a legacy ICT system. The act as the one meaning
    it, in the four languages, and the dative articles."""
    assert asked_term(question) == term


def test_a_term_no_candidate_defines_is_looked_up_in_the_whole_corpus():
    """"What is a taxable person for VAT purposes?" did not bring Article 9 («assujetti») among its candidates: the
    corpus's definition of the term is found directly, within what the search admits, the closest first."""
    passages = DefiningPassages(CHUNKS)
    assert passages.anywhere(asked_term("What is a taxable person for VAT purposes?"), "en") == ["vat-9"]
    assert passages.anywhere(asked_term("What is a taxable person for VAT purposes?"), "en",
                             allowed=lambda chunk_id: chunk_id != "vat-9") == [], "a filtered-out document stays out"
    assert passages.anywhere(asked_term("What is the deadline for notifying a breach?"), "en") == []
    twice = dict(CHUNKS, **{"dora-3": chunk("dora-3", "(7) ‘controller’ means the entity that controls.",
                                            "Article 3(7)", "Article 3 — Definitions — ‘controller’")})
    closer_dora = {"gdpr-4-7": 0.2, "dora-3": 0.9, "gdpr-x": 0.1}
    found = DefiningPassages(twice).anywhere("controller", "en", closeness=lambda ids: [closer_dora[i] for i in ids])
    assert found == ["dora-3", "gdpr-4-7"]


def test_the_term_index_finds_what_a_scan_of_the_whole_demo_corpus_finds():
    """``anywhere`` reads a term index built once instead of scanning every passage per question: on the demo
    corpus it returns exactly the passages, in the order, that the scan returned, across languages."""
    from regintel.config import REPO_ROOT
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus

    corpus = {}
    for doc in scan_corpus(REPO_ROOT / "data" / "corpus").documents:
        corpus.update((c.chunk_id, c) for c in chunk_document(doc, read_document_text(doc.path)))
    passages = DefiningPassages(corpus)
    questions = [("What is a controller?", "en"), ("What does 'personal data breach' mean?", "en"),
                 ("What is a taxable person for VAT purposes?", "en"), ("Was ist ein Auftragsverarbeiter?", "de"),
                 ("Qu'entend-on par « assujetti » ?", "fr"), ("What is a carbon credit?", "en"),
                 ("¿Qué es un incidente grave relacionado con las TIC?", "es"), ("What is double materiality?", "en"),
                 ("What is a unicorn?", "en")]
    found_any = 0
    for question, language in questions:
        term = asked_term(question)
        scanned = list(passages._defining(term, language, list(corpus)))
        assert passages._defining_in_corpus(term, language) == scanned, question
        found_any += bool(scanned)
    assert found_any >= 5  # the comparison is not between empty lists



@pytest.mark.parametrize("question, term", [
    ("What is the threshold for distance sales of goods?", ""),
    ("What is the deadline for submitting the VAT return?", ""),
    ("What is the maximum amount of an administrative fine under the GDPR?", ""),
    ("¿Qué es el plazo para presentar la declaración?", ""),
    ("What is the reduced rate?", "reduced rate"),  # no "for ..." after it: the term itself
    ("What is a distance sale of goods?", "distance sale of goods"),
])
def test_asking_for_the_value_a_rule_sets_is_no_definition_question(question, term):
    """"What is the threshold for distance sales of goods?" was answered with the definition of a distance sale
    (Article 14) instead of the EUR 10 000 threshold (Article 59 quater) retrieval put first."""
    assert asked_term(question) == term


def test_across_languages_a_glossary_entry_titled_with_the_term_in_the_question_language_defines_it():
    """The term list carries neither "Bestechung" nor "deforestación"; the ESRS glossary entries' search titles
    (data/glossary/search_titles.jsonl) name them in German and Spanish. A broader word in brackets ("Bestechung
    (Korruption)") or a longer term holding the word is no match."""
    entries = {c.chunk_id: c for c in (
        Chunk("bribery", "eu-esrs", "ESRS", "ANNEX II › Bribery", "Bribery", "ANNEX II",
              "Dishonestly persuading someone to act in your favour by giving them a gift of money.", "EU", "en",
              "eu_law", "", 0),
        Chunk("corruption", "eu-esrs", "ESRS", "ANNEX II › Corruption", "Corruption", "ANNEX II",
              "Abuse of entrusted power for private gain.", "EU", "en", "eu_law", "", 1),
        Chunk("deforestation", "eu-esrs", "ESRS", "ANNEX II › Deforestation; ANNEX II › Degradation or degraded "
              "ecosystem", "Deforestation; Degradation or degraded ecosystem", "ANNEX II",
              "The human-induced conversion of forested land to non-forested land.\n\nA degraded ecosystem ...", "EU",
              "en", "eu_law", "", 2),
        Chunk("e1-7", "eu-esrs", "ESRS", "ESRS E1 › Disclosure Requirement E1-7", "Disclosure Requirement E1-7",
              "ESRS E1", "The undertaking shall disclose bribery and deforestation.", "EU", "en", "eu_law", "", 3),
    )}
    passages = DefiningPassages(entries)
    assert passages.among(asked_term("Was ist Bestechung?"), "de", list(entries)) == ["bribery"]
    assert passages.among(asked_term("Was ist Korruption?"), "de", list(entries)) == ["corruption"]
    assert passages.among(asked_term("¿Qué es la deforestación?"), "es", list(entries)) == ["deforestation"]
    assert passages.among(asked_term("¿Qué es un ecosistema?"), "es", list(entries)) == []


def test_the_search_titles_translate_the_asked_term_into_the_entry_it_names():
    """In a unit merging two entries, the title's terms follow the entries' order: "dégradation des écosystèmes", the
    French title's second term, is the second entry, "Degradation or degraded ecosystem"."""
    from regintel.retrieval.term_definitions import search_title_translations

    ref = "ANNEX II › Deforestation; ANNEX II › Degradation or degraded ecosystem"
    heading = "Deforestation; Degradation or degraded ecosystem"
    def translated(term: str, language: str) -> list[frozenset[str]]:
        return search_title_translations(term, language, "en", "eu-esrs", ref, heading, "Conversion ...\n\nLoss ...")

    assert translated("dégradation des écosystèmes", "fr") == [frozenset({"degrad", "ecosystem"})]
    assert translated("déforestation", "fr") == [frozenset({"deforest"})]
    assert translated("Entwaldung", "de") == [frozenset({"deforest"})]
    assert translated("écosystèmes", "fr") == [], "a word of a title's term is not the term"
    assert search_title_translations("déforestation", "fr", "en", "eu-esrs", "ESRS E4 › Objective", "Objective",
                                     "The objective of this Standard ...") == [], "no glossary entry"


def test_a_term_written_with_the_acts_subject_before_it_is_the_term_the_act_defines():
    """"What is a data processor?" did not bring Article 4(8) GDPR ("‘processor’ means") among its passages, and "What
    is a data controller?" quoted Article 37: the asker's "data" names the subject of the General Data Protection
    Regulation, whose "processor" and "controller" they are. Only the act's own subject words drop: a "joint
    controller" is not a controller's definition, nor is a "data controller" another act's controller."""
    gdpr = {c.chunk_id: c for c in (
        Chunk("gdpr-4-8", "eu-gdpr", "GDPR", "Article 4(8)", "Article 4 — Definitions — ‘processor’", "",
              "(8) ‘processor’ means a natural or legal person which processes personal data on behalf of the controller;",
              "EU", "en", "eu_law", "", 0),
        Chunk("gdpr-4-7", "eu-gdpr", "GDPR", "Article 4(7)", "Article 4 — Definitions — ‘controller’", "",
              "(7) ‘controller’ means the natural or legal person which determines the purposes and means of the "
              "processing of personal data;", "EU", "en", "eu_law", "", 1),
        Chunk("dora-3-9", "eu-dora", "DORA", "Article 3(9)", "Article 3 — Definitions", "",
              "(9) ‘controller’ means an entity of another act.", "EU", "en", "eu_law", "", 2),
    )}
    passages = DefiningPassages(gdpr)
    assert passages.anywhere("data processor", "en") == ["gdpr-4-8"]
    assert passages.among("data controller", "en", ["dora-3-9", "gdpr-4-7"]) == ["gdpr-4-7"]
    assert passages.anywhere("joint controller", "en") == []
    assert passages.anywhere("processor", "en") == ["gdpr-4-8"], "the term as the act writes it is found as before"


def test_a_term_x_of_y_is_defined_by_the_definition_of_x_that_speaks_of_y():
    """"What is processing of personal data?" and "¿Qué es un tratamiento de datos?" quoted Articles 9 and 10, which
    use the whole phrase: no passage defines it whole, and Article 4(2) defines "processing" as an operation
    "performed on personal data". The head counts only where the definition speaks of the rest of the term, and
    only when nothing defines the whole term."""
    from regintel.retrieval.term_definitions import head_of_term

    gdpr = {c.chunk_id: c for c in (
        Chunk("gdpr-4-2", "eu-gdpr", "GDPR", "Article 4(2)", "Article 4 — Definitions — ‘processing’", "",
              "(2) ‘processing’ means any operation or set of operations which is performed on personal data or on "
              "sets of personal data;", "EU", "en", "eu_law", "", 0),
        Chunk("gdpr-10", "eu-gdpr", "GDPR", "Article 10", "Article 10 — Processing of personal data relating to "
              "criminal convictions", "", "Processing of personal data relating to criminal convictions shall be "
              "carried out only under the control of official authority.", "EU", "en", "eu_law", "", 1),
        Chunk("gdpr-4-3", "eu-gdpr", "GDPR", "Article 4(3)", "Article 4 — Definitions — ‘restriction of processing’",
              "", "(3) ‘restriction of processing’ means the marking of stored personal data;", "EU", "en", "eu_law",
              "", 2),
    )}
    passages = DefiningPassages(gdpr)
    assert head_of_term("processing of personal data", "en") == ("processing", "personal data")
    assert head_of_term("Verarbeitung personenbezogener Daten", "de") == ("Verarbeitung", "personenbezogener Daten")
    assert head_of_term("personal data", "en") is None
    assert passages.among("processing of personal data", "en", ["gdpr-10", "gdpr-4-2"]) == ["gdpr-4-2"]
    assert passages.anywhere("processing of personal data", "en") == ["gdpr-4-2"]
    assert passages.anywhere("tratamiento de datos", "es") == ["gdpr-4-2"]
    assert passages.anywhere("Verarbeitung personenbezogener Daten", "de") == ["gdpr-4-2"]
    assert passages.anywhere("processing of invoices", "en") == [], "the definition of processing speaks of no invoice"
    assert passages.anywhere("restriction of processing", "en") == ["gdpr-4-3"], "the whole term, defined, as before"


def test_a_name_given_in_brackets_to_what_a_passage_describes_is_a_term_it_defines():
    """Article 5 GDPR names its principles in brackets ("... limited to what is necessary ... (‘data minimisation’)")
    and Article 4(1) the data subject: "What is data minimisation?" abstained, "What is a data subject?" quoted
    Article 14."""
    principles = chunk("gdpr-5", "1. Personal data shall be: (c) adequate, relevant and limited to what is necessary in "
                       "relation to the purposes for which they are processed (‘data minimisation’); (e) kept in a form "
                       "which permits identification of data subjects for no longer than is necessary (‘storage "
                       "limitation’);", "Article 5", "Article 5 — Principles relating to processing of personal data")
    passages = DefiningPassages(dict(CHUNKS, **{"gdpr-5": principles}))
    assert passages.among("data minimisation", "en", ["gdpr-4-7", "gdpr-5"]) == ["gdpr-5"]
    assert passages.anywhere("storage limitation", "en") == ["gdpr-5"]
    assert passages.anywhere("personal data", "en") == [], "a phrase of the text, not a name it gives, defines nothing"
    # a passage defining the term outright comes first, wherever retrieval ranked the one naming it in brackets
    workforce = {"s1": chunk("s1", "This Standard covers people in an employment relationship with the undertaking "
                             "(“employees”) and non-employees.", "ESRS S1 › Objective"),
                 "glossary": chunk("glossary", "(1) ‘employees’ means people in an employment relationship.",
                                   "ANNEX II › Employees")}
    assert DefiningPassages(workforce).among("employees", "en", ["s1", "glossary"]) == ["glossary"]
    assert DefiningPassages(workforce).anywhere("employees", "en") == ["glossary"]
    assert DefiningPassages({"s1": workforce["s1"]}).among("employees", "en", ["s1"]) == ["s1"]


@pytest.mark.parametrize("question, term", [
    ("What is a taxable person for VAT?", "taxable person"),
    ("Qu'est-ce qu'un assujetti à la TVA ?", "assujetti"),
    ("¿Qué es un sujeto pasivo del IVA?", "sujeto pasivo"),
    ("Was ist ein Steuerpflichtiger für die MwSt?", "Steuerpflichtiger"),
    ("What is an ICT risk under DORA?", "ICT risk"),
    ("What is a member of the EU?", "member of the EU"),  # a place, not the tax or act the term belongs to
    ("What is the scope of ESRS E1?", "scope of ESRS E1"),
])
def test_the_tax_or_act_closing_a_term_by_its_abbreviation_is_not_part_of_it(question, term):
    """"What is a taxable person for VAT?" asked about "taxable person for VAT", which nothing defines: Article 9
    («assujetti») was not found and Article 193 (who is liable for the tax) answered."""
    assert asked_term(question) == term


@pytest.mark.parametrize("heading, term", [
    ("One Stop Shop (OSS) › Qu’est-ce que le One Stop Shop (OSS) et qui peut l’utiliser ?", "One Stop Shop (OSS)"),
    ("Qu’entend-on par un intermédiaire OSS ?", "intermédiaire OSS"),
    ("What is a data broker?", "data broker"),
    ("What does 'pseudonymisation' mean?", "pseudonymisation"),
    ("¿Qué es la ventanilla única?", "ventanilla única"),
    ("Was ist eine Auftragsverarbeitung?", "Auftragsverarbeitung"),
    ("Une ASBL est-elle assujettie à la TVA ?", ""),  # asks whether, not what
    ("What does DORA require?", ""),  # asks what an act requires, not what a word means
    ("Que peut-on faire via OSS ?", ""),
    ("Article 4 — Definitions", ""),
])
def test_a_question_and_answer_heading_asking_what_something_is_names_the_term_it_answers(heading, term):
    assert asked_by_heading(heading) == term


def test_a_section_headed_what_is_x_defines_x_across_languages():
    """Guidance written as questions and answers defines its terms under headings that ask for them: the Belgian OSS
    guidance's "Qu’est-ce que le One Stop Shop (OSS) et qui peut l’utiliser ?" answers "What is the one-stop shop?",
    whose term no sentence defines ("l’application OSS ou One Stop Shop (guichet unique) a remplacé ...")."""
    faq = chunk("oss-1", "Depuis le 1er juillet 2021, l’application OSS ou One Stop Shop (guichet unique) a remplacé "
                "l’application MOSS (Mini One Stop Shop).", "One Stop Shop (OSS) › Qu’est-ce que le One Stop Shop (OSS) "
                "et qui peut l’utiliser ? (1/2)", "Qu’est-ce que le One Stop Shop (OSS) et qui peut l’utiliser ?", "fr")
    title = chunk("oss-title", "OSS est accessible après connexion à Intervat.", "Title", "One Stop Shop (OSS)", "fr")
    chunks = {c.chunk_id: c for c in (title, faq)}
    assert DefiningPassages(chunks).among(asked_term("What is the one-stop shop?"), "en", list(chunks)) == ["oss-1"]
    assert DefiningPassages(chunks).among(asked_term("Qu'est-ce que le One Stop Shop ?"), "fr", list(chunks)) == ["oss-1"]
    assert DefiningPassages(chunks).among(asked_term("What is a data broker?"), "en", list(chunks)) == []


@pytest.mark.parametrize("question, term", [
    ("Was versteht man unter einer Einwilligung?", "Einwilligung"),
    ("Qu'est-ce que l'assujetti ?", "assujetti"),
    ("What is a processor?", "processor"),
])
def test_the_asked_term_is_read_without_its_article(question, term):
    assert asked_term(question) == term
