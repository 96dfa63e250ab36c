"""Claim-citation verification: does each cited passage support the claim that cites it?

An answer is split into claims (sentences); each claim's ``[n]`` markers name its citations. A claim is
supported when one cited passage contains it verbatim, or contains most of its content words (stemmed, in the
passage's language). Also flagged: claims without a citation, citations to sources that do not exist, sources
given but never cited, and low-authority sources. The verification rate is supported claims / claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from regintel.text.analysis import tokenize
from regintel.text.sentences import split_sentences

MARKER_RE = re.compile(r"\[(\d{1,3})\]")
TRAILING_MARKERS_RE = re.compile(r"([.!?;])\s*((?:\[\d{1,3}\]\s*)+)")
LEADING_MARKERS_RE = re.compile(r"\s*(?:\[\d{1,3}\]\s*)+")
SUPPORT_RECALL = 0.6  # share of a claim's content words found in the cited passage
LOW_AUTHORITY = 0.6
MAX_FLAGGED = 8  # claims listed for the analyst to check (the counts cover all)
MAX_CLAIM_CHARS = 300
SPACE_BEFORE_PUNCTUATION_RE = re.compile(r"\s+([.,;:!?])")  # left where a marker was taken out


@dataclass
class ClaimCheck:
    claim: str
    citations: list[int]
    supported: bool
    support: float  # best content-word recall over the cited passages (1.0 for a verbatim quote)
    problem: str = ""  # "", "no citation", "unknown citation", "not supported"


@dataclass
class VerificationResult:
    claims: list[ClaimCheck] = field(default_factory=list)
    cited_sources: list[int] = field(default_factory=list)  # known source numbers the answer cites
    unused_sources: list[int] = field(default_factory=list)
    low_authority_sources: list[int] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return round(sum(c.supported for c in self.claims) / len(self.claims), 3) if self.claims else 0.0

    def summary(self, numbering: Callable[[int], int] | None = None) -> dict:
        """Counts for the trace and the dashboard, and the claims an analyst should check (``flagged``, at most
        ``MAX_FLAGGED``); source numbers are passed through ``numbering`` (the prompt's numbers -> the numbers the
        analyst reads on the chips) when given."""
        shown = numbering or (lambda n: n)
        flagged = [c for c in self.claims if c.problem]
        return {
            "claims": len(self.claims),
            "supported": sum(c.supported for c in self.claims),
            "verification_rate": self.rate,
            "claims_without_citation": sum(c.problem == "no citation" for c in self.claims),
            "unknown_citations": sum(c.problem == "unknown citation" for c in self.claims),
            "unsupported_claims": sum(c.problem == "not supported" for c in self.claims),
            "unused_sources": sorted(shown(n) for n in self.unused_sources),
            "low_authority_sources": sorted(shown(n) for n in self.low_authority_sources),
            "flagged": [{"claim": SPACE_BEFORE_PUNCTUATION_RE.sub(r"\1", c.claim)[:MAX_CLAIM_CHARS], "problem": c.problem,
                         "citations": [shown(n) if n in self.cited_sources else n for n in c.citations]}
                        for c in flagged[:MAX_FLAGGED]],
        }


def _claims(answer: str) -> list[tuple[str, list[int]]]:
    """Sentences with the markers that follow them; a marker-only sentence attaches to the previous claim."""
    body = answer
    first_line, _, rest = answer.partition("\n\n")
    if rest and not MARKER_RE.search(first_line) and first_line.rstrip().endswith(":"):
        body = rest  # a lead-in line ("From the retrieved sources ...:") is not a claim
    # "... delay. [1] If ..." : a marker after the full stop belongs to the sentence before it
    body = TRAILING_MARKERS_RE.sub(lambda m: f" {m.group(2).strip()}{m.group(1)} ", body)
    claims: list[tuple[str, list[int]]] = []
    for sentence in split_sentences(body, strip_enumerators=False):
        # an over-long sentence is split at a comma, as the offline composer cuts one: a marker opening a piece
        # ("... such as data minimisation, [3] in an effective manner ...") closes the piece before it
        piece = sentence.text
        leading = LEADING_MARKERS_RE.match(piece) if claims else None
        if leading:
            claims[-1][1].extend(int(n) for n in MARKER_RE.findall(leading.group(0)))
            piece = piece[leading.end():]
        markers = [int(n) for n in MARKER_RE.findall(piece)]
        text = MARKER_RE.sub("", piece).strip()
        if not re.search(r"\w{3,}", text):
            if claims and markers:
                claims[-1][1].extend(markers)
            continue
        claims.append((text, markers))
    return claims


def verify_claims(answer: str, sources: dict[int, tuple[str, str, float]]) -> VerificationResult:
    """``sources``: citation number -> (passage text, language, authority score)."""
    result = VerificationResult()
    cited: set[int] = set()
    for text, markers in _claims(answer):
        if not markers:
            result.claims.append(ClaimCheck(text, [], False, 0.0, "no citation"))
            continue
        known = [m for m in markers if m in sources]
        cited.update(known)
        if not known:
            result.claims.append(ClaimCheck(text, markers, False, 0.0, "unknown citation"))
            continue
        best = max(_support(text, sources[m][0], sources[m][1]) for m in known)
        supported = best >= SUPPORT_RECALL
        result.claims.append(ClaimCheck(text, markers, supported, round(best, 3), "" if supported else "not supported"))
    result.cited_sources = sorted(cited)
    result.unused_sources = sorted(set(sources) - cited)
    result.low_authority_sources = sorted(n for n in cited if sources[n][2] < LOW_AUTHORITY)
    return result


def _support(claim: str, passage: str, language: str) -> float:
    if " ".join(claim.split()) in " ".join(passage.split()):
        return 1.0
    claim_terms = set(tokenize(claim, language or None))
    if not claim_terms:
        return 0.0
    return len(claim_terms & set(tokenize(passage, language or None))) / len(claim_terms)


def authority_score(cited: list[tuple[float, float]]) -> float:
    """Σ(authority_i × similarity_i) / Σ(similarity_i) over (authority, similarity) of the cited sources."""
    total = sum(similarity for _, similarity in cited)
    return round(sum(a * s for a, s in cited) / total, 3) if total > 0 else 0.0
