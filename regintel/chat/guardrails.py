"""Query guardrails: classify a question into an allowed or a forbidden type (English, French, Spanish).

Allowed: definition/explanation, obligation lookup, comparison, deadline/timeline, applicability/scope,
source/provenance. Forbidden: prediction of future law, estimation or calculation for a specific case, opinion
or advocacy, analysis of the user's own personal or customer data, out-of-domain. Forbidden types are checked
first; out-of-domain also needs the retrieval signal (no regulatory vocabulary and weak evidence), which the
engine passes in. A refusal comes with three concrete suggestions drawn from the corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from regintel.egress.sanitiser import contains_pii

ALLOWED = ("DEFINITION", "OBLIGATION", "COMPARISON", "DEADLINE", "APPLICABILITY", "PROVENANCE")
FORBIDDEN = ("PREDICTION", "CALCULATION", "OPINION", "PERSONAL_DATA_ANALYSIS", "OUT_OF_DOMAIN")

REASONS = {
    "PREDICTION": "it asks to predict future law or regulatory changes, which no source can support",
    "CALCULATION": "it asks for an estimate or calculation for a specific case, which needs professional advice",
    "OPINION": "it asks for an opinion or advocacy, while answers only report what the regulation says",
    "PERSONAL_DATA_ANALYSIS": "it asks to analyse personal or customer data, which must not be processed here",
    "OUT_OF_DOMAIN": "it is outside the regulations in this knowledge base",
}


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


FORBIDDEN_PATTERNS: dict[str, re.Pattern[str]] = {
    "PREDICTION": _rx(
        r"\bwill\b.{0,40}\b(require|change|introduce|adopt|ban|tighten|amend|become|be (?:adopted|amended|repealed))\b",
        r"\b(next|coming|following) (year|years|decade)\b", r"\bin the (near )?future\b", r"\b(predict|forecast|anticipate)\b",
        r"\bfuture (law|laws|regulation|rules|amendments?)\b", r"\blikely to (change|be amended|be adopted)\b",
        r"\b(l'année prochaine|à l'avenir|prédire|prévoir que|va-t-(il|elle) changer|futures? (lois?|règles))\b",
        r"\b(el próximo año|en el futuro|predecir|va a cambiar|cambiará|futuras? (leyes|normas))\b",
    ),
    "CALCULATION": _rx(
        r"\b(estimate|calculate|compute|quantify)\b.{0,60}\b(my|our|this|for (?:my|our|a specific|the))\b",
        r"\bhow much (will|would|do|does|should) (i|we|my|our)\b", r"\bwhat (will|would) (my|our)\b.{0,40}\b(be|cost|owe)\b",
        r"\b(calculer|estimer|combien (vais-je|devons-nous|devrons-nous|dois-je))\b",
        r"\b(calcular|estimar|cuánto (tendré|tendremos|pagaré|pagaremos|debo))\b",
    ),
    "OPINION": _rx(
        r"\b(do you think|in your (opinion|view)|your opinion|what do you feel)\b", r"\bshould (we|i) (lobby|support|oppose|campaign)\b",
        r"\b(is|are) (it|the|this|these)\b.{0,40}\b(fair|unfair|good|bad|stupid|wise|justified) (law|laws|rule|rules|regulation|idea)\b",
        r"\b(argue|persuade|convince)\b.{0,30}\b(for|against|that)\b", r"\bwhich (regulation|law) is better\b",
        r"\b(pensez-vous|à votre avis|votre opinion|est-ce une bonne loi)\b", r"\b(qué opinas|en tu opinión|crees que|es una buena ley)\b",
    ),
    "PERSONAL_DATA_ANALYSIS": _rx(
        r"\b(analy[sz]e|review|check|process|go through|screen)\b.{0,40}\b(my|our|this|these|attached)\b.{0,30}\b(customer|client|employee|patient|user)s?\b.{0,20}\b(data|list|records?|files?|spreadsheet|database)\b",
        r"\b(analyser|examiner|vérifier)\b.{0,40}\b(données|fichier|liste)\b.{0,30}\b(clients?|salariés?|employés?)\b",
        r"\b(analizar|revisar)\b.{0,40}\b(datos|fichero|lista)\b.{0,30}\b(clientes?|empleados?)\b",
    ),
}

ALLOWED_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("COMPARISON", _rx(r"\b(compare|comparison|difference|differ|differs|versus|vs\.?|compared (to|with)|between .* and)\b",
                       r"\b(comparer|différence|par rapport à)\b", r"\b(comparar|diferencia|frente a)\b")),
    ("DEADLINE", _rx(r"\b(when|deadline|by when|within how|how long|time limit|how soon|by what date|timeline)\b",
                     r"\b(quand|délai|date limite|dans quel délai|au plus tard)\b", r"\b(cuándo|plazo|fecha límite)\b")),
    ("PROVENANCE", _rx(r"\b(which article|what article|where (does|is|in)|source of|which provision|legal basis for|cite|reference)\b",
                       r"\b(quel article|quelle disposition|quelle source)\b", r"\b(qué artículo|qué disposición|qué fuente)\b")),
    ("APPLICABILITY", _rx(r"\b(appl(y|ies|icable) to|scope|subject to|covered by|who (must|is required|has to)|exempt|in scope)\b",
                          r"\b(s'applique|champ d'application|assujetti|soumis à|exonér)\w*", r"\b(se aplica|ámbito|sujeto a|exent)\w*")),
    ("OBLIGATION", _rx(r"\b(must|shall|required|requirement|obligation|obliged|have to|need to|duty|duties)\b",
                       r"\b(doit|doivent|obligation|tenu de|exigence)\w*", r"\b(debe|deben|obligación|tiene que|requisito)\w*")),
    ("DEFINITION", _rx(r"\b(what (is|are)|define|definition|meaning|means|explain)\b",
                       r"\b(qu'est-ce|définition|qu'entend-on|signifie)\b", r"\b(qué es|qué son|definición|significa)\b")),
]

REGULATORY_VOCABULARY = _rx(  # word stems: "obligation" covers "obligations", "regulat" covers "regulator(s)"
    r"\b(regulat\w*|directive\w*|articles?|laws?|legal\w*|legislat\w*|obligat\w*|oblig\w*|requir\w*|complian\w*|complie\w*|"
    r"authorit\w*|supervis\w*|report\w*|disclos\w*|tax\w*|vat|gdpr|dora|esrs|mifid|aml|kyc|licen[cs]\w*|permit\w*|"
    r"data protection|personal data|controllers?|processors?|breach\w*|ict|financial|entit\w*|sustainab\w*|invoic\w*|"
    r"exempt\w*|rules?|provisions?|penalt\w*|fines?|sanction\w*|audit\w*|risk\w*|governance|capital|insur\w*|bank\w*|"
    r"investment\w*|firms?|fund\w*|custom\w*|register\w*|notif\w*|consent|privacy|policy|policies|standards?)\b",
    r"\b(règlement\w*|réglement\w*|directive\w*|articles?|lois?|obligations?|tva|assujetti\w*|déclaration\w*|factur\w*|"
    r"données|traitement\w*|impôts?|taxe\w*|exonér\w*|autorité\w*|conformité|sanctions?|amendes?|risques?)\b",
    r"\b(reglamento\w*|directiva\w*|artículos?|ley\w*|obligaci\w*|iva|datos|tratamiento\w*|factura\w*|impuesto\w*|"
    r"normativa\w*|autoridad\w*|cumplimiento|sanci\w*|multas?|riesgos?)\b",
)


@dataclass
class QueryClassification:
    query_type: str
    allowed: bool
    reason: str = ""
    matched: list[str] = field(default_factory=list)


def classify_query(question: str, evidence_similarity: float | None = None, out_of_domain_below: float | None = None) -> QueryClassification:
    """Type of the question. ``evidence_similarity`` (best passage similarity, 0-100) with its calibrated
    threshold lets the engine flag out-of-domain questions that carry no regulatory vocabulary."""
    for query_type, pattern in FORBIDDEN_PATTERNS.items():
        match = pattern.search(question)
        if match:
            if not (query_type == "CALCULATION" and _is_rule_question(question)):
                return QueryClassification(query_type, False, REASONS[query_type], [match.group(0)])
    if contains_pii(question) and re.search(r"\b(analy[sz]e|review|check|assess|évaluer|analizar)\b", question, re.IGNORECASE):
        return QueryClassification("PERSONAL_DATA_ANALYSIS", False, REASONS["PERSONAL_DATA_ANALYSIS"], ["personal data in the question"])
    if (evidence_similarity is not None and out_of_domain_below is not None and evidence_similarity < out_of_domain_below
            and not REGULATORY_VOCABULARY.search(question)):
        return QueryClassification("OUT_OF_DOMAIN", False, REASONS["OUT_OF_DOMAIN"])
    for query_type, pattern in ALLOWED_PATTERNS:
        match = pattern.search(question)
        if match:
            return QueryClassification(query_type, True, matched=[match.group(0)])
    return QueryClassification("DEFINITION", True)


def _is_rule_question(question: str) -> bool:
    """"How is the VAT base calculated under Article 73?" asks about a rule, not for a calculation."""
    return bool(re.search(r"\b(under|according to|article|règle|selon|según)\b", question, re.IGNORECASE))
