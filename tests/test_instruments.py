"""Which acts a question names, and whether the served corpus holds them (regintel/retrieval/instruments.py)."""

from __future__ import annotations

import json

import pytest

from regintel.config import REPO_ROOT
from regintel.retrieval.instruments import (
    InstrumentCatalog,
    act_numbers,
    corpus_instruments,
    load_catalog,
    normalise_act_number,
)

DEMO_TITLES = [d["title"] for d in json.loads((REPO_ROOT / "data" / "corpus" / "manifest.json").read_text())["documents"]]


@pytest.fixture(scope="module")
def demo():
    return corpus_instruments(DEMO_TITLES)


def keys(mentions):
    return [m.key for m in mentions]


@pytest.mark.parametrize("first, second, expected", [
    ("2016", "679", "2016/679"), ("575", "2013", "2013/575"), ("95", "46", "1995/46"), ("6", "1", None)])
def test_act_numbers_are_normalised_to_year_and_number(first, second, expected):
    assert normalise_act_number(first, second) == expected


def test_act_numbers_need_an_act_word_or_an_eu_suffix():
    text = "Regulation (EU) No 575/2013, Directive 2013/34/EU, la directiva 2011/64/UE, Article 6/1 and 3/4 of it"
    assert [n for n, _, _ in act_numbers(text)] == ["2013/575", "2013/34", "2011/64"]


def test_acronyms_match_as_written_and_titles_without_case_or_accents():
    catalog = load_catalog()
    assert keys(catalog.mentions("Does MAR apply here?")) == ["mar"]
    assert keys(catalog.mentions("¿Qué dice el mar sobre esto?")) == [], "'mar' (the sea) is no Market Abuse Regulation"
    assert keys(catalog.mentions("selon le reglement general sur la protection des donnees")) == ["gdpr"]
    assert keys(catalog.mentions("Gilt die DSGVO-Ausnahme?")) == ["gdpr"]


def test_a_question_without_a_capital_names_acts_by_their_acronyms_in_lower_case():
    """"dora incident reporting timelines" abstained, searched without its act: its asker writes no capital, so case
    says nothing. Short acronyms stay as written ("transporte por mar"), and a question that writes capitals is read
    as written ("Dora" is a name)."""
    catalog = load_catalog()
    assert keys(catalog.mentions("dora incident reporting timelines")) == ["dora"]
    assert keys(catalog.mentions("gdpr fines how much")) == ["gdpr"]
    question = "bußgeld nach der datenschutz-grundverordnung"
    [mention] = catalog.mentions(question)
    assert question[mention.start:mention.end] == "datenschutz-grundverordnung"
    assert keys(catalog.mentions("transporte por mar")) == []
    assert keys(catalog.mentions("Dora asked about the GDPR")) == ["gdpr"]


def test_a_mention_after_a_sharp_s_spans_the_name_as_written():
    """Folding writes "ß" as "ss": a name found in the folded text is one character further on than in the text."""
    catalog = load_catalog()
    question = "Welche Maßnahmen verlangt die Datenschutz-Grundverordnung bei Verstößen?"
    [mention] = catalog.mentions(question)
    assert question[mention.start:mention.end] == "Datenschutz-Grundverordnung"
    assert catalog.without_mentions(question) == "Welche Maßnahmen verlangt die   bei Verstößen?"


def test_a_name_inside_a_longer_name_does_not_count_on_its_own():
    catalog = load_catalog()
    assert keys(catalog.mentions("Under the UK GDPR, who is a controller?")) == ["uk-gdpr"]
    assert keys(catalog.mentions("How do the GDPR and the UK GDPR differ?")) == ["gdpr", "uk-gdpr"]
    # what German speakers call the VAT Directive most often; the Sixth Directive keeps its longer name
    assert keys(catalog.mentions("Was sagt die Mehrwertsteuerrichtlinie über den Vorsteuerabzug?")) == ["vat-directive"]
    assert keys(catalog.mentions("Was regelt die MwSt-Richtlinie?")) == ["vat-directive"]
    assert keys(catalog.mentions("Was sagte die Sechste Mehrwertsteuerrichtlinie dazu?")) == ["sixth-vat-directive"]


