"""What a question asks for, read from its opening: who acts, when or how (a definition of a term it names says none
of that), or what something counts as (which is what a definition says).

Read by search (the definitions among a who / when / how question's candidates follow the other passages) and by the
offline composer (it leaves the definitions out of such an answer when another article addresses the question).
"""

from __future__ import annotations

import re
from functools import lru_cache

from regintel.text.analysis import tokenize
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
# or which of a kind of actor must act: "Which financial entities must carry out threat-led penetration testing?",
# "Quelles entreprises doivent tenir un registre ?", "Welche Finanzunternehmen müssen ein Register führen?" ask who
# (the answer is the provision binding them, not the definition of the actor or of what they do, nor a list)
_ACTORS = (r"(?:entities|entity|undertakings|companies|controllers|processors|persons|institutions|providers|firms|"
           r"businesses|organisations|organizations|authorities|bodies|member states|traders|suppliers|"
           r"entités|entreprises|assujettis|personnes|établissements|prestataires|autorités|organismes|états membres|"
           r"entidades|empresas|responsables|encargados|personas|proveedores|autoridades|organismos|estados miembros|"
           r"unternehmen|finanzunternehmen|verantwortlichen?|auftragsverarbeiter|personen|stellen|behörden|anbieter|"
           r"mitgliedstaaten)")
WHICH_ACTOR_MUST_RE = re.compile(
    OPENING + r"(?:which|quel(?:le)?s?|qué|cuáles|welche[rsn]?)\s+(?:[\w-]+\s+){0,3}?" + _ACTORS +
    r"\s+(?:[\w-]+\s+){0,2}?(?:must|shall|need to|needs to|have to|has to|are required|is required|are obliged|"
    r"doivent|doit|sont tenu\w*|est tenu\w*|deben|debe|tienen que|tiene que|están obligad\w*|müssen|muss|"
    r"sind verpflichtet|ist verpflichtet)\b", _I)
# ... unless it asks what something counts as, which is what a definition says ("When is a person considered a
# taxable person?", "Who counts as a data subject?", "Quand une personne est-elle considérée comme assujettie ?")
COUNTS_AS_RE = re.compile(
    r"\b(?:considered|deemed|regarded|treated as|counts? as|qualif(?:y|ies) as|classed as|classified as|"
    r"considérée?s?|réputée?s?|regardée?s?|qualifiée?s?|se considera\w*|considerad[oa]s?|se entiende|"
    r"gilt|gelten|als .{1,40} (?:gilt|gelten|angesehen))\b", _I)

# auxiliaries a question is phrased with, and its question words, which say nothing about what it asks (the
# question's shape is read apart, from the whole text): left in, "pouvons", "devons" and "quelle" of "Dans quelle
# mesure pouvons-nous déduire ... ?" weighed as much as "déduire" and no passage held them. The verb an act "provides
# for" something with ("Quelles sanctions prévoit le RGPD ?", "Welche Sanktionen sieht die DSGVO vor?", "¿Qué
# sanciones prevé el RGPD?") asks what the act says, as "say" does: carried to the English text as a word no
# sentence holds, it halved the share of the question Article 84 covers. So does the verb penalties "threaten" with in
# German ("Welche Sanktionen drohen bei Verstößen gegen DORA?")
QUESTION_NOISE = {
    "en": frozenset("must shall should can could may might need needs have has had do does did make made get well also "
                    "too first exactly really under according difference differences differ compare comparison "
                    "distinguish between versus us".split()),
    "fr": frozenset("doit doivent peut peuvent etre faut avoir fait faire devoir selon différence différences entre "
                    "distinguer comparer dois devons devez devrait devrions devraient devrons peux puis pouvons pouvez "
                    "pourrait pourrions pourraient pourrons faudrait quel quelle quels quelles lequel laquelle lesquels "
                    "lesquelles comment combien pourquoi quand prévoit prévoient".split()),
    "es": frozenset("debe deben puede pueden ser estar hay tiene tienen hacer según diferencia diferencias entre "
                    "distinguir comparar debemos debería deberíamos deberían podemos podría podríamos podrían tener "
                    "cuál cuáles cuánto cuánta cuántos cuántas prevé prevén".split()),
    "de": frozenset("muss müssen kann können soll sollen sollte gibt haben hat wird werden darf dürfen gemäß nach "
                    "unterschied unterschiede zwischen vergleich müsst könnt könnte könnten sollten dürfte wann wer "
                    "warum wieviel sieht sehen droht drohen".split()),
}

