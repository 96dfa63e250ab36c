"""Retrieval for questions that cite a provision: "What does Article 9 of the VAT Directive say?", "Que prévoit
l'article 44 de la directive TVA ?", "Explain GOV-1 of ESRS 2", "When must a breach be notified under Article 33?".

A reference is the one thing such a question says exactly, yet searched by meaning and by words it is a number
among hundreds: "Article 9" is cited in the text of many articles, and an article's own number is only its heading.
The VAT Directive's Article 9 fell out of the hits once they were kept to the VAT Directive, and Article 44 was not
among them at all. So the passages of the cited provision, in the act the question names (else in the first of
retrieval's documents that has it), lead the hits. A side search: the engine keeps the hits it had when it fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from regintel.retrieval.act_overview import OVERVIEW_WORDS
from regintel.retrieval.chunking import Chunk, split_part
from regintel.retrieval.instruments import InstrumentCatalog, load_catalog
from regintel.text.article_numbers import LATIN_SUFFIX
from regintel.text.normalise import fold

# "Article 9", "l'article 226 bis", "Art. 5(1)" (its paragraph in a group of its own), "artículo 17", "Artikel 5"
ARTICLE_CITED_RE = re.compile(rf"\b(?:article|artikel|artículo|articolo|art\.)\s*(\d{{1,3}}(?:\s?{LATIN_SUFFIX})?)\b"
                              r"(?!\s*/)(\(\d+\))?", re.IGNORECASE)
# an ESRS disclosure requirement or application requirement: "GOV-1", "E1-6", "SBM-3", "IRO-1", "AR 16"
CODE_CITED_RE = re.compile(r"\b(?:[A-Z]{1,4}\d{0,2}-\d{1,2}|AR \d{1,3})\b")
_REF_ARTICLE_RE = re.compile(rf"^(?:Article|Artikel)\s+(\d{{1,3}}(?:\s{LATIN_SUFFIX})?)(?![\w])", re.IGNORECASE)
LEAD_PASSAGES = 4  # passages of the cited provision that lead the hits, in reading order
# what a question asking what a provision says adds to the provision's reference ("What does Article 33 GDPR say?",
# "Summarise Article 6 of the GDPR", "Que dit l'article 226 de la directive TVA ?", "Explain GOV-1 of ESRS 2")
SAYS_WORDS = OVERVIEW_WORDS | frozenset("""
    say says said state states provide provides set sets out contain contains content contents cover covers require
    requires summarise summarize summary summarised explain explained describe describes show read text wording
    article paragraph provision section requirement disclosure please can you could
    must be we our has have to disclose disclosed report reported include included includes
    dit disent prevoit prevoient contient enonce resume resumer resumez explique expliquer expliquez article exige
    paragraphe disposition exigence doit doivent faut il publier declarer nous au titre
    dice dicen establece establecen contiene resume resumir explica explicar articulo apartado disposicion requisito
    exige debe deben divulgar informar
    steht sagt besagt regelt enthalt fasse zusammen zusammenfassung erklare erklaren artikel absatz vorschrift
    anforderung verlangt muss mussen offenlegen angeben wir
""".split())


# what a question citing a paragraph adds besides SAYS_WORDS: "What is ...?", "Qu'est-ce que ...", "Was steht in ...?"
PARAGRAPH_WORDS = frozenset("what is are of the in under a an qu est ce que le la les l de du des que dit quoi y a t "
                            "que es el del lo was ist steht in der des im".split())


def _article_provision(number: str) -> str:
    """An article's number as a cited provision is named: "226  Bis" -> "article 226 bis"."""
    return f"article {' '.join(number.lower().split())}"


def cited_provisions(question: str) -> list[str]:
    """The provisions a question cites, normalised ("article 226 bis", "GOV-1"), in question order."""
    found = [_article_provision(n) for n, _ in ARTICLE_CITED_RE.findall(question)]
    found += CODE_CITED_RE.findall(question)
    return list(dict.fromkeys(found))


def asks_what_it_says(question: str, catalog: InstrumentCatalog | None = None) -> bool:
    """Whether the question cites a provision and asks only what it says ("Summarise Article 6 of the GDPR"): its
    words, once the references and the acts it names are taken out, are question and summary words. Not a question
    citing one paragraph ("What does Article 30(2) require?"): the article's opening is not its answer."""
    articles = list(ARTICLE_CITED_RE.finditer(question))
    if any(m.group(2) for m in articles) or not (articles or CODE_CITED_RE.search(question)):
        return False
    rest = (catalog or load_catalog()).without_mentions(CODE_CITED_RE.sub(" ", ARTICLE_CITED_RE.sub(" ", question)))
    return all(word in SAYS_WORDS for word in re.findall(r"[^\W\d]+", fold(rest)))


# one paragraph of an article, and maybe one point of it: "Article 6(1)(f)", "Art. 83(5)", "article 6, paragraphe 1,
# point f)", "Article 30 paragraph 2", "artículo 6, apartado 1, letra f)", "Art. 6 Abs. 1 lit. f", "Artikel 6 Absatz 1
# Buchstabe f"; the point may be named first: "point (f) of Article 6(1)", "le point f) de l'article 6, paragraphe 1"
_POINT = r"(?:\s?\((?P<{0}>[a-z])\)|,?\s+(?:point|letra|letter|buchstabe|lit\.?)\s*\(?(?P<{1}>[a-z])\)?(?![\w]))"
PARAGRAPH_CITED_RE = re.compile(
    r"(?:\b(?:point|letter|letra|buchstabe)\s*\(?(?P<point_first>[a-z])\)?\s+(?:of|de|du|des|del)\s+(?:l['’]\s*)?)?"
    rf"\b(?:article|artikel|artículo|articolo|art\.)\s*(?P<article>\d{{1,3}}(?:\s?{LATIN_SUFFIX})?)"
    r"(?:\s?\((?P<paragraph>\d{1,2})\)|,?\s+(?:paragraph|paragraphe|para\.|apartado|absatz|abs\.|§)\s*"
    r"(?P<paragraph_named>\d{1,2})\b)" + f"(?:{_POINT.format('point', 'point_named')})?", re.IGNORECASE)


