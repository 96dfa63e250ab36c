"""Does a passage define the term a question asks about? One reading for the learned ranker (a feature) and the
evidence grade (the defining passage at rank 1 anchors an answer).

A passage defines what it quotes before "means" / "on entend par" / "bezeichnet" (:func:`defined_terms`), or, when
it quotes none, the title of the glossary entry it is ("ANNEX II › Carbon credit"). The asked term
(:func:`regintel.text.asked_terms.asked_term`) is compared by its stems, in the passage's language: as written when
the question is in that language, else carried over by the legal term list.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence, Set as AbstractSet
from functools import lru_cache

from regintel.retrieval.calibration import defined_terms
from regintel.retrieval.chunking import split_part
from regintel.retrieval.crosslingual import ACRONYM, load_glossary
from regintel.retrieval.instruments import load_catalog
from regintel.retrieval.search_titles import load_search_titles
from regintel.text.analysis import tokenize
from regintel.text.normalise import fold

GLOSSARY_TITLE_WORDS = 6  # a longer last heading level is a section title, not a defined term
COGNATE_RATIO = 0.88  # share of letters two spellings of one borrowed term have in common (difflib's ratio)
COGNATE_MIN_LETTERS = 6  # shorter words look alike by chance ("acte" / "acts")
CARRIED_PHRASES = 2  # an asked term carried across languages: its entry's first phrases (the preferred wordings)
# a glossary entry's search title: its label ("ESRS glossary", "Glossaire ESRS", "Glosario ESRS", "ESRS-Glossar",
# with "definition(s)" or not), a colon, the terms; the terms are split at commas, dashes and "and" / "or"
GLOSSARY_TITLE_RE = re.compile(r"^[^:]*\bglos\w*[^:]*:\s*(?P<terms>.+)$", re.IGNORECASE)
TITLE_TERM_SPLIT_RE = re.compile(r"\s*(?:[,;]|\s[–-]\s|\b(?:and|or|et|ou|y|o|und|oder|bzw)\b\.?)\s*", re.IGNORECASE)
BRACKETED_RE = re.compile(r"\([^)]*\)")  # an abbreviation or a broader word ("Bestechung (Korruption)"): not the term
DEFINITION_LABEL_RE = re.compile(r"^(?:definitions?|définitions?|definici(?:ón|ones)|definitionen)\b\s*"
                                 r"(?:of|de|du|des|von|der)?\s*", re.IGNORECASE)
# an asked term "X of Y": X, at most two words, and what it is of ("processing of personal data", "tratamiento de
# datos", "traitement de données à caractère personnel"); German puts Y after X ("Verarbeitung personenbezogener Daten")
HEAD_OF_TERM_RES = {
    "en": re.compile(r"^(?P<head>[\w-]+(?: [\w-]+)?) of (?:the |an? )?(?P<of>\w.*)$", re.IGNORECASE),
    "fr": re.compile(r"^(?P<head>[\w-]+(?: [\w-]+)?) (?:de la |de l['’]|des |du |de |d['’])(?P<of>\w.*)$", re.IGNORECASE),
    "es": re.compile(r"^(?P<head>[\w-]+(?: [\w-]+)?) (?:de la |de los |de las |del |de )(?P<of>\w.*)$", re.IGNORECASE),
    "de": re.compile(r"^(?P<head>[A-ZÄÖÜ][\w-]+) (?:der |des |von |von der |vom )?(?P<of>\w.*)$"),
}
CONSIDERED_AS_RE = re.compile(r"\b(?:est|sont) considérée?s? comme (?:une? |des )?[«“]\s*([^»”\n]{2,80}?)\s*[»”]", re.I)


def _quoted(group: str) -> str:
    """A quoted term as the named group ``group``; an apostrophe inside a word ("d’identification") stays in it."""
    return r"[«“\"‘]\s*(?P<" + group + r">(?:[^»”\"’\n]|’(?=\w)){2,80}?)\s*[»”\"’]"


# a numbered item of a definitions list that writes no "means": the French VAT texts' «1) «bon», un instrument ...»,
# «2) «exigibilité de la taxe» le droit ...», «1. “régime non-UE”: le régime ...» (after "on entend par:" or "sont
# considérés comme:"), with a second term joined by "et" («Communauté» et «territoire de la Communauté»). The offline
# composer reads the first term of a sentence with it too (``regintel.llm.offline_compose.DEFINING_RES``).
NUMBERED_ITEM_RE = re.compile(
    r"(?:^|\n|:)\s*(?:\(\d{1,3}\)|\d{1,3}[).])\s*" + _quoted("t") + r"(?:\s+et\s+" + _quoted("t2") + r")?"
    r"\s*(?:[:,]|\s+(?:le|la|les|l['’]|un|une|des|tout|toute|tous|toutes)\b)", re.I)
# English with words between the term and "means": "(11) ‘consent’ of the data subject means any freely given ..."
QUALIFIED_TERM_RE = re.compile(
    r"[‘“\"]\s*([^’”\"\n]{2,80}?)\s*[’”\"](?:\s+[a-z][\w-]*){1,5}\s+(?:means|shall mean)\b")


# a name given in brackets to what the words before it describe: "limited to what is necessary ... (‘data
# minimisation’)", "an identified or identifiable natural person (‘data subject’)", "(« deemed supplier »)"
NAMED_IN_BRACKETS_RE = re.compile(r"\(\s*[‘“«]\s*([^’”»\n]{2,80}?)\s*[’”»]\s*\)")


# guidance written as questions and answers: a heading asking what something is ("Qu’est-ce que le One Stop Shop (OSS)
# et qui peut l’utiliser ?", "Qu’entend-on par un intermédiaire OSS ?", "What is a processor?") heads the answer that
# says it; its term (without the article, and without a second question joined by "and") is the one defined ("What
# does X mean?" asks it too; "What does DORA require?" does not)
FAQ_DEFINITION_HEADING_RE = re.compile(
    r"^\s*¿?\s*(?:qu['’]est[- ]ce qu(?:e\s+|['’]\s*)|qu['’]entend[- ]on par\s+|que (?:sont|signifie)\s+|"
    r"what (?:is|are)\s+|what does\s+(?=[^?？]*\bmean\s*\?)|"
    r"was (?:ist|sind|bedeutet|versteht man unter)\s+|qué (?:es|son|significa)\s+)"
    r"(?:(?:le|la|les|l['’]|un|une|des|a|an|the|ein|eine|einen|einer|der|die|das|el|los|las|una?)\s+|l['’])?"
    r"(?P<t>[^?？]+?)(?:\s+mean)?(?:\s+(?:et|and|und|y)\s[^?？]*)?\s*[?？]\s*$", re.IGNORECASE)
FAQ_TERM_WORDS = 6  # a longer "term" is a question about something else


def asked_by_heading(heading: str) -> str:
    """The term a question-and-answer heading asks about ("" when the heading asks no "what is X?")."""
    found = FAQ_DEFINITION_HEADING_RE.match((heading or "").split("›")[-1])
    term = found.group("t").strip(" «»\"“”‘’'") if found else ""
    return term if term and len(term.split()) <= FAQ_TERM_WORDS else ""


# a defined term written with its abbreviation: "threat-led penetration testing (TLPT)", "Greenhouse Gases (GHG)",
# "Best Available Techniques (BAT) conclusions" (not an act's "(EU)" before its number)
ABBREVIATED_TERM_RE = re.compile(r"^(?P<long>.+?)\s*\((?P<short>[A-Z][A-Za-z0-9]{1,7})\)\s*(?P<rest>.*)$")
ABBREVIATION_RE = re.compile(rf"{ACRONYM}s?")  # an abbreviation as written: "TLPT", "GHG", "SVHCs"
# one word, then its other name: "BREF or EU Best Available Techniques reference documents", "Degradation or degraded
# ecosystem" (not "Confirmed incident of corruption or bribery", "Biosphere integrity or ecological integrity", nor a
# list of things, "Purchased or acquired electricity, heat, steam, or cooling")
ALSO_NAMED_RE = re.compile(r"^(?P<first>[^\s(),]+) or (?P<other>(?:(?! or )[^(),])+)$")


def term_variants(term: str) -> list[str]:
    """A defined term and, when it gives its abbreviation in brackets, the term without it and the abbreviation
    itself: "What is a TLPT?" asks what Article 3(17) DORA defines as "threat-led penetration testing (TLPT)"."""
    found = ABBREVIATED_TERM_RE.match(term.strip())
    if not found or found.group("short") in {"EU", "EC", "EEC"} or found.group("rest")[:1].isdigit():
        return [term]
    long, short, rest = found.group("long"), found.group("short"), found.group("rest")
    variants = [term, f"{long} {rest}".strip(), f"{short} {rest}".strip()]
    if short.endswith("s") and short[:-1].isupper():  # "Substances of Very High Concern (SVHCs)": an SVHC
        variants.append(f"{short[:-1]} {rest}".strip())
    return variants


def glossary_title_names(title: str) -> list[str]:
    """The names a glossary entry's title gives its term: the title, and when it names one word and its other name
    ("BREF or EU Best Available Techniques reference documents", "Biodiversity or biological diversity"), each name.
    Only a glossary title: in a quoted definition "critical or important function" is one term."""
    other_name = ALSO_NAMED_RE.match(title.strip())
    return [title, other_name.group("first"), other_name.group("other")] if other_name else [title]


def terms_defined_by(text: str, heading: str = "", ref: str = "", named_in_brackets: bool = True) -> list[str]:
    """The terms a passage defines: its quoted definitions (also "Est considéré comme « assujetti » ...", the VAT
    Directive's way, the numbered items of its definitions lists and "‘consent’ of the data subject means"), else the
    titles of the glossary entries it is: the short last level of a hierarchical heading ("ANNEX II › Carbon credit"),
    or of the reference when the heading is just those titles (a unit merging short entries, "ANNEX II › Carbon
    credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq)", defines each). Then (``named_in_brackets``) the names
    it gives in brackets to what it describes: Article 5 GDPR names its principles so ("(‘data minimisation’)"),
    Article 4(1) the "(‘data subject’)". A section of questions and answers headed "what is X?" defines X
    (:func:`asked_by_heading`)."""
    numbered = [t.strip() for pair in NUMBERED_ITEM_RE.findall(text) for t in pair if t.strip()]
    terms = list(dict.fromkeys(defined_terms(text) + [t.strip() for t in CONSIDERED_AS_RE.findall(text)] + numbered
                               + [t.strip() for t in QUALIFIED_TERM_RE.findall(text)]))
    named = [t.strip() for t in NAMED_IN_BRACKETS_RE.findall(text)] if named_in_brackets else []
    if terms:
        return list(dict.fromkeys(terms + named))
    faq = asked_by_heading(heading)
    return _glossary_titles(heading, ref) + ([faq] if faq else []) + named


NUMBERED_TITLE_RE = re.compile(r"^\d+(?:\.\d+)*\.?\s")  # "3.3 Double materiality", "7.5 Reporting errors ..."


def _glossary_titles(heading: str, ref: str) -> list[str]:
    """The titles of the glossary entries a unit is (see :func:`terms_defined_by`). An entry split into parts is
    defined by its first part ("ANNEX II › Grievance mechanism (1/2)"); the next ones go on about it. A numbered
    section split into parts ("ESRS 1 › 3.3 Double materiality (1/2)") is a chapter of the text, not an entry (the
    glossary's "Double materiality" defines the term)."""
    terms: list[str] = []
    heading = heading or ""
    whole_ref, part = split_part(ref)
    if part is not None and (part > 1 or NUMBERED_TITLE_RE.match(whole_ref.split("›")[-1].strip())):
        return []
    if "›" in heading:
        labels = heading.split("; ")
    else:
        labels = whole_ref.split("; ")
        if not all("›" in label for label in labels) or \
                "; ".join(label.split("›")[-1].strip() for label in labels) != heading.strip():
            return []  # a section's reference, not the entry titles its heading repeats
    for label in labels:
        title = label.split("›")[-1].strip()
        if "›" in label and title and min(len(name.split()) for name in glossary_title_names(title)) \
                <= GLOSSARY_TITLE_WORDS:
            terms.append(title)
    return terms


def asked_term_stems(term: str, question_language: str, language: str) -> list[frozenset[str]]:
    """The asked term's stems in a passage's ``language``: as written, or carried over by the legal term list when
    one of its entries is the whole term (a term the list covers only in part, "critical or important" with an
    entry for "important", would be carried as another term): the entry's first two phrases, or the counterpart of a
    later variant ("corruption" is not "corporate culture", the second phrase of the entry on business conduct)."""
    if not term:
        return []
    if question_language == language or ABBREVIATION_RE.fullmatch(term):  # "GWP" is written so in every language
        return [frozenset(tokenize(term, language))]
    try:
        glossary = load_glossary()
        length = len(tokenize(term, question_language))
        whole = [m for m in glossary.matches(term, question_language) if m.start == 0 and m.end == length]
        carried = [phrase for m in whole
                   for phrase in glossary.equivalents(m, term, language, counterpart_from=CARRIED_PHRASES,
                                                      limit=CARRIED_PHRASES)]
    except Exception:  # noqa: BLE001 - no term list: the term is carried by nothing but its own spelling
        carried = []
    found = [frozenset(tokenize(c, language)) for c in carried]
    # an analyst quoting the act's own term in another language's sentence ("Was ist ein Carbon Credit im Sinne
    # der ESRS?", "¿Qué es el profiling?"): the term as written, read in the passage's language
    as_written = frozenset(tokenize(term, language))
    return found + [as_written] if as_written and as_written not in found else found


def search_title_terms(title: str) -> list[str]:
    """The terms a glossary entry's search title names (:mod:`regintel.retrieval.search_titles`), after its label:
    "Glosario ESRS, definición: soborno" -> soborno; "ESRS-Glossar, Definition: Bestechung (Korruption)" ->
    Bestechung (a bracket holds an abbreviation or a broader word); "Glossaire ESRS : définition de la corruption,
    dont paiements de facilitation" -> la corruption, dont paiements de facilitation; "biodiversidad o diversidad
    biológica" -> each. A title that is no glossary entry's names none."""
    found = GLOSSARY_TITLE_RE.match(title or "")
    if not found:
        return []
    terms = (DEFINITION_LABEL_RE.sub("", part).strip()
             for part in TITLE_TERM_SPLIT_RE.split(BRACKETED_RE.sub(" ", found.group("terms"))))
    return [term for term in terms if term]


def search_title_translations(term: str, question_language: str, language: str, document_id: str, ref: str,
                              heading: str, text: str = "",
                              entries: Sequence[str] | None = None) -> list[frozenset[str]]:
    """The asked term in a glossary entry's own ``language``, read from the unit's search titles: across languages,
    where the legal term list does not carry it ("Was ist Bestechung?" and the ESRS entry "Bribery", titled
    "ESRS-Glossar, Definition: Bestechung (Korruption)" in German). The term must be one of the title's terms as a
    whole ("biodiversidad" is not "pérdida de biodiversidad"); in a unit merging several entries, the title's terms
    follow the entries' order. Empty when the unit is no glossary entry or its titles do not name the term.
    ``entries``: the unit's defined terms when the caller has read them (:func:`defined_entries`)."""
    if not term or language == question_language:
        return []
    asked = frozenset(tokenize(term, question_language))
    if not asked:
        return []
    entries = defined_entries(text, heading, ref) if entries is None else entries
    if not entries:
        return []
    found: list[frozenset[str]] = []
    for title in load_search_titles().titles_in(document_id, ref, heading, question_language):
        named = [frozenset(tokenize(named, question_language)) for named in search_title_terms(title)]
        if asked not in named:
            continue
        position = named.index(asked)
        if len(entries) == 1:
            picked = entries
        elif len(named) == len(entries) or position == 0:
            picked = [entries[position]]
        else:  # the title names more or fewer terms than the unit has entries: any of them
            picked = entries
        found.extend(frozenset(tokenize(entry, language)) for entry in picked)
    return found


def defined_entries(text: str, heading: str, ref: str = "") -> list[str]:
    """The terms a unit defines outright (:func:`terms_defined_by`, without names given in brackets): what its
    search titles and a cognate are matched against."""
    return terms_defined_by(text, heading, ref, named_in_brackets=False)


def _letters(text: str) -> str:
    """Its letters, folded: "Désertification" -> "desertification"."""
    return "".join(ch for ch in fold(text) if ch.isalpha())


def cognate_translations(term: str, question_language: str, language: str, text: str, heading: str,
                         ref: str = "", entries: Sequence[str] | None = None) -> list[frozenset[str]]:
    """The terms a passage in another language defines that the asked term is a cognate of, spelled almost alike
    (``COGNATE_RATIO`` of their letters, ``COGNATE_MIN_LETTERS`` or more): "Desertifikation" for the ESRS entry
    "Desertification", "Biodiversität" for "Biodiversity" ("Kontrolle" is no "controller"). Technical terms are
    borrowed across languages, and the term list cannot hold every one the acts define. ``entries``: the unit's
    defined terms when the caller has read them (:func:`defined_entries`)."""
    if not term or language == question_language:
        return []
    asked = _letters(term)
    if len(asked) < COGNATE_MIN_LETTERS:
        return []
    found = []
    for defined in defined_entries(text, heading, ref) if entries is None else entries:
        letters = _letters(defined)
        alike = difflib.SequenceMatcher(None, asked, letters).ratio()
        if len(letters) >= COGNATE_MIN_LETTERS and alike >= COGNATE_RATIO:
            found.append(frozenset(tokenize(defined, language)))
    return found


@lru_cache(maxsize=64)
def act_subject_stems(title: str, language: str) -> frozenset[str]:
    """The words of an act's name: its title in the corpus ("GDPR") and the full title of each act the instrument
    list knows it by ("General Data Protection Regulation (EU) 2016/679"), in ``language``."""
    names = [title]
    try:
        names += [mention.instrument.title for mention in load_catalog().mentions(title) if mention.instrument]
    except Exception:  # noqa: BLE001 - no instrument list: the corpus title alone
        pass
    return frozenset(word for name in names for word in tokenize(name, language) if not word.isdigit())


def without_the_acts_subject(term: str, language: str, title: str) -> frozenset[str] | None:
    """The asked term without the leading words its act's title names as its subject, as that act defines it: a
    "data processor" is what the General Data Protection Regulation defines as a "processor" (Article 4(8)), a "data
    controller" its "controller". None when the term opens with no such word or is nothing else (the title's
    "personal data" is no shorter term of its own)."""
    if not title:
        return None
    words = tokenize(term, language)
    subject = act_subject_stems(title, language)
    lead = 0
    while lead < len(words) - 1 and words[lead] in subject:
        lead += 1
    return frozenset(words[lead:]) if lead else None


def term_in_passage(term: str, question_language: str, language: str, document_id: str, ref: str, heading: str,
                    text: str, carried: Sequence[AbstractSet[str]] | None = None,
                    title: str = "") -> list[AbstractSet[str]]:
    """The asked term's stems as a passage in ``language`` would define it: carried by the legal term list
    (``carried``, when the caller has it already: :func:`asked_term_stems`), read from the unit's search titles
    (:func:`search_title_translations`) or from its entries spelled almost alike (:func:`cognate_translations`),
    and, in the question's own language, without the words naming the subject of the passage's act (``title``:
    :func:`without_the_acts_subject`). One reading for search, the evidence grade and the composer."""
    if carried is None:
        carried = asked_term_stems(term, question_language, language)
    found = list(carried)
    if term and language != question_language:  # the unit's entries, read once for its titles and its cognates
        entries = defined_entries(text, heading, ref)
        found += search_title_translations(term, question_language, language, document_id, ref, heading, text, entries)
        found += cognate_translations(term, question_language, language, text, heading, ref, entries)
    shorter = without_the_acts_subject(term, language, title) if language == question_language else None
    found += [shorter] if shorter else []
    return found + [head for head in head_in_passage(term, question_language, language, text) if head not in found]


def head_of_term(term: str, language: str) -> tuple[str, str] | None:
    """An asked term "X of Y" as (X, Y): "processing of personal data" -> ("processing", "personal data"),
    "Verarbeitung personenbezogener Daten" -> ("Verarbeitung", "personenbezogener Daten"); None for another shape."""
    pattern = HEAD_OF_TERM_RES.get(language)
    found = pattern.match(term.strip()) if pattern else None
    if not found or not tokenize(found["head"], language) or not tokenize(found["of"], language):
        return None
    return found["head"], found["of"]


def head_in_passage(term: str, question_language: str, language: str, text: str) -> list[frozenset[str]]:
    """The head of an asked term "X of Y" (:func:`head_of_term`) in a passage's ``language``, when the passage speaks
    of Y: the GDPR defines "processing" as an operation "performed on personal data" (Article 4(2)), and "What is
    processing of personal data?", "¿Qué es un tratamiento de datos?" quoted Articles 9 and 10, which use the whole
    phrase, for want of a passage defining it whole. Across languages X and Y are carried by the legal term list."""
    split = head_and_rest_stems(term, question_language, language)
    if split is None:
        return []
    head, rest = split
    words = set(tokenize(text, language))
    return list(head) if any(stems <= words for stems in rest) else []


@lru_cache(maxsize=256)
def head_and_rest_stems(term: str, question_language: str, language: str
                         ) -> tuple[tuple[frozenset[str], ...], tuple[frozenset[str], ...]] | None:
    """The stems of X and of Y of an asked term "X of Y" in a passage's ``language``, read once per term (a
    definition question reads every candidate passage with them)."""
    split = head_of_term(term, question_language)
    if split is None:
        return None
    head, rest = (tuple(stems for stems in asked_term_stems(part, question_language, language) if stems)
                  for part in split)
    return head, rest


def defined_stems(text: str, heading: str, language: str, ref: str = "",
                  named_in_brackets: bool = True) -> frozenset[frozenset[str]]:
    titles = set(_glossary_titles(heading, ref))
    return frozenset(frozenset(tokenize(variant, language))
                     for term in terms_defined_by(text, heading, ref, named_in_brackets)
                     for name in (glossary_title_names(term) if term in titles else [term])
                     for variant in term_variants(name))


def defines(asked: list[frozenset[str]], defined: frozenset[frozenset[str]]) -> bool:
    return any(a and a in defined for a in asked)
