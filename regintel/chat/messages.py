"""User-facing texts of turns that are not model answers: refusals, abstentions, failures (EN / FR / ES / DE)."""

from __future__ import annotations

from typing import Sequence

from regintel.chat.evidence import EXPLANATIONS

REFUSAL = {
    "en": "I can only report what the regulations in this knowledge base say. Your question was not answered because {reason}.",
    "fr": "Je ne peux que rapporter ce que disent les textes de cette base. Votre question n'a pas reçu de réponse car {reason}.",
    "es": "Solo puedo informar de lo que dicen los textos de esta base. Su pregunta no se ha respondido porque {reason}.",
}
TRY_INSTEAD = {"en": "Instead, try asking:", "fr": "Essayez plutôt :", "es": "Pruebe en su lugar:",
               "de": "Fragen Sie stattdessen zum Beispiel:"}
ABSTENTION = {
    "en": "I cannot give a grounded answer: {reason}. The closest passages are listed below so you can check them.",
    "fr": "Je ne peux pas donner de réponse fondée : {reason}. Les passages les plus proches sont listés ci-dessous.",
    "es": "No puedo dar una respuesta fundamentada: {reason}. Los pasajes más cercanos se muestran abajo.",
}
NOT_HELD = {  # {missing}: the acts the question names; {held}: what the knowledge base holds
    "en": "The knowledge base does not hold {missing}, so I cannot answer from it. It holds: {held}.",
    "fr": "La base ne contient pas {missing} : je ne peux donc pas répondre à partir de ses textes. Elle contient : {held}.",
    "es": "La base no contiene {missing}, así que no puedo responder a partir de sus textos. Contiene: {held}.",
    "de": "Die Wissensbasis enthält {missing} nicht, daher kann ich nicht aus ihr antworten. Sie enthält: {held}.",
}
FAILED = "The answer could not be completed: {error}"


def refusal_text(reason: str, suggestions: Sequence[str], language: str) -> str:
    language = language if language in REFUSAL else "en"
    lines = [REFUSAL[language].format(reason=reason)]
    if suggestions:
        lines += ["", TRY_INSTEAD[language], *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)


def not_held_text(missing: Sequence[str], held: Sequence[str], language: str, suggestions: Sequence[str] = ()) -> str:
    """The abstention of a question about acts the knowledge base does not hold: which, and what it holds."""
    language = language if language in NOT_HELD else "en"
    lines = [NOT_HELD[language].format(missing=", ".join(missing), held="; ".join(held))]
    if suggestions:
        lines += ["", TRY_INSTEAD.get(language, TRY_INSTEAD["en"]), *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)


def abstention_text(code: str, language: str, suggestions: Sequence[str] = ()) -> str:
    language = language if language in ABSTENTION else "en"
    lines = [ABSTENTION[language].format(reason=EXPLANATIONS.get(code, "no passage supports an answer"))]
    if suggestions:
        lines += ["", TRY_INSTEAD[language], *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)
