"""PII sanitiser for outbound LLM requests: regex candidates, then checksum / context validation.

Regulatory text is full of numbers that look like PII (article numbers, CELEX ids, OJ references, amounts,
dates), so every detector is deliberately conservative: identifiers must pass their official checksum, phone
numbers need a phone-like shape or a phone word nearby, dates only count in an explicit birth context.

Detectors run from the most to the least specific type; each one sees the text with earlier findings masked,
so an IBAN or card number is never re-read as a phone number. Masks have the same edges as the placeholders
that replace them, and detection repeats until a round finds nothing, so sanitising the output again changes
nothing. Everything is standard library; regexes are precompiled and written to backtrack linearly.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator

PII_TYPES = ("EMAIL", "PHONE", "IBAN", "CARD", "IE_PPSN", "ES_DNI", "ES_NIE", "UK_NINO", "IP_ADDRESS", "DATE_OF_BIRTH")
_PLACEHOLDER = re.compile(r"\[(" + "|".join(PII_TYPES) + r")_(\d+)\]")
_PLACEHOLDER_OR_MASK = re.compile(r"\[(?:_*|(?:" + "|".join(PII_TYPES) + r")_\d+)\]")


@dataclass(frozen=True)
class Finding:
    type: str  # one of PII_TYPES
    start: int
    end: int
    text: str  # the matched original text: callers must never log or persist it


@dataclass
class SanitiseResult:
    text: str
    findings: list[Finding]
    counts: dict[str, int]

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    def report(self) -> dict:
        """What may go into traces: counts per type, never a value."""
        return {"changed": self.changed, "counts": dict(self.counts), "total": sum(self.counts.values())}


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Hide found spans behind "[___]": same edges as their future placeholders "[TYPE_n]", so later detectors
    see the same neighbours now as when the sanitised text is sanitised again (idempotence)."""
    parts, position = [], 0
    for start, end in sorted(spans):
        parts += [text[position:start], "[", "_" * (end - start - 2), "]"]
        position = end
    return "".join(parts) + text[position:]


# --- EMAIL -------------------------------------------------------------------------------------------------
_EMAIL = re.compile(
    r"(?<![\w.%+\-])[A-Za-z0-9_%+\-]+(?:\.[A-Za-z0-9_%+\-]+)*"
    r"@(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,24}(?![\w\-]|\.[A-Za-z0-9])"
)


def _emails(text: str) -> Iterator[tuple[int, int]]:
    for m in _EMAIL.finditer(text):
        labels = m.group().split("@", 1)[1].split(".")
        if all(not (label.startswith("-") or label.endswith("-")) for label in labels):
            yield m.span()


# --- IBAN (ISO 13616) ----------------------------------------------------------------------------------------
_IBAN_LENGTHS = {
    "AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20,
    "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
    "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
    "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
}  # fmt: skip
# Groups of four after the country/check digits, spaces optional; the exact length is enforced per country.
_IBAN = re.compile(r"(?<![\w\-])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")


def iban_checksum_ok(compact: str) -> bool:
    """ISO 13616 mod-97: move the first four characters to the end, letters -> 10..35, remainder must be 1."""
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def _ibans(text: str) -> Iterator[tuple[int, int]]:
    for m in _IBAN.finditer(text):
        raw = m.group()
        compact = raw.replace(" ", "")
        expected = _IBAN_LENGTHS.get(compact[:2])
        if expected is None or len(compact) < expected:
            continue
        end, seen = 0, 0  # cut the span after exactly `expected` characters (the match may run into a word)
        while seen < expected:
            seen += raw[end] != " "
            end += 1
        if end < len(raw) and raw[end] != " ":
            continue
        if iban_checksum_ok(compact[:expected]):
            yield m.start(), m.start() + end


# --- CARD (Luhn) ---------------------------------------------------------------------------------------------
_CARD = re.compile(r"(?<![\w+.,/\-])\d(?:[ \-]?\d){12,18}(?![\w]|[.,/\-]\d)")
_IBAN_HEAD = re.compile(r"[A-Z]{2}\d{2} ?$")  # the tail of an IBAN whose checksum failed is not a card


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _cards(text: str) -> Iterator[tuple[int, int]]:
    for m in _CARD.finditer(text):
        raw = m.group()
        digits = re.sub(r"\D", "", raw)
        groups = re.split(r"[ \-]", raw)
        if len(groups) > 1 and (len(groups[0]) != 4 or not all(3 <= len(g) <= 6 for g in groups)):
            continue
        if (" " in raw and "-" in raw) or digits[0] not in "23456" or len(set(digits)) == 1:
            continue
        if _IBAN_HEAD.search(text, max(0, m.start() - 5), m.start()):
            continue
        if luhn_ok(digits):
            yield m.span()


