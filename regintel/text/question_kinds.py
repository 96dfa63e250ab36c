"""What a question asks for, read from its opening: who acts, when or how (a definition of a term it names says none
of that), or what something counts as (which is what a definition says).

Read by search (the definitions among a who / when / how question's candidates follow the other passages) and by the
offline composer (it leaves the definitions out of such an answer when another article addresses the question).
"""

from __future__ import annotations

import re

from regintel.text.asked_terms import asked_term

_I = re.IGNORECASE
# a question's opening, after a joining word of a follow-up ("And when ...", "Et qui ...", "Und wie ...")
OPENING = r"^\W*(?:(?:and|but|so|et|mais|y|pero|und|aber)\s+)?"
# asks who acts, when or how: a definition of a term the question names says none of it ("Who must carry out
# threat-led penetration testing?", "How often must ... be performed?", "Qui doit ...", "Wer muss ...")
WHO_WHEN_HOW_RE = re.compile(
    OPENING + r"(?:who|whom|when|how|by when|where|qui|quand|comment|où|"
    r"quién|quiénes|cuándo|cómo|dónde|wer|wem|wann|wie|wo)\b", _I)
# ... unless it asks what something counts as, which is what a definition says ("When is a person considered a
# taxable person?", "Who counts as a data subject?", "Quand une personne est-elle considérée comme assujettie ?")
COUNTS_AS_RE = re.compile(
    r"\b(?:considered|deemed|regarded|treated as|counts? as|qualif(?:y|ies) as|classed as|classified as|"
    r"considérée?s?|réputée?s?|regardée?s?|qualifiée?s?|se considera\w*|considerad[oa]s?|se entiende|"
    r"gilt|gelten|als .{1,40} (?:gilt|gelten|angesehen))\b", _I)


def asks_who_when_or_how(question: str) -> bool:
    """Whether the question asks who acts, when or how, and neither what something counts as nor what a term means
    ("How is 'personal data' defined?", "Who is a 'controller'?" are definition questions)."""
    return bool(WHO_WHEN_HOW_RE.search(question)) and not COUNTS_AS_RE.search(question) and not asked_term(question)