# asks how much time, in so many words: a calendar date does not say it ("Within how many days must a major incident
# report be submitted?" is not answered by "submit the report ... by 17 January 2025")
DURATION_ASKED_RE = re.compile(
    r"\b(?:how many (?:hours|days|weeks|months|years)|how long|how much time|within what (?:period|time)|what period|"
    r"combien de (?:jours|mois|semaines|temps|heures|ans|années)|dans quel délai|cuántos (?:días|meses|años)|"
    r"cuántas (?:horas|semanas)|cuánto tiempo|en qué plazo|wie lange|wie ?viel zeit|wie viele (?:tage|monate|wochen|stunden|jahre)|"
    r"innerhalb welcher frist)\b", _I)

# asks for an amount, a rate or a threshold ("How high can GDPR fines be?", "What is the maximum fine?", "Quel est le
# seuil ... ?", "¿Cuál es la multa máxima?", "Wie hoch kann eine Geldbuße sein?"), not for a period ("how much time",
# "combien de jours", "cada cuánto", "wie viel Zeit": DURATION_ASKED_RE and DEADLINE_RE read those)
AMOUNT_ASKED_RE = re.compile(
    r"\bhow (?:high|much|large|big)\b(?! time)|\b(?:maximum|minimum|highest|lowest|max\.?) (?:amount|fines?|penalty|"
    r"penalties|rate|threshold|sum|ceiling)\b|\bwhat (?:is|are) the (?:amount|threshold|ceiling|cap)s?\b|"
    r"\bquel(?:le)?s? (?:est|sont|serait) (?:le|la|les) (?:montant|seuil|plafond)s?\b|\bmontant (?:maximal|maximum|"
    r"minimal|minimum)\b|\bcombien\b(?! de (?:temps|jours|mois|heures|semaines|ans|ann[ée]es)| d['’]ann[ée]es)|"
    r"\bcu[áa]l(?:es)? (?:es|son) (?:el|la|los|las) (?:importe|umbral|l[íi]mite|cuant[íi]a)s?\b|\b(?:importe|multa|"
    r"cuant[íi]a|sanci[óo]n)(?:es)? m[áa]xim[oa]s?\b|(?<!\bcada )\bcu[áa]nto\b(?! (?:tiempo|plazo))|"
    r"\bwie (?:hoch|viel)\b(?! zeit)|\bh[öo]chstbetrag\w*|\bmindestbetrag\w*|\bschwellenwert\w*|"
    r"\bmaximale[rns]? (?:betrag|geldbu[ßs]e|bu[ßs]geld|strafe)\b", _I)

DEADLINE_RE = re.compile(  # asks for a period or a date wherever it stands in the question
    r"\b(?:by when|how long|how soon|how quickly|how many (?:hours|days|weeks|months|years)|how often|how much time|deadline|"
    r"time limit|time-limit|within what|within which|what period|by what date|timeline|until when|from when|"
    r"délai|combien de temps|dans quel délai|jusqu['’]à quand|à partir de quand|date limite|au plus tard|à quelle fréquence|"
    r"plazo|cuánto tiempo|hasta cuándo|desde cuándo|fecha límite|con qué frecuencia|cada cuánto|"
    r"bis wann|ab wann|frist\w*|wie lange|wie schnell|wie oft|wie ?viel zeit|innerhalb welcher)\b", _I)
