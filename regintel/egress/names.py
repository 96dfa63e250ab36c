"""Person names: a Presidio recogniser over spaCy's NER (Explosion's ``fr_core_news_sm``, WikiNER ``PER``).

Why not Presidio's SpacyRecognizer on the whole text: the NER model costs ~40 ms per 1,000 characters on this
machine, and almost all of a regulatory question has no name in it. So the model runs only on windows around
*candidates* (two or more capitalised words in a row, outside a list of regulatory vocabulary), which keeps a
question without candidates at regex cost. What the model tags ``PER`` is then trimmed to its capitalised name
tokens and kept only when at least two remain, none is a word of acts, authorities or legal structure
("Council Implementing Regulation", "Loi Informatique", "Annex III" are the model's typical mistakes here) and
none is a word the regulation corpus writes in lower case ("Waste Framework", "Lead Overseer").
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from presidio_analyzer import EntityRecognizer, RecognizerResult

from regintel.egress.recognisers import ADDRESS, LOWER, NAME_TOKEN, UPPER

MODEL = "fr_core_news_sm"
WINDOW = 30  # characters of context either side of a candidate
PARTICLES = {"van", "von", "de", "der", "den", "di", "da", "del", "du", "la", "le", "ter", "ten", "dos", "das", "y"}

# Words of acts, authorities, courts, legal structure and sentence openers in our seven languages: a capitalised
# run made only of these (or a PER span containing one) is not a person.
NOT_NAMES = set("""
european europe union commission council parliament court courts authority authorities agency board office bank banks
central committee regulation regulations directive directives act acts law laws code article articles annex annexes
recital recitals section chapter standard standards reporting protection data financial finance services markets
market securities insurance pensions occupational supervisory supervision national federal ministry tribunal republic
kingdom guidelines guideline template templates case cases joined implementing delegated general digital operational
resilience sustainability corporate instruments crypto assets artificial intelligence money laundering payment
network information security justice state states revenue customs conduct trade exchange commissioner commissioner's
official journal treaty charter convention member group basel solvency taxonomy tax vat value added
verordnung richtlinie gesetz bundesanstalt bundesamt amt behörde aufsicht finanzdienstleistungsaufsicht datenschutz
europäische europäischen datenschutzausschuss bundesfinanzhof gericht abs lit
règlement loi autorité conseil cour banque agence commission nationale informatique libertés marchés financiers
contrôle prudentiel résolution données État
reglamento directiva ley orgánica agencia española banco comisión tribunal supremo protección datos mercado valores
regolamento direttiva legge decreto autorità garante banca commissione corte cassazione società borsa dati personali
verordening richtlijn wet autoriteit persoonsgegevens toezicht college beroep bedrijfsleven nederlandsche
rozporządzenie dyrektywa ustawa urząd urzędu prezes komisja nadzoru finansowego sąd naczelny administracyjny ochrony
danych osobowych rzecznik
the a an this that these those le la les un une der die das ein eine el los las il lo gli het een de
i you we he she they ich sie wir er es ihr je vous nous il elle ils yo usted ustedes nosotros io lei noi voi
ik jij u wij zij ja pan pani my wy oni dear hello hi bonjour guten tag hola ciao hallo dzień dobry
my our your his her their mein meine meiner unser unsere ihr ihre mon ma mes notre nos votre mi mis nuestro nuestra
mio mia miei nostro nostra mijn onze jullie mój moja moje nasz nasza według secondo según selon laut volgens
nr no n° reisepass passport passeport pasaporte passaporto paspoort paszport steuer iban bsn dni nie nif nir pesel
what which who whom whose when where why how is are was were do does did can could shall should will would may
must has have had please explain describe list compare according under about
welche welcher welches welchen welchem wer wen wem wessen was wann wo wie warum wieso weshalb ist sind war waren
muss müssen musste kann können darf dürfen soll sollen wird werden wurde hat haben gibt gilt gelten bitte erkläre
erklären nenne beschreibe vergleiche schätze nach gemäß laut für über unter
quel quelle quels quelles qui que quoi quand où comment pourquoi est sont doit doivent peut peuvent faut
expliquez expliquer décrivez comparez selon pour sur sous dans
qué cuál cuáles quién quiénes cuándo dónde cómo por cuánto cuántos cuánta cuántas es son debe deben puede pueden
hay explique explica según para sobre bajo
quale quali chi che cosa quando dove come perché è sono deve devono può possono spiega secondo per su sotto
welke wie wat wanneer waar hoe waarom moet moeten kan kunnen mag zijn wordt worden leg uit volgens voor over onder
jaki jaka jakie który która które kto co kiedy gdzie jak dlaczego czy jest są musi muszą może mogą wyjaśnij dla
million millions millionen milliarde milliarden billion billions mio mrd euro euros
mr mrs ms miss dr prof herr frau hr fr mme mlle monsieur madame mademoiselle señor señora sr sra srta don doña
signor signora signorina sig dott dottor dottoressa avv meneer mevrouw dhr mevr
""".split())
# Endings of common nouns, never of the names NER is asked about ("Identifikationsnummer", "Protección").
NOUN_ENDINGS = ("ung", "heit", "keit", "schaft", "nummer", "liche", "lichen", "tion", "tions", "ment", "ments",
                "ción", "sión", "dad", "zione", "zioni", "ità", "heid", "ość", "anie", "enie", "wet", "gesetz", "verordnung",
                "recht", "ungen", "heiten", "keiten", "schaften", "nisse", "ismus", "ität", "täten", "ciones",
                "siones", "dades", "ismo", "ités", "ieren", "ation", "ations", "ship")
LONGEST_NAME_WORD = 14  # "Schwarzenegger"; longer capitalised words are German compounds ("Rechnungspflicht")
_NOT_NAMES_CASED = {w.lower() for w in NOT_NAMES}

_TOKEN = re.compile(rf"[{UPPER}{LOWER}][\w'’-]*")
_CAPITALISED_RUN = re.compile(  # on one line: a name is not split by a line break, headings and lists are
    rf"{NAME_TOKEN}(?:[ \t]+(?:(?:{'|'.join(sorted(PARTICLES))})[ \t]+)*{NAME_TOKEN})+"
)


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Words the regulation corpus writes in lower case (``common_words.txt``, built by
    data/egress/build_common_words.py): "Waste Framework" or "Lead Overseer" are terms, not a person."""
    path = Path(__file__).with_name("common_words.txt")
    return frozenset(path.read_text(encoding="utf-8").split())