def test_the_demo_corpus_holds_the_acts_of_its_titles_not_those_they_amend(demo):
    assert demo.held_ids == {"gdpr", "dora", "esrs", "vat-directive", "vat-implementing-regulation"}
    assert "2013/34" not in demo.held_numbers, "the ESRS supplement the Accounting Directive; they are not it"
    holdings = demo.holdings()
    assert "General Data Protection Regulation (EU) 2016/679" in holdings
    assert any("ASBL" in h for h in holdings), "a document holding no listed act is named by its own title"


@pytest.mark.parametrize("question", [
    "Under MiFID II, what product governance obligations apply to manufacturers?",
    "Welche Meldefristen gelten nach der NIS-2-Richtlinie?",
    "¿Qué exige el Reglamento (UE) 2019/2088 a los gestores?",
    "Under HIPAA, when must a covered entity notify a breach?",
])
def test_a_question_naming_only_acts_the_corpus_does_not_hold_is_uncovered(demo, question):
    coverage = demo.coverage(question)
    assert coverage.uncovered and coverage.missing and not coverage.held, question


@pytest.mark.parametrize("question", [
    "What does the GDPR say about consent?",
    "¿Cómo define el RGPD el consentimiento?",
    "Does DORA apply to firms authorised under MiFID II?",  # names a held act too
    "Où est le lieu de livraison selon la directive 2006/112/CE ?",
    "Quelles mentions le règlement d'exécution (UE) no 282/2011 impose-t-il ?",
    "What must a controller do after a personal data breach?",  # names no act: similarity decides
])
def test_a_question_naming_a_held_act_or_none_is_covered(demo, question):
    assert not demo.coverage(question).uncovered, question


def test_an_act_implemented_by_a_held_one_is_answered_from_it_unless_an_article_of_it_is_cited(demo):
    csrd = demo.coverage("Under the CSRD, what must the sustainability statement contain?")
    assert not csrd.uncovered and [i.id for i in csrd.via_related] == ["esrs"]
    article = demo.coverage("What does Article 34 of Directive 2013/34/EU require of statutory auditors?")
    assert article.article_of_missing and article.uncovered


def test_an_act_a_held_one_repealed_is_answered_from_its_successor_unless_an_article_of_it_is_cited(demo):
    """Contracts and manuals still cite the acts the GDPR and the VAT Directive repealed (Directive 95/46/EC, the
    Sixth VAT Directive); the successor's text says how to read them (GDPR Article 94), so such a question is
    answered from it, with the concern saying so, not stopped as an act the corpus does not hold."""
    for question, successor in [
        ("Our contracts still refer to Directive 95/46/EC. How should we read those references now?", "gdpr"),
        ("Unsere Verträge verweisen noch auf die Sechste Mehrwertsteuerrichtlinie. Wie sind sie zu lesen?",
         "vat-directive"),
    ]:
        coverage = demo.coverage(question)
        assert coverage.missing and not coverage.uncovered, question
        assert [i.id for i in coverage.via_related] == [successor]
    assert demo.coverage("What did Article 10 of Directive 95/46/EC require controllers to tell people?").uncovered


def test_a_corpus_of_other_titles_holds_other_acts():
    other = corpus_instruments(["Markets in Financial Instruments Directive 2014/65/EU (recast)"])
    assert other.held_ids == {"mifid2"}
    assert not other.coverage("Under MiFID II, what is best execution?").uncovered
    assert other.coverage("What does the GDPR say about consent?").uncovered


def test_the_instrument_list_loads_and_rejects_an_entry_without_names(tmp_path):
    assert len(load_catalog().instruments) > 80
    bad = tmp_path / "instruments.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="instruments.jsonl:1"):
        InstrumentCatalog.load(bad)


