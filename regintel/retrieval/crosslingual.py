"""Cross-lingual retrieval helpers: the question's language and a legal term list that carries a question's key
terms into the other languages of the corpus.

The demo corpus holds English acts (GDPR, DORA, ESRS) and French ones (VAT Directive, VAT Implementing
Regulation, Belgian guidance), and analysts ask in English, French, Spanish or German. The multilingual
embedding finds passages across languages, but BM25 cannot: "invoice" never matches "facture". The term list
(``data/glossary/legal_terms.jsonl``, hand-made for this corpus) gives each key regulatory term its EN/FR/ES/DE
equivalents; :meth:`Glossary.translate` finds the terms of a question (on stemmed tokens, so plurals and
inflections match) and returns their equivalents in a target language, which the search index adds to the BM25
query it runs on the documents of that language (:mod:`regintel.retrieval.search_index`).

No translation model: the term list is data in the repository, and language detection counts stop words and
glossary terms.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from regintel.config import REPO_ROOT
from regintel.retrieval.data_files import jsonl_records
from regintel.text.analysis import SUPPORTED_LANGUAGES, best_language, fold, folded_stopwords, language_votes, tokenize
from regintel.text.lemmas import in_compound_heads, in_german_dictionary_forms
from regintel.text.normalise import contains_phrase, fold_for_comparison
from regintel.text.law_frames import asks_where_taxed, contents_asked
from regintel.text.question_kinds import asks_conditions_by_when

GLOSSARY_PATH = REPO_ROOT / "data" / "glossary" / "legal_terms.jsonl"
LANGUAGES = tuple(SUPPORTED_LANGUAGES)  # en, fr, es, de
# Language-neutral tokens worth carrying into any language: numbers ("10.000", "150", "2016/679") and acronyms
# written in capitals (OSS, IOSS, ASBL, TLPT, ESRS, DORA)
ACRONYM = r"[A-Z][A-Z0-9]{1,7}"  # an acronym as written, in any language
_NEUTRAL_RE = re.compile(rf"\b(?:\d[\d.,/]*\d|\d|{ACRONYM})\b")
_ACRONYM_RE = re.compile(ACRONYM)
MIN_SUBJECT_ACRONYM = 3  # two capitals ("AR", "GE", "S1") are too often something else


def neutral_tokens(text: str) -> list[str]:
    """The numbers and capitalised acronyms of ``text``: the same in every language."""
    return _NEUTRAL_RE.findall(text)


def terms(text: str, language: str) -> list[str]:
    """Folded words minus stop words, stemmed in ``language``: the unit on which glossary terms match (the BM25
    tokens of :func:`regintel.text.analysis.tokenize`)."""
    return tokenize(text, language)


GERMAN = "de"  # read in dictionary forms and compounds: no text of the corpus is German, its questions meet the list


def lemma_terms(text: str, language: str, plain: Sequence[str] | None = None) -> list[str] | None:
    """:func:`terms` of ``text`` with each word read in its dictionary form first (:mod:`regintel.text.lemmas`),
    position for position with :func:`terms` (``plain``, when the caller has them: "übermittelt" -> "ubermittel", as
    "übermitteln" stems); None for another language than German, or when a lemma splits or drops a word (the
    positions would no longer match)."""
    if language != GERMAN:
        return None
    plain = terms(text, language) if plain is None else plain
    lemmatised = terms(in_german_dictionary_forms(text, folded_stopwords(language), fold), language)
    return lemmatised if len(lemmatised) == len(plain) else None


def terms_line(stems: Sequence[str]) -> str:
    """A text's terms (:func:`terms`) as one space-separated line, padded with a space at each end: where
    :func:`written_in_a_row` looks for a phrase."""
    return f" {' '.join(stems)} "


def written_in_a_row(stems: Sequence[str], line: str) -> bool:
    """Whether the stems of a phrase stand one after another in a :func:`terms_line` (or in lines joined by "\n")."""
    return bool(stems) and terms_line(stems) in line


NON_TERM_DOMAINS = frozenset({"cue"})  # entries that mark the kind of question, not a term
NON_SUBJECT_DOMAINS = NON_TERM_DOMAINS | {"general"}  # ... nor common legal words: the rest name an act's subjects


WRITTEN_GAP = "…"  # in a phrase required as written: any words of the same sentence may stand there


@dataclass(frozen=True)
class GlossaryEntry:
    id: str
    domain: str
    phrases: dict[str, tuple[str, ...]]  # language -> equivalent phrases, preferred first
    # language -> phrases that match only as written (the list's "written" field): a stemmed match is not enough when
    # the stems say something else ("gilt" alone is "applies"; "gilt … als", "counts as", a definition cue) or meet
    # another word's ("EU-Regelung", the OSS scheme, and "EU-Regeln", EU rules, stem alike)
    written: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def is_subject(self) -> bool:
        """A term of an act's subject matter ("personal data breach", "reverse charge"), not a common legal word
        ("general") nor a question's wording ("cue")."""
        return self.domain not in NON_SUBJECT_DOMAINS