# --- National identifiers --------------------------------------------------------------------------------------
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_ES_DNI = re.compile(r"(?<![\w\-])(\d{8})-?([A-Z])(?![\w\-])")
_ES_NIE = re.compile(r"(?<![\w\-])([XYZ])-?(\d{7})-?([A-Z])(?![\w\-])")
_IE_PPSN = re.compile(r"(?<![\w\-])(\d{7})([A-W])([A-Z]?)(?![\w\-])")
_UK_NINO = re.compile(r"(?<![\w\-])([A-Z])([A-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])(?![\w\-])")
_NINO_BAD_PREFIXES = {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


def _es_dni(text: str) -> Iterator[tuple[int, int]]:
    for m in _ES_DNI.finditer(text):
        if _DNI_LETTERS[int(m[1]) % 23] == m[2]:
            yield m.span()


def _es_nie(text: str) -> Iterator[tuple[int, int]]:
    for m in _ES_NIE.finditer(text):
        if _DNI_LETTERS[int("XYZ".index(m[1]) * 10**7 + int(m[2])) % 23] == m[3]:
            yield m.span()


def ppsn_check_char(digits: str, second: str = "") -> str:
    """Weighted mod 23: weights 8..2 on the digits, 9 on the second letter ('W' counts 0); 0 -> 'W'."""
    total = sum(int(d) * w for d, w in zip(digits, range(8, 1, -1)))
    if second and second != "W":
        total += 9 * (ord(second) - 64)
    remainder = total % 23
    return "W" if remainder == 0 else chr(64 + remainder)


def _ie_ppsn(text: str) -> Iterator[tuple[int, int]]:
    for m in _IE_PPSN.finditer(text):
        if ppsn_check_char(m[1], m[3]) == m[2]:
            yield m.span()


def _uk_nino(text: str) -> Iterator[tuple[int, int]]:
    for m in _UK_NINO.finditer(text):
        first, second = m[1], m[2]
        # "QQ" is HMRC's documented example prefix (otherwise invalid): match it, it is what people paste.
        if first + second == "QQ" or (
            first not in "DFIQUV" and second not in "DFIQUVO" and first + second not in _NINO_BAD_PREFIXES
        ):
            yield m.span()


# --- IP addresses ------------------------------------------------------------------------------------------------
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)")
_IPV6 = re.compile(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?![\w:]|\.\w)"
)
# "section 6.3.1.2", "ESRS E1-6.3.1.2": dotted numbers after a reference word are clause numbers, not hosts.
_REF_BEFORE = re.compile(
    r"(?:\b(?:sections?|paragraphs?|paras?|points?|articles?|art|esrs|ar|annex|appendix|chapter|clause|"
    r"table|figure|fig|version|v|no|nr)\.?|§)\s*(?:[A-Z]{1,4}\d{0,3}[-–])?$",
    re.IGNORECASE,
)


def _ips(text: str) -> Iterator[tuple[int, int]]:
    for m in _IPV4.finditer(text):
        octets = m.group().split(".")
        if any(int(o) > 255 or (len(o) > 1 and o[0] == "0") for o in octets):
            continue
        if not _REF_BEFORE.search(text, max(0, m.start() - 20), m.start()):
            yield m.span()
    for m in _IPV6.finditer(text):
        candidate = m.group()
        if sum(1 for part in re.split(r"[:.]", candidate) if part) < 3:  # "::", "a::b", "12:30::"
            continue
        try:
            ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        yield m.span()


