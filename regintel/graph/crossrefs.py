"""Cross-references in article texts: "referred to in Article 6(1)", "Article 4 point (7)", "Articles 12 to 22",
"Regulation (EU) 2016/679", "l'article 2, paragraphe 1", "articles 282 à 292", "directive 2006/112/CE".

An article reference followed by "of Regulation/Directive X" (or "du règlement/de la directive X") points into
that other act; otherwise it points into the same document. Acts are identified by type and number, so a citing
text can be linked to one of our own Rules when we hold that act.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from regintel.retrieval.chunking import Chunk, article_number
from regintel.text.article_numbers import LATIN_SUFFIX

# Whole words only: "Article 3 territorial" is Article 3, "l'article 369 terdecies" is not 369 ter.
ARTICLE_NUMBER = rf"\d+[a-z]?\b(?:\s+{LATIN_SUFFIX}\b)?"
EN_ARTICLES_RE = re.compile(
    rf"\bArticles?\s+(?P<first>{ARTICLE_NUMBER})(?P<para>(?:\(\d+[a-z]?\))*(?:\([a-z]{{1,4}}\))*)"
    rf"(?P<more>(?:\s*(?:,|and|or|to)\s*(?:{ARTICLE_NUMBER})(?:\(\d+[a-z]?\))*(?:\([a-z]{{1,4}}\))*)*)"
    r"(?P<point>,?\s+points?\s+\(\w+\)(?:\s+to\s+\(\w+\))?)?",
)
FR_ARTICLES_RE = re.compile(
    rf"\b(?:[lL]['’])?[aA]rticles?\s+(?P<first>{ARTICLE_NUMBER})(?P<para>,\s+paragraphe\s+\d+(?:,\s+(?:premier|deuxième|troisième)\s+alinéa)?(?:,\s+point\s+\w+\)?)?)?"
    rf"(?P<more>(?:\s*(?:,|et|ou|à)\s*(?:{ARTICLE_NUMBER})\b)*)",
)
ACT_RE = re.compile(
    r"\b(?P<type>Regulation|Directive|Decision|[Rr]èglement(?:\s+d['’]exécution)?|[Dd]irective|[Dd]écision)"
    r"\s+(?:\((?P<family>EU|EC|EEC|UE|CE|CEE|Euratom)\)\s+)?(?:(?:No|no|n°|nº)\s+)?"
    r"(?P<number>\d{1,4}/\d{1,4})(?:/(?P<suffix>CE|CEE|UE|EC|EEC|EU))?"
)
OF_ACT_RE = re.compile(
    r"^(?:[\s,]*(?:[ivx]+\)|[a-z]\)|\(\w{1,4}\)|points?|first|second|third|subparagraph|premier|deuxième|alinéa))*"
    r"[\s,]*(?:of|du|de la|de l['’])\s*(?:that|this|the)?\s*(?=(?:Regulation|Directive|Decision|règlement|directive|décision)\b)",
    re.IGNORECASE,
)
RANGE_WORDS = {"to", "à"}


@dataclass(frozen=True)
class CrossRef:
    kind: str  # "article" (in this document), "external_article" (article of another act), "act"
    target: str  # article number ("6", "2 bis") or act id ("regulation:2016/679")
    text: str  # the reference as written
    start: int
    act: str = ""  # for external articles: the act id


def act_id(kind: str, number: str) -> str:
    """Stable id of an act by type and number: "regulation:2016/679", "directive:2006/112"."""
    kind = kind.lower().replace("règlement d'exécution", "règlement").replace("règlement d’exécution", "règlement")
    normalised = {"règlement": "regulation", "décision": "decision"}.get(kind, kind)
    return f"{normalised}:{number}"


def _expand(first: str, more: str) -> list[str]:
    """"12", " to 22" -> 12..22 (bounded); "358", " à 369 quinvicies" -> 358..369, 369 quinvicies; "33", " and 36"
    -> 33, 36."""
    numbers = [first]
    tokens = re.findall(rf"(,|and|or|to|et|ou|à)\s*({ARTICLE_NUMBER})", more)
    for connector, number in tokens:
        previous, last = numbers[-1], re.match(r"\d+", number).group()
        if connector in RANGE_WORDS and previous.isdigit() and 0 < int(last) - int(previous) <= 50:
            numbers.extend(str(n) for n in range(int(previous) + 1, int(last) + 1))
            if number != last:
                numbers.append(number)
        else:
            numbers.append(number)
    return numbers


def parse_cross_references(text: str, language: str = "en") -> list[CrossRef]:
    refs: list[CrossRef] = []
    acts = list(ACT_RE.finditer(text))
    for match in acts:
        refs.append(CrossRef("act", act_id(match.group("type"), match.group("number")), match.group(0), match.start()))
    pattern = FR_ARTICLES_RE if language == "fr" else EN_ARTICLES_RE
    for match in pattern.finditer(text):
        following = text[match.end(): match.end() + 120]
        of_act = OF_ACT_RE.match(following)
        external = ""
        if of_act:
            act_match = ACT_RE.match(text, match.end() + of_act.end())  # the act number may pass the window
            if act_match:
                external = act_id(act_match.group("type"), act_match.group("number"))
        for number in _expand(match.group("first"), match.group("more") or ""):
            if external:
                refs.append(CrossRef("external_article", number, match.group(0).strip(), match.start(), external))
            else:
                refs.append(CrossRef("article", number, match.group(0).strip(), match.start()))
    refs.sort(key=lambda r: (r.start, r.kind, r.target))
    return refs


def chunk_references(chunks: Iterable[Chunk]) -> dict[str, frozenset[str]]:
    """For each passage, the passages of the articles it cites in its own document ("referred to in Article 6(1)"
    -> every part of Article 6): the cross-reference graph the learned ranker reads (a passage citing, or cited by,
    a leading passage). References to other acts are left out: they rarely name a passage we hold."""
    chunks = list(chunks)
    units: dict[tuple[str, str], set[str]] = {}
    for chunk in chunks:
        number = article_number(chunk.heading or chunk.ref or "")
        if number:
            units.setdefault((chunk.document_id, " ".join(number.lower().split())), set()).add(chunk.chunk_id)
    references: dict[str, frozenset[str]] = {}
    for chunk in chunks:
        own = article_number(chunk.heading or chunk.ref or "")
        own = " ".join(own.lower().split()) if own else ""
        cited: set[str] = set()
        for ref in parse_cross_references(chunk.text, chunk.language or "en"):
            target = " ".join(ref.target.lower().split())
            if ref.kind == "article" and target != own:
                cited |= units.get((chunk.document_id, target), set())
        if cited:
            references[chunk.chunk_id] = frozenset(cited)
    return references