@pytest.mark.parametrize("question, expected", [
    ("Does a foreign company have to register for Swiss VAT?", ["swiss-vat"]),
    ("When should a data exporter use the IDTA rather than the UK Addendum?", ["uk-transfer-tools"]),
    ("What is the HST rate in Ontario?", ["gst"]),
    ("Do we collect sales tax in Texas after Wayfair?", ["us-sales-tax"]),
    ("Ab wann gilt die XRechnung-Pflicht nach dem UStG?", ["de-ustg"]),
    ("Quand faut-il passer par une plateforme de dématérialisation partenaire ?", ["fr-tax-code"]),
    ("¿Qué plazo da Verifactu para registrar las facturas?", ["es-vat-reporting"]),
])
def test_national_tax_and_transfer_regimes_outside_the_demo_corpus_are_not_held(demo, question, expected):
    """Non-EU VAT / GST / sales-tax regimes, member states' own tax codes and e-invoicing systems, and the UK's
    transfer tools: named, none held, so the question is answered as one about an act the corpus lacks."""
    coverage = demo.coverage(question)
    assert keys(coverage.named) == expected
    assert coverage.uncovered


@pytest.mark.parametrize("question", [
    "How does Belgian VAT treat credit notes?",
    "¿Qué debe incluir el sistema interno de información (SII) para los trabajadores según las ESRS?",
    "Where is a service supplied to a customer established in Switzerland?",
])
def test_questions_on_held_acts_are_not_mistaken_for_national_regimes(demo, question):
    """Belgium's VAT guidance is held; 'SII' also abbreviates an internal reporting channel, so it names no act."""
    assert not demo.coverage(question).uncovered


def test_the_names_of_held_acts_are_taken_out_of_what_is_searched_within_them(demo):
    """"Quelles sont les sanctions du RGPD ?": within the GDPR, its name asks nothing, and close in meaning to the
    act's opening article it led search there (Article 84 "Sanctions" third). A name carrying a code says which
    standard is asked about and stays; an act the corpus does not hold is not the search's business here."""
    from regintel.retrieval.instruments import without_held_act_names

    def besides(question):
        return " ".join(without_held_act_names(question, demo.coverage(question)).split())

    assert besides("Quelles sont les sanctions du RGPD ?") == "Quelles sont les sanctions du ?"
    assert besides("Welche Sanktionen sieht die Datenschutz-Grundverordnung vor?") == "Welche Sanktionen sieht die vor?"
    assert besides("What does DORA require of the GDPR's controllers?") == "What does require of the controllers?"
    assert besides("What does ESRS E1 require on transition plans?") == "What does ESRS E1 require on transition plans?"
    assert besides("Does DORA apply to firms authorised under MiFID II?") == "Does apply to firms authorised under MiFID II?"


def test_only_a_question_in_another_language_than_the_named_acts_is_searched_without_the_name(demo):
    """Across languages the act's name is what the question shares best with the act's opening article; in the act's
    own language, for the act as a whole, for what a term means (its defining passage leads by the term) and when
    nothing else is asked, the question is searched as written."""
    from regintel.chat.engine import ComplianceEngine

    def besides(question, languages=frozenset({"en"})):
        found = ComplianceEngine._besides_named_acts(question, demo.coverage(question), set(languages))
        return found and " ".join(found.split())

    assert besides("Quelles sont les sanctions du RGPD ?") == "Quelles sont les sanctions du ?"
    assert besides("Welche Sanktionen sieht die DSGVO vor?") == "Welche Sanktionen sieht die vor?"
    assert besides("What are the sanctions under the GDPR?") is None  # the act's own language
    assert besides("¿Qué es DORA?") is None  # the act as a whole
    # what a term means, when a passage of the first search defines it (session 96: else the name leads astray)
    assert ComplianceEngine._besides_named_acts("Que signifie « chaîne de valeur » dans les ESRS ?", demo.coverage(
        "Que signifie « chaîne de valeur » dans les ESRS ?"), {"en"}, defined_in_the_first=True) is None
    assert besides("Was ist ein Informationsregister nach DORA?") == "Was ist ein Informationsregister nach ?"
    assert besides("Quelles sont les sanctions ?") is None  # no act named
    assert besides("Was regelt die DSGVO?") is None  # nothing else asked
