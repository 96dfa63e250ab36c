"""Which legal instruments a question names, and whether the served corpus holds them.

Similarity cannot tell a question about an act the corpus holds from one about a neighbouring act it does not
hold: "Under MiFID II, what product governance obligations apply?" finds DORA and GDPR passages about governance
almost as close as a real answer (on the demo corpus the best passage of an uncovered question scores like a
relevant one; docs/benchmarks.md). But the question says which act it is about. So a question that names legal
instruments, none of which the corpus holds, is answered as such ("the knowledge base does not hold MiFID II")
instead of with passages of another act.

- **What a question names**: the entries of ``data/glossary/instruments.jsonl`` (acronyms, short titles and titles
  in several languages: GDPR / RGPD / DSGVO, MiFID II, Union Customs Code, HIPAA ...) and any act number written
  as one ("Directive 2013/34/EU", "Regulation (EU) No 575/2013", "2011/64/UE"), whether the list knows it or not.
  A name inside a longer matched name does not count on its own ("GDPR" in "UK GDPR").
- **What the corpus holds**: read from the titles of the served documents, not configured: an entry is held when
  one of its names appears in a title or its act number is the title's own (first) number; an act number is held
  when it is a title's own number. "Commission Delegated Regulation (EU) 2023/2772 supplementing Directive
  2013/34/EU ... (ESRS ...)" holds the ESRS (2023/2772), not the Accounting Directive it supplements.
- **Related acts**: an entry may list held entries that implement it (the ESRS under the CSRD) or that repealed and
  replaced it (the GDPR for Directive 95/46/EC, the VAT Directive for the Sixth VAT Directive); a question naming
  only such an act is still answered, with a concern saying which act the answer rests on, unless it cites an
  article of the act the corpus does not hold ("Article 34 of Directive 2013/34/EU").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from regintel.config import REPO_ROOT
from regintel.retrieval.data_files import jsonl_records
from regintel.text.normalise import fold, fold_with_offsets

INSTRUMENTS_PATH = REPO_ROOT / "data" / "glossary" / "instruments.jsonl"

# "2016/679", "(EU) No 575/2013", "95/46/EC", "2011/64/UE": an act number is year/number or number/year, with an
# act word before it or an EU suffix after it (a bare "6/1" is no act)
_ACT_WORD = (r"(?:directive|directiva|direttiva|richtlinie|richtlijn|regulation|règlement|reglement|reglamento|"
             r"regolamento|verordnung|verordening|decision|décision|decisión|beschluss|rl\.?|vo\.?)")
_NUMBER = r"(\d{1,4})\s*/\s*(\d{1,4})"
_SUFFIX = r"/\s*(?:EU|UE|EC|CE|EEC|CEE|EG|EWG|EU|Euratom)\b"
ACT_NUMBER_RE = re.compile(
    rf"\b{_ACT_WORD}\s*(?:\((?:EU|UE|EC|CE|EG|EEC|CEE)\)\s*)?(?:(?:No|no|n°|nº|Nr\.?|núm\.?)\s*)?{_NUMBER}"
    rf"|\b{_NUMBER}\s*{_SUFFIX}", re.IGNORECASE)
ARTICLE_RE = re.compile(r"\b(?:article|articles|artikel|artículo|artículos|articolo|art\.?)\s*\d+", re.IGNORECASE)
ARTICLE_REACH = 40  # characters between "Article 34" and the act it belongs to ("Article 34 of Directive ...")


def normalise_act_number(first: str, second: str) -> str | None:
    """'2016/679' and '679/2016' -> '2016/679'; two-digit years of older acts ('95/46') -> '1995/46'."""
    a, b = int(first), int(second)
    if a >= 1950:
        return f"{a}/{b}"
    if b >= 1950:
        return f"{b}/{a}"
    if len(first) == 2 and 50 <= a <= 99:  # 95/46/EC, 77/388/EEC
        return f"{1900 + a}/{b}"
    return None


def act_numbers(text: str) -> list[tuple[str, int, int]]:
    """The act numbers written in ``text`` as (normalised number, start, end)."""
    found = []
    for match in ACT_NUMBER_RE.finditer(text):
        groups = [g for g in match.groups() if g is not None]
        number = normalise_act_number(groups[0], groups[1]) if len(groups) >= 2 else None
        if number:
            found.append((number, match.start(), match.end()))
    return found


@dataclass(frozen=True)
class Instrument:
    id: str
    title: str
    jurisdiction: str = ""
    names: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    # held instruments that implement this one (the ESRS under the CSRD) or replaced it (the GDPR, which repealed
    # Directive 95/46/EC: "our contracts still refer to Directive 95/46/EC, how do we read that today?")
    related: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mention:
    """An instrument named in a question (``instrument`` is None for an act number the list does not know)."""

    label: str
    start: int
    end: int
    instrument: Instrument | None = None
    number: str = ""

    @property
    def key(self) -> str:
        return self.instrument.id if self.instrument else self.number


def _is_case_sensitive(name: str) -> bool:
    """Acronyms and mixed-case names (GDPR, MiFID, ePrivacy, PRIIPs) match as written: 'MAR' is no 'mar'."""
    return " " not in name and any(c.isupper() for c in name[1:])


# ... unless the asker writes no capital at all: then names this long match in lower case. A question without a
# single capital ("gdpr fines how much", "dora incident reporting timelines") says nothing by its case, and read
# without its act it was refused as a calculation or abstained. Short acronyms stay as written even then
# ("transporte por mar" is no Market Abuse Regulation, "avg" no Dutch GDPR).
LOWER_CASE_MIN_CHARS = 4


def _name_pattern(name: str) -> re.Pattern[str]:
    if _is_case_sensitive(name):
        return re.compile(rf"(?<![\w-]){re.escape(name)}(?!\w)")
    return re.compile(rf"(?<!\w){re.escape(fold(name))}(?!\w)")


class InstrumentCatalog:
    """The instrument list: finds the instruments a text names."""

    def __init__(self, instruments: Iterable[Instrument]) -> None:
        self.instruments = {i.id: i for i in instruments}
        self._patterns: list[tuple[re.Pattern[str], bool, Instrument, str]] = []
        for instrument in self.instruments.values():
            for name in instrument.names:
                self._patterns.append((_name_pattern(name), _is_case_sensitive(name), instrument, name))
        self._lower_case_patterns = {name: re.compile(rf"(?<![\w-]){re.escape(fold(name))}(?!\w)")
                                     for _, case_sensitive, _, name in self._patterns
                                     if case_sensitive and len(name) >= LOWER_CASE_MIN_CHARS}
        self._by_number = {n: i for i in self.instruments.values() for n in i.numbers}
        self.names = frozenset(name for i in self.instruments.values() for name in i.names)  # GDPR, DSGVO, CSRD, ...
        # a turn reads the same question several times (coverage, the act-overview and cited-provision readers, the
        # composer), and each reading matches every name of the list: found once per text
        self._found = lru_cache(maxsize=256)(self._find)

    @classmethod
    def load(cls, path: Path = INSTRUMENTS_PATH) -> "InstrumentCatalog":
        instruments = []
        for number, raw in jsonl_records(path):
            if not raw.get("id") or not (raw.get("names") or raw.get("numbers")):
                raise ValueError(f"{path}:{number}: an instrument needs an id and names or numbers")
            numbers = tuple(n for n in (normalise_act_number(*x.split("/")) for x in raw.get("numbers", [])) if n)
            instruments.append(Instrument(raw["id"], raw.get("title", raw["id"]), raw.get("jurisdiction", ""),
                                          tuple(raw.get("names", [])), numbers, tuple(raw.get("related", []))))
        return cls(instruments)

    def mentions(self, text: str) -> list[Mention]:
        """Instruments named in ``text`` (by name or act number), maximal spans only, in text order.

        Names are matched in the folded text, acronyms in the text as written; a name's span in the folded text is
        mapped back to the text as written (folding writes "ß" as "ss"), so every span indexes ``text``."""
        return list(self._found(text))

    def without_mentions(self, text: str, blanked: Callable[[Mention], bool] | None = None) -> str:
        """``text`` with each instrument it names (each one ``blanked`` accepts) blanked out (a space each): what else
        it says."""
        for mention in sorted(self.mentions(text), key=lambda m: -m.start):
            if blanked is None or blanked(mention):
                text = text[:mention.start] + " " + text[mention.end:]
        return text

    def _find(self, text: str) -> tuple[Mention, ...]:
        folded, offsets = fold_with_offsets(text)
        found: list[Mention] = []
        no_capital = not any(c.isupper() for c in text)
        for pattern, case_sensitive, instrument, name in self._patterns:
            if case_sensitive and no_capital and name in self._lower_case_patterns:
                pattern, case_sensitive = self._lower_case_patterns[name], False
            if case_sensitive:
                found.extend(Mention(name, m.start(), m.end(), instrument) for m in pattern.finditer(text))
            else:
                found.extend(Mention(name, offsets[m.start()], offsets[m.end() - 1] + 1, instrument)
                             for m in pattern.finditer(folded) if m.end() > m.start())
        for number, start, end in act_numbers(text):
            instrument = self._by_number.get(number)
            found.append(Mention(text[start:end].strip(), start, end, instrument, number))
        maximal = [m for m in found if not any(o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
                                                and o.key != m.key for o in found)]
        maximal.sort(key=lambda m: (m.start, -(m.end - m.start)))
        unique: dict[str, Mention] = {}
        for mention in maximal:
            unique.setdefault(mention.key, mention)
        return tuple(unique.values())


@dataclass
class Coverage:
    """What a question names against what the corpus holds."""

    named: list[Mention] = field(default_factory=list)
    held: list[Mention] = field(default_factory=list)
    missing: list[Mention] = field(default_factory=list)  # named, not held
    via_related: list[Instrument] = field(default_factory=list)  # held instruments implementing or replacing one
    article_of_missing: bool = False  # "Article 34 of Directive 2013/34/EU": a provision of an act not held

    @property
    def uncovered(self) -> bool:
        """The question names instruments and the corpus holds none of them (nor, unless the question cites an
        article of the missing act, one implementing them)."""
        if not self.missing or self.held:
            return False
        return self.article_of_missing or not self.via_related

    def missing_labels(self) -> list[str]:
        return [m.instrument.title if m.instrument else m.label for m in self.missing]


class CorpusInstruments:
    """The instruments a corpus holds, from its documents' titles; judges a question's coverage."""

    def __init__(self, catalog: InstrumentCatalog, titles: Iterable[str]) -> None:
        self.catalog = catalog
        self.titles = sorted({t for t in titles if t})
        self.held_ids: set[str] = set()
        self.held_numbers: set[str] = set()
        self._titles_of: dict[str, set[str]] = {}  # instrument id or act number -> the titles that hold it
        for title in self.titles:
            own = [n for n, _, _ in act_numbers(title)[:1]]  # a title's first number is its own; later ones it amends
            held_here = set(own)
            for mention in catalog.mentions(title):
                if mention.instrument and (not mention.number or mention.number in own):
                    held_here.add(mention.instrument.id)
            held_here |= {i.id for i in catalog.instruments.values() if set(own) & set(i.numbers)}
            self.held_numbers.update(own)
            self.held_ids.update(h for h in held_here if h in catalog.instruments)
            for key in held_here:
                self._titles_of.setdefault(key, set()).add(title)

    def titles_holding(self, mentions: Iterable[Mention]) -> set[str]:
        """The titles of the served documents that hold the mentioned instruments."""
        return {t for m in mentions for t in self._titles_of.get(m.key, ())}

    def held_instruments(self) -> list[Instrument]:
        return [self.catalog.instruments[i] for i in sorted(self.held_ids)]

    def holdings(self) -> list[str]:
        """What the corpus holds, for a person: its listed instruments' titles, then the titles of the documents
        that hold none of them (guidance, a user's own documents)."""
        listed = {t for titles in self._titles_of.values() for t in titles}
        return [i.title for i in self.held_instruments()] + [t for t in self.titles if t not in listed]

    def is_held(self, mention: Mention) -> bool:
        if mention.instrument is not None:
            return mention.instrument.id in self.held_ids
        return mention.number in self.held_numbers

    def coverage(self, question: str) -> Coverage:
        named = self.catalog.mentions(question)
        result = Coverage(named=named)
        for mention in named:
            (result.held if self.is_held(mention) else result.missing).append(mention)
        for mention in result.missing:
            for related in (mention.instrument.related if mention.instrument else ()):
                if related in self.held_ids and self.catalog.instruments[related] not in result.via_related:
                    result.via_related.append(self.catalog.instruments[related])
        result.article_of_missing = any(_cites_article_of(question, m) for m in result.missing)
        return result


def without_held_act_names(text: str, coverage: Coverage, catalog: InstrumentCatalog | None = None) -> str:
    """``text`` with the names of the held acts it names blanked out ("Quelles sont les sanctions du RGPD ?" ->
    "Quelles sont les sanctions du  ?"): what it asks about once search is kept to those acts. A name carrying a
    code ("ESRS E1", "directive 2006/112") stays: its code says which standard or act is asked about."""
    held = {m.key for m in coverage.held}
    return (catalog or load_catalog()).without_mentions(
        text, lambda mention: mention.key in held and not any(c.isdigit() for c in mention.label))


def _cites_article_of(question: str, mention: Mention) -> bool:
    """An article number right before the act ("Article 34 of Directive ...") or right after it ("CRR Article 92")."""
    for article in ARTICLE_RE.finditer(question):
        if 0 <= mention.start - article.end() <= ARTICLE_REACH or 0 <= article.start() - mention.end <= 3:
            return True
    return False


@lru_cache(maxsize=2)
def load_catalog(path: str = str(INSTRUMENTS_PATH)) -> InstrumentCatalog:
    return InstrumentCatalog.load(Path(path))


def corpus_instruments(titles: Sequence[str], catalog: InstrumentCatalog | None = None) -> CorpusInstruments:
    return CorpusInstruments(catalog or load_catalog(), titles)
