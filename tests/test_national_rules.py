"""A figure each Member State sets for itself (a rate, a threshold, an age, the date a rule applies from), asked for
one Member State whose rules the corpus does not hold, is that Member State's law: not held."""

import pytest

from regintel.retrieval.national_rules import (countries_named, load_countries, national_figure_asked,
                                               national_law_mention, with_national_law)

HELD = frozenset({"EU", "BE"})  # the demo corpus: EU acts and Belgian guidance


@pytest.mark.parametrize("question, code", [
    ("Quel taux de TVA s'applique en France à la vente à emporter de plats préparés ?", "FR"),
    ("Quels sont les seuils de la franchise en base de TVA applicables en France ?", "FR"),
    ("¿A partir de qué edad puede un menor consentir el tratamiento de sus datos en España?", "ES"),
    ("Nous sommes une ETI française. À partir de quelle date devrons-nous émettre des factures électroniques ?", "FR"),
    ("What is the standard VAT rate in Italy?", "IT"),
    ("Welcher Mehrwertsteuersatz gilt in Deutschland für Bücher?", "DE"),
    ("Wir sind ein deutscher Großhändler. Ab wann müssen wir E-Rechnungen empfangen können?", "DE"),
])
def test_a_figure_one_member_state_sets_is_asked_of_its_national_law(question, code):
    country = national_figure_asked(question, HELD)
    assert country is not None and country.code == code


@pytest.mark.parametrize("question", [
    # the country is where a customer is: the EU act answers, and a deadline is no figure a Member State sets
    "We ship goods VAT-exempt to a business customer in Italy. By when must we issue the invoice?",
    # two countries: a cross-border situation
    "Ein belgischer Onlinehändler verkauft an Privatkunden in Frankreich. Gilt die Schwelle von 10.000 Euro?",
    "We are a US-based company selling to consumers in France: which VAT rate applies?",
    # other Member States are part of the question
    "Petite boutique à Bordeaux, nous vendons à des particuliers d'autres pays de l'UE : quel seuil s'applique ?",
    # distance sales and their one-stop shop: an EU-wide threshold
    "We are a German online shop. Which threshold applies to our distance sales?",
    "Nous sommes une boutique en ligne française : quel seuil pour utiliser le guichet unique ?",
    # what the Member State itself may do is the EU act's to say (Article 105, Article 287)
    "Darf Österreich dort einen niedrigeren Normalsatz anwenden, und gibt es eine Untergrenze?",
    "Bis zu welchem Jahresumsatz kann Slowenien mich von der Mehrwertsteuer befreien?",
    # a held jurisdiction (the Belgian guidance), and questions asking no figure
    "What is the standard VAT rate in Belgium?",
    "Our main establishment is in Ireland. Which supervisory authority is our lead authority?",
    "What is the standard VAT rate?",
    # "what kind of", a paragraph, a principle: no figure asked
    "¿Qué tipo de entidades en España están sujetas a DORA?",
    "Welche Grundsätze gelten für ein deutsches Unternehmen bei der Verarbeitung?",
    "Was steht in Absatz 2 für ein Unternehmen in Deutschland?",
])
def test_other_questions_naming_a_country_are_not_national_figures(question):
    assert national_figure_asked(question, HELD) is None


def test_the_national_law_is_named_in_the_questions_language():
    mention = national_law_mention("¿Qué tipo de IVA se aplica en España a los libros?", HELD, "es")
    assert mention is not None and mention.label.startswith("el derecho nacional del Estado miembro (España)")
    assert mention.instrument is None
    assert mention.key == "national-law:ES"
    english = national_law_mention("What is the VAT rate in Spain?", HELD, "xx")  # an unknown language: English
    assert english is not None and english.label.startswith("the national law of Spain,")
    assert national_law_mention("What is the VAT rate in Spain?", HELD | {"ES"}, "en") is None  # a corpus holding it


def test_countries_are_read_by_name_and_adjective_in_four_languages():
    assert [c.code for c in countries_named("Unser französischer Kunde")] == ["FR"]
    assert [c.code for c in countries_named("une société néerlandaise")] == ["NL"]
    assert [c.code for c in countries_named("consumidores españoles y alemanes")] == ["DE", "ES"]
    assert countries_named("a frank discussion about the franchise") == []
    assert len([c for c in load_countries() if c.member_state]) == 27


def test_a_member_states_own_figure_the_passages_give_is_answered_from_them():
    """Article 287 of the VAT Directive lists the thresholds the acceding Member States may keep ("15) la Slovénie:
    25 000 EUR"): when one of the first passages names the Member State, the corpus speaks of its figure."""
    from regintel.retrieval.instruments import Coverage

    question = "Quel est le seuil de la franchise des petites entreprises en Slovénie ?"
    mention = national_law_mention(question, HELD, "fr")
    assert mention is not None
    coverage = Coverage()  # the question names no act

    def read(passages):
        return with_national_law(coverage, question, HELD, "fr", passages)

    answered = read(["Article 286 ...", "15) la Slovénie: 25 000 EUR;"])
    assert not answered.missing and not answered.named and not answered.uncovered
    unnamed = read(["Les États membres appliquent un taux normal de TVA ..."])
    assert unnamed.uncovered and unnamed.missing == [mention] and unnamed.named == [mention]
    late = ["a passage"] * 5 + ["la Slovénie: 25 000 EUR"]  # only the first few passages count
    assert read(late).uncovered
    assert not with_national_law(coverage, "What is a taxable person?", HELD, "en", []).missing  # asks no figure
