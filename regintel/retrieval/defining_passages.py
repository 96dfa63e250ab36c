"""Definition questions lead with the passage that defines the term asked (issue 16 items 4 and 7).

"What is a carbon credit for ESRS purposes?", "Who is a 'controller'?", "Qu'entend-on par « assujetti » ?": the
corpus holds the answer in one place, the definition (Article 4(7) GDPR; the ESRS glossary entry "ANNEX II ›
Carbon credit"). Similarity and word matching rank it among passages that use the term a lot (the disclosure
requirement on carbon credits scores higher than its two-line definition), so a definition question's candidates
that define the asked term (:mod:`regintel.retrieval.term_definitions`: the quoted term before "means" / "on
entend par", or the glossary entry's title; across languages through the legal term list) are placed first, in
retrieval's order, at most ``MAX_DEFINING`` of them (a term several acts define). When no candidate defines it, the
corpus's definitions of it are looked up directly (:meth:`DefiningPassages.anywhere`): "What is a taxable person
for VAT purposes?" did not bring Article 9 of the French VAT Directive («assujetti») among its 200 first
candidates, nor "Was ist ein Auftragsverarbeiter?" Article 4(8) GDPR among the first 100, although the term list
carries both terms. Nothing changes for a question that asks about no term, or whose term nothing defines.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Mapping, Sequence

from regintel.retrieval.chunking import Chunk, is_definition
from regintel.retrieval.term_definitions import (asked_term_stems, defined_stems, defines, head_and_rest_stems,
                                                 head_in_passage, term_in_passage, without_the_acts_subject)

MAX_DEFINING = 2
# a who / when / how question's ranking is read this many times as deep for passages that are no definition
DEFINITIONS_BEHIND_WIDTH = 3


class DefiningPassages:
    """Which candidates define the term a question asks about; each chunk's defined terms are read once."""

    def __init__(self, chunks: Mapping[str, Chunk]) -> None:
        self.chunks = chunks
        self._defined: dict[str, frozenset[frozenset[str]]] = {}
        self._outright: dict[str, frozenset[frozenset[str]]] = {}
        # (passage language, defined term's stems) -> the chunk ids defining it, in corpus order; built on the first
        # look-up of the whole corpus (scanning 13,732 passages per definition question cost ~28 ms on ObliQA)
        self._by_term: dict[tuple[str, frozenset[str]], list[str]] | None = None
        self._position: dict[str, int] = {}
        self._languages: set[str] = set()
        self._titles: dict[str, set[str]] = {}  # language -> the titles of the acts written in it

    def defined_by(self, chunk_id: str) -> frozenset[frozenset[str]]:
        if chunk_id not in self._defined:
            chunk = self.chunks[chunk_id]
            self._defined[chunk_id] = defined_stems(chunk.text, chunk.heading, chunk.language, chunk.ref)
        return self._defined[chunk_id]

    def defined_outright(self, chunk_id: str) -> frozenset[frozenset[str]]:
        """The terms a chunk defines, not counting those it only names in brackets ("(‘data minimisation’)")."""
        if chunk_id not in self._outright:
            chunk = self.chunks[chunk_id]
            self._outright[chunk_id] = defined_stems(chunk.text, chunk.heading, chunk.language, chunk.ref,
                                                     named_in_brackets=False)
        return self._outright[chunk_id]

    def among(self, term: str, question_language: str, candidates: Sequence[str]) -> list[str]:
        """The candidates (in their order) that define ``term``, the term a question asks about
        (:func:`regintel.text.asked_terms.asked_term`); empty when it asks about none."""
        return self._outright_first(term, question_language, self._defining(term, question_language, candidates))

    def _outright_first(self, term: str, question_language: str, defining: Iterable[str]) -> list[str]:
        """At most ``MAX_DEFINING`` of ``defining`` (in order): those defining the term outright, or else those naming
        it in brackets (ESRS S1 names its "(“employees”)" in a sentence on the own workforce; the glossary defines
        "Own workforce/own workers")."""
        outright: list[str] = []
        named: list[str] = []
        for chunk_id in defining:
            if self._named_only_here(term, question_language, chunk_id):
                named.append(chunk_id)
            else:
                outright.append(chunk_id)
                if len(outright) == MAX_DEFINING:
                    break
        return (outright or named)[:MAX_DEFINING]

    def _named_only_here(self, term: str, question_language: str, chunk_id: str) -> bool:
        """Whether a chunk defining ``term`` only names it in brackets."""
        outright = self.defined_outright(chunk_id)
        if outright == self.defined_by(chunk_id):
            return False  # it names nothing in brackets besides what it defines
        chunk = self.chunks[chunk_id]
        language = chunk.language or question_language
        asked = term_in_passage(term, question_language, language, chunk.document_id, chunk.ref, chunk.heading,
                                chunk.text, title=chunk.title)
        return not defines(asked, outright)

    def anywhere(self, term: str, question_language: str, allowed: Callable[[str], bool] = lambda chunk_id: True,
                 closeness: Callable[[Sequence[str]], Sequence[float]] | None = None) -> list[str]:
        """The passages of the whole corpus that define ``term`` (those ``allowed``), the ``closeness`` to the question
        (a score per chunk id, higher first) deciding between several, at most ``MAX_DEFINING``."""
        found = [chunk_id for chunk_id in self._defining_in_corpus(term, question_language) if allowed(chunk_id)]
        if closeness is not None and len(found) > 1:
            scores = closeness(found)
            found = [chunk_id for _, chunk_id in sorted(zip(scores, found), key=lambda pair: -pair[0])]
        return self._outright_first(term, question_language, found)

    def _defining_in_corpus(self, term: str, question_language: str) -> list[str]:
        """Every chunk of the corpus that defines ``term`` (in corpus order), read from the term index: the same
        passages as :meth:`_defining` over the whole corpus."""
        if not term:
            return []
        if self._by_term is None:
            by_term: dict[tuple[str, frozenset[str]], list[str]] = {}
            for chunk_id, chunk in self.chunks.items():
                for stems in self.defined_by(chunk_id):
                    by_term.setdefault((chunk.language or "", stems), []).append(chunk_id)
            self._position = {chunk_id: i for i, chunk_id in enumerate(self.chunks)}
            self._languages = {language for language, _ in by_term}
            self._titles = {}
            for chunk in self.chunks.values():
                self._titles.setdefault(chunk.language or "", set()).add(chunk.title)
            self._by_term = by_term
        found: set[str] = set()
        for language in self._languages:
            for stems in asked_term_stems(term, question_language, language or question_language):
                if stems:
                    found.update(self._by_term.get((language, stems), ()))
        for title in self._titles.get(question_language, ()):  # "data processor": the GDPR's "processor"
            shorter = without_the_acts_subject(term, question_language, title)
            if shorter:
                found.update(chunk_id for chunk_id in self._by_term.get((question_language, shorter), ())
                             if self.chunks[chunk_id].title == title)
        if not found:  # "processing of personal data": "processing"
            found.update(self._defining_the_head(term, question_language))
        return sorted(found, key=self._position.__getitem__)

    def _defining_the_head(self, term: str, question_language: str) -> Iterator[str]:
        """The chunks defining the head X of an asked term "X of Y" that speak of Y (:func:`head_in_passage`); none for
        a term of another shape."""
        by_term = self._by_term or {}
        for language in self._languages:
            split = head_and_rest_stems(term, question_language, language or question_language)
            for stems in split[0] if split else ():
                for chunk_id in by_term.get((language, stems), ()):
                    chunk = self.chunks[chunk_id]
                    if stems in head_in_passage(term, question_language, language or question_language, chunk.text):
                        yield chunk_id

    def _defining(self, term: str, question_language: str, chunk_ids: Iterable[str]) -> Iterator[str]:
        """The chunks of ``chunk_ids`` (in order) that define ``term``: its stems in each passage's language, as
        written or carried by the legal term list, or a glossary entry whose search title in the question's language
        names it (:func:`term_in_passage`)."""
        if not term:
            return
        asked_by_language: dict[str, list[frozenset[str]]] = {}
        for chunk_id in chunk_ids:
            language = self.chunks[chunk_id].language or question_language
            if language not in asked_by_language:
                asked_by_language[language] = asked_term_stems(term, question_language, language)
            defined = self.defined_by(chunk_id)
            chunk = self.chunks[chunk_id]
            if defined and defines(term_in_passage(term, question_language, language, chunk.document_id, chunk.ref,
                                                   chunk.heading, chunk.text, asked_by_language[language],
                                                   title=chunk.title), defined):
                yield chunk_id


def definitions_first(ranked: Sequence[tuple[str, float]], defining: Sequence[str],
                      score_of: Mapping[str, float], k: int) -> list[tuple[str, float]]:
    """``ranked`` (chunk id, score) with the ``defining`` passages moved to the front, truncated to ``k``."""
    if not defining:
        return list(ranked[:k])
    lead = [(chunk_id, score_of.get(chunk_id, 0.0)) for chunk_id in defining]
    moved = set(defining)
    return (lead + [item for item in ranked if item[0] not in moved])[:k]


def definitions_last(ranked: Sequence[tuple[str, float]], chunks: Mapping[str, Chunk], k: int) -> list[tuple[str, float]]:
    """``ranked`` with the definitions after the other passages, truncated to ``k``: for a question asking who acts,
    when or how, which no definition says. "Who designates critical ICT third-party service providers under DORA?"
    ranked eight definitions of Article 3 DORA first (each names the term), and Article 31, which says who designates
    them, tenth. ``ranked`` is read beyond ``k`` (:data:`DEFINITIONS_BEHIND_WIDTH` times as many)."""
    others = [item for item in ranked if not is_definition(chunks[item[0]])]
    return (others + [item for item in ranked if is_definition(chunks[item[0]])])[:k]
