"""Response mode, confidence and authority level of an answered turn (docs/architecture.md: evidence-graded answers).

DIRECT needs close evidence (cited passages' mean similarity at the calibrated DIRECT level), binding sources
(authority score above 0.8) and claims that their citations support (verification rate above 0.8), with no soft
concern. An answer with no supported claim is an ABSTAIN: the model found nothing in the sources to say.
Everything else is QUALIFIED.
"""

from __future__ import annotations

from dataclasses import dataclass

from regintel.chat import evidence
from regintel.chat.response import ABSTAIN, DIRECT, QUALIFIED

DIRECT_AUTHORITY = 0.8
DIRECT_VERIFICATION = 0.8


@dataclass
class Grade:
    mode: str
    abstention_reason: str | None
    confidence: dict
    authority: dict


def authority_level(score: float) -> str:
    """Seed 004: > 0.8 high (EU law dominant), 0.6-0.8 medium, < 0.6 low."""
    return "high" if score > 0.8 else "medium" if score >= 0.6 else "low"


FULL_STRENGTH_AT = 90.0  # the median similarity of gold passages on ObliQA dev


def similarity_strength(mean_similarity: float) -> float:
    """Mean similarity mapped to 0-1 between the calibrated 'loosely related' level and the gold median."""
    low, high = evidence.LOW_MEAN_BELOW, FULL_STRENGTH_AT
    return round(min(1.0, max(0.0, (mean_similarity - low) / (high - low))), 3)


def confidence(mean_similarity: float, verification_rate: float, authority: float) -> dict:
    """Mean of similarity strength, verification rate and authority; levels as the seed's verification bands."""
    score = round((similarity_strength(mean_similarity) + verification_rate + authority) / 3, 3)
    level = "high" if score > 0.8 else "medium" if score >= 0.5 else "low"
    return {"level": level, "score": score}


def grade_answer(cited_mean_similarity: float, authority: float, verification_rate: float, supported_claims: int,
                 concerns: list[str]) -> Grade:
    authority_info = {"level": authority_level(authority), "score": round(authority, 3)}
    conf = confidence(cited_mean_similarity, verification_rate, authority)
    if supported_claims == 0:
        return Grade(ABSTAIN, "NO_RELEVANT_EVIDENCE", {"level": "low", "score": conf["score"]}, authority_info)
    if (cited_mean_similarity >= evidence.DIRECT_MEAN_AT and authority > DIRECT_AUTHORITY
            and verification_rate > DIRECT_VERIFICATION and not concerns):
        return Grade(DIRECT, None, conf, authority_info)
    return Grade(QUALIFIED, None, conf, authority_info)


def grade_abstention(reason: str, mean_similarity: float, authority: float) -> Grade:
    return Grade(ABSTAIN, reason, {"level": "low", "score": round(similarity_strength(mean_similarity) / 3, 3)},
                 {"level": authority_level(authority), "score": round(authority, 3)})