@dataclass(frozen=True)
class TermMatch:
    entry: GlossaryEntry
    language: str
    start: int  # token span in the question's stemmed terms
    end: int


class Glossary:
    """The legal term list: phrase matching in a question and translation into another language."""

    def __init__(self, entries: Iterable[GlossaryEntry]) -> None:
        self.entries = list(entries)
        # language -> first stemmed token -> [(stemmed phrase, entry)], longest phrases first
        self._index: dict[str, dict[str, list[tuple[tuple[str, ...], GlossaryEntry]]]] = {}
        # (language, entry id, stemmed phrase) -> the forms a match of it must be written in (_matches_as_written):
        # a subject phrase shrinking to one stem (_note_written_form; None: the entry also has a one-word phrase with
        # that stem) and the list's own "written" phrases (GlossaryEntry.written)
        self._written_forms: dict[tuple[str, str, tuple[str, ...]], list[str] | None] = {}
        # (language, entry id, a phrase's stems read in dictionary forms) -> its stems as written (lemma_terms): a
        # phrase found by its lemmas must still stand as written where the list requires it
        self._lemma_stems: dict[tuple[str, str, tuple[str, ...]], tuple[str, ...]] = {}
        self._acronyms: frozenset[str] | None = None
        for entry in self.entries:
            for language, phrases in entry.phrases.items():
                by_first = self._index.setdefault(language, {})
                for phrase in phrases:
                    stems = tuple(terms(phrase, language))
                    if len(stems) == 1 and entry.is_subject:
                        self._note_written_form(language, entry.id, stems, phrase)
                    if stems and (stems, entry) not in by_first.get(stems[0], []):
                        by_first.setdefault(stems[0], []).append((stems, entry))
                    lemmas = tuple(lemma_terms(phrase, language, stems) or ())
                    if lemmas and lemmas != stems:
                        self._lemma_stems[(language, entry.id, lemmas)] = stems
                        if (lemmas, entry) not in by_first.get(lemmas[0], []):
                            by_first.setdefault(lemmas[0], []).append((lemmas, entry))
            for language, forms in entry.written.items():
                for form in forms:
                    key = (language, entry.id, tuple(terms(form.replace(WRITTEN_GAP, " "), language)))
                    self._written_forms[key] = [*(self._written_forms.get(key) or []), form]
        for by_first in self._index.values():
            for candidates in by_first.values():
                candidates.sort(key=lambda item: -len(item[0]))
        # the stems of the German one-word subject phrases: the last parts a compound is read by
        self._compound_heads = frozenset(stems[0] for candidates in self._index.get(GERMAN, {}).values()
                                         for stems, entry in candidates if len(stems) == 1 and entry.is_subject)

    def _note_written_form(self, language: str, entry_id: str, stems: tuple[str, ...], phrase: str) -> None:
        """A subject phrase of several words whose other words are stop words ("otro encargado", "does not apply",
        "un an", "for consideration") keeps one stem, which any form of that word matches: "nos encargamos" (we take
        care of) read as "another processor", "an" as the ESRS time horizon "one year". Such a phrase matches only as
        written; a one-word phrase of the same entry with that stem ("consideration") matches by stem as before.
        Cue and general entries keep matching by stem ("qué se entiende por", "bis wann" mark a question's kind in
        any wording: requiring them as written lost eight answers of the demo sets, session 36)."""
        key = (language, entry_id, stems)
        forms = self._written_forms.get(key, [])
        if len(fold_for_comparison(phrase).split()) == 1:
            self._written_forms[key] = None
        elif forms is not None:
            self._written_forms[key] = [*forms, phrase]

    def _matches_as_written(self, language: str, entry_id: str, stems: tuple[str, ...], text: str) -> bool:
        """Whether a match of an entry's phrase in ``text`` stands there as one of the forms that phrase requires
        (:meth:`_note_written_form`, GlossaryEntry.written); True when it requires none."""
        forms = self._written_forms.get((language, entry_id, stems))
        return not forms or any(_written(text, form) for form in forms)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def subject_acronyms(self) -> frozenset[str]:
        """The acronyms of at least ``MIN_SUBJECT_ACRONYM`` capitals the term list gives for an act's subjects (DPIA,
        AIPD, DSFA, TLPT, IOSS): as specific as the phrases they stand for, though one word each."""
        if self._acronyms is None:
            self._acronyms = frozenset(phrase for entry in self.entries if entry.is_subject
                                       for phrases in entry.phrases.values() for phrase in phrases
                                       if len(phrase) >= MIN_SUBJECT_ACRONYM and _ACRONYM_RE.fullmatch(phrase))
        return self._acronyms

    @property
    def languages(self) -> list[str]:
        return sorted(self._index)

    @classmethod
    def load(cls, path: Path = GLOSSARY_PATH) -> "Glossary":
        """Read the JSONL term list (a first line with ``_meta`` describes it and is skipped)."""
        entries = []
        for number, raw in jsonl_records(path):
            phrases = {lang: tuple(str(p) for p in raw[lang]) for lang in LANGUAGES if raw.get(lang)}
            if not raw.get("id") or len(phrases) < 2:
                raise ValueError(f"{path}:{number}: an entry needs an id and phrases in two languages at least")
            written = {lang: tuple(str(p) for p in raw["written"][lang]) for lang in LANGUAGES
                       if (raw.get("written") or {}).get(lang)}
            entries.append(GlossaryEntry(str(raw["id"]), str(raw.get("domain", "")), phrases, written))
        return cls(entries)

    def subject_matches(self, text: str) -> list[TermMatch]:
        """The terms of an act's subject matter (:attr:`GlossaryEntry.is_subject`) found in ``text``, in each of the
        list's languages: what a question names whatever language its words are taken from."""
        return [match for language in LANGUAGES for match in self.matches(text, language) if match.entry.is_subject]

    def matches(self, text: str, language: str) -> list[TermMatch]:
        """Glossary phrases of ``language`` found in ``text`` (on stemmed terms), keeping only maximal spans: a
        phrase inside a longer matched phrase ("place of supply" in "place of supply of services") is dropped."""
        by_first = self._index.get(language, {})
        tokens = terms(text, language)
        # a word matches a phrase's word as written, in their dictionary forms ("übermittelt" / "übermitteln") or, a
        # German compound no phrase begins with, by its last part ("Datenverarbeitung" / "Verarbeitung")
        # (each position's readings in this order, as written first: a set's order changes with the process's hash
        # seed, and the matches' order decides which variant of a term stands for the others)
        lemmas = lemma_terms(text, language, tokens) or tokens
        heads = self._compound_head_terms(text, language, tokens) or tokens
        ordered = [tuple(dict.fromkeys(reading)) for reading in zip(tokens, lemmas, heads)]
        readings = [set(reading) for reading in ordered]
        found: list[TermMatch] = []
        for start, reading in enumerate(ordered):
            candidates = [candidate for stem in reading for candidate in by_first.get(stem, [])]
            for stems, entry in candidates:
                end = start + len(stems)
                if end <= len(readings) and all(stem in readings[start + i] for i, stem in enumerate(stems)) \
                        and self._matches_as_written(language, entry.id,
                                                     self._lemma_stems.get((language, entry.id, stems), stems), text):
                    found.append(TermMatch(entry, language, start, end))
        maximal = [m for m in found if not any(o.start <= m.start and m.end <= o.end and (o.end - o.start) >
                                               (m.end - m.start) for o in found)]
        unique: dict[tuple[str, int, int], TermMatch] = {}
        for match in maximal:
            unique.setdefault((match.entry.id, match.start, match.end), match)
        return list(unique.values())

    def _compound_head_terms(self, text: str, language: str, plain: Sequence[str]) -> list[str] | None:
        """:func:`terms` of ``text`` with each German compound that is no phrase of its own read as its last part, when
        that part is a one-word phrase of an act's subject in the list (:func:`regintel.text.lemmas.compound_head`);
        position for position with ``plain`` (its :func:`terms`), None otherwise (another language, or a word split
        or dropped)."""
        if language != GERMAN:
            return None

        def is_head(part: str) -> bool:
            stems = terms(part, language)
            return len(stems) == 1 and stems[0] in self._compound_heads

        def whole_word_unknown(word: str) -> bool:  # "Aufsichtsbehörde" is a phrase of its own
            return not any(stem in self._compound_heads for stem in terms(word, language))

        heads = terms(in_compound_heads(text, is_head, folded_stopwords(language), fold, whole_word_unknown), language)
        return heads if len(heads) == len(plain) else None

    def equivalents(self, match: TermMatch, text: str, target: str, counterpart_from: int = 0,
                    limit: int | None = None) -> tuple[str, ...]:
        """The ``target`` phrases for one term matched in ``text``: the entry's first ``limit`` (all when None). The
        phrases of an entry are listed in the same order in each language: when the text matched a variant at
        position ``counterpart_from`` or later of an entry listed alike in both languages, only its counterpart is
        carried ("report" in the entry on incident reporting is "déclaration", not "rapport intermédiaire" and
        "rapport final"; "corruption" in the entry on business conduct is "corruption and bribery", not "business
        conduct" or "corporate culture", the entry's first phrases)."""
        source = match.entry.phrases.get(match.language, ())
        phrases = match.entry.phrases.get(target, ())
        if len(source) == len(phrases) and len(source) > 1:
            span = terms(text, match.language)[match.start:match.end]
            position = next((i for i, phrase in enumerate(source) if terms(phrase, match.language) == span), None)
            if position is not None and position >= counterpart_from:
                return (phrases[position],)
        return tuple(phrases[:limit])

    def coverage(self, text: str, language: str) -> int:
        """How many stemmed terms of ``text`` belong to a glossary phrase of ``language`` (a language cue)."""
        covered: set[int] = set()
        for match in self.matches(text, language):
            covered.update(range(match.start, match.end))
        return len(covered)

    def translate(self, text: str, source: str, target: str, max_variants: int | None = None,
                  general_variants: int | None = 1, leave_out: frozenset[str] = frozenset()) -> list[str]:
        """The ``target`` phrases of every glossary term found in ``text`` (written in ``source``), each entry
        once, in question order; empty when nothing matches or the languages are the same.

        A domain term brings its first ``max_variants`` phrases (all when None: synonyms and the corpus's wording
        variants all help BM25 find the passage); a term of the ``general`` domain (deadline, obligation,
        Member State...) only its first ``general_variants`` (common words: more variants add more noise than
        recall). ``general_variants=0`` leaves general terms out, ``leave_out`` the entries of those ids."""
        if source == target:
            return []
        seen: set[str] = set(leave_out)
        phrases: list[str] = []
        for match in sorted(self.matches(text, source), key=lambda m: m.start):
            if match.entry.id in seen or target not in match.entry.phrases:
                continue
            seen.add(match.entry.id)
            limit = general_variants if match.entry.domain == "general" else max_variants
            phrases.extend(match.entry.phrases[target][:limit])
        return phrases

    def query_for(self, text: str, source: str, target: str, max_variants: int | None = None,
                  general_variants: int | None = 1, leave_out: frozenset[str] = frozenset()) -> str:
        """A lexical query in ``target`` for a question written in ``source``: the glossary equivalents of its
        terms plus its language-neutral tokens (numbers, acronyms). Empty when the languages are the same."""
        if source == target:
            return ""
        parts = self.translate(text, source, target, max_variants, general_variants, leave_out)
        parts.extend(neutral_tokens(text))
        return " ".join(parts)

    def corpus_wording(self, text: str, language: str,
                       written: Callable[[str, str], bool] = lambda phrase, language: True) -> list[str]:
        """The corpus's own wording (an entry's first phrase) of each subject term ``text`` says otherwise in the same
        language: "DPO" -> "data protection officer", "cloud provider" -> "ICT third-party service provider". The
        texts rarely use the asker's short or everyday form, so BM25 in the question's own language found nothing
        for it ("Who must appoint a DPO?" abstained where "a data protection officer" was answered). Only a wording
        ``written`` in that language's texts counts: the English side of a VAT term is the wording of no English text
        here, and "content of invoices" sent "What must an invoice contain?" to the ESRS's payment practices. Only the
        terms of the act most of the question's terms belong to (by the list's domains)."""
        phrases: list[str] = []
        tokens = terms(text, language)
        subject = [m for m in sorted(self.matches(text, language), key=lambda m: m.start)
                   if m.entry.is_subject and language in m.entry.phrases]
        domains = Counter(entry.domain for entry in {m.entry.id: m.entry for m in subject}.values())  # distinct terms
        for match in subject:
            # another act's everyday wording ("reported to the regulator": DORA's incident reporting) in a question
            # whose other terms are of one act (a GDPR personal data breach) is not that act's term here
            if domains[match.entry.domain] < max(domains.values()):
                continue
            preferred = match.entry.phrases[language][0]
            said_otherwise = tuple(terms(preferred, language)) != tuple(tokens[match.start:match.end])
            if said_otherwise and preferred not in phrases and written(preferred, language):
                phrases.append(preferred)
        return phrases


