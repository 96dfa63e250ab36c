"""The deterministic method of each extraction step (offline mode, and the fallback of an LLM step that failed).

- 1.1a candidates: one concept per legal definition ("'term' means ..."), verbatim; the section heading becomes
  one concept supported by the substantive non-definitional quotes (its text is their most central sentence);
  procedural or tiny quotes stay unattributed with the reason.
- 1.1b duplicates: same folded label (in the same jurisdiction) or embedding similarity above a threshold
  calibrated on a hand-labelled set (``python -m regintel.bench extraction``).
- 1.1c/e relations: head-aligned label containment and the definition's genus ("X means a Y ...") for
  SPECIFIC_OF, "part of Y" for PART_OF, mentions for RELATES_TO, similarity for SIMILAR_TO. Relations always
  start at a new concept, so existing-to-existing relations are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass

from regintel.extraction import rules
from regintel.extraction.catalogue import ExistingConcept
from regintel.extraction.critique import refine
from regintel.extraction.feedback import FeedbackOutcome, apply_feedback
from regintel.extraction.proposal import ContentInfo, Critique, NewConcept, Proposal, Quote, Relation
from regintel.text.analysis import tokenize
from regintel.text.normalise import contains_phrase, fold_for_comparison
from regintel.text.sentences import split_sentences

# Calibrated on regintel/bench/calibration/extraction_duplicates.jsonl (docs/benchmarks.md, "Concept extraction").
DUPLICATE_SIMILARITY = 0.95  # "title: summary" cosine at or above which two concepts are the same idea
SIMILAR_TO_SIMILARITY = 0.90
MAX_RELATES_TO = 3
MAX_SIMILAR_TO = 2
MIN_SHARED_TOKENS = 2

ANALYSIS = {
    "es": {"defined": "Definición literal de «{source}».", "mentioned": " Aparece también en {quotes}.",
           "heading": "Idea central de «{source}», apoyada por {n} citas."},
    "fr": {"defined": "Définition littérale tirée de « {source} ».", "mentioned": " Également mentionné dans {quotes}.",
           "heading": "Idée centrale de « {source} », appuyée par {n} citations."},
    "en": {"defined": "Verbatim definition from {source}.", "mentioned": " Also mentioned in {quotes}.",
           "heading": "Central idea of {source}, supported by {n} quotes."},
}


@dataclass
class DuplicateDecision:
    candidate_id: str
    is_duplicate: bool
    existing_key: str = ""
    existing_title: str = ""
    confidence: float = 0.0
    reasoning: str = ""


class OfflineMethods:
    name = "offline"

    def __init__(self, concept_language: str = "es", duplicate_similarity: float = DUPLICATE_SIMILARITY) -> None:
        self.concept_language = concept_language
        self.duplicate_similarity = duplicate_similarity
        self.text = ANALYSIS.get(concept_language, ANALYSIS["en"])

    # -- 1.1a ------------------------------------------------------------------------------------------------
    def candidates(self, content: ContentInfo, quotes: list[Quote], first_id: int = 1) -> Proposal:
        languages = rules.definition_languages(content.language)
        concepts: list[NewConcept] = []
        unattributed: dict[str, str] = {}
        rest: list[Quote] = []
        for quote in quotes:
            text = rules.clean_quote(quote.text)
            spans = rules.definition_spans(text, languages)
            if not spans:
                if rules.is_procedural(quote.text):
                    unattributed[quote.id] = "Procedural or too short to carry a concept."
                else:
                    rest.append(quote)
                continue
            for term, start, end in spans:
                body = text[start:end].strip().rstrip(";,").strip()
                concepts.append(self._concept(f"n{first_id + len(concepts)}", rules.title_case(term), body,
                                              [quote.id], self.text["defined"].format(source=content.title)))
        heading = _heading_title(content.title)
        mostly_definitions = len(concepts) >= len(rest)
        if rest and mostly_definitions:
            for q in rest:
                unattributed[q.id] = "Not a definition, in a content made of definitions."
        elif rest and heading:
            supporting = [q for q in rest if _shares_tokens(q.text, heading, content.language) or len(rest) <= 3]
            for q in rest:
                if q not in supporting:
                    unattributed[q.id] = "No definition and no link to the section's subject."
            if supporting:
                central = _central_sentence([rules.clean_quote(q.text) for q in supporting], content.language)
                concepts.append(self._concept(
                    f"n{first_id + len(concepts)}", heading, central, [q.id for q in supporting],
                    self.text["heading"].format(source=content.title, n=len(supporting))))
        else:
            for q in rest:
                unattributed[q.id] = "No definition found, and the content has no section heading to relate it to."
        self._note_mentions(concepts, quotes)
        return Proposal(concepts=concepts, unattributed=unattributed)

    def _concept(self, concept_id: str, title: str, body: str, quote_ids: list[str], rationale: str) -> NewConcept:
        return NewConcept(id=concept_id, title=title[:200], concept=body, analysis="",
                          short_summary=rules.summarise(body, 30), summary=rules.summarise(body, 100),
                          source_quote_ids=quote_ids, rationale=rationale)

    def _note_mentions(self, concepts: list[NewConcept], quotes: list[Quote]) -> None:
        for concept in concepts:
            mentioned = [q.id for q in quotes if q.id not in concept.source_quote_ids
                         and contains_phrase(q.text, concept.title)]
            concept.analysis = concept.rationale + (self.text["mentioned"].format(quotes=", ".join(mentioned[:8]))
                                                    if mentioned else "")

    # -- 1.1b ------------------------------------------------------------------------------------------------
    def duplicate(self, candidate: NewConcept, jurisdiction: str, similar: list[tuple[ExistingConcept, float]],
                  language: str) -> DuplicateDecision:
        folded = fold_for_comparison(candidate.title)
        for existing, _ in similar:
            same_place = not jurisdiction or not existing.jurisdiction or existing.jurisdiction == jurisdiction
            if same_place and folded in existing.folded_labels:
                return DuplicateDecision(candidate.id, True, existing.key, existing.title, 1.0,
                                         f"Same label as the existing concept '{existing.title}'.")
        for existing, score in similar:
            if jurisdiction and existing.jurisdiction and existing.jurisdiction != jurisdiction:
                continue
            if score >= self.duplicate_similarity:
                if rules.head_aligned(existing.title, candidate.title, language) or rules.head_aligned(candidate.title, existing.title, language):
                    continue  # a narrower or broader concept, not the same one (a relation, not a duplicate)
                return DuplicateDecision(candidate.id, True, existing.key, existing.title, round(score, 3),
                                         f"Similarity {score:.3f} with '{existing.title}'.")
        best = similar[0] if similar else None
        reason = (f"Closest existing concept '{best[0].title}' at {best[1]:.3f}, below the duplicate threshold."
                  if best else "No existing concepts to compare with.")
        return DuplicateDecision(candidate.id, False, confidence=round(1 - (best[1] if best else 0.0), 3), reasoning=reason)

    # -- 1.1c ------------------------------------------------------------------------------------------------
    def relation_queries(self, concept: NewConcept, language: str) -> dict[str, list[str]]:
        """Search queries per relation type; types no offline rule can decide get none."""
        genus = rules.genus_phrase(concept.concept)
        narrower = [" ".join(rules.words(concept.title)[i:]) if language in rules.HEAD_FINAL
                    else " ".join(rules.words(concept.title)[:-i]) for i in range(1, len(rules.words(concept.title)))]
        return {
            "SPECIFIC_OF": [q for q in [" ".join(genus.split()[:6]), *narrower[:1]] if q],
            "GENERALIZES": [concept.title],
            "PART_OF": [q for q in [rules.part_of_phrase(concept.concept)[:80]] if q],
            "SIMILAR_TO": [f"{concept.title}: {concept.short_summary}"],
            "RELATES_TO": [concept.short_summary],
        }

    def relation_queries_all(self, concepts: list[NewConcept], language: str) -> list[dict[str, list[str]]]:
        return [self.relation_queries(c, language) for c in concepts]

    # -- 1.1e ------------------------------------------------------------------------------------------------
    def relations(self, concept: NewConcept, proposal: Proposal, pool: list[tuple[ExistingConcept, float]],
                  similarity: dict[str, float], language: str) -> list[Relation]:
        """Relations from one new concept to other new concepts and to existing ones (``similarity``: ref -> cosine)."""
        others: list[tuple[str, str, str]] = [(c.id, c.title, c.concept) for c in proposal.concepts if c.id != concept.id]
        others += [(e.key, e.title, e.definition) for e, _ in pool]
        found: list[Relation] = []
        relates: list[tuple[float, Relation]] = []
        genus = rules.genus_phrase(concept.concept)
        part_of = rules.part_of_phrase(concept.concept)
        for ref, title, text in others:
            if not rules.words(title):
                continue
            if rules.head_aligned(title, concept.title, language):
                found.append(Relation(source=concept.id, type="SPECIFIC_OF", target=ref, confidence=0.9,
                                      explanation=f"'{concept.title}' names a narrower kind of '{title}'."))
            elif rules.head_aligned(concept.title, title, language):
                found.append(Relation(source=concept.id, type="GENERALIZES", target=ref, confidence=0.9,
                                      explanation=f"'{title}' names a narrower kind of '{concept.title}'."))
            elif genus and rules.starts_with_phrase(genus, title):
                found.append(Relation(source=concept.id, type="SPECIFIC_OF", target=ref, confidence=0.8,
                                      explanation=f"The definition of '{concept.title}' starts from '{title}'."))
            elif part_of and rules.starts_with_phrase(part_of, title):
                found.append(Relation(source=concept.id, type="PART_OF", target=ref, confidence=0.7,
                                      explanation=f"'{concept.title}' is described as part of '{title}'."))
            elif len(fold_for_comparison(title)) >= 6 and contains_phrase(concept.concept, title):
                relates.append((similarity.get(ref, 0.0), Relation(
                    source=concept.id, type="RELATES_TO", target=ref, confidence=0.6,
                    explanation=f"The definition of '{concept.title}' refers to '{title}'.")))
        found += [r for _, r in sorted(relates, key=lambda item: -item[0])[:MAX_RELATES_TO]]
        linked = {r.target for r in found}
        similar = sorted(((s, ref) for ref, s in similarity.items() if ref not in linked and ref != concept.id
                          and SIMILAR_TO_SIMILARITY <= s), reverse=True)[:MAX_SIMILAR_TO]
        titles = {ref: title for ref, title, _ in others}
        for score, ref in similar:
            if ref in titles:
                found.append(Relation(source=concept.id, type="SIMILAR_TO", target=ref, confidence=round(score, 3),
                                      explanation=f"Similar meaning to '{titles[ref]}' (similarity {score:.3f})."))
        return found

    # -- 1.2, 1.3 and 2.3 ------------------------------------------------------------------------------------
    def critique(self, proposal: Proposal, quotes: list[Quote]) -> Critique | None:
        """No critique of its own: the rule checks (which always run) are the offline critique."""
        return None

    def refine(self, proposal: Proposal, critique: Critique, quotes: list[Quote], existing_labels: dict[str, str],
               content_language: str) -> tuple[Proposal, list[str]]:
        return refine(proposal, critique, quotes, existing_labels, content_language)

    def feedback(self, proposal: Proposal, text: str, quotes: list[Quote], existing: dict[str, str],
                 content_language: str) -> FeedbackOutcome:
        return apply_feedback(proposal, text, quotes, existing, content_language)

    def drain_errors(self) -> list[tuple[str, str]]:
        """Deterministic steps have no call errors to report."""
        return []


def _heading_title(content_title: str) -> str:
    """ "GDPR Article 33 — Notification of a personal data breach" -> "Notification of a personal data breach"."""
    for separator in (" — ", " – ", " - ", ": "):
        if separator in content_title:
            return content_title.split(separator, 1)[1].strip()
    return ""


def _shares_tokens(text: str, heading: str, language: str) -> bool:
    return len(set(tokenize(text, language or None)) & set(tokenize(heading, language or None))) >= min(
        MIN_SHARED_TOKENS, len(set(tokenize(heading, language or None))))


def _central_sentence(texts: list[str], language: str) -> str:
    """The sentence sharing most stemmed words with the others (a TextRank-style key sentence), verbatim."""
    sentences = [s.text for t in texts for s in split_sentences(t) if len(s.text.split()) >= rules.MIN_CONCEPT_WORDS]
    if not sentences:
        return texts[0]
    bags = [set(tokenize(s, language or None)) for s in sentences]

    def centrality(i: int) -> float:
        return sum(len(bags[i] & bags[j]) / (1 + len(bags[j])) for j in range(len(bags)) if j != i)

    best = max(range(len(sentences)), key=lambda i: (centrality(i), -i))
    return sentences[best]