# a numbered paragraph of an article opens a line with its number: "2. Each processor ..."
PARAGRAPH_START_RE = re.compile(r"(?m)^[ \t]*(\d{1,3})\.\s")


@dataclass(frozen=True)
class CitedParagraph:
    """One paragraph of an article a question cites, and the point of it when it cites one."""

    provision: str  # "article 6", as :func:`cited_provisions` names it
    paragraph: int
    point: str = ""  # "f"


def cited_paragraph(question: str, catalog: InstrumentCatalog | None = None) -> CitedParagraph | None:
    """The one paragraph (and point) a question cites when it asks only what it says ("What does Article 30(2)
    require?", "What is Article 6(1)(f) GDPR?", "Que dit l'article 83, paragraphe 5, du RGPD ?"): the article's
    opening does not answer it, the paragraph does. None when it cites none, several, or asks something of its own
    ("When must a breach be notified under Article 33(1)?")."""
    match = _one_paragraph_cited(question)
    if match is None or len(ARTICLE_CITED_RE.findall(question)) != 1:
        return None
    rest = (catalog or load_catalog()).without_mentions(question[:match.start()] + " " + question[match.end():])
    if not all(word in SAYS_WORDS | PARAGRAPH_WORDS for word in re.findall(r"[^\W\d]+", fold(rest))):
        return None
    point = match.group("point_first") or match.group("point") or match.group("point_named") or ""
    return CitedParagraph(_article_provision(match.group("article")), _paragraph_number(match), point.lower())


def _one_paragraph_cited(question: str) -> re.Match[str] | None:
    """The question's citation of a paragraph (:data:`PARAGRAPH_CITED_RE`) when it cites exactly one."""
    matches = list(PARAGRAPH_CITED_RE.finditer(question))
    return matches[0] if len(matches) == 1 else None


def _paragraph_number(match: re.Match[str]) -> int:
    return int(match.group("paragraph") or match.group("paragraph_named"))


def holds_provision(ref: str, provision: str) -> bool:
    """Whether a chunk's reference is (a part of) the provision: "Article 9 (1/3)" and "Article 26; Article 27" hold
    "article 9" and "article 27", not "Article 9 bis" or "Article 3(9)"; "ESRS 2 › Disclosure Requirement GOV-1 – ..."
    holds "GOV-1"."""
    if not provision.startswith("article "):
        return bool(re.search(rf"(?<![\w-]){re.escape(provision)}(?![\w-])", ref))
    for unit in split_part(ref)[0].split("; "):
        match = _REF_ARTICLE_RE.match(unit.strip())
        if match and " ".join(match.group(1).lower().split()) == provision[len("article "):]:
            return True
    return False


def paragraph_cited(question: str) -> int | None:
    """The number of the one paragraph a question cites (:data:`PARAGRAPH_CITED_RE`), whatever else it asks."""
    match = _one_paragraph_cited(question)
    return None if match is None else _paragraph_number(match)


def is_paragraph_unit(ref: str, paragraph: int) -> bool:
    """Whether a passage's reference names the paragraph as a unit of its own: "Article 4(7)", the seventh
    definition."""
    return split_part(ref or "")[0].rstrip().endswith(f"({paragraph})")


def holds_paragraph(chunk: Chunk, paragraph: int) -> bool:
    """Whether a passage is the paragraph's own unit (:func:`is_paragraph_unit`) or opens a line with its number
    ("7. ...", :data:`PARAGRAPH_START_RE`)."""
    return is_paragraph_unit(chunk.ref, paragraph) or any(int(m.group(1)) == paragraph
                                                          for m in PARAGRAPH_START_RE.finditer(chunk.text))


def provision_chunk_ids(chunks: Iterable[Chunk], provisions: Sequence[str], documents: Sequence[str],
                        paragraph: int | None = None) -> list[str]:
    """The passages, in reading order, of the first cited provision held by the first of ``documents`` (in that
    order) that holds one: at most ``LEAD_PASSAGES``; those holding ``paragraph`` (the one cited, of the first
    provision) first: the eighth paragraph of DORA's Article 28 is in the fifth of its seven parts, the seventh
    definition of the GDPR's Article 4 is the seventh of its units."""
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document_id, []).append(chunk)
    for document in documents:
        for provision in provisions:
            held = sorted((c for c in by_document.get(document, ()) if holds_provision(c.ref, provision)),
                          key=lambda c: c.position)
            if held:
                opening = next((c for c in held if paragraph is not None and provision == provisions[0]
                                and holds_paragraph(c, paragraph)), None)
                if opening is not None:  # then the passages nearest it (its list may run on into the next part)
                    near = sorted(held, key=lambda c: (not holds_paragraph(c, paragraph),
                                                       abs(c.position - opening.position), c.position))
                    return [c.chunk_id for c in near[:LEAD_PASSAGES]]
                unit = held[0].parent_id
                return [c.chunk_id for c in held if c.parent_id == unit][:LEAD_PASSAGES]
    return []
