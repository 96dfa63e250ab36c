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


def cited_provisions(question: str) -> list[str]:
    """The provisions a question cites, normalised ("article 226 bis", "GOV-1"), in question order."""
    found = [f"article {' '.join(n.lower().split())}" for n, _ in ARTICLE_CITED_RE.findall(question)]
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


def provision_chunk_ids(chunks: Iterable[Chunk], provisions: Sequence[str], documents: Sequence[str]) -> list[str]:
    """The passages, in reading order, of the first cited provision held by the first of ``documents`` (in that
    order) that holds one: at most ``LEAD_PASSAGES``."""
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document_id, []).append(chunk)
    for document in documents:
        for provision in provisions:
            held = sorted((c for c in by_document.get(document, ()) if holds_provision(c.ref, provision)),
                          key=lambda c: c.position)
            if held:
                unit = held[0].parent_id
                return [c.chunk_id for c in held if c.parent_id == unit][:LEAD_PASSAGES]
    return []
