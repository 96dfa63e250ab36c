"""Compound questions are searched part by part as well as whole (regintel/retrieval/compound_search.py)."""

from __future__ import annotations

import pytest

from regintel.retrieval.compound_search import searchable_parts, with_part_hits
from regintel.retrieval.sources import Source
from regintel.text.question_parts import comparison_sides, comparison_topic


def hit(chunk_id: str) -> Source:
    return Source(chunk_id, "doc", "Act", chunk_id.split("~")[0], "", "text", 85.0, "eu_law", 1.0)


def unit(source: Source) -> str:
    return source.chunk_id.split("~")[0]


def ids(sources: list[Source]) -> list[str]:
    return [s.chunk_id for s in sources]


def test_a_simple_question_has_no_parts_to_search():
    assert searchable_parts("How long does a processor have to notify a breach?", "en") == []


def test_coordinated_asks_and_comparison_sides_are_parts():
    assert searchable_parts("What VAT may a taxable person deduct, and what conditions must be met?", "en") == [
        "What VAT may a taxable person deduct", "what conditions must be met?"]
    assert searchable_parts("What is the difference between impact materiality and financial materiality?", "en") == [
        "What is impact materiality?", "What is financial materiality?"]  # each side's term, asked what it means
    assert searchable_parts("Quelle TVA un assujetti peut-il déduire, et quelles conditions doit-il remplir ?", "fr") \
        == ["Quelle TVA un assujetti peut-il déduire", "quelles conditions doit-il remplir ?"]


@pytest.mark.parametrize("question, language, second", [
    ("When does the right to deduct arise, and on what amount is it calculated?", "en",
     "on what amount is it calculated?"),
    ("Quelle TVA peut-on déduire, et de quels documents faut-il disposer ?", "fr",
     "de quels documents faut-il disposer ?"),
    ("Cette livraison est-elle exonérée, et sur quelle base calcule-t-on la taxe ?", "fr",
     "sur quelle base calcule-t-on la taxe ?"),
    ("Devons-nous facturer la TVA sur ces ventes, et pouvons-nous récupérer la TVA sur nos achats ?", "fr",
     "pouvons-nous récupérer la TVA sur nos achats ?"),
    ("¿Dónde tributa el servicio y a qué tipo se grava?", "es", "a qué tipo se grava?"),
    ("Welche Pflichten gelten für uns und ab welchem Betrag müssen wir melden?", "de",
     "ab welchem Betrag müssen wir melden?"),
])
def test_an_ask_opened_by_a_preposition_or_an_inverted_verb_is_a_part(question, language, second):
    parts = searchable_parts(question, language)
    assert len(parts) == 2 and parts[1] == second


def test_a_told_sentence_with_a_verb_after_its_and_is_not_an_ask():
    """"Wir sind ein Softwarehaus und haben ...": only the sentence that asks is cut at a verb after its "und"."""
    assert searchable_parts("Wir sind ein Softwarehaus und haben Kunden in Belgien. Wo ist die Leistung steuerbar?",
                            "de") == []
    assert searchable_parts("Vendemos libros y tenemos clientes en Bélgica. ¿Dónde tributa la venta?", "es") == []


def test_a_later_part_is_searched_with_the_situation_told_before_the_question():
    """"... rejects candidates without any human review. Do we need a DPIA, and what rights must rejected applicants
    have?": the second part alone has lost the automated decision it asks about."""
    situation = "We screen job applicants with a fully automated tool that rejects candidates without human review."
    assert searchable_parts(f"{situation} Do we need an impact assessment, and what rights must rejected applicants "
                            "have?", "en") == [f"{situation} Do we need an impact assessment",
                                               f"{situation} what rights must rejected applicants have?"]
    # the sides of a comparison are searched alone (with the situation they would share its words)
    assert searchable_parts("Some plants sit in flood-prone areas. How does ESRS tell apart a physical risk from a "
                            "transition risk?", "en") == ["What is physical risk?", "What is transition risk?"]