WHEN_RE = re.compile(OPENING + r"(?:when|quand|cuándo|wann)\b", _I)
# "When is a DPIA required?" asks in which cases, not at what time: a "when" question about whether something is
# required, allowed or exempt is answered by its conditions (not by a period that happens to stand beside them)
WHEN_CONDITION_RE = re.compile(
    # (or valid, or a modal of permission: "When is consent valid?", "When can personal data be transferred to a third
    # country?", "Quand peut-on ...", "¿Cuándo se puede ...?", "Wann darf ...?" ask for the conditions too)
    r"^\W*(?:when|in which cases|quand|cuándo|wann)\s+(?:can|may|could|might|peut|peuvent|pouvons|puede|pueden|"
    r"podemos|se puede|se pueden|"
    r"darf|dürfen|kann|können)\b|"
    r"^\W*(?:when|in which cases|quand|cuándo|wann)\b.{0,80}\b(?:required|necessary|needed|mandatory|compulsory|"
    r"obligatory|allowed|permitted|lawful|legal|valid|invalid|valables?|válid[oa]s?|gültig|wirksam|exempt|applicable|"
    r"obligatoires?|nécessaires?|requise?s?|exigée?s?|autorisée?s?|licites?|exonérée?s?|obligatori[oa]s?|"
    r"necesari[oa]s?|exigid[oa]s?|permitid[oa]s?|lícit[oa]s?|"
    r"exent[oa]s?|erforderlich|notwendig|vorgeschrieben|pflicht|verpflichtend|zulässig|erlaubt|rechtmäßig|"
    r"steuerfrei|befreit|"
    # "When does the right to erasure not apply?", "Wann gilt eine Verarbeitung als grenzüberschreitend?": in which cases
    r"apply|applies|s['’]appliqu\w*|aplica|aplican|gilt|gelten)\b", _I)


def asks_an_amount(text: str) -> bool:
    """Whether ``text`` asks for an amount, a rate or a threshold (``AMOUNT_ASKED_RE``) and not for a period."""
    return bool(AMOUNT_ASKED_RE.search(text)) and not DURATION_ASKED_RE.search(text) and not DEADLINE_RE.search(text)


# the penalties an act lays down for infringing it ("What fines apply for breaches of the GDPR?", "Welche Sanktionen
# drohen bei Verstößen gegen DORA?"): the guardrails read it as asking for the text, search puts the definitions last
_PENALTY_WORDS = (
    r"\b(penalt\w*|fines?|sanction\w*|amendes?|pénalités?|sanci[óo]n\w*|multas?|sanktion\w*|bu[ßs]geld\w*|"
    r"geldbu[ßs]e\w*|strafen?|droh(t|en)|boetes?|sancties?|sanzion\w*)\b")
_INFRINGEMENT_WORDS = (
    r"\b(infring\w*|breach\w*|violat\w*|non-complian\w*|infractions?|violations?|manquements?|enfrei\w*|"
    r"infracci\w*|incumpl\w*|vulneraci\w*|versto[ßs]\w*|verstö[ßs]\w*|verletzung\w*|zuwiderhandl\w*|"
    r"inbreuk\w*|overtreding\w*|schending\w*|violazion\w*|infrazion\w*)\b")
PENALTY_FOR_INFRINGEMENT = (
    rf"{_PENALTY_WORDS}.{{0,60}}{_INFRINGEMENT_WORDS}|{_INFRINGEMENT_WORDS}.{{0,60}}{_PENALTY_WORDS}")
PENALTY_FOR_INFRINGEMENT_RE = re.compile(PENALTY_FOR_INFRINGEMENT, _I)


