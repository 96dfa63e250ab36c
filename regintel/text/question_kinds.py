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
# or whether someone is bound to do something: "Do small banks need threat-led penetration testing?", "Must a
# processor keep a record?", "Doit-on facturer la TVA ...?", "¿Tenemos que nombrar ...?", "Müssen wir ... melden?"
# (the definition of the term it names says what the thing is, not who must do it; "Is a bank a financial
# entity?" asks what something counts as and is none of these)
WHETHER_BOUND_RE = re.compile(
    OPENING + r"(?:(?:do|does|did|will|would)\b.{1,80}\b(?:need|needs|have to|has to|required|obliged|obligated)\b|"
    r"(?:must|shall|should|have to|has to)\b|(?:is|are)\b.{1,80}\b(?:required|obliged|obligated|bound)\s+to\b|"
    r"(?:doit-on|doit-il|doit-elle|doivent-ils|doivent-elles|devons-nous|devez-vous|faut-il|sommes-nous tenus|"
    r"est-on tenu|est-ce qu['’](?:on|il|elle|une?|un)\b.{0,60}\b(?:doit|doivent|faut))\b|"
    r"¿?(?:debe|deben|debemos|tiene que|tienen que|tenemos que|hay que|estamos obligados|está obligad[oa])\b|"
    r"(?:muss|müssen|brauch\w*|sind wir verpflichtet|ist .{1,40} verpflichtet)\b)", _I)
# ... unless it asks what something counts as, which is what a definition says ("When is a person considered a
# taxable person?", "Who counts as a data subject?", "Quand une personne est-elle considérée comme assujettie ?")
COUNTS_AS_RE = re.compile(
    r"\b(?:considered|deemed|regarded|treated as|counts? as|qualif(?:y|ies) as|classed as|classified as|"
    r"considérée?s?|réputée?s?|regardée?s?|qualifiée?s?|se considera\w*|considerad[oa]s?|se entiende|"
    r"gilt|gelten|als .{1,40} (?:gilt|gelten|angesehen))\b", _I)


def asks_who_when_or_how(question: str) -> bool:
    """Whether the question asks who acts, when or how (or whether someone must act), and neither what something
    counts as nor what a term means ("How is 'personal data' defined?", "Who is a 'controller'?" are definition
    questions)."""
    return bool(WHO_WHEN_HOW_RE.search(question) or WHETHER_BOUND_RE.search(question)) \
        and not COUNTS_AS_RE.search(question) and not asked_term(question)