@pytest.mark.parametrize("question, sides", [
    ("How does the simplified ICT risk management framework differ from the full framework?",
     ["the simplified ICT risk management framework", "the full framework"]),
    ("How do the fines of national authorities compare with the penalties of the Lead Overseer?",
     ["the fines of national authorities", "the penalties of the Lead Overseer"]),
    ("En quoi le régime de l'Union diffère-t-il du régime non-Union ?", ["le régime de l'Union", "régime non-Union"]),
    ("¿En qué se diferencia la notificación a la autoridad de la comunicación al interesado?",
     ["la notificación a la autoridad", "la comunicación al interesado"]),
    ("Wie unterscheidet sich die Meldung an die Behörde von der Benachrichtigung der Betroffenen?",
     ["die Meldung an die Behörde", "der Benachrichtigung der Betroffenen"]),
])
def test_the_sides_of_x_differs_from_y_are_parts(question, sides):
    assert comparison_sides(question) == sides


@pytest.mark.parametrize("question, sides", [
    ("physical risks vs transition risks in ESRS, how do they differ?", ["physical risks", "transition risks in ESRS"]),
    ("Scope 1 versus Scope 2 emissions?", ["Scope 1", "Scope 2 emissions"]),
    ("Recycling and reuse - what's the difference in the ESRS glossary?", ["Recycling", "reuse"]),
    ("Domicile et résidence habituelle : quelle différence ?", ["Domicile", "résidence habituelle"]),
    ("Consumidor y usuario final: ¿qué diferencia hay?", ["Consumidor", "usuario final"]),
    ("Worin unterscheiden sich Bestechung und Korruption?", ["Bestechung", "Korruption"]),
    ("How is ICT third-party risk different from ICT concentration risk?",
     ["ICT third-party risk", "ICT concentration risk"]),
])
def test_the_sides_of_two_terms_set_side_by_side_are_parts(question, sides):
    """Day-one wordings of "how do these two terms differ": "X vs Y", "X and Y - what's the difference?", "Worin
    unterscheiden sich X und Y?", "How is X different from Y?"."""
    assert comparison_sides(question) == sides


def test_a_list_of_two_things_asked_about_is_no_comparison():
    assert comparison_sides("Controllers and processors: what must they record?") == []


@pytest.mark.parametrize("question, sides", [
    ("Some plants sit in flood-prone areas. How does ESRS tell apart a physical risk from a transition risk?",
     ["a physical risk", "a transition risk"]),
    ("We had an incident. How do our duties differ between reporting a breach to the authority and telling the "
     "individuals? What risk level triggers each?", ["reporting a breach to the authority", "telling the individuals"]),
    ("Un cliente nos amenaza. ¿Qué diferencia hay entre presentar una reclamación ante la autoridad y acudir a los "
     "tribunales, y en qué país puede hacer cada una?", ["presentar una reclamación ante la autoridad",
                                                         "acudir a los tribunales"]),
])
def test_a_comparison_in_one_sentence_of_a_longer_question_has_its_sides(question, sides):
    """The case comes first, the comparison in a later sentence; a further ask after the second side is not part of
    it, and a side never runs across a question mark."""
    assert comparison_sides(question) == sides


@pytest.mark.parametrize("question, sides", [
    ("How does the 'group of companies' criterion differ from the 'VAT unit' criterion when deciding whether an "
     "association is a large enterprise?", ["the 'group of companies' criterion", "the 'VAT unit' criterion"]),
    ("En quoi la facture simplifiée diffère-t-elle de la facture complète lorsque le montant est faible ?",
     ["la facture simplifiée", "facture complète"]),
    ("¿En qué se diferencia la factura simplificada de la factura completa cuando el importe es bajo?",
     ["la factura simplificada", "la factura completa"]),
    ("Wie unterscheidet sich die Meldung an die Behörde von der Benachrichtigung der Betroffenen, wenn das Risiko hoch "
     "ist?", ["die Meldung an die Behörde", "der Benachrichtigung der Betroffenen"]),
])
def test_the_situation_after_the_second_side_is_not_part_of_it(question, sides):
    """"... differ from Y when deciding whether ...": the clause sets the situation of both sides (left whole, Y would
    run past the twelve words a side may have, and nothing would be compared)."""
    assert comparison_sides(question) == sides


def test_a_comparison_spread_over_two_questions_has_no_sides():
    assert comparison_sides("What is the difference between a controller? And a processor and a recipient?") == []


def test_a_question_about_how_a_rule_applies_compares_nothing():
    assert comparison_sides("How does Article 6 apply to small banks?") == []