def _is_name_token(token: str) -> bool:
    lowered = token.lower()
    return (bool(re.fullmatch(NAME_TOKEN, token)) and lowered not in _NOT_NAMES_CASED
            and not lowered.endswith(NOUN_ENDINGS))


def candidate_runs(text: str) -> list[tuple[int, int]]:
    """Spans of two or more capitalised words (particles allowed between) with at least two that may be names."""
    runs = []
    for match in _CAPITALISED_RUN.finditer(text):
        tokens = [t for t in re.split(r"\s+", match.group()) if t.lower() not in PARTICLES]
        if sum(_is_name_token(t) for t in tokens) >= 2:
            runs.append(match.span())
    return runs


def trim_to_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The name inside a PER span: capitalised tokens (particles between them) with no regulatory word; at least
    two name tokens, else None."""
    tokens = [(m.start() + start, m.end() + start, m.group()) for m in _TOKEN.finditer(text[start:end])]
    while tokens and not _is_name_token(tokens[0][2]):
        tokens.pop(0)
    while tokens and not _is_name_token(tokens[-1][2]):
        tokens.pop()
    if any(t.lower() in _NOT_NAMES_CASED and t.lower() not in PARTICLES for _, _, t in tokens):
        return None
    if any(not _is_name_token(t) and t.lower() not in PARTICLES for _, _, t in tokens):
        return None
    if sum(_is_name_token(t) for _, _, t in tokens) < 2:
        return None
    return tokens[0][0], tokens[-1][1]


def _windows(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merged context windows around the candidate runs, cut at spaces so no word is split."""
    merged: list[list[int]] = []
    for start, end in runs:
        lo, hi = max(0, start - WINDOW), min(len(text), end + WINDOW)
        while lo > 0 and not text[lo - 1].isspace():
            lo -= 1
        while hi < len(text) and not text[hi].isspace():
            hi += 1
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


