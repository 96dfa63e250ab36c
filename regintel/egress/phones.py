"""Phone numbers and IP addresses: Presidio's PhoneRecognizer (Google's libphonenumber) for EU regions, with the shape checks that
keep regulatory numbers out.

libphonenumber at "possible" leniency also accepts "2020", "282/2011" or "31.12.2024" in some region, which in
regulation text are years, act numbers and dates. A phone here needs 8 to 15 digits, no slash, not a date's
shape, no currency next to it, and either an international or trunk prefix ("+", "00", a leading "0" with
groups) or a phone word shortly before it. Internationally prefixed numbers are taken as they are; national ones
must be a possible number of one EU region for libphonenumber.
"""

from __future__ import annotations

import re

import phonenumbers
from presidio_analyzer import RecognizerResult
from presidio_analyzer.predefined_recognizers import IpRecognizer, PhoneRecognizer

_DATE_SHAPE = re.compile(r"\b\d{1,2}[./-]\d{1,2}[./-](?:19|20)\d{2}\b|\b(?:19|20)\d{2}[./-]\d{1,2}[./-]\d{1,2}\b")
_DECIMALS = re.compile(r"\d\.\d+\s+\d\.\d")
_MONEY_BEFORE = re.compile(r"(?:\b(?:EUR|USD|GBP|CHF|PLN)|[€$£])\s?$", re.IGNORECASE)
_MONEY_AFTER = re.compile(r"\s?(?:(?:EUR|USD|GBP|CHF|PLN|euros?|million|mn|bn|billion|t|tonnes|tCO2e)\b|[€$£%])", re.I)
PHONE_WORDS = re.compile(
    r"\b(?:tel|tél|telephone|téléphone|phone|call|ring|mobile|mob|cell|fax|whatsapp|portable|fixe|joindre|appeler|"
    r"telefon|telefonnummer|handy|mobil|erreichbar|anrufen|teléfono|telefono|móvil|movil|llámame|llamar|llame|"
    r"cellulare|cell\.|chiamare|chiamami|bel|bellen|telefoonnummer|mobiel|telefonu|tel\.|komórka|komórkowy|dzwonić|"
    r"zadzwoń|reached|reach)\b",
    re.IGNORECASE,
)


# Runs of 8+ digits with phone separators are the candidates; each is parsed by libphonenumber once per region
# until one region finds it a possible number (Presidio's matcher would scan the whole text once per region).
_DIGIT_RUN = re.compile(r"(?<![\w+./,:-])[+(]?\d(?:[\d \u00a0().\-]*\d)?(?![\w]|[.,/:-]\d)")


class EuPhoneRecognizer(PhoneRecognizer):
    """Presidio's phone recogniser (libphonenumber) for EU regions, on candidates only, with the checks above."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in _DIGIT_RUN.finditer(text):
            start, end = match.span()
            if text[start] == "(" and ")" not in match.group():
                start += 1
            if self._plausible(text, start, end) and self._possible(text[start:end]):
                results.append(RecognizerResult(self.supported_entities[0], start, end, 0.7))
        return results

    def _possible(self, raw: str) -> bool:
        compact = raw.replace("(0)", "")
        if compact.startswith("00"):
            compact = "+" + compact[2:]
        if compact.startswith("+"):
            return True  # an international prefix and 8-15 digits: a phone, valid number plan or not
        for region in self.supported_regions:
            try:
                if phonenumbers.is_possible_number(phonenumbers.parse(compact, region)):
                    return True
            except phonenumbers.NumberParseException:
                continue
        return False

    @staticmethod
    def _plausible(text: str, start: int, end: int) -> bool:
        raw = text[start:end]
        digits = sum(c.isdigit() for c in raw)
        if not 8 <= digits <= 15 or "/" in raw or _DECIMALS.search(raw):
            return False
        if _DATE_SHAPE.search(raw) or ("." in raw and (" " in raw or "-" in raw)):
            return False  # "4.2.2006", "033 4.2.2006" (an OJ number and date), "0.5 0.25 0.125"
        if _MONEY_BEFORE.search(text[max(0, start - 5):start]) or _MONEY_AFTER.match(text, end):
            return False
        compact = raw.lstrip("(")
        if compact.startswith("+") or compact.startswith("00"):
            return True
        if compact.startswith("0") and (len(re.findall(r"\d+", raw)) > 1 or digits >= 10):
            return True
        return bool(PHONE_WORDS.search(text[max(0, start - 40):start]))


# "Section 6.3.1.2", "version 10.0.19045.3803": dotted numbers after a reference word are clause numbers.
_REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:sections?|paragraphs?|paras?|points?|articles?|art|annex|appendix|chapter|clause|table|figure|"
    r"version|v|no|nr|template|row|column|taxonomy|abschnitt|punkt|apartado|punto|sezione|afdeling|ust)\.?)\s*$",
    re.IGNORECASE,
)


class EuIpRecognizer(IpRecognizer):
    """Presidio's IP recogniser (its checks of octets and IPv6 groups), minus clause numbers after a reference word."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None, regex_flags=None) -> list[RecognizerResult]:
        return [r for r in super().analyze(text, entities, nlp_artifacts, regex_flags)
                if not _REFERENCE_BEFORE.search(text[max(0, r.start - 20):r.start])]
