"""Our own Presidio recognisers, only for what Presidio 2.2 does not ship (issue 18):

- Mastercard's 2-series card numbers (Presidio's card pattern knows the 51-55 range only);
- national identifiers without a Presidio recogniser: French NIR, Dutch BSN, Irish PPSN, the Belgian national
  register number (checksums from python-stdnum, a maintained library, rather than hand-written arithmetic);
- any number written after a word naming a person's identifier ("Personalnummer 40217", "national register number
  85.07.30-033.61", "numéro de sécurité sociale ...", "Kundennummer ..."), checksum or not: a mistyped or made-up
  number pasted as someone's identifier is still treated as theirs;
- passport numbers of any EU country, only next to a passport word (Presidio's passport patterns cover a few
  countries and rely on a lemma-based context boost that our NER-only pipeline does not compute);
- e-mail addresses, also obfuscated ("name [at] domain [dot] fr") or split by a line break around the "@"
  (Presidio's recogniser validates domains with tldextract, which fetches the public suffix list at run time);
- dates of birth, only after a birth word in EN/FR/DE/ES/IT/NL/PL;
- street addresses (a street word and a house number, optional postcode and town);
- a courtesy title followed by a capitalised name ("Herr Müller", "Mme Dubois", "Pan Nowak").

Each is a Presidio ``EntityRecognizer`` reporting the span of the value only (never of its context word).
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from presidio_analyzer import EntityRecognizer, RecognizerResult
from stdnum import luhn as stdnum_luhn
from stdnum.be import nn as stdnum_be_nn
from stdnum.de import idnr as stdnum_idnr
from stdnum.fr import nir as stdnum_nir
from stdnum.ie import pps as stdnum_pps
from stdnum.nl import bsn as stdnum_bsn

UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĘĚĹĽŁŃŇŐŔŘŚŞŠŢŤŮŰŹŻŽ"
LOWER = "a-zß-öø-ÿāăąćčďđęěĺľłńňőŕřśşšţťůűźżž"
NAME_TOKEN = rf"(?:[{UPPER}]['’])?[{UPPER}][{LOWER}]+(?:-[{UPPER}][{LOWER}]+)?"  # "O'Brien", "Jean-Pierre"


class RegexRecognizer(EntityRecognizer):
    """A regex whose named group ``value`` (or ``spelled``, or the whole match) is the entity, optionally validated."""

    def __init__(self, entity: str, pattern: re.Pattern, language: str, score: float = 0.85,
                 validate: Optional[Callable[[str], bool]] = None, name: Optional[str] = None) -> None:
        self.pattern, self.score, self.validate = pattern, score, validate
        super().__init__(supported_entities=[entity], supported_language=language, name=name or f"{entity}Recognizer")

    def load(self) -> None:  # nothing to load: the pattern is compiled
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        groups = [g for g in ("value", "spelled") if g in self.pattern.groupindex] or [0]
        for match in self.pattern.finditer(text):
            group = next((g for g in groups if match.group(g) is not None), groups[0])
            start, end = match.span(group)
            if start < 0 or end <= start:
                continue
            if self.validate is not None and not self.validate(text[start:end]):
                continue
            results.append(RecognizerResult(self.supported_entities[0], start, end, self.score))
        return results


def _valid(module) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            return bool(module.is_valid(value))
        except Exception:  # stdnum raises on odd shapes in some versions; invalid either way
            return False
    return check


# --- national identifiers -------------------------------------------------------------------------------------
FR_NIR = re.compile(r"(?<![\w-])(?P<value>[12][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[AB])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2})(?![\w-])")
NL_BSN = re.compile(r"(?<![\w.,-])(?P<value>\d{4}\.\d{2}\.\d{3}|\d{9})(?![\w-]|[.,]\d)")
# Presidio's DE_TAX_ID pattern reads the 11 digits unbroken; the printed form groups them "12 345 678 901".
DE_TAX_ID_GROUPED = re.compile(r"(?<![\w-])(?P<value>[1-9]\d \d{3} \d{3} \d{3})(?![\w-])")
IE_PPSN = re.compile(r"(?<![\w-])(?P<value>\d{7}[A-W][A-IW]?)(?![\w-])", re.IGNORECASE)
# the Belgian national register number, printed "85.07.30-033.61" or as 11 digits
BE_NN = re.compile(r"(?<![\w.-])(?P<value>\d{2}(?P<sep>[. ]?)\d{2}(?P=sep)\d{2}[-. ]?\d{3}[. ]?\d{2})(?![\w-]|[.,]?\d)")

# --- a number after a word naming a person's identifier (EN, FR, ES, DE, NL, IT) -----------------------------------
# (not a company's: VAT and company registration numbers name a business)
_ID_WORDS = (
    r"national (?:register|registry|insurance|identity|id) (?:number|no\.?)|national number|"
    r"social security (?:number|no\.?)|ssn|(?:personal )?tax (?:id|identification number|number)|"
    r"personnel (?:number|no\.?)|employee (?:number|id|no\.?)|"
    r"staff (?:number|id)|payroll (?:number|id)|customer (?:number|id|no\.?)|client (?:number|id)|member(?:ship)? "
    r"(?:number|id)|patient (?:number|id)|identity card (?:number|no\.?)|id card (?:number|no\.?)|id number|"
    r"num[ée]ro (?:de |du )?registre national|num[ée]ro national|niss|inss|num[ée]ro de s[ée]curit[ée] sociale|"
    r"num[ée]ro fiscal|num[ée]ro d['’]identification fiscale|matricule|"
    r"num[ée]ro (?:de |d['’])?(?:salari[ée]|employ[ée]|"
    r"client|adh[ée]rent|membre|carte d['’]identit[ée]|patient)|"
    r"n[úu]mero de (?:la )?seguridad social|"
    r"n[úu]mero de (?:identificaci[óo]n fiscal|empleado|cliente|socio|afiliaci[óo]n|"
    r"paciente)|"
    r"steuer-?id|steuer-?identifikationsnummer|steueridentifikationsnummer|sozialversicherungsnummer|sv-nummer|"
    r"steuernummer|personalnummer|mitarbeiter(?:nummer|-nr\.?|-id)|kunden(?:nummer|-nr\.?)|mitglieds(?:nummer|-nr\.?)|"
    r"versichertennummer|(?:personal)?ausweisnummer|patientennummer|"
    r"rijksregisternummer|burgerservicenummer|bsn|personeelsnummer|klantnummer|lidnummer|"
    r"codice fiscale|codice cliente|numero di matricola|numero (?:del )?cliente|numero di previdenza")
LABELLED_ID = re.compile(
    rf"\b(?:{_ID_WORDS})\b\s*(?:[:#=]|n[°º]\.?|no\.?|nr\.?|is|est|es|ist|was)?\s*"
    # ("40217", "AB123456", "PT-00482913", "2024-00871", "57 384 920 163", the German "65 160690 M 365")
    r"(?P<value>(?:[A-Z]{1,4}-?)?\d(?:[\d.\-/]*\d)?(?: \d(?:[\d.\-/]*\d)?){0,7}(?: ?[A-Z](?: ?\d+)?)?)(?![\w-])",
    re.IGNORECASE)

# --- Mastercard's 2-series (2221-2720), which Presidio's card pattern predates --------------------------------------
CARD_2_SERIES = re.compile(r"(?<![\w-])(?P<value>2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)(?:[ -]?\d{4}){3})(?![\w-])")

# --- passport numbers, after a passport word in any of our languages -------------------------------------------
_PASSPORT_WORD = (r"passports?|passeports?|reisepass(?:es|nummer|-?nr\.?)?|pass-?nr\.?|pasaportes?|passaport[oi]|"
                  r"paspoort(?:nummer)?|paszport(?:u|owy)?")
_NUMBER_WORD = r"(?:no\.?|nr\.?|n[°ºo]\.?|n\.\s?º|num(?:ber|éro|ero|mer)?\.?|nummer|numer)"
PASSPORT = re.compile(
    rf"(?:\b(?:{_PASSPORT_WORD})\b)(?:\s+(?:{_NUMBER_WORD}|de|di|del|du|van|the|is|was|d[eu]\s+passeport))*"
    rf"\s*[:#]?\s*(?P<value>(?=[A-Z0-9]*\d)[A-Z0-9]{{6,10}})(?![\w-])",
    re.IGNORECASE,
)
_PASSPORT_WORD_FIRST = re.compile(
    rf"\b(?:{_NUMBER_WORD})\s+(?:de\s+|di\s+|del\s+)?(?:{_PASSPORT_WORD})\b\s*[:#]?\s*(?P<value>(?=[A-Z0-9]*\d)[A-Z0-9]{{6,10}})(?![\w-])",
    re.IGNORECASE,
)

# --- e-mail: plain, split around "@" by a line break, or obfuscated --------------------------------------------
_LOCAL = r"[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,24}"
EMAIL = re.compile(rf"(?<![\w.%+-])(?P<value>{_LOCAL}[ \t]*(?:\r?\n[ \t]*)?@(?:[ \t]*\r?\n)?[ \t]*{_DOMAIN})(?![\w-]|\.[A-Za-z0-9])")
_AT = r"\s*[\[(<{]\s*(?:at|@|arobase|chiocciola|klammeraffe|małpa|apenstaartje)\s*[\])>}]\s*"
_DOT = r"(?:\s*[\[(<{]\s*(?:dot|punto|point|punkt|kropka|punt|\.)\s*[\])>}]\s*|\s+(?:dot|DOT)\s+|\.)"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
EMAIL_OBFUSCATED = re.compile(
    # "name [at] domain [dot] fr", "name(at)domain.fr": a bracketed "at", any dot
    rf"(?<![\w.%+-])(?P<value>{_LOCAL}{_AT}{_LABEL}(?:{_DOT}{_LABEL})*{_DOT}[A-Za-z]{{2,24}})(?![\w-])"
    # "name at domain dot fr": plain words need the spelled-out dot too ("employee at jan.kowalski" is no address)
    rf"|(?<![\w.%+-])(?P<spelled>{_LOCAL}\s+(?:at|AT)\s+{_LABEL}(?:\s+(?:dot|DOT)\s+{_LABEL})+)(?![\w-])"
)

# --- date of birth, only in a birth context ----------------------------------------------------------------------
_MONTHS = (
    r"jan(?:uary|vier|uar|uari)?|feb(?:ruary|ruar|ruari)?|f[ée]vrier|mar(?:ch|s|zo|et|ch)?|m[äa]rz|maart|apr(?:il|ile)?|avril|abril|"
    r"may|mai|mayo|maggio|mei|june?|juin|juni|junio|giugno|july?|juillet|juli|julio|luglio|aug(?:ust|usti)?|ao[uû]t|agosto|"
    r"sep(?:t(?:ember|embre)?)?|se?ptiembre|settembre|oct(?:ober|obre|ubre)?|okt(?:ober)?|ottobre|nov(?:ember|embre|iembre)?|"
    r"dec(?:ember)?|d[ée]cembre|dez(?:ember)?|diciembre|dicembre|"
    r"stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października|listopada|grudnia"
)
_DATE = (
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
    r"|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|e|º|\.)?\s+(?:de\s+)?(?:{_MONTHS})\.?,?\s+(?:de\s+|del\s+)?\d{{4}}"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
)
_BIRTH = (
    r"born(?:\s+on)?|date\s+of\s+birth|birth\s*date|birthday|d\.?o\.?b\.?|"
    r"n[ée]e?(?:\(e\))?\s+le|date\s+de\s+naissance|"
    r"fecha\s+de\s+nacimiento|nacid[oa](?:/a)?\s+el|f\.\s*nac\.|"
    r"geboren(?:\s+(?:am|op))?|geb\.|geburtsdatum|geburtstag|geboortedatum|"
    r"nat[oa]\s+il|data\s+di\s+nascita|"
    r"urodzon[ya](?:\s+dnia)?|ur\.|data\s+urodzenia"
)
DATE_OF_BIRTH = re.compile(
    rf"(?<!\w)(?:{_BIRTH})\s*[:=\-–]?\s*(?:(?:is|was|on|le|el|am|op|il|dnia)\s+)?(?P<value>{_DATE})(?![\w]|[-/.]\d)",
    re.IGNORECASE,
)

# --- street addresses ------------------------------------------------------------------------------------------------
_TOWN = rf"[{UPPER}][\w'’-]+(?:\s+[{UPPER}][\w'’-]+)?"
_POSTCODE = r"\d{2}-\d{3}|\d{4}\s?[A-Z]{2}|\d{4,5}|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|[A-Z]\d{2}\s?[A-Z\d]{4}"
_TAIL = rf"(?:,?\s+(?:(?:{_POSTCODE})\s+)?{_TOWN}(?:\s+\d{{1,2}})?(?:,\s+(?:{_POSTCODE}))?)?"
_NUMBER = r"\d{1,4}(?:\s?[A-Za-z])?(?:[/-]\d{1,4}[A-Za-z]?)?"
_STREET_BEFORE = (r"rue|avenue|av\.|boulevard|bd|chemin|place|allée|impasse|quai|cours|"  # number before: FR/EN
                  r"calle|c/|avenida|avda\.|plaza|paseo|carrer|camino|ronda|"  # ES
                  r"via|viale|corso|piazza|largo|vicolo|"  # IT
                  r"ul\.|ulica|al\.|aleja|plac|os\.|osiedle")  # PL
_STREET_AFTER = r"street|st\.|road|rd\.|avenue|lane|square|drive|close|terrace|way|crescent|row|quay"
_COMPOUND = (r"stra(?:ß|ss)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|"
             r"straat|laan|gracht|plein|kade|singel|dijk|steeg|markt")
ADDRESS = re.compile(
    # "12 rue de la Paix", "45 avenue Jean Jaurès", "221B Baker Street"
    rf"(?P<value>(?<![\w.,/-]){_NUMBER},?\s+(?:(?i:{_STREET_BEFORE})\s+(?:(?:de|du|des|la|le|l'|d'|del|de\s+la)\s+)*"
    rf"[\w'’-]+(?:\s+[{UPPER}][\w'’-]+){{0,3}}|(?:[{UPPER}][\w'’-]+\s+){{1,3}}(?i:{_STREET_AFTER})(?!\w)){_TAIL}"
    # "Calle Mayor 5", "Via Roma 10", "ul. Marszałkowska 84/92", "Corso Buenos Aires 33"
    # (the Belgian order too: "rue des Tilleuls 14, 4000 Liège")
    rf"|(?<!\w)(?i:{_STREET_BEFORE})\s+(?:(?:de\s+la|des|du|de|del|della|dei|delle|di|la|le|el)\s+|[ld]['’])*"
    rf"[{UPPER}][\w'’.-]*(?:\s+(?:(?:de\s+la|des|du|de|del|della|di|la|le|el)\s+)*[{UPPER}][\w'’.-]*){{0,3}},?\s+{_NUMBER}(?![\w.,]\d){_TAIL}"
    # "Hauptstraße 12", "Kerkstraat 25", "Prinsengracht 263"
    rf"|(?<!\w)[{UPPER}][{LOWER}]*(?:{_COMPOUND})\s+{_NUMBER}(?![\w.,]\d){_TAIL})"
)

# --- a courtesy title followed by a name --------------------------------------------------------------------------
_TITLES = (r"Mr|Mrs|Ms|Miss|Dr|Prof|Herr|Frau|Hr|Fr|M|Mme|Mlle|Monsieur|Madame|Mademoiselle|señor|señora|Sr|Sra|Srta|"
           r"Don|Doña|signor|signora|signorina|sig|sig\.ra|dott|dottor|dottoressa|avv|meneer|mevrouw|dhr|mevr|Pan|Pani")
TITLED_NAME = re.compile(
    rf"(?<![\w.])(?i:{_TITLES})\.?\s+(?P<value>{NAME_TOKEN}(?:\s+(?:(?:van|von|de|der|den|di|da|del|du|la|le|ter|ten)\s+)*{NAME_TOKEN}){{0,2}})"
)


def _has_four_digits(value: str) -> bool:
    """An identifier has four digits or more ("Personalnummer 40217"); "customer number 3" is a rank, not an id."""
    return sum(c.isdigit() for c in value) >= 4


def own_recognisers(language: str) -> list[EntityRecognizer]:
    """Our recognisers for the analysis language of the engine."""
    return [
        RegexRecognizer("FR_NIR", FR_NIR, language, 1.0, _valid(stdnum_nir)),
        RegexRecognizer("NL_BSN", NL_BSN, language, 0.9, _valid(stdnum_bsn)),
        RegexRecognizer("DE_TAX_ID", DE_TAX_ID_GROUPED, language, 1.0, _valid(stdnum_idnr), name="DeTaxIdGroupedRecognizer"),
        RegexRecognizer("IE_PPSN", IE_PPSN, language, 1.0, _valid(stdnum_pps)),
        RegexRecognizer("BE_NN", BE_NN, language, 1.0, _valid(stdnum_be_nn)),
        RegexRecognizer("ID_NUMBER", LABELLED_ID, language, 0.9, _has_four_digits, name="LabelledIdRecognizer"),
        RegexRecognizer("CREDIT_CARD", CARD_2_SERIES, language, 1.0,
                        lambda v: _valid(stdnum_luhn)(re.sub(r"\D", "", v)), name="Card2SeriesRecognizer"),
        RegexRecognizer("PASSPORT", PASSPORT, language, 0.9, name="PassportRecognizer"),
        RegexRecognizer("PASSPORT", _PASSPORT_WORD_FIRST, language, 0.9, name="PassportAfterNumberRecognizer"),
        RegexRecognizer("EMAIL", EMAIL, language, 1.0, name="EmailRecognizer"),
        RegexRecognizer("EMAIL", EMAIL_OBFUSCATED, language, 0.9, name="ObfuscatedEmailRecognizer"),
        RegexRecognizer("DATE_OF_BIRTH", DATE_OF_BIRTH, language, 0.95),
        RegexRecognizer("ADDRESS", ADDRESS, language, 0.8),
        RegexRecognizer("PERSON", TITLED_NAME, language, 0.8, name="TitledNameRecognizer"),
    ]
