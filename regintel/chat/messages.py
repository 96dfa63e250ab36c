"""User-facing texts of turns that are not model answers: refusals, abstentions, failures (EN / FR / ES / DE)."""

from __future__ import annotations

from typing import Sequence

from regintel.chat.evidence import EXPLANATIONS

REFUSAL = {
    "en": "I can only report what the regulations in this knowledge base say. Your question was not answered because {reason}.",
    "fr": "Je ne peux que rapporter ce que disent les textes de cette base. Votre question n'a pas reçu de réponse car {reason}.",
    "es": "Solo puedo informar de lo que dicen los textos de esta base. Su pregunta no se ha respondido porque {reason}.",
    "de": "Ich kann nur wiedergeben, was die Rechtstexte dieser Wissensbasis sagen. Ihre Frage wurde nicht beantwortet, "
          "weil {reason}.",
}
# Why a refusal, by refused type in the question's language (the classifier's English reason, kept in the response
# and the trace, is the fallback): a German question was refused entirely in English, a French one read "Votre
# question n'a pas reçu de réponse car it asks to predict future law ...".
REFUSAL_REASONS = {
    "fr": {
        "PREDICTION": "elle demande de prédire l'évolution du droit ou de la réglementation, ce qu'aucune source ne peut "
                      "étayer",
        "CALCULATION": "elle demande une estimation ou un calcul pour un cas particulier, qui relève d'un conseil "
                       "professionnel",
        "OPINION": "elle demande un avis ou une prise de position, alors que les réponses rapportent seulement ce que "
                   "disent les textes",
        "PERSONAL_DATA_ANALYSIS": "elle demande d'analyser des données personnelles ou de clients, qui ne doivent pas "
                                  "être traitées ici",
        "OUT_OF_DOMAIN": "elle sort du champ des textes de cette base",
    },
    "es": {
        "PREDICTION": "pide predecir la evolución de la ley o de la regulación, algo que ninguna fuente puede respaldar",
        "CALCULATION": "pide una estimación o un cálculo para un caso concreto, que requiere asesoramiento profesional",
        "OPINION": "pide una opinión o una toma de postura, mientras que las respuestas solo recogen lo que dicen las "
                   "normas",
        "PERSONAL_DATA_ANALYSIS": "pide analizar datos personales o de clientes, que no deben tratarse aquí",
        "OUT_OF_DOMAIN": "queda fuera de las normas de esta base",
    },
    "de": {
        "PREDICTION": "sie eine Vorhersage künftiger Gesetze oder Regeländerungen verlangt, die keine Quelle belegen kann",
        "CALCULATION": "sie eine Schätzung oder Berechnung für einen Einzelfall verlangt, die fachliche Beratung "
                       "erfordert",
        "OPINION": "sie eine Meinung oder Stellungnahme verlangt, während Antworten nur wiedergeben, was die Rechtstexte "
                   "sagen",
        "PERSONAL_DATA_ANALYSIS": "sie die Auswertung personenbezogener Daten oder Kundendaten verlangt, die hier nicht "
                                  "verarbeitet werden dürfen",
        "OUT_OF_DOMAIN": "sie außerhalb der Rechtstexte dieser Wissensbasis liegt",
    },
}
TRY_INSTEAD = {"en": "Instead, try asking:", "fr": "Essayez plutôt :", "es": "Pruebe en su lugar:",
               "de": "Fragen Sie stattdessen zum Beispiel:"}
ABSTENTION = {
    "en": "I cannot give a grounded answer: {reason}. The closest passages are listed below so you can check them.",
    "fr": "Je ne peux pas donner de réponse fondée : {reason}. Les passages les plus proches sont listés ci-dessous.",
    "es": "No puedo dar una respuesta fundamentada: {reason}. Los pasajes más cercanos se muestran abajo.",
    "de": "Ich kann keine belegte Antwort geben: {reason}. Die nächstliegenden Passagen stehen unten zur Prüfung.",
}
# Why an abstention, in the question's language (EXPLANATIONS holds the English; a code not listed here falls back
# to it): an abstention in Spanish read "No puedo dar una respuesta fundamentada: the closest passages are ...".
ABSTENTION_REASONS = {
    "fr": {
        "NO_RELEVANT_EVIDENCE": "aucun passage de la base n'est assez proche de la question",
        "LOW_SIMILARITY": "les passages les plus proches n'ont qu'un lien lointain avec la question",
        "INSUFFICIENT_CHUNKS": "moins de deux passages traitent la question d'assez près pour fonder une réponse",
        "AMBIGUOUS_QUERY": "la question est trop vague pour une recherche : nommez le texte, l'obligation ou le terme",
        "OUT_OF_SCOPE": "la question sort de ce à quoi cet assistant peut répondre",
        "NOT_IN_CORPUS": "la question porte sur un texte que la base ne contient pas",
    },
    "es": {
        "NO_RELEVANT_EVIDENCE": "ningún pasaje de la base está lo bastante cerca de la pregunta",
        "LOW_SIMILARITY": "los pasajes más cercanos solo guardan una relación lejana con la pregunta",
        "INSUFFICIENT_CHUNKS": "menos de dos pasajes tratan la pregunta de cerca como para fundamentar una respuesta",
        "AMBIGUOUS_QUERY": "la pregunta es demasiado vaga para buscar: indique la norma, la obligación o el término",
        "OUT_OF_SCOPE": "la pregunta queda fuera de lo que este asistente puede responder",
        "NOT_IN_CORPUS": "la pregunta trata de una norma que la base no contiene",
    },
    "de": {
        "NO_RELEVANT_EVIDENCE": "keine Passage der Wissensbasis liegt nah genug an der Frage",
        "LOW_SIMILARITY": "die nächstliegenden Passagen hängen nur lose mit der Frage zusammen",
        "INSUFFICIENT_CHUNKS": "weniger als zwei Passagen behandeln die Frage nah genug, um eine Antwort zu belegen",
        "AMBIGUOUS_QUERY": "die Frage ist zu vage für eine Suche: nennen Sie den Rechtsakt, die Pflicht oder den Begriff",
        "OUT_OF_SCOPE": "die Frage liegt außerhalb dessen, was dieser Assistent beantworten darf",
        "NOT_IN_CORPUS": "die Frage betrifft einen Rechtsakt, den die Wissensbasis nicht enthält",
    },
}
NOT_HELD = {  # {missing}: the acts the question names; {held}: what the knowledge base holds
    "en": "The knowledge base does not hold {missing}, so I cannot answer from it. It holds: {held}.",
    "fr": "La base ne contient pas {missing} : je ne peux donc pas répondre à partir de ses textes. Elle contient : {held}.",
    "es": "La base no contiene {missing}, así que no puedo responder a partir de sus textos. Contiene: {held}.",
    "de": "Die Wissensbasis enthält {missing} nicht, daher kann ich nicht aus ihr antworten. Sie enthält: {held}.",
}
FAILED = "The answer could not be completed: {error}"


def refusal_text(query_type: str, reason: str, suggestions: Sequence[str], language: str) -> str:
    """``reason``: the classifier's English reason, said when the question's language has none for ``query_type``."""
    language = language if language in REFUSAL else "en"
    lines = [REFUSAL[language].format(reason=REFUSAL_REASONS.get(language, {}).get(query_type) or reason)]
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
    reason = ABSTENTION_REASONS.get(language, {}).get(code) or EXPLANATIONS.get(code, "no passage supports an answer")
    lines = [ABSTENTION[language].format(reason=reason)]
    if suggestions:
        lines += ["", TRY_INSTEAD[language], *[f"- {s}" for s in suggestions]]
    return "\n".join(lines)