def _written(text: str, form: str) -> bool:
    """Whether ``text`` writes ``form`` as whole words (folded); a ``WRITTEN_GAP`` in it stands for any words of the
    same sentence ("gilt … als": "Wer gilt umsatzsteuerlich als Erbringer ...?")."""
    if WRITTEN_GAP not in form:
        return contains_phrase(text, form)
    pieces = [fold_for_comparison(piece) for piece in form.split(WRITTEN_GAP)]
    pattern = re.compile(" " + " (?:.* )?".join(re.escape(piece) for piece in pieces if piece) + " ")
    return any(pattern.search(f" {fold_for_comparison(sentence)} ") for sentence in re.split(r"[.!?;:]", text))


@lru_cache(maxsize=4)
def load_glossary(path: str = str(GLOSSARY_PATH)) -> Glossary:
    return Glossary.load(Path(path))


def detect_question_language(text: str, glossary: Glossary | None = None,
                             languages: Sequence[str] = LANGUAGES) -> str:
    """en / fr / es / de for a question: :func:`regintel.text.analysis.language_votes` plus, when a glossary is
    given, the number of terms covered by its phrases in each language; English when nothing decides."""
    votes = {lang: v for lang, v in language_votes(text).items() if lang in languages}
    if glossary is not None:
        for lang in votes:
            votes[lang] += glossary.coverage(text, lang)
    return best_language(votes)


