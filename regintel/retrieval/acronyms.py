"""Acronyms an analyst writes that the corpus never does, read with their full name.

Practitioners say "DPIA", "DPO", "ROPA", "AIPD" or "CTPP"; the GDPR and DORA write "data protection impact
assessment", "data protection officer", "records of processing activities". Such an acronym matches no word of the
corpus, and the embedding model reads it as noise: "What must a DPIA contain?" found Article 35 first, yet the
question's similarity stayed under the evidence floor and it was refused as out of domain (and "What goes in the
ROPA?" abstained). The legal term list (``data/glossary/legal_terms.jsonl``) names each acronym beside the terms of
its entry; the one that the acronym spells (its letters are the initials of the term's words, in order: "threat-led
penetration testing" for TLPT) is added after it, in the question's language when the entry has one, else in
English: "What must a DPIA (data protection impact assessment) contain?". An acronym the corpus itself writes (ICT,
TLPT, OSS), or whose counterpart in another language it writes (VAT beside the French texts' TVA, which the term list
carries across), is left as it is: the texts match it already. Names of acts (GDPR, CSRD) are not spelled out either:
:mod:`regintel.retrieval.instruments` reads them.

Most acronyms of practice spell no phrase of the term list, or none at all in the asker's language ("DSFA" for
"Datenschutz-Folgenabschätzung", "ZM" for the recapitulative statement, "CIF", "BCR"): the practitioners' acronym list
(``data/glossary/acronyms.jsonl``, hand-written from general knowledge of the four fields, not from the evaluation
set) gives their full names in English, French, German and Spanish, and is read first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping

from regintel.config import REPO_ROOT
from regintel.retrieval.crosslingual import Glossary, GlossaryEntry
from regintel.retrieval.data_files import jsonl_records

ACRONYMS_PATH = REPO_ROOT / "data" / "glossary" / "acronyms.jsonl"
WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)  # words, hyphenated parts and elided articles ("d'impact") apart
# an acronym as written, with a plural "s" apart ("BCRs"); only listed ones count, so "The" or "McKinsey" never do
ACRONYM_TOKEN_RE = re.compile(r"\b([A-Z][A-Za-z0-9]{0,6}[A-Z0-9])s?\b")
FALLBACK_LANGUAGE = "en"


@dataclass(frozen=True)
class ListedAcronym:
    acronym: str
    names: Mapping[str, str]  # language -> full name


@lru_cache(maxsize=4)
def load_acronyms(path: str = str(ACRONYMS_PATH)) -> dict[str, ListedAcronym]:
    """The practitioners' acronym list by acronym (empty when the file is absent: the term list still serves)."""
    if not Path(path).exists():
        return {}
    listed = {}
    for number, raw in jsonl_records(Path(path)):
        names = {lang: str(name).strip() for lang, name in (raw.get("names") or {}).items() if str(name).strip()}
        acronym = str(raw.get("acronym", "")).strip()
        if not acronym or FALLBACK_LANGUAGE not in names:
            raise ValueError(f"{path}:{number}: an acronym needs its English name at least")
        listed[acronym] = ListedAcronym(acronym, names)
    return listed


def known_acronyms(glossary: Glossary, listed: Mapping[str, ListedAcronym] | None = None,
                   shortest: int = 3) -> frozenset[str]:
    """Every acronym of at least ``shortest`` characters that names a regulatory subject: the term list's and the
    practitioners' list's."""
    listed = load_acronyms() if listed is None else listed
    return glossary.subject_acronyms | {a for a in listed if len(a) >= shortest}


def acronyms_in(text: str) -> list[str]:
    """The acronyms written in ``text``, in order, each once, a plural "s" dropped ("BCRs" -> "BCR")."""
    return list(dict.fromkeys(ACRONYM_TOKEN_RE.findall(text)))


def spelled_out(question: str, language: str, glossary: Glossary, corpus_writes: Callable[[str], bool],
                act_names: frozenset[str] = frozenset(), listed: Mapping[str, ListedAcronym] | None = None) -> str:
    """``question`` with each known acronym the corpus does not write followed by its full name in brackets;
    the question unchanged when it has none (or its full name is written beside it already)."""
    listed = load_acronyms() if listed is None else listed
    spelled = question
    for acronym in acronyms_in(question):
        if acronym in act_names or not (acronym in listed or acronym in glossary.subject_acronyms):
            continue
        if any(corpus_writes(other) for other in {acronym} | acronyms_beside(acronym, glossary)):
            continue  # the texts write it, or its counterpart in their language ("VAT": the French texts say "TVA")
        entry = listed.get(acronym)
        name = entry.names.get(language, entry.names[FALLBACK_LANGUAGE]) if entry else full_name(acronym, language, glossary)
        if not name or name.casefold() in question.casefold():
            continue
        spelled = re.sub(rf"\b{re.escape(acronym)}s?\b", lambda m: f"{m.group(0)} ({name})", spelled, count=1)
    return spelled


def _entries_holding(acronym: str, glossary: Glossary) -> list[GlossaryEntry]:
    """The term-list entries that give ``acronym`` as one of their phrases, in any language."""
    return [entry for entry in glossary.entries if any(acronym in phrases for phrases in entry.phrases.values())]


def acronyms_beside(acronym: str, glossary: Glossary) -> set[str]:
    """The acronym and the other acronyms of the term-list entries that hold it, in every language (VAT, TVA, IVA)."""
    return {phrase for entry in _entries_holding(acronym, glossary)
            for phrases in entry.phrases.values() for phrase in phrases if phrase in glossary.subject_acronyms}


def full_name(acronym: str, language: str, glossary: Glossary) -> str:
    """The term an acronym of the term list stands for: a phrase of its entry that it spells, in ``language`` first,
    then in English; empty when no phrase does."""
    entries = [entry for entry in _entries_holding(acronym, glossary) if entry.is_subject]
    for wanted in dict.fromkeys((language, FALLBACK_LANGUAGE)):
        for entry in entries:
            for phrase in entry.phrases.get(wanted, ()):
                if phrase != acronym and spells(acronym, phrase):
                    return phrase
    return ""


def spells(acronym: str, phrase: str) -> bool:
    """Whether the letters of ``acronym`` are initials of the words of ``phrase`` in order, the first and last words
    included ("ROPA": records of processing activities; "AIPD": analyse d'impact relative à la protection des
    données); an acronym is not its own full name."""
    initials = [word[0].casefold() for word in WORD_RE.findall(phrase)]
    letters = [c.casefold() for c in acronym if c.isalpha()]
    if len(initials) < 2 or len(letters) < 2 or initials[0] != letters[0] or initials[-1] != letters[-1]:
        return False
    position = 0
    for letter in letters:
        while position < len(initials) and initials[position] != letter:
            position += 1
        if position == len(initials):
            return False
        position += 1
    return True