def test_a_side_of_a_comparison_naming_one_term_is_searched_as_what_it_means():
    """Each side of "the difference between a controller and a processor" is one defined term: asked what it means,
    the search leads with its definition (across languages through the term list), which the whole question does
    not rank among its first hits. A side saying more than a term is searched as it is."""
    assert searchable_parts("What is the difference between a controller and a processor?", "en") == [
        "What is controller?", "What is processor?"]
    assert searchable_parts("Was ist der Unterschied zwischen Verantwortlichem und Auftragsverarbeiter?", "de") == [
        "Was ist Verantwortlichem?", "Was ist Auftragsverarbeiter?"]
    assert searchable_parts("Quelle est la différence entre un bon à usage unique et un bon à usages multiples ?",
                            "fr") == ["Que signifie bon à usage unique ?", "Que signifie bon à usages multiples ?"]
    assert searchable_parts("How does the simplified ICT risk management framework differ from the full framework "
                            "that most financial entities must have?", "en") == [
        "the simplified ICT risk management framework", "the full framework that most financial entities must have"]


def test_a_part_hitting_another_definition_of_a_definitions_article_joins_the_hits():
    """A definitions article is one unit per defined term: the whole question's hit on one definition ("cross-border
    processing") does not stand for the side's own ("controller")."""
    whole = [hit("gdpr-29"), hit("gdpr-4~def-23"), hit("gdpr-28~2")]
    merged = with_part_hits(whole, [[hit("gdpr-4~def-7")], [hit("gdpr-4~def-8")]], unit, k=5, sides=True)
    assert ids(merged) == ["gdpr-29", "gdpr-4~def-7", "gdpr-4~def-8", "gdpr-4~def-23", "gdpr-28~2"]


def test_the_sides_of_a_comparison_join_right_after_the_best_hit():
    """A side names what it asks about ("a climate-related transition risk"): its own best unit is as sure as the
    whole question's, and behind the whole question's second hit the answer would quote that hit instead."""
    whole = [hit("P1"), hit("E1~p5"), hit("E1~p4"), hit("E9")]
    merged = with_part_hits(whole, [[hit("P1")], [hit("T1"), hit("E1~p4")]], unit, k=4, sides=True)
    assert ids(merged) == ["P1", "T1", "E1~p5", "E1~p4"]


def test_a_part_without_content_words_is_not_searched_alone():
    assert searchable_parts("What must the controller notify, and by when?", "en") == ["What must the controller notify"]


def test_a_unit_found_by_a_part_alone_joins_after_the_whole_questions_first_two_hits():
    """Put second, a unit only the part's few words found displaced the whole question's second article."""
    whole = [hit("A1~p1"), hit("A9"), hit("A1~p2"), hit("A7")]
    merged = with_part_hits(whole, [[hit("A1~p2")], [hit("A5~p3")]], unit, k=4)
    assert ids(merged) == ["A1~p1", "A9", "A5~p3", "A1~p2"]  # the last hit of the whole makes room


def test_a_part_already_covered_by_the_leading_units_changes_nothing():
    whole = [hit("A1"), hit("A5~p1"), hit("A9")]
    assert ids(with_part_hits(whole, [[hit("A1")], [hit("A5~p2")], []], unit, k=3)) == ["A1", "A5~p1", "A9"]


def test_a_unit_a_part_agrees_on_moves_up_after_the_best_hit():
    """"What must the processing agreement say, and what must we do after a breach?": the whole question ranked the
    breach article fifth; the part's search finds it too (after another article): both searches agree on it."""
    whole = [hit("A28~p1"), hit("A34"), hit("A30"), hit("A28~p2"), hit("A33")]
    merged = with_part_hits(whole, [[hit("A28~p3")], [hit("A12"), hit("A33")]], unit, k=5)
    assert ids(merged) == ["A28~p1", "A33", "A34", "A30", "A28~p2"]


def test_two_parts_found_alone_keep_their_order():
    whole = [hit("A1"), hit("A2"), hit("A3")]
    merged = with_part_hits(whole, [[hit("B1")], [hit("C1")]], unit, k=5)
    assert ids(merged) == ["A1", "A2", "B1", "C1", "A3"]


def test_an_agreed_unit_comes_before_a_unit_found_by_a_part_alone():
    whole = [hit("A1"), hit("A2"), hit("A3"), hit("A4")]
    merged = with_part_hits(whole, [[hit("B1")], [hit("A4")]], unit, k=5)
    assert ids(merged) == ["A1", "A4", "A2", "B1", "A3"]


