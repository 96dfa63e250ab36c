"""Questions asking for one Member State's own figure, which EU acts leave to each Member State.

"Quel taux de TVA s'applique en France à la vente à emporter ?", "Quels sont les seuils de la franchise en base
applicables en France ?", "¿A partir de qué edad puede un menor consentir ... en España?": the VAT Directive lets
each Member State set its rates and its small-business thresholds, the GDPR lets each set the age of digital consent
between 13 and 16, and a Member State decides when structured e-invoicing becomes compulsory at home. The figure
asked is in French or Spanish law, which an EU corpus does not hold; searched, such a question finds the EU article
that leaves the choice to the Member States, close in meaning, and was answered from it as if it gave France's rate.

A question is read as asking for such a national figure when it names exactly one country, a Member State whose own
rules the corpus does not hold (the corpus's jurisdictions are held: the demo corpus's Belgian guidance), by its name
or its adjective in English, French, Spanish or German (``data/glossary/countries.jsonl``), says nothing of other
Member States or the EU as a whole, and asks for a figure each Member State sets: a rate, a threshold, an age, or the
date from which a rule applies. A cross-border question names the country where a customer or supplier is ("We ship
goods to a business customer in Italy: by when must we invoice?") and is answered by the EU act; a deadline ("by
when") is no such figure, and neither is a question naming two countries or an act the corpus holds (the engine
checks the last). Nor is a figure the corpus itself gives for that Member State: the VAT Directive lists some Member
States' own thresholds and rates (Article 287: "la Slovénie: 25 000 EUR"), so when one of retrieval's first passages
names the Member State, the question is answered from them (:func:`with_national_law`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from regintel.config import REPO_ROOT
from regintel.retrieval.data_files import jsonl_records
from regintel.retrieval.instruments import Coverage, Mention
from regintel.text.normalise import fold

COUNTRIES_PATH = REPO_ROOT / "data" / "glossary" / "countries.jsonl"
LANGUAGES = ("en", "fr", "es", "de")
# what the analyst is told the knowledge base does not hold (chat/messages.py NOT_HELD says the rest)
NATIONAL_LAW = {
    "en": "the national law of {}, which sets this figure (EU acts leave it to each Member State)",
    "fr": "le droit national de l'État membre concerné ({}), qui fixe ce chiffre (les actes de l'UE le laissent à "
          "chaque État membre)",
    "es": "el derecho nacional del Estado miembro ({}), que fija esta cifra (los actos de la UE la dejan a cada Estado "
          "miembro)",
    "de": "das nationale Recht des Mitgliedstaats ({}), das diese Zahl festlegt (die EU-Rechtsakte überlassen sie "
          "jedem Mitgliedstaat)",
}
NATIONAL_LAW_KEY = "national-law:"
# the passages read for the Member State's name: the VAT Directive sets some Member States' own figures (Article 287:
# "la Slovénie: 25 000 EUR"), found among the first few
NAMING_PASSAGES = 5
GERMAN_ENDINGS = r"(?:e|en|er|es|em)?"  # "französisch*": französisch, französische, französischen ...

# what each Member State sets for itself, as a question asks for it (folded: lower case, no accents)
FIGURE_ASKED_RE = re.compile(
    r"\b(?:rates?|percentage|thresholds?|how old|ages?"
    r"|taux|seuils?|age"
    # ("qué tipo de empresa" asks what kind: only a VAT or tax rate is a "tipo"; "Absatz", "Grundsatz" are no rates)
    r"|tipos? (?:de iva|impositivos?|reducidos?|general|superreducidos?|aplicables?)|tasa|umbral(?:es)?|edad"
    r"|\w*(?:steuer|normal|regel|hebe|prozent)satz\w*|\w*(?:steuer|normal|regel|hebe|prozent)satze\w*"
    r"|ermassigte\w* satz\w*|\w*schwelle\w*|schwellenwert\w*|alter)\b"
    # the date from which a rule applies
    r"|\bfrom (?:what|which) (?:date|year)|\bfrom when\b|\bas of when\b|\bstarting (?:from )?when\b"
    r"|\ba (?:partir|compter) de (?:quand|quelle date|quelle annee)|\bdes quand\b"
    r"|\ba partir de (?:que|cual) (?:fecha|ano)|\ba partir de cuando\b|\bdesde (?:cuando|que fecha)"
    r"|\bab wann\b|\bab welchem (?:datum|zeitpunkt|jahr)\b")
# the question is about more than one Member State's own rules
ACROSS_STATES_RE = re.compile(
    r"\b(?:other member states?|another member state|member states?|eu[- ]wide|cross[- ]border|intra-community"
    r"|autres? etats? membres?|etats? membres?|transfrontali\w+|intracommunautaire\w*"
    r"|otros? estados? miembros?|estados? miembros?|transfronteri\w+|intracomunitari\w+"
    r"|anderen? mitgliedstaat\w*|mitgliedstaat\w*|eu-weit\w*|grenzuberschreitend\w*|innergemeinschaftlich\w*"
    r"|(?:other |the )?eu countries|pays de l'ue|pays de l'union|paises de la ue|eu-lander\w*"
    # sales to consumers in other Member States and their one-stop shop: the EU act sets their threshold
    r"|distance sal\w*|ventes? a distance|ventas? a distancia|fernverka\w*|fernabsatz\w*|oss"
    r"|one[- ]stop[- ]shop|guichet unique|ventanilla unica|einzige anlaufstelle)\b")
# the Member State is the one the EU act lets (or not) do something: "Darf Österreich einen niedrigeren Normalsatz
# anwenden?", "Bis zu welchem Jahresumsatz kann Slowenien mich befreien?", "Can France apply ...", "¿Puede España ...?"
MAY_BEFORE_RE = re.compile(r"\b(?:may|can|could|must|darf|durfen|kann|konnen|muss|mussen|puede|pueden|podra|debe)\s+$")
MAY_AFTER_RE = re.compile(r"^(?:-t)?\s*(?:may|can|could|must|peut|peuvent|pourrait|doit|puede|pueden|darf|kann)\b")


@dataclass(frozen=True)
class Country:
    code: str
    member_state: bool
    names: dict[str, str]  # language -> the country's name in it (what the analyst is told)
    pattern: re.Pattern[str]


def _form_pattern(form: str) -> str:
    if form.endswith("*"):
        return re.escape(fold(form[:-1])) + GERMAN_ENDINGS
    return re.escape(fold(form))


@lru_cache(maxsize=2)
def load_countries(path: str = str(COUNTRIES_PATH)) -> tuple[Country, ...]:
    countries = []
    for number, raw in jsonl_records(Path(path)):
        forms = [f for language in LANGUAGES for f in raw.get(language, [])]
        if not raw.get("code") or not forms:
            raise ValueError(f"{path}:{number}: a country needs a code and its names")
        alternatives = "|".join(sorted({_form_pattern(f) for f in forms}, key=len, reverse=True))
        countries.append(Country(str(raw["code"]), bool(raw.get("member_state")),
                                 {language: raw[language][0] for language in LANGUAGES if raw.get(language)},
                                 re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")))
    return tuple(countries)


def countries_named(question: str) -> list[Country]:
    """The countries a question names, by name or adjective, in list order."""
    folded = fold(question)
    return [country for country in load_countries() if country.pattern.search(folded)]


def national_figure_asked(question: str, held_jurisdictions: frozenset[str] | set[str]) -> Country | None:
    """The Member State whose own figure (a rate, a threshold, an age, the date a rule applies from) the question
    asks for, when the corpus does not hold its rules (``held_jurisdictions``: the served documents' jurisdiction
    codes); None for any other question (see the module docstring)."""
    folded = fold(question)
    if not FIGURE_ASKED_RE.search(folded) or ACROSS_STATES_RE.search(folded):
        return None
    named = countries_named(question)
    if len(named) != 1 or not named[0].member_state or named[0].code in held_jurisdictions:
        return None
    if _what_the_state_may_do(folded, named[0]):
        return None
    return named[0]


def _what_the_state_may_do(folded: str, country: Country) -> bool:
    """Whether the question asks what the Member State itself may or must do (a modal right before or after its
    name): the EU act says what it may, and sometimes sets its very figure (Article 287 of the VAT Directive lists the
    thresholds the acceding Member States may keep)."""
    return any(MAY_BEFORE_RE.search(folded[:m.start()]) or MAY_AFTER_RE.search(folded[m.end():])
               for m in country.pattern.finditer(folded))


def national_law_mention(question: str, held_jurisdictions: frozenset[str] | set[str], language: str) -> Mention | None:
    """The national law a question asks a figure of (:func:`national_figure_asked`), as an instrument the corpus does
    not hold, named in the question's ``language``: "the national law of France"; None for any other question."""
    country = national_figure_asked(question, held_jurisdictions)
    return None if country is None else _national_law(country, language)


def _national_law(country: Country, language: str) -> Mention:
    """``country``'s national law as an instrument the corpus does not hold, named in ``language``."""
    language = language if language in NATIONAL_LAW else "en"
    name = country.names.get(language) or country.names.get("en", country.code)
    return Mention(NATIONAL_LAW[language].format(name), 0, 0, None, f"{NATIONAL_LAW_KEY}{country.code}")


def with_national_law(coverage: Coverage, question: str, held_jurisdictions: frozenset[str] | set[str],
                      language: str, passages: Sequence[str]) -> Coverage:
    """``coverage`` with the national law the question asks a figure of (:func:`national_law_mention`) among what it
    names and the corpus lacks, unless one of the first ``NAMING_PASSAGES`` ``passages`` (texts, retrieval's order)
    names that Member State: the corpus then says something of its own figure ("Quel est le seuil de la franchise en
    Slovénie ?": Article 287 lists it), and the question is answered."""
    country = national_figure_asked(question, held_jurisdictions)
    if country is None or any(country.pattern.search(fold(text)) for text in passages[:NAMING_PASSAGES]):
        return coverage
    mention = _national_law(country, language)
    return replace(coverage, named=[*coverage.named, mention], missing=[*coverage.missing, mention])