# -- query plans for a multilingual index ------------------------------------------------------------------------
# A defined term is quoted where it is defined: «assujetti» in the French acts, ‘personal data’ / “ICT risk” in the
# English ones. (The straight quote and a lone ’ are left out: French elisions "l’assujetti" would open spans.)
_QUOTED = {
    "fr": re.compile(r"«\s*([^«»\n]{2,80}?)\s*»"),
    "en": re.compile(r"[‘“]\s*([^‘’“”\n]{2,80}?)\s*[’”]"),
}
_QUOTED_DEFAULT = re.compile(r"[«‘“]\s*([^«»‘’“”\n]{2,80}?)\s*[»’”]")
DEFINITION_CUE = "cue.definition"
DEADLINE_CUE = "cue.deadline"


def quoted_terms(text: str, language: str) -> frozenset[tuple[str, ...]]:
    """The stemmed terms a passage puts in quotation marks (where EU acts define their terms)."""
    pattern = _QUOTED.get(language, _QUOTED_DEFAULT)
    found = {tuple(terms(m.group(1), language)) for m in pattern.finditer(text)}
    found.discard(())
    return frozenset(found)


@dataclass(frozen=True)
class QueryPlan:
    """How one question is searched in a corpus with several languages.

    ``language``: the question's language. ``lexical``: per corpus language, the text BM25 searches in that
    language's documents: in the question's own language "" (the question as it is) or the question followed by
    the texts' own wording of the terms it says otherwise (:meth:`Glossary.corpus_wording`), else the question
    followed by the glossary equivalents of its terms in that language and its other words' nearest words in that
    language's texts (:mod:`regintel.retrieval.word_translation`). ``definitions``: per corpus language, the
    stemmed terms the question asks to define (it carries a definition cue such as "what counts as", "qu'entend-on
    par", "was versteht man unter"), which the index looks for quoted in its passages. ``searched``: the question
    with the law's name for what it asks (:func:`with_the_laws_frame`), which the dense run embeds too."""

    language: str
    lexical: dict[str, str]
    definitions: dict[str, frozenset[tuple[str, ...]]]
    searched: str = ""

    def translated(self, language: str) -> bool:
        return language != self.language