# --- Date of birth (only with an explicit birth context) --------------------------------------------------------
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    r"janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre|"
    r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|se?ptiembre|octubre|noviembre|diciembre"
)
_DATE = (
    r"(?P<y1>\d{4})[-/.](?P<m1>\d{1,2})[-/.](?P<d1>\d{1,2})"
    r"|(?P<a2>\d{1,2})[-/.](?P<b2>\d{1,2})[-/.](?P<y2>\d{4}|\d{2})"
    rf"|(?P<d3>\d{{1,2}})(?:st|nd|rd|th|er|º)?\s+(?:de\s+)?(?:{_MONTHS})\.?,?\s+(?:de\s+|del\s+)?(?P<y3>\d{{4}})"
    rf"|(?:{_MONTHS})\.?\s+(?P<d4>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y4>\d{{4}})"
)
_BIRTH_CONTEXT = (
    r"born(?:\s+on)?|date\s+of\s+birth|birth\s*date|d\.?o\.?b\.?|"
    r"né(?:e|\(e\))?\s+le|date\s+de\s+naissance|"
    r"fecha\s+de\s+nacimiento|nacid[oa](?:/a)?\s+el|f\.\s*nac\.|"
    r"geboren(?:\s+(?:am|op))?|geb\.|geburtsdatum|geboortedatum|nat[oa]\s+il|data\s+di\s+nascita"
)
_DOB = re.compile(
    rf"(?<!\w)(?:{_BIRTH_CONTEXT})\s*[:=\-–]?\s*(?:(?:is|was|on|le|el)\s+)?(?P<date>{_DATE})(?![\w]|[-/.]\d)",
    re.IGNORECASE,
)


def _plausible_date(m: re.Match) -> bool:
    g = m.groupdict()
    if g["y1"]:
        return 1 <= int(g["m1"]) <= 12 and 1 <= int(g["d1"]) <= 31 and 1900 <= int(g["y1"]) <= 2100
    if g["a2"]:  # day/month or month/day: accept if either reading is a date
        a, b = int(g["a2"]), int(g["b2"])
        return 1 <= min(a, b) and (a <= 12 or b <= 12) and max(a, b) <= 31 and (
            len(g["y2"]) == 2 or 1900 <= int(g["y2"]) <= 2100
        )
    day, year = (g["d3"], g["y3"]) if g["d3"] else (g["d4"], g["y4"])
    return 1 <= int(day) <= 31 and 1900 <= int(year) <= 2100


def _dates_of_birth(text: str) -> Iterator[tuple[int, int]]:
    for m in _DOB.finditer(text):
        if _plausible_date(m):
            yield m.span("date")


# --- PHONE (last: the least specific shape) ---------------------------------------------------------------------
# Digit groups need a separator (or a parenthesised group) between them, which keeps backtracking linear.
_PHONE = re.compile(
    r"(?<![\w+./,:\-])(?:\+\s?)?(?:\(\d{1,5}\)|\d{1,14})"
    r"(?:[ \u00a0]?\(\d{1,5}\)|[ \u00a0.\-]\d{1,14}|(?<=\))\d{1,14}){0,8}"
    r"(?![\w]|[.,/:\-]\d|\s?%)"
)
_PHONE_WORDS = re.compile(
    r"\b(?:tel|tél|telephone|téléphone|phone|call|mobile|mob|cell|fax|whatsapp|teléfono|telefono|tlf|móvil|movil|"
    r"portable)\b", re.IGNORECASE
)
_MONEY_BEFORE = re.compile(r"(?:\b(?:EUR|USD|GBP|CHF)|[€$£])\s?$", re.IGNORECASE)
_MONEY_AFTER = re.compile(r"\s?(?:(?:EUR|USD|GBP|CHF|euros?|dollars?|pounds?|million|mn|bn|billion)\b|[€$£])", re.I)


def _window_before(text: str, end: int, size: int = 30) -> str:
    """The `size` characters before `end`, masks and placeholders counting as one: the same window before and
    after sanitising. The cut is made at a space, which no mask or placeholder contains."""
    reach = 4 * size
    while True:
        start = text.rfind(" ", 0, max(0, end - reach)) + 1
        window = _PLACEHOLDER_OR_MASK.sub(" ", text[start:end])
        if len(window) >= size or start == 0:
            return window[-size:]
        reach *= 2


def _phones(text: str) -> Iterator[tuple[int, int]]:
    for m in _PHONE.finditer(text):
        raw = m.group()
        digits = sum(c.isdigit() for c in raw)
        groups = re.findall(r"\d+", raw.replace("(0)", ""))  # "(0)" is the UK/FR trunk prefix
        if not 9 <= digits <= 15 or sum(len(g) == 1 for g in groups) > 1:  # "(1) 2 3 4 5 6 7 8 9"
            continue
        if "." in raw and (" " in raw or "-" in raw or "\u00a0" in raw):  # "0.5 0.25 0.125" are decimals
            continue
        if _MONEY_BEFORE.search(text, max(0, m.start() - 5), m.start()) or _MONEY_AFTER.match(text, m.end()):
            continue  # "margin call of 100 000 000 EUR"
        if raw.startswith("+") or (len(groups) > 1 and raw.startswith(("0", "("))):
            yield m.span()
            continue
        if _PHONE_WORDS.search(_window_before(text, m.start())):
            yield m.span()


