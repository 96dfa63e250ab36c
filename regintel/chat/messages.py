"""User-facing texts of turns that are not model answers: refusals, abstentions, failures (EN / FR / ES)."""

from __future__ import annotations

from typing import Sequence

from regintel.chat.evidence import EXPLANATIONS

REFUSAL = {
    "en": "I can only report what the regulations in this knowledge base say. Your question was not answered because {reason}.",
    "fr": "Je ne peux que rapporter ce que disent les textes de cette base. Votre question n'a pas reçu de réponse car {reason}.",
    "es": "Solo puedo informar de lo que dicen los textos de esta base. Su pregunta no se ha respondido porque {reason}.",
}
TRY_INSTEAD = {"en": "Instead, try asking:", "fr": "Essayez plutôt :", "es": "Pruebe en su lugar:"}
ABSTENTION = {
    "en": "I cannot give a grounded answer: {reason}. The closest passages are listed below so you can check them.",
    "fr": "Je ne peux pas donner de réponse fondée : {reason}. Les passages les plus proches sont listés ci-dessous.",
    "es": "No puedo dar una respuesta fundamentada: {reason}. Los pasajes más cercanos se muestran abajo.",
}
FAILED = "The answer could not be completed: {error}"


def refusal_text(reason: str, suggestions: Sequence[str], language: str) -> str:
    language = language if language in REFUSAL else "en"
    lines = [REFUSAL[language].format(reason=reason)]
    if suggestions:
        lines += ["", TRY_INSTEAD[language], *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)


def abstention_text(code: str, language: str, suggestions: Sequence[str] = ()) -> str:
    language = language if language in ABSTENTION else "en"
    lines = [ABSTENTION[language].format(reason=EXPLANATIONS.get(code, "no passage supports an answer"))]
    if suggestions:
        lines += ["", TRY_INSTEAD[language], *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)