PLACE_OF_SUPPLY = "vat.place_of_supply"


def with_the_laws_frame(question: str, language: str, glossary: Glossary) -> str:
    """``question`` with the law's name for what its question word asks, where the law has one: "where is ... taxed"
    asks for the place of supply ("Le lieu des prestations de services ... est l'endroit où ..."); "What must an
    invoice say?" for the contents of invoices (the term list's "content of invoices", whose French side is the
    texts' "mentions"). The term list carries such a phrase into the texts' language, which the question's own
    words ("where", "taxed", "say") are not."""
    contents = contents_asked(question, language)
    if contents:
        question = f"{question} {contents}"
    if not asks_where_taxed(question):
        return question
    entry = next((e for e in glossary.entries if e.id == PLACE_OF_SUPPLY), None)
    phrases = entry.phrases.get(language, ()) if entry is not None else ()
    return f"{question} {phrases[0]}" if phrases else question


def plan_query(question: str, corpus_languages: Sequence[str], glossary: Glossary,
               written: Callable[[str, str], bool] = lambda phrase, language: True,
               translate_words: Callable[[str, str, str], list[str]] | None = None) -> QueryPlan:
    """How ``question`` is searched in each corpus language; ``written(phrase, language)``: whether the texts in that
    language write a phrase (the corpus wording added in the question's own language must be theirs);
    ``translate_words(question, source, target)``: the question's everyday words in another language, added after
    the term list's equivalents (:mod:`regintel.retrieval.word_translation`; None: the term list alone)."""
    language = detect_question_language(question, glossary)
    question = with_the_laws_frame(question, language, glossary)
    # "Wann ist eine Einwilligung wirksam?" asks for conditions: "bis wann" stems to "wann", and the deadline cue
    # sent the words of time limits ("no later than", "délai") to the other language's texts
    not_asked = frozenset({DEADLINE_CUE}) if asks_conditions_by_when(question) else frozenset()
    lexical: dict[str, str] = {}
    for target in corpus_languages:
        if target == language:
            wording = glossary.corpus_wording(question, language, written)
            lexical[target] = f"{question} {' '.join(wording)}" if wording else ""
        else:
            extra = glossary.query_for(question, language, target, general_variants=0, leave_out=not_asked)
            if translate_words is not None:
                extra = f"{extra} {' '.join(translate_words(question, language, target))}".strip()
            lexical[target] = f"{question} {extra}".strip()
    definitions: dict[str, frozenset[tuple[str, ...]]] = {}
    found = glossary.matches(question, language)
    if any(m.entry.id == DEFINITION_CUE for m in found):
        for target in corpus_languages:
            wanted = {tuple(terms(phrase, target)) for m in found if m.entry.domain not in NON_TERM_DOMAINS
                      for phrase in m.entry.phrases.get(target, ())}
            wanted.discard(())
            if wanted:
                definitions[target] = frozenset(wanted)
    return QueryPlan(language, lexical, definitions, question)