def test_a_part_hit_from_a_document_only_at_the_tail_of_the_whole_questions_hits_is_left_out():
    """"…reported to the regulator, and when must the affected individuals be told?": searched alone, the second
    part finds another act (ESRS, "affected communities") that the whole question reached only at its last hit."""
    def in_doc(chunk_id: str, document_id: str) -> Source:
        return Source(chunk_id, document_id, "Act", chunk_id.split("~")[0], "", "text", 85.0, "eu_law", 1.0)
    whole = [in_doc("A33", "gdpr"), in_doc("A34", "gdpr"), in_doc("A70", "gdpr"), in_doc("S3", "esrs")]
    merged = with_part_hits(whole, [[in_doc("S3-2", "esrs")], [in_doc("A12", "gdpr")]], unit, k=4)
    assert ids(merged) == ["A33", "A34", "A12", "A70"]


@pytest.mark.parametrize("question, sides", [
    ("Compare the GDPR breach notification deadline with the DORA incident reporting deadlines.",
     ["the GDPR breach notification deadline", "the DORA incident reporting deadlines"]),
    ("Compare impact materiality and financial materiality.", ["impact materiality", "financial materiality"]),
    ("Comparez le régime OSS avec le régime IOSS.", ["le régime OSS", "le régime IOSS"]),
    ("Compara el plazo del RGPD con el de DORA.", ["el plazo del RGPD", "el de DORA"]),
    ("Vergleichen Sie die Meldefrist der DSGVO mit der von DORA.", ["die Meldefrist der DSGVO", "der von DORA"]),
    ("Which companies must compare prices?", []),  # not an instruction to compare
])
def test_an_instruction_to_compare_has_its_two_sides(question, sides):
    assert comparison_sides(question) == sides


@pytest.mark.parametrize("question, sides", [
    ("Is a controller the same thing as a processor?", ["a controller", "a processor"]),
    ("Is pseudonymised data the same as anonymous data?", ["pseudonymised data", "anonymous data"]),
    ("Un sous-traitant est-il la même chose qu'un responsable du traitement ?",
     ["Un sous-traitant", "un responsable du traitement"]),
    ("¿Es la seudonimización lo mismo que la anonimización?", ["la seudonimización", "la anonimización"]),
    ("Ist Pseudonymisierung dasselbe wie Anonymisierung?", ["Pseudonymisierung", "Anonymisierung"]),
    # not two terms set against each other
    ("Are the reporting rules the same as under the old directive?", []),
    ("Is the DPO the same person for the whole group?", []),
])
def test_asking_whether_two_terms_are_the_same_sets_them_side_by_side(question, sides):
    """"Is X the same as Y?" asks what tells the two apart, like "What is the difference between X and Y?" (it was
    read as one question about neither term until session 55, and abstained)."""
    assert comparison_sides(question) == sides


@pytest.mark.parametrize("question, language, topic", [
    ("How does the general place-of-supply rule for services differ between a business customer and a private "
     "individual?", "en", "general place-of-supply rule for services"),
    ("What are the differences in reporting deadlines between a major incident and a significant cyber threat?", "en",
     "reporting deadlines"),
    ("¿En qué se diferencia el tratamiento del IVA entre un cliente empresa y un particular?", "es",
     "tratamiento del IVA"),
    ("Quelle est la différence de régime TVA entre une livraison et une prestation ?", "fr", "régime TVA"),
    ("What is the difference between impact materiality and financial materiality?", "en", ""),
    ("How do our obligations differ between reporting a breach and telling the individuals?", "en", ""),  # one word
])
def test_what_a_comparison_between_two_cases_compares_them_on(question, language, topic):
    assert comparison_topic(question, language) == topic


def test_the_cases_of_a_comparison_on_a_named_rule_are_searched_with_that_rule():
    """Searched as "What is private individual?", the second case found the article on services for private purposes;
    the rule it asks about is the place of supply."""
    question = ("How does the general place-of-supply rule for services differ between a business customer and a "
                "private individual?")
    assert searchable_parts(question, "en") == ["general place-of-supply rule for services a business customer",
                                                 "general place-of-supply rule for services a private individual"]