@lru_cache(maxsize=1)
def first_names() -> frozenset[str]:
    """Given names of the European locales of Faker (MIT licence, a PyPI package): ~4,800 names, lowercased."""
    names: set[str] = set()
    for locale in FIRST_NAME_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for attr in ("first_names", "first_names_male", "first_names_female"):
            values = getattr(provider, attr, ())
            names.update(n.lower() for n in (values.keys() if hasattr(values, "keys") else values))
    return frozenset(n for n in names if n not in _NOT_NAMES_CASED)


FIRST_NAME_LOCALES = ("en_GB", "en_IE", "fr_FR", "fr_BE", "de_DE", "de_AT", "es_ES", "it_IT", "nl_NL", "nl_BE",
                      "pl_PL", "pt_PT")


def known_name_in(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of a known given name and its surname(s) inside a candidate run, if there is one."""
    names = first_names()
    tokens = [(m.start() + start, m.end() + start, m.group()) for m in _TOKEN.finditer(text[start:end])]
    for i, (t_start, _, token) in enumerate(tokens):
        if token.lower() in names and _is_name_token(token):
            span = trim_to_name(text, t_start, tokens[min(i + 3, len(tokens) - 1)][1])
            rest = _TOKEN.findall(text[span[0]:span[1]])[1:] if span else []
            if span and not all(t.lower() in common_words() or t.lower() in PARTICLES for t in rest):
                return span  # "Marine Strategy Framework": a given name before common words is a term
    return None


class FirstNameRecognizer(EntityRecognizer):
    """A known given name followed by one or two capitalised surnames: names the NER model misses in languages
    it was not trained on ("Werknemer Aoife Dubois"). Both words must be name-like and none regulatory."""

    def __init__(self, language: str, score: float = 0.8) -> None:
        self.score = score
        super().__init__(supported_entities=["PERSON"], supported_language=language, name="FirstNameRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        spans = (known_name_in(text, start, end) for start, end in candidate_runs(text))
        return [RecognizerResult("PERSON", s[0], s[1], self.score) for s in spans if s]


class PersonNameRecognizer(EntityRecognizer):
    """PERSON from spaCy NER on candidate windows; ``nlp`` is a loaded spaCy pipeline with an ``ner`` pipe."""

    def __init__(self, nlp: Any, language: str, skip_known_names: bool = True, score: float = 0.85) -> None:
        self.nlp, self.score, self.skip_known_names = nlp, score, skip_known_names
        super().__init__(supported_entities=["PERSON"], supported_language=language, name="PersonNameRecognizer")

    def load(self) -> None:  # the pipeline is loaded by the detector factory, once per process
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        # A run holding a known given name is FirstNameRecognizer's; one inside a street address is ADDRESS's
        # (which wins an overlap): the model is asked about the others only.
        addresses = [m.span() for m in ADDRESS.finditer(text)]
        runs = [(s, e) for s, e in candidate_runs(text)
                if not (self.skip_known_names and known_name_in(text, s, e)) and not any(a <= s and e <= b for a, b in addresses)]
        if not runs:
            return []
        windows = _windows(text, runs)
        results, seen = [], set()
        for (lo, hi), doc in zip(windows, self.nlp.pipe(text[lo:hi] for lo, hi in windows)):
            for ent in doc.ents:
                if ent.label_ != "PER":
                    continue
                span = trim_to_name(text, lo + ent.start_char, lo + ent.end_char)
                if not span or "\n" in text[span[0]:span[1]]:
                    continue
                words = _TOKEN.findall(text[span[0]:span[1]])
                if any(t.lower() in common_words() or len(t) > LONGEST_NAME_WORD for t in words):
                    continue  # a model-only name made of common words or long compounds is a capitalised term
                if span not in seen:
                    seen.add(span)
                    results.append(RecognizerResult("PERSON", span[0], span[1], self.score))
        return results