# what an act (or a provision) says, provides or requires on a subject: "What does DORA say about backup policies?",
# "Que prévoit le RGPD pour le registre des activités de traitement ?", "¿Qué dice DORA sobre el riesgo de
# concentración TIC?", "Was sieht die DSGVO bei einer Datenpanne vor?": the rules on it, which the subject's
# definition does not state (the question asks what the act does with the term, not what the term means)
WHAT_IT_PROVIDES_ON_RE = re.compile(
    r"\bwhat (?:does|do) [^?]{1,60}? (?:say|provide|require|lay down|set out|stipulate|prescribe)s?\s+(?:about|on|for|"
    r"regarding|concerning|in respect of|as regards|with regard to)\b|"
    r"(?:\bque\s+|\bqu['’]est-ce qu(?:e\s|['’])[^?]{0,60}?)(?:dit|disent|prévoi(?:t|ent)|exige(?:nt)?|impose(?:nt)?|"
    r"établi(?:t|ssent))\b"
    r"[^?]{0,60}?\b(?:sur|pour|en matière d[eu]|concernant|à propos d[eu]|au sujet d[eu]|quant à)\b|"
    r"\bqu[ée]\s+(?:dice|dicen|prevé|prevén|establece|establecen|exige|exigen|dispone|disponen|regula|regulan)\b"
    r"[^?]{0,60}?\b(?:sobre|para|en materia de|respecto a|respecto de|acerca de|en cuanto a|en relación con)\b|"
    r"\bwas\s+(?:sagt|sagen|sieht|sehen|regelt|regeln|verlangt|verlangen|bestimmt|bestimmen)\b[^?]{0,60}?"
    r"\b(?:zu|zum|zur|über|bei|für|hinsichtlich|bezüglich)\b", _I)


def asks_what_is_provided_on(question: str) -> bool:
    """Whether the question asks what an act says, provides or requires on a subject (:data:`WHAT_IT_PROVIDES_ON_RE`)
    and not what a term means: its subject's definition is no answer ("¿Qué dice DORA sobre el riesgo de
    concentración TIC?" quoted the definition of "ICT concentration risk"; Article 29 sets the rules on it)."""
    return bool(WHAT_IT_PROVIDES_ON_RE.search(question)) and not asked_term(question)


def asks_conditions_by_when(question: str) -> bool:
    """Whether a question opening on "when" asks in which cases (:data:`WHEN_CONDITION_RE`: "Wann ist eine
    Einwilligung wirksam?") and names no period either ("Bis wann ...?"): its answer is a condition, not a time
    limit, so search should not look for the words of one."""
    return bool(WHEN_CONDITION_RE.search(question)) and not DEADLINE_RE.search(question)


def asks_who_when_or_how(question: str) -> bool:
    """Whether the question asks who acts, when or how (or whether someone must act), and neither what something
    counts as nor what a term means ("How is 'personal data' defined?", "Who is a 'controller'?" are definition
    questions)."""
    return bool(WHO_WHEN_HOW_RE.search(question) or WHETHER_BOUND_RE.search(question)
                or WHICH_ACTOR_MUST_RE.search(question)) \
        and not COUNTS_AS_RE.search(question) and not asked_term(question)


def asks_penalty_for_infringement(question: str) -> bool:
    """Whether the question asks what penalty an infringement incurs and not what a term means: no definition says
    it ("Welche Strafen drohen bei einem Verstoß gegen die DSGVO?" led with the definition of a "relevant and reasoned
    objection", which names infringements)."""
    return bool(PENALTY_FOR_INFRINGEMENT_RE.search(question)) and not asked_term(question)


@lru_cache(maxsize=8)
def question_noise_stems(language: str) -> frozenset[str]:
    """:data:`QUESTION_NOISE` of ``language`` as the search tokenizer stems it."""
    return frozenset(tokenize(" ".join(QUESTION_NOISE.get(language, ())), language))


def content_stems(text: str, language: str) -> set[str]:
    """What ``text`` asks about: its stemmed words in ``language`` without stop words, question words and
    auxiliaries (:data:`QUESTION_NOISE`)."""
    return set(tokenize(text, language)) - question_noise_stems(language)