# Most specific first: a span taken by an earlier detector is masked for the later ones.
_DETECTORS: tuple[tuple[str, Callable[[str], Iterator[tuple[int, int]]]], ...] = (
    ("EMAIL", _emails), ("IBAN", _ibans), ("CARD", _cards), ("ES_NIE", _es_nie), ("ES_DNI", _es_dni),
    ("IE_PPSN", _ie_ppsn), ("UK_NINO", _uk_nino), ("IP_ADDRESS", _ips), ("DATE_OF_BIRTH", _dates_of_birth),
    ("PHONE", _phones),
)  # fmt: skip


# Invisible format characters (zero-width, bidi controls, soft hyphen) a value can be split with to slip past a
# detector ("jean\u200b@example.fr"): detection reads the text without them, findings keep the original span.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def find_pii(text: str) -> list[Finding]:
    """All PII findings in ``text``, non-overlapping and sorted. With invisible characters present the text is
    read twice: as it is (an invisible mark may be what separates a value from its neighbour) and without them
    (a mark may split a value); a finding of the second reading replaces the first reading's findings it covers,
    with its span in the original text."""
    findings = _find_visible(text)
    if not _INVISIBLE.search(text):
        return findings
    positions = [i for i, ch in enumerate(text) if not _INVISIBLE.match(ch)]
    visible = "".join(text[i] for i in positions)
    for f in _find_visible(visible):
        start, end = positions[f.start], positions[f.end - 1] + 1
        overlapping = [o for o in findings if o.start < end and start < o.end]
        if all(start <= o.start and o.end <= end for o in overlapping):  # it covers them: the whole value
            findings = [o for o in findings if o not in overlapping] + [Finding(f.type, start, end, text[start:end])]
    return sorted(findings, key=lambda f: f.start)


def _find_visible(text: str) -> list[Finding]:
    """All PII findings, non-overlapping and sorted by start; more specific types win overlaps.

    Rounds repeat until one finds nothing: a value hidden by a neighbour that turned out to be PII itself
    ("+000000000+000000000") is found now rather than when the sanitised text is sanitised again.
    """
    findings: list[Finding] = []
    masked = text
    while True:
        found_before = len(findings)
        for pii_type, detector in _DETECTORS:
            spans = sorted(detector(masked), key=lambda span: span[0] - span[1])  # longest first within a type
            taken: list[tuple[int, int]] = []
            for start, end in spans:
                if end > start and all(end <= s or start >= e for s, e in taken):
                    taken.append((start, end))
            findings += [Finding(pii_type, start, end, text[start:end]) for start, end in taken]
            if taken:
                masked = _mask(masked, taken)
        if len(findings) == found_before:
            return sorted(findings, key=lambda f: f.start)


def contains_pii(text: str) -> bool:
    return bool(find_pii(text))


def _normalise(finding: Finding) -> str:
    """The identity of a value, so "DE89 3704…" and "DE893704…" share a placeholder."""
    value = _INVISIBLE.sub("", finding.text)
    if finding.type in ("EMAIL", "IP_ADDRESS"):
        return value.lower()
    return re.sub(r"[\s.\-()]", "", value).upper()


def sanitise(text: str) -> SanitiseResult:
    """Replace each finding with a typed placeholder ("[IBAN_1]"); equal values share one placeholder."""
    findings = find_pii(text)
    # Numbering continues after placeholders already in the text, so a literal "[EMAIL_1]" stays unambiguous.
    next_number: dict[str, int] = Counter()
    for m in _PLACEHOLDER.finditer(text):
        next_number[m[1]] = max(next_number[m[1]], int(m[2]))
    assigned: dict[tuple[str, str], str] = {}
    parts, position = [], 0
    for finding in findings:
        key = (finding.type, _normalise(finding))
        if key not in assigned:
            next_number[finding.type] += 1
            assigned[key] = f"[{finding.type}_{next_number[finding.type]}]"
        parts += [text[position : finding.start], assigned[key]]
        position = finding.end
    parts.append(text[position:])
    totals = Counter(f.type for f in findings)
    counts = {t: totals[t] for t in PII_TYPES if totals[t]}
    return SanitiseResult("".join(parts), findings, counts)
