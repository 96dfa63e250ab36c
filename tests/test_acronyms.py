"""Acronyms the corpus never writes are read with their full name (regintel/retrieval/acronyms.py), on the shipped
legal term list; and a question written with one is a question on regulation (the guardrail's vocabulary)."""

from __future__ import annotations

import pytest

from regintel.chat.guardrails import has_regulatory_vocabulary
from regintel.retrieval.acronyms import full_name, load_acronyms, spelled_out, spells
from regintel.retrieval.crosslingual import load_glossary

WRITES_NOTHING = lambda word: False  # noqa: E731 - a corpus that writes none of the acronyms
GLOSSARY = load_glossary()


@pytest.mark.parametrize("acronym, phrase", [
    ("DPIA", "data protection impact assessment"),
    ("ROPA", "records of processing activities"),  # a small word's initial counts
    ("TLPT", "threat-led penetration testing"),  # hyphenated words are words
    ("AIPD", "analyse d'impact relative à la protection des données"),  # elided article and extra words skipped
])
def test_an_acronym_spells_the_initials_of_its_words_in_order(acronym, phrase):
    assert spells(acronym, phrase)


@pytest.mark.parametrize("acronym, phrase", [
    ("SCC", "appropriate safeguards"),  # an entry's broader term is not the acronym's name
    ("DSFA", "Datenschutz-Folgenabschätzung"),  # letters inside a compound word are not initials
    ("DPO", "data protection"),  # the last letter must be the last word's
    ("DPIA", "DPIA"),
])
def test_a_phrase_the_acronym_does_not_spell_is_not_its_name(acronym, phrase):
    assert not spells(acronym, phrase)


def test_the_full_name_comes_in_the_question_language_else_in_english():
    assert full_name("AIPD", "fr", GLOSSARY) == "analyse d'impact relative à la protection des données"
    assert full_name("DPIA", "fr", GLOSSARY) == "data protection impact assessment"  # no French phrase spells it
    assert full_name("DSFA", "de", GLOSSARY) == ""


def test_an_acronym_the_corpus_does_not_write_is_followed_by_its_full_name():
    """From the term list alone (no practitioners' list): the phrase the acronym spells, in English when no phrase
    of the question's language spells it; the practitioners' list names it in the question's language."""
    assert spelled_out("What must a DPIA contain?", "en", GLOSSARY, WRITES_NOTHING, listed={}) == \
        "What must a DPIA (data protection impact assessment) contain?"
    assert spelled_out("Qui désigne le DPO ?", "fr", GLOSSARY, WRITES_NOTHING, listed={}) == \
        "Qui désigne le DPO (data protection officer) ?"
    assert spelled_out("Qui désigne le DPO ?", "fr", GLOSSARY, WRITES_NOTHING) == \
        "Qui désigne le DPO (délégué à la protection des données) ?"


def test_an_acronym_the_corpus_writes_or_carries_across_languages_is_left_as_written():
    writes_tva = lambda word: word == "TVA"  # noqa: E731 - the French VAT texts
    question = "Who pays the VAT on services bought abroad?"
    assert spelled_out(question, "en", GLOSSARY, writes_tva) == question  # the term list carries VAT to TVA
    assert spelled_out("How often is TLPT required?", "en", GLOSSARY, lambda word: word == "TLPT") == \
        "How often is TLPT required?"


def test_act_names_and_written_out_names_are_not_spelled_again():
    assert spelled_out("What is the GDPR?", "en", GLOSSARY, WRITES_NOTHING, frozenset({"GDPR"})) == "What is the GDPR?"
    question = "Who appoints the data protection officer (DPO)?"
    assert spelled_out(question, "en", GLOSSARY, WRITES_NOTHING) == question


def test_a_question_written_with_a_practitioners_acronym_is_on_regulation():
    """"What must a DPIA contain?" has no regulatory word but the acronym: weak evidence then refused it as out of
    domain."""
    assert has_regulatory_vocabulary("What must a DPIA contain?")
    assert has_regulatory_vocabulary("Wann braucht man eine DSFA?")
    assert not has_regulatory_vocabulary("What is an AR headset?")  # two capitals are too often something else


# -- the practitioners' acronym list (data/glossary/acronyms.jsonl) --------------------------------------------------
def test_a_listed_acronym_is_read_with_its_name_in_the_question_language():
    listed = load_acronyms()
    assert spelled_out("Bis wann muss die ZM abgegeben werden?", "de", GLOSSARY, WRITES_NOTHING, listed=listed) == \
        f"Bis wann muss die ZM ({listed['ZM'].names['de']}) abgegeben werden?"
    assert spelled_out("What must our BCRs contain?", "en", GLOSSARY, WRITES_NOTHING, listed=listed) == \
        "What must our BCRs (binding corporate rules) contain?"  # the plural is read as the acronym


def test_a_listed_acronym_the_corpus_writes_is_left_as_written():
    listed = load_acronyms()
    question = "Which incidents must be reported under the RTS?"
    assert spelled_out(question, "en", GLOSSARY, lambda word: word == "RTS", listed=listed) == question


def test_the_shipped_list_names_every_acronym_in_english_once_and_no_act(tmp_path):
    listed = load_acronyms()
    assert len(listed) > 100 and all(entry.names["en"] for entry in listed.values())
    assert not {"GDPR", "DORA", "ESRS", "CSRD"} & set(listed)  # acts are read by regintel.retrieval.instruments
    assert has_regulatory_vocabulary("Welche Punkte muss ein AVV regeln?")  # listed only, not in the term list


def test_a_list_entry_without_an_english_name_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "acronyms.jsonl"
    bad.write_text('{"_meta": "x"}\n{"acronym": "ZM", "names": {"de": "Zusammenfassende Meldung"}}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"acronyms.jsonl:2"):
        load_acronyms(str(bad))
    assert load_acronyms(str(tmp_path / "absent.jsonl")) == {}
