"""The guardrail's pattern tables: the precise rules for each refused type, the evidence words a refused type needs
before the classifier's leaning to it counts, the allowed-type patterns, the regulatory vocabulary and the figures of
an asker's own case. Kept apart from the decision (:mod:`regintel.chat.guardrails`), which reads them in order, so
that the order of the signals can be read in a few screens and a new phrasing is added here, next to its kin.

Each pattern carries its reason in a comment, with the questions that showed it was needed; the look-alikes it must
not fire on are in tests/test_guardrails_classifier.py.
"""

from __future__ import annotations

import re

from regintel.text.question_kinds import PENALTY_FOR_INFRINGEMENT


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# a verb in the future (EN, FR, ES) and "next year" (EN, FR, ES), for the prediction rule below
_FUTURE = (r"\b(?:will|won't|going to|likely to|expected to|set to|\w+(?:ra|ront)-t-(?:il|elle|on|ils|elles)|sera|"
           r"seront|aura|auront|va|vont|\w+(?:era|eront|ira|iront)|\w+(?:ará|erá|irá|arán|erán|irán)|va a|van a)\b")
_NEXT_YEAR = r"(?:\b(?:next|coming|following) (?:year|years|decade)\b|\bl['’]année prochaine\b|\bel próximo año\b)"


# who makes or enforces the rules, as the subject of a prediction
_INSTITUTION = (r"(?:eu|european union|(?:european )?commission|(?:european )?parliament|council|co-legislators|"
                r"legislators?|lawmakers?|regulators?|supervisors?|"
                r"(?:supervisory |data protection |tax )?authorit(?:y|ies)|"
                r"esas|eba|eiopa|esma|edpb|efrag|ecb|member states|governments?|courts?|cjeu|dpas?)")
_INSTITUTION_DE = (r"(?:eu|kommission|parlament|rat|gesetzgeber|aufsicht|aufsichtsbehörden?|bafin|behörden?|"
                   r"mitgliedstaaten|regierung|bundesregierung)")


# a view asked for, as the prediction rules below read it in French and Spanish
_VIEW_FR = r"(?:pensez-vous|penses-tu|à votre avis|à ton avis|selon vous|d['’]après vous|croyez-vous|crois-tu)"
_VIEW_ES = (r"(?:crees que|cree que|creéis que|piensas que|piensa que|en tu opinión|en su opinión|según tú|según usted|"
            r"según tu experiencia|según su experiencia)")
# what an authority does to a firm, for "what will it do to us?" (the infinitive, and the French and Spanish future)
_AUTHORITY_ACTS_EN = r"(?:fine|sanction|penali[sz]e|punish|audit|inspect|investigate|prosecute|exclude|deregister)"
_AUTHORITY_ACTS_FR = (r"(?:sanctionner|contrôler|exclure|infliger|condamner|poursuivre|radier|verbaliser|pénaliser|"
                      r"redresser)")
_AUTHORITY_WILL_FR = (r"(?:(?:sanctionner|contrôler|infliger|condamner|radier|verbaliser|pénaliser|redresser)(?:a|ont)|"
                      r"(?:exclu|poursuiv)(?:ra|ront))")
_AUTHORITY_ACTS_ES = r"(?:multar|sancionar|inspeccionar|excluir|castigar|penalizar|dar de baja)"
_AUTHORITY_WILL_ES = r"(?:multar|sancionar|inspeccionar|excluir|castigar|penalizar)(?:á|án)"


# a device, a connection or a login that fails, and a help-desk ask about it, for the out-of-domain rule below
_DEVICE_TROUBLE = (
    r"(?:(?:printer|laptop|computer|vpn|wi-?fi|router|app|browser|phone|screen)\b.{0,30}\b(?:won['’]t|doesn['’]t|does "
    r"not|will not|keeps?) (?:connect|work|print|start|boot|load|open|crash|freez)\w*|(?:can['’]t|cannot|unable to) "
    r"(?:log ?in|sign in|connect|print)\b|n['’]arrive (?:plus|pas) à (?:me connecter|imprimer|ouvrir|démarrer)|"
    r"refuse d['’](?:imprimer|démarrer)|ne (?:se connecte|démarre|s['’]allume|fonctionne|s['’]imprime) (?:plus|pas)|"
    r"no (?:se conecta|funciona|arranca|imprime|enciende|me deja (?:entrar|iniciar sesión))|(?:funktioniert|startet|"
    r"druckt|verbindet sich) (?:nicht|nicht mehr)\b|kann mich nicht (?:anmelden|einloggen))")
_HELPDESK_ASK = (r"(?:what (?:do|should|can) i do|how (?:do|can) i (?:fix|solve|reset)|how to (?:fix|reset)|que faire|"
                 r"comment (?:régler|résoudre|réparer|réinitialiser|faire)|qu[ée] hago|qu[ée] puedo hacer|c[óo]mo lo "
                 r"(?:soluciono|arreglo)|was (?:kann|soll) ich tun|was tun|wo liegt der fehler|wie behebe ich|"
                 r"wie löse ich)")


FORBIDDEN_PATTERNS: dict[str, re.Pattern[str]] = {
    "PREDICTION": _rx(
        r"\bwill\b.{0,40}\b(require|change|introduce|adopt|ban|tighten|amend|become|be (?:adopted|amended|repealed))\b",
        # what a legislator or an authority will do ("Will the EU postpone DORA's application again?", "La Commission
        # va-t-elle reporter ...?", "¿Aplazará la UE ...?", "Wird die EU die Frist verschieben?")
        rf"\bwill (?:the )?{_INSTITUTION}\b.{{0,60}}\b(postpone|delay|defer|push back|extend|relax|loosen|scrap|"
        r"abolish|repeal|withdraw|revise|simplify|raise|lower|increase|decrease|reduce|cut|drop|harmoni[sz]e|"
        r"fine|sanction|designate|approve|reject)\b",
        r"\b(?:va|vont)-t-(?:il|elle|ils|elles)\s+(?:encore\s+|de nouveau\s+)?(?:reporter|repousser|retarder|assouplir|"
        r"supprimer|modifier|relever|abaisser|prolonger|durcir)\b|\b(?:reportera|repoussera|retardera|assouplira|"
        r"supprimera|prolongera|durcira)(?:-t-(?:il|elle)|nt-(?:ils|elles))?\b",
        r"\b(?:aplazar[áa]n?|retrasar[áa]n?|pospondr[áa]n?|suavizar[áa]n?|endurecer[áa]n?|prorrogar[áa]n?|"
        r"flexibilizar[áa]n?)\b",
        # what a legislator or an authority will do, in the Spanish future ("¿Subirá la Comisión el umbral de 750
        # empleados cuando revise los estándares?"), asked yes or no with the institution named after the verb ("¿Qué
        # reducirá la Comisión mediante actos delegados?" asks what the text empowers it to do)
        r"(?:^|¿)\s*(?:subir|bajar|elevar|rebajar|reducir|suprimir|eliminar|relajar|ampliar|aumentar|endurecer)[áa]n?\s+"
        r"(?:la |el |los |las )?(?:comisi[óo]n|ue|uni[óo]n europea|parlamento|consejo|legislador\w*|gobierno|hacienda|"
        r"aeat|autoridad\w*|supervisor\w*|estados miembros)\b",
        rf"\b(?:wird|werden)\s+(?:die |der |das )?{_INSTITUTION_DE}\b.{{0,60}}\b(?:verschieben|aufschieben|lockern|"
        r"aufheben|verschärfen|verlängern|abschaffen|senken|erhöhen|verhängen|belassen|einleiten|eröffnen|einstellen)\b",
        # next year in the sentence that asks, with a verb in the future ("Will the GDPR be amended next year?"): a
        # plan told before the question ("We want to leave the OSS next year. How much notice ...?") or a date an
        # obligation starts from ("And from next year on, what must we disclose?") is no prediction
        rf"{_FUTURE}[^.!?]{{0,80}}{_NEXT_YEAR}[^.!?]*\?|{_NEXT_YEAR}[^.!?]{{0,80}}{_FUTURE}[^.!?]*\?",
        r"\bin the (near )?future\b", r"\b(predict|forecast|anticipate)\b",
        r"\bfuture (law|laws|regulation|rules|amendments?)\b", r"\blikely to (change|be amended|be adopted)\b",
        r"\b(à l'avenir|prédire|prévoir que|va-t-(il|elle) changer|futures? (lois?|règles))\b",
        r"\b(en el futuro|predecir|va a cambiar|cambiará|futuras? (leyes|normas))\b",
        # an opinion asked about what will happen is a prediction ("do you think X will ...", "à votre avis, quand
        # la Commission adoptera-t-elle ...", "¿crees que endurecerán ...?")
        r"\b(do you (think|expect|believe)|in your (opinion|view))\b.{0,80}(\b(will|going to|is likely|are likely)\b|"
        r"\w['’]ll\b)",
        r"\b(pensez-vous|penses-tu|à votre avis|à ton avis|selon vous|croyez-vous)\b.{0,80}"
        r"\b\w+(?:era|eront|ira|iront|dra|dront|tra|tront|vra|vront|rra|rront|ura|uront)(?:-t-(?:il|elle|on|ils|elles))?\b",
        r"\b(crees que|cree que|piensas que|piensa que|en tu opinión|en su opinión)\b.{0,80}\b\w{3,}(?:ará|erá|irá|arán|erán|irán)\b",
        r"\b(glauben sie|glaubst du|denken sie|denkst du|meinen sie|erwarten sie)\b.{0,80}\b(wird|werden)\b",
        r"\b(denkt u|denk je|denk jij|verwacht u)\b.{0,80}\b(zal|zullen|gaat|gaan)\b",
        # where a rule, rate or practice is heading ("Where do you see carbon prices heading?", "Wird die BaFin
        # häufiger Bußgelder verhängen?", "¿seguirá existiendo el régimen?")
        r"\b(where|how) do you see\b.{0,60}\b(heading|going|evolving|developing)\b",
        r"\b(prognostizier\w*|vorhersag\w*|pronostica\w*|pronostique\w*)\b",
        r"\b(va|vont) (augmenter|baisser|diminuer|changer|dispara[îi]tre|être (supprimée?s?|relevée?s?|abaissée?s?))\b",
        r"\bseguir[áa]n? (existiendo|vigente|aplic[áa]ndose)\b",
        r"\b(wird|werden)\b.{0,60}\b(häufiger|seltener|steigen|sinken|verschärft|gelockert|abgeschafft)\b",
        # the view asked after the future it is about ("Which way will they decide, in your view?", "Secondo lei, il
        # Garante ci multerà?", "¿Nos sancionará la autoridad, en su opinión?")
        r"\b(will|going to)\b.{0,80}\b(in your (opinion|view)|do you (think|expect|reckon))\b",
        r"\b(secondo (lei|te|voi)|a (suo|tuo|vostro) (avviso|parere)|pensa che|crede che)\b.{0,80}"
        r"\b\w{3,}(?:erà|irà|arà|eranno|iranno|aranno)\b",
        r"\b\w{3,}(?:ará|erá|irá|arán|erán|irán)\b.{0,80}\b(en (tu|su) opinión|a (tu|su) juicio|según usted)\b",
        # the same with the future written "va + infinitive" ("Selon vous, le SPF Finances va-t-il contrôler notre
        # ASBL ?", "L'administration va-t-elle nous exclure, d'après vous ?", "¿Crees que la AEPD nos va a multar?")
        rf"\b{_VIEW_FR}\b.{{0,80}}\b(?:va|vont)(?:-t-(?:il|elle|on|ils|elles))?\s+(?:\w+\s+){{0,2}}\w+(?:er|ir|re)\b",
        rf"\b(?:va|vont)-t-(?:il|elle|on|ils|elles)\b.{{0,80}}\b{_VIEW_FR}\b",
        rf"\b(?:va|vont)\s+(?:\w+\s+){{0,2}}\w+(?:er|ir|re)\b.{{0,80}}\b{_VIEW_FR}\s*\?",
        rf"\b{_VIEW_ES}\b.{{0,80}}\b(?:va|van) a \w+(?:ar|er|ir)\b",
        rf"\b(?:va|van) a \w+(?:ar|er|ir)\b.{{0,80}}\b{_VIEW_ES}\b",
        # what an authority is going to do to the asker, or the fine it will impose ("what fine is the CNIL going
        # to give us?", "Wie hoch wird das Bußgeld ausfallen, das die Behörde gegen uns verhängen wird?", "nos va a
        # multar"): a guess at a decision not yet taken; what a rule provides for ("What fines apply for ...?",
        # "Wie hoch kann das Bußgeld ausfallen?") asks nothing of the kind
        rf"^(?!.*\b(?:estimate|calculate|compute|work out)\b).*?(?:\bwill|\bgoing to|\w['’]ll)\s+(?:\w+\s+)?"
        rf"{_AUTHORITY_ACTS_EN}"
        r"\s+(?:us|me|our)\b",
        r"\bwhat (?:fine|penalty|sanction|amount)s?\b.{0,60}\b(?:will|going to)\b.{0,30}\b"
        r"(?:give|impose|issue|hand|levy|get|receive|pay)\b",
        rf"\b(?:va|vont)(?:-t-(?:il|elle|ils|elles))?\s+(?:vraiment\s+)?(?:nous|me)\s+{_AUTHORITY_ACTS_FR}\b",
        rf"\b(?:nous|me)\s+{_AUTHORITY_WILL_FR}(?:-t-(?:il|elle|ils|elles))?\b",
        rf"\b(?:nos|me)\s+(?:va|van)\s+a\s+{_AUTHORITY_ACTS_ES}\b|\b(?:nos|me)\s+{_AUTHORITY_WILL_ES}\b",
        # a procedure the authority is going to open against the asker ("Is the DPC going to open a formal
        # investigation against us over this, or will they let it slide?"), or the view of an authority's future
        # choice asked for ("Which providers do you expect the ESAs to designate as critical?")
        r"\b(?:going to|will)\s+(?:\w+\s+){0,2}(?:open|launch|start|initiate|bring)\s+(?:a |an )?(?:\w+\s+)?"
        r"(?:investigation|inquiry|enquiry|proceedings?|case|audit)\s+(?:against|into)\s+(?:us|me|our)\b|"
        r"\bwill (?:they|the \w+) let (?:it|this|us) (?:slide|go|off)\b",
        r"\b(?:do|would) you expect\b.{0,80}\bto (?:be |\w+)",
        r"\b(?:wie hoch|welche|was für eine?)\b.{0,40}\b(?:bußgeld|strafe|geldbuße|sanktion)\w*\b.{0,80}\b(?:ausfallen|"
        r"verhängen|bekommen|erhalten|auferlegen)\s+(?:wird|werden)\b",
        r"\b(?:wird|werden)\b.{0,60}\b(?:uns|mich|mir)\b.{0,60}\b(?:bestrafen|sanktionieren|ausschließen|verhängen|"
        r"belangen|büßen)\b",
        r"\b(?:wird|werden)\b.{0,100}\b(?:was meinen sie|was meinst du|was denken sie|was glauben sie|"
        r"ihrer meinung nach|deiner meinung nach)\b",
        # the asker's chances of an outcome ("Selon vous, quelles sont nos chances d'éviter une amende ?")
        r"\b(?:our|my) chances\b|\bwhat are the (?:chances|odds) (?:that|of)\b|"
        r"\bhow likely is it that (?:we|i|they|the)\b|"
        r"\b(?:nos|mes) chances\b|\bquelles (?:sont les )?chances\b|\bnuestras (?:posibilidades|probabilidades)\b|"
        r"\bqu[ée] (?:posibilidades|probabilidades)(?: reales)? (?:tenemos|hay)\b|\bunsere (?:chancen|aussichten)\b|"
        r"\bwie (?:groß|hoch) (?:ist|sind) (?:die|unsere) (?:chance|chancen|wahrscheinlichkeit)\b|\bonze kansen\b",
        # an outcome's likelihood asked as a percentage ("Bitte eine Einschätzung in Prozent.")
        r"\b(?:einschätzung|schätzung|estimate|estimation|estimación|probabilit\w*|wahrscheinlichkeit)\b.{0,15}"
        r"\b(?:in prozent|in percent|as a percentage|en pourcentage|en porcentaje)\b",
        # how markets take it ("Will our share price go up if we publish a net-zero target?", "Steigt unser
        # Aktienkurs, wenn ...?"): a forecast, whatever rule it mentions
        r"\b(?:share|stock) price\b.{0,40}\b(?:rise|go up|fall|drop|increase|decrease|react|move)\w*\b|"
        r"\b(?:steigt|steigen|fällt|fallen|sinkt|sinken)\b.{0,30}\b(?:aktienkurs|börsenkurs|kurs unserer aktie)\w*\b|"
        r"\b(?:aktienkurs|börsenkurs)\w*\b.{0,40}\b(?:steigen|fallen|sinken|reagieren)\b|"
        r"\bcours (?:de (?:l['’]action|bourse)|de nos actions)\b.{0,40}\b"
        r"(?:monter|baisser|augmenter|chuter|réagir)\w*\b|"
        r"\b(?:cotización|precio de (?:la|nuestras) acci[óo]n(?:es)?)\b.{0,40}\b(?:subir|bajar|caer|reaccionar)\w*\b",
    ),
    "CALCULATION": _rx(
        # a figure asked for, not how one is worked out ("how we calculate one of our metrics", "to calculate the
        # ratio, which items count?", "pour calculer notre prorata, faut-il ...?": the rule behind it)
        r"(?<!how we )(?<!how to )(?<!\bto )\b(estimate|calculate|compute|quantify)\b.{0,60}\b(my|our|this|for (?:my|our|a specific|the))\b",
        r"\bhow much (will|would|do|does|should) (i|we|my|our)\b", r"\bwhat (will|would) (my|our)\b.{0,40}\b(be|cost|owe)\b",
        r"(?<!pour )\b(calculer|estimer)\b|\bcombien (vais-je|devons-nous|devrons-nous|dois-je)\b",
        r"(?<!para )\b(calcular|estimar)\b|\bcuánto (tendré|tendremos|pagaré|pagaremos|debo)\b",
        # the asker's own figures to be worked through ("run the numbers for us", "add it up and tell us whether",
        # "welche Strafe droht uns konkret", "¿qué multa nos correspondería?")
        r"\b(run|crunch|do) the (numbers|maths?|math)\b|\badd (it|them|these|those) up\b",
        r"(^|[,;.:]\s*|\b(so|please|and|then)\s+)(compute|calculate|work out|figure out) (whether|if) (we|i|our|the group)\b",
        r"\b(welche|wie hohe?) (strafe|geldbuße|bußgeld|sanktion)\w* (droht|drohen|träfe|trifft) (uns|mir)\b",
        r"\bqué (importe|multa|sanción|cantidad)( de \w+)? nos (correspondería|tocaría|impondrían|pondrían)\b",
        r"\bquelle (amende|sanction|somme) (risquons-nous|devrions-nous payer|nous serait infligée)\b",
    ),
    "OPINION": _rx(
        r"\b(do you think|in your (opinion|view)|your opinion|what do you feel)\b", r"\bshould (we|i) (lobby|support|oppose|campaign)\b",
        r"\b(is|are) (it|the|this|these)\b.{0,40}\b(fair|unfair|good|bad|stupid|wise|justified) (law|laws|rule|rules|regulation|idea)\b",
        r"\b(argue|persuade|convince)\b.{0,30}\b(for|against|that)\b", r"\bwhich (regulation|law) is better\b",
        # argue a case for the asker, in the other languages ("aidez-nous à argumenter", "ayúdenos a argumentar ante",
        # "helfen Sie uns zu argumentieren", "help ons argumenteren", "aiutateci ad argomentare")
        r"\b(argumenter|argumentar|argumentieren|argumenteren|argomentare|plaider|convaincre|persuader|convencer|"
        r"persuadir|überzeugen|overtuigen|convincere)\b.{0,60}\b(que|dass|dat|che|auprès|ante|gegenüber|tegenover|"
        r"contre|contra|gegen|tegen|pour|para|für|voor|per)\b",
        r"\b(pensez-vous|à votre avis|votre opinion|est-ce une bonne loi)\b", r"\b(qué opinas|en tu opinión|crees que|es una buena ley)\b",
        # should-we advocacy or strategy, "is it worth", recommendations (a "should we notify ..." stays allowed)
        r"\bshould (we|i|our (company|firm|bank|group|organi[sz]ation))\b.{0,40}\b(lobby|campaign|support|oppose|join|fight|"
        r"move|relocate|bother|ignore|delay|postpone)\b",
        r"\b(is|would) it (really |even )?(be )?worth\b", r"\bworth the (effort|cost|money|trouble)\b",
        r"\b(would|do) you (recommend|advise)\b",
        r"\b(devrions-nous|devrait-on|notre (entreprise|société) devrait-elle)\b.{0,40}\b(lobbying|soutenir|opposer|combattre)\w*",
        r"\b(ça|cela) vaut(-il)? la peine\b|\bvaut-il la peine\b|\best-il (judicieux|sage)\b",
        r"\b(merece|vale) la pena\b|\bdeber[íi]amos (hacer lobby|apoyar|oponernos)\b",
        r"\b(hältst du|halten sie|deiner meinung nach|ihrer meinung nach|lohnt es sich)\b",
        r"\bsollten wir\b.{0,40}\b(lobby\w*|unterstützen|bekämpfen)\b",
        # a choice between two courses of action the asker could take ("Should we appoint an external DPO or train
        # someone in-house?", "Sollten wir freiwillig berichten, obwohl ...?", "¿Nos conviene ... o ...?"): advice
        r"\bshould (we|i)\b.{0,60}\bor (should (we|i) |would it be better to )?(rather |instead )?"
        r"(train|hire|keep|build|buy|outsource|go|stay|wait|use|appoint|do it|handle)\b",
        r"\bsollten wir\b.{0,60}\b(freiwillig|lieber|besser|trotzdem|obwohl)\b",
        r"\b(ci conviene|nos conviene|vaut-il mieux|il vaut mieux que nous|conviene (nominare|registrarsi|usare))\b",
        r"\b(vindt? (jij|je|u)|de moeite waard|moeten (wij|we) lobbyen)\b", r"\b(secondo te|secondo voi|dovremmo fare pressione)\b",
        # the assistant asked to take the asker's place or to judge the law ("If you were our CFO, what would you do?",
        # "Is DORA too strict?", "the most unfair part of the VAT Directive", "Was meinst du, ist die DSGVO
        # übertrieben?"): a view, not what the text says
        r"\b(what would you do|if you were (me|us|our|in our)|in our (place|shoes))\b",
        # which option shows the asker in the better light ("Between the location-based and the market-based Scope 2
        # figures, which one would make our company look better?"): a choice of presentation, not what the text says
        r"\bmakes? (?:us|our (?:company|firm|group|bank|business|numbers|figures|report|statement)|the (?:company|group)) "
        r"look (?:better|good|best|greener|more \w+)\b|\b(?:besser|grüner) (?:dastehen|aussehen)\b|"
        r"\bnos (?:haga|hace|haría) quedar (?:mejor|bien)\b|\bnous (?:fasse|ferait|fait) para[îi]tre (?:meilleurs?|mieux)\b",
        r"\b(que feriez-vous|que ferais-tu|si vous étiez|si tu étais|à notre place)\b",
        r"\b(qué harías|qué haría usted|si fueras|si fuera usted|en nuestro lugar)\b",
        r"\b(was würden sie (tun|machen)|was würdest du (tun|machen)|an unserer stelle|was meinst du|was meinen sie)\b",
        r"\bselon vous\b",
        r"\b(too|overly|excessively) (strict|harsh|lenient|bureaucratic)\b",
        r"\b(the )?(most|least) (unfair|unjust|absurd|pointless|useless|problematic|burdensome)\b|\bthe worst (part|provision|rule|thing)\b",
        r"\b(trop (stricte?s?|sévères?)|(la|le) pire (disposition|règle|article|partie|mesure))\b",
        r"\b(demasiado (estrict[oa]s?|severa?s?)|lo más (injusto|absurdo))\b",
        r"\b(zu (streng|strikt|bürokratisch)|übertrieben|größte[nr]? fehler|am schlimmsten|am unfairsten)\b",
        r"\b¿?es justo que\b|\bist (es|das) (fair|gerecht),? (dass|wenn)\b",
        r"\b(just bureaucracy|pure bureaucracy|agree\s*\?\s*$)",
        # the rule itself judged ("Is the 72-hour deadline realistic in practice?", "Le délai est-il réaliste ?",
        # "¿Le parece razonable el plazo?", "Finden Sie die Frist angemessen?", "a waste of time for SMEs"): a view of
        # the law, whatever provision it names (a yes/no question opening on the rule, not "Where does it say that we
        # may refuse a request that is manifestly unfounded or excessive?")
        r"^(?:\w+,\s*)?(?:is|are)\b(?:(?!\b(?:when|if|where|that|which|who|whose|because|unless|allowed|permitted|"
        r"possible|required|necessary|lawful)\b)[^?.]){0,80}\b(?:realistic|excessive|overkill|disproportionate|"
        r"too (?:severe|short|long|complicated|complex|burdensome|demanding|far))\b[^?.]{0,40}\?",
        r"\b(?:do|would) you (?:find|consider|say)\b",
        r"\b(?:est-(?:il|elle|ce que)|sont-(?:ils|elles))\b(?:(?!\b(?:quand|si|lorsque|lorsqu|qui|que|dont|"
        r"autorisée?s?|permise?s?|possible|obligatoire|licite)\b)[^?.]){0,80}\b(?:réaliste|excessi(?:f|ve)s?|"
        r"disproportionnée?s?|"
        r"trop (?:court|long|lourd|compliqué|complexe|exigeant)e?s?)\b[^?.]{0,40}\?",
        r"\bune perte de (?:temps|argent)\b|\bp[ée]rdida de (?:tiempo|dinero)\b|\bzeitverschwendung\b",
        r"\b(?:le|te|les|os) parecen?\b[^?.]{0,60}\b(?:razonables?|realistas?|excesiv[oa]s?|just[oa]s?|adecuad[oa]s?|"
        r"proporcionad[oa]s?)\b",
        r"\b(?:finden|halten) sie\b[^?.]{0,60}\b(?:angemessen|realistisch|sinnvoll|fair|gerecht|verhältnismäßig)\b",
        # the asker's way around a rule ("the easiest way to get around the register", "Wie können wir die
        # Mehrwertsteuer umgehen?", not "mit ... umgehen", to deal with; not how a rule prevents others from
        # circumventing it, which the law says) and where it bites least ("the most lenient authority", "am
        # nachsichtigsten"), or which option suits the asker best ("Which regime is more favourable for us?"): advice
        r"\b(?:way|ways|how) (?:to|can (?:we|i)|do (?:we|i)) (?:legally )?"
        r"(?:get around|circumvent|sidestep|dodge|evade)\b|"
        r"\bloopholes? (?:we|i) can\b|\b(?:any|a) loopholes?\b",
        r"\b(?:comment|moyen de) (?:légalement )?(?:contourner|éluder)\b|\b(?:cómo|manera de|forma de) (?:legal )?"
        r"(?:eludir|sortear|esquivar|burlar)\b|\bschlupfl[öo]ch\w*\b",
        r"\b(?:wir|ich)\b(?:(?!\bmit\b)[^?.]){0,60}\b(?:umgehen|aushebeln)\b",
        r"\bmost (?:lenient|business-friendly|relaxed)\b|\bleast (?:strict|severe)\b|"
        r"\b(?:more|most) (?:favourable|favorable|advantageous|beneficial) for (?:us|me|our)\b",
        r"\b(?:le|la|les) (?:plus|moins) (?:clément|indulgent|laxiste|sévère)e?s?\b|"
        r"\bplus (?:avantageux|favorable)(?:se)? pour nous\b",
        r"\b(?:el|la|los|las) más (?:permisiv|indulgent|laxa|benévol)\w*\b|"
        r"\bmás (?:ventajos[oa]|favorable) para nosotros\b",
        r"\bam (?:nachsichtigsten|mildesten|kulantesten|großzügigsten)\b|\b(?:günstiger|vorteilhafter) für uns\b",
        # advice on choosing an approach for an outcome ("which threshold should we pick so that we can leave out
        # ...", "how should we word it so that we don't have to ...", "pour éviter de payer ...")
        r"\bshould (we|i|our \w+) (adopt|pick|choose|select|use|set|define|word|phrase|structure|frame|classify|"
        r"interpret|draw|design)\b.{0,80}\bso( that)? (we|i|it|they)\b",
        r"\b(avoid|get around|circumvent|escape) (having to|paying|reporting|disclosing|notifying|the obligation)\b",
        r"\bpour (éviter de (payer|déclarer|publier|notifier)|ne pas avoir à|contourner)\b",
        r"\bpara (evitar (pagar|declarar|notificar|informar)|no tener que|eludir)\b",
        r"\bum\b.{0,40}\b(zu umgehen|nicht .{0,20}zu müssen)\b",
    ),
    "PERSONAL_DATA_ANALYSIS": _rx(
        r"\b(analy[sz]e|review|check|process|go through|screen)\b.{0,40}\b(my|our|this|these|attached)\b.{0,30}\b(customer|client|employee|patient|user)s?\b.{0,20}\b(data|list|records?|files?|spreadsheet|database)\b",
        r"\b(analyser|examiner|vérifier)\b.{0,40}\b(données|fichier|liste)\b.{0,30}\b(clients?|salariés?|employés?)\b",
        r"\b(analizar|revisar)\b.{0,40}\b(datos|fichero|lista)\b.{0,30}\b(clientes?|empleados?)\b",
    ),
    "OUT_OF_DOMAIN": _rx(  # creative writing is outside the product whatever its topic ("a poem about GDPR")
        r"\b(write|compose|give|make)( me| us)? (a|an|some) (poem|song|limerick|haiku|rap|joke|story|sonnet|ballad)s?\b",
        r"\btell me a joke\b",
        r"\b(écris|écrivez|compose|composez)[- ](moi|nous) (un|une) (poème|chanson|limerick|haïku|histoire)\b",
        r"\braconte[- ]moi une blague\b",
        r"\b(escr[íi]beme|comp[óo]nme) (un|una) (poema|canción|cuento)\b|\bcuéntame un chiste\b",
        r"\b(schreib|schreibe|schreiben sie)( mir| uns)? (ein|einen|eine) (gedicht|lied|märchen|rap|rap-song|song|"
        r"reim|limerick|haiku|geschichte|ballade)\b|\berzähl( mir)? einen witz\b",
        r"\b(écris|écrivez|compose|composez)[- ](moi|nous) (un|une) (rap|slam|sonnet|conte|ballade)\b",
        r"\b(escr[íi]beme|comp[óo]nme) (un|una) (rap|soneto|chiste|historia)\b",
        r"\bschrijf( me| ons)? een (rap|liedje|verhaal|sonnet|mop)\b", r"\bscrivimi (un|una) (rap|sonetto|storia|barzelletta)\b",
        r"\bschrijf( me| ons)? een (gedicht|lied)\b", r"\bscrivimi una (poesia|canzone)\b|\braccontami una barzelletta\b",
        # code and personal messages are outside the product too, whatever they mention
        r"\b(write|draft|create|generate|give|code)( me| us)? (a|an|some)\b.{0,40}\b(function|script|program|regex|"
        r"regular expression|sql query|macro|formula|birthday|anniversary|retirement|farewell|thank-you|wedding|toast)\b",
        r"\b(python|javascript|typescript|java|sql|excel|vba|c\+\+|bash|powershell)\b.{0,30}"
        r"\b(function|functie|funktion|función|fonction|script|skript|code|código|query|formula|formule|formel|macro)\b",
        r"\b(function|script|code|query|formula|macro)\b.{0,20}\b(in|en|auf|op) (python|javascript|typescript|java|sql|excel|vba|bash)\b",
        r"\b(rédige|rédigez|écris|écrivez)(-moi|-nous| moi| nous)? (un|une)\b.{0,40}\b(anniversaire|remerciement|départ|retraite|"
        r"humoristique|drôle|blague|fonction|script|code|formule|macro)\w*",
        r"\b(escríbeme|escribe|escriba|redacta|redáctame)\b.{0,40}\b(cumpleaños|chiste|gracios\w+|función|script|código|fórmula)\b",
        r"\b(schreib|schreibe|schreiben sie)\b.{0,40}\b(geburtstag\w*|lustig\w*|witz\w*|funktion|skript|code|formel)\b",
        r"\b(schrijf|schrijven)\b.{0,40}\b(verjaardag\w*|grappig\w*|functie|script|code|formule)\b",
        # a program's error to fix ("df.merge(...) throws TypeError: 'NoneType' object is not subscriptable")
        r"\b(TypeError|ValueError|KeyError|AttributeError|IndexError|NameError|SyntaxError|ImportError|"
        r"ModuleNotFoundError|ZeroDivisionError|NullPointerException|Traceback \(most recent call last\)|stack ?trace|"
        r"segmentation fault)\b|\b(fix|debug) (this|my|our|the) (code|bug|script|query|function|macro|formula)\b",
        # a device, a login or a program failing, with its error code or a help-desk ask ("no se conecta a la VPN (error
        # 809). ¿Qué hago?", "« erreur 0x000003e3 ». Que faire ?", "'ORA-00942: table or view does not exist'")
        r"\b(error|erreur|fehler|fehlercode|code d['’]erreur|código de error)\s*:?\s*(0x[0-9a-f]{4,}|\d{3,})\b|"
        r"\b0x[0-9a-f]{6,}\b|\bORA-\d{5}\b|\bHTTP (error )?[45]\d\d\b",
        rf"{_DEVICE_TROUBLE}.{{0,160}}\b{_HELPDESK_ASK}|\b{_HELPDESK_ASK}.{{0,160}}{_DEVICE_TROUBLE}",
        # a text to translate ("Please translate this sentence into Dutch: ...", "Traduce al inglés este correo"):
        # the assistant answers from the texts, it is no translation service
        r"^\W*(please |pls |can you |could you |would you )?(translate|traduis|traduisez|traduce|tradúceme|"
        r"traduzca|tradúzcame|übersetze|übersetz|vertaal|traduci|traduca)\b",
        r"\b(version|versión|fassung|übersetzung|traducción|traduction|translation) (en|in|auf|into|al) "
        r"(français|francés|french|anglais|inglés|english|allemand|alemán|german|deutsch|englisch|französisch|"
        r"espagnol|español|spanish|"
        r"spanisch|néerlandais|neerlandés|dutch|niederländisch|italien|italiano|italian|italienisch)\b.{0,40}"
        r"\b(of this|of the following|de cette|de ce|de esta|de este|de la siguiente|dieser|dieses|des folgenden)\b",
        r"\b(french|english|german|spanish|dutch|italian) (version|translation) of (this|these|the following|our)\b",
        r"\b(can|could|would) you (please )?translate\b|\bpouvez-vous (me |nous )?traduire\b|"
        r"\b(puedes|podrías|puede|podría) (traducir|traducirme)\b|"
        r"\b(kannst du|können sie|könnten sie)\b.{0,60}\bübersetzen\b",
    ),
}

# The best course for the asker, or a recommendation asked of the assistant ("identification directe ou représentant :
# quelle est la meilleure option pour nous ?", "¿Nos recomiendas usar X o Y?", "Lohnt sich der Aufwand?"): what the
# texts provide does not say which option suits a firm. An opinion unless the classifier reads its topic as out of
# the domain ("¿Me recomiendas una serie para este fin de semana?"): see :func:`decide`.
ADVICE_ASKED = _rx(
    r"\b(the )?best (option|choice|approach|route|solution|strategy|way forward) for (us|me|our)\b",
    r"\b(la )?meilleure (option|solution|stratégie|approche|voie) pour (nous|moi|notre)\b|"
    r"\b(nous|me) (conseillez|recommandez|conseilles|recommandes)(-vous|-tu)?\b",
    r"\b(la )?mejor (opción|solución|estrategia|alternativa|vía) para (nosotros|nosotras|mí|nuestr[oa])\b|"
    r"\b(nos|me) (recomiendas|recomienda|recomendarías|recomendaría|aconsejas|aconseja|aconsejarías)\b",
    r"\b(die )?beste (option|lösung|strategie|wahl|variante|vorgehensweise) für (uns|mich)\b|"
    r"\b(empfiehlst du|empfehlen sie|rätst du|raten sie) (uns|mir)\b|\blohnt sich\b",
    r"\b(beste optie voor ons|raad (je|u) ons aan)\b|\b(la soluzione migliore per noi|ci consigli|ci consiglia)\b",
)

# One contact identifier counts as data to analyse when the question asks to check or process it.
ANALYSIS_VERBS = re.compile(
    r"\b(analy[sz]e|review|check|assess|screen|go through|match|profile|évaluer|analyse[rz]|vérifie[rz]?|examine[rz]|"
    r"analiza[r]?|revisa[r]?|comprueba|prüfe[n]?|analysiere[n]?|kontrolliere[n]?|controleer|verifica|analizza)\b",
    re.IGNORECASE)
# One of these is enough: accounts, cards, national ids and passports, dates of birth (an address alone may be a
# business's: it counts as one identifier).
STRONG_IDENTIFIERS = {"IBAN", "CARD", "ES_DNI", "ES_NIE", "IE_PPSN", "UK_NINO", "FR_NIR", "PL_PESEL", "IT_FISCAL_CODE",
                      "NL_BSN", "DE_TAX_ID", "BE_NN", "ID_NUMBER", "PASSPORT", "DATE_OF_BIRTH"}
# A person's name alone is no data to analyse ("What did Max Schrems challenge?"): it counts with an identifier.
NAME_TYPES = {"PERSON"}

# What a refused type needs in the question before the classifier's leaning to it counts towards a refusal
# (:func:`with_required_evidence`). An analysis of personal data needs personal data (the detectors) or a file or
# list about people to analyse; a calculation needs figures or an amount asked for. Realistic questions that tell
# the asker's situation ("our client has its seat in Paris but its Milan branch uses the service") lean to these
# types by their words alone, and a wrong refusal leaves the analyst with nothing.
DATASET_WORDS = _rx(
    r"\b(csv|xlsx?|excel|spreadsheet|database|data ?base|export|extract|file|files|list|table|crm|records|dataset)\b",
    r"\b(fichier|liste|tableau|base de donn[ée]es|extrait|dossiers)\b", r"\b(fichero|archivo|lista|tabla|base de datos|"
    r"hoja de c[áa]lculo|registros)\b", r"(datei|liste|tabelle|datenbank|export|datens[äa]tze)\b",
    r"(bestand|lijst|tabel)\b", r"\b(elenco|tabella|archivio)\b")
PEOPLE_WORDS = _rx(
    r"\b(customers?|clients?|users?|employees?|staff|workers?|patients?|members?|applicants?|candidates?|students?|"
    r"subscribers?|tenants?|donors?|volunteers?|people|persons?|individuals?|hr)\b",
    r"\b(clients?|clientes?|utilisateurs?|salariés?|employés?|personnel|patients?|membres?|candidats?|"
    r"usuarios?|empleados?|pacientes?|miembros?|candidatos?)\b", r"(kunde\w*|nutzer\w*|mitarbeite\w*|beschäftigte\w*|"
    r"patient\w*|mitglied\w*|bewerber\w*|personal\w*)", r"(klant\w*|gebruiker\w*|medewerker\w*|werknemer\w*|"
    r"personeel\w*|pati[ëe]nt\w*)", r"\b(clienti|utenti|dipendenti|pazienti)\b")
AMOUNT_WORDS = _rx(
    r"\d", r"\b(how much|amount|sum|total|cost|costs|price|fine|fines|penalty|penalties|calculat\w*|comput\w*|"
    r"work out|estimat\w*|quantif\w*)\b", r"\b(montant|somme|co[ûu]t|amende|p[ée]nalit[ée]|calcul\w*|estim\w*|"
    r"combien (?:de tva|d['’]amende|devons|allons|dois|co[ûu]te))", r"\b(importe|cantidad|cu[áa]nto|coste|multa|"
    r"sanci[óo]n|calcul\w*|estim\w*)\b", r"\b(betrag|summe|kosten|strafe|bu[ßs]geld|berechn\w*|sch[äa]tz\w*|"
    r"wie ?viel)", r"\b(bedrag|kosten|boete|bereken\w*|schat)\b", r"\b(importo|costo|multa|sanzione|calcol\w*|stima)\b")


# An opinion asked for ("should we…?", "do you recommend…?", "is it worth…?") against what the rules allow or require
# ("can we simply leave out E1, or do we have to explain?", "may we charge for it?", and of another actor: "how long
# can it stay online?", "peut-il se dispenser de ...?", "darf sie ...?"): the latter is a question on the text, however
# much it sounds like asking for advice, unless it also asks for a view.
PERMISSION_WORDS = _rx(
    r"\b(can|could|may|must) (we|i|one|they|it|he|she|a company|an? \w+|the \w+|our \w+)\b|\b(do|does|did) (we|i|they) (have|need) to\b|"
    r"\b(are|am|is) (we|i|it|they) (allowed|permitted|required|obliged|entitled)\b|\bare we covered\b",
    r"\b(pouvons-nous|on peut|devons-nous|on doit|faut-il(?! qu)|sommes-nous (tenus|obligés|autorisés)|"
    r"(peut|peuvent|pourrai(t|ent)|doit|doivent)-(t-)?(on|il|elle|ils|elles)|"
    r"avons-nous le droit|est-il permis)\b",
    r"\b(podemos|puede|debemos|tenemos que|hay que|estamos obligados|se puede|está permitido)\b",
    r"\b(dürfen|können|müssen) (wir|ich|sie)\b|\b(darf|kann|muss) (er|sie|es|man)\b|\b(sind wir|ist es) (verpflichtet|erlaubt|zulässig)\b|\bdarf man\b")
OPINION_WORDS = _rx(  # "should a / an / each ..." asks what binds an actor of the law ("How often should a financial
    # entity carry out threat-led penetration testing?"), not for advice
    r"\b(should(?! (?:a|an|each|every|any) )|ought|recommend\w*|advis\w*|advice|worth|best|better|wise|smart|"
    r"good idea|would you|do you think|your (view|opinion|take)|in your opinion|prefer\w*|lobby\w*|suggest\w*)\b",
    r"\b(devrions|devrait|faudrait|conseill\w*|recommand\w*|vaut-il|vaut la peine|mieux|pensez-vous|votre avis|selon vous|"
    r"préfér\w*)\b",
    r"\b(deberíamos|debería|recomiend\w*|recomend\w*|aconsej\w*|vale la pena|mejor|opina\w*|cree usted|prefer\w*)\b",
    r"\b(sollten|sollte|empfehl\w*|rat\w*|lohnt|besser|meinen sie|halten sie|ihre meinung|bevorzug\w*)\b")

# A question asking what an act provides, in the sentence that asks ("Au sens de DORA, parle-t-on d'un incident ?",
# "Quelle solution DORA prévoit-il dans ce cas ?", "Regeln die Standards, wie wir ...?", "How does DORA decide whether
# we count as ...?", "Que faut-il entendre par X ?"): told after the asker's situation, or in words that read like a
# request for advice to the classifier, it asks for the text, unless it also asks for a view (OPINION_WORDS)
ASKS_WHAT_THE_TEXT_PROVIDES = _rx(
    r"\b(gdpr|dora|esrs|vat directive|the directive|the regulation|the standards?)\b.{0,40}\b(provide|provides|say|says|"
    r"decide|decides|treat|treats|define|defines|require|requires|allow|allows|regulate|regulates)\b",
    r"\bau sens (de|du|des)\b|\bprévoi[tn]\w*|\bimposent?\b|\bselon (le|la|les) (rgpd|dora|esrs|directive|règlement)\b",
    r"\b(según|conforme a|a efectos de)\b.{0,30}\b(rgpd|dora|esrs|directiva|reglamento)\b|\b(prevé|establece|dispone)\b",
    r"\b(im sinne|nach|gemäß)\b.{0,20}\b(dsgvo|dora|esrs|richtlinie|verordnung)\b|\b(regeln|regelt)\b|\bsieht\b.{0,30}\bvor\b",
    # what a term means ("Que faut-il entendre par économie circulaire dans les ESRS ?", "What is meant by ...?")
    r"\b(what is meant by|the (meaning|definition) of|qu['’]entend-on par|(faut-il|doit-on) (entendre|comprendre) par|"
    r"que (signifie|désigne)|la définition d|qué se entiende por|qué significa|la definición de|"
    r"was (versteht man unter|bedeutet)|die definition)\b",
    # the penalties an act lays down for infringing it ("Welche Sanktionen drohen bei Verstößen gegen DORA?", "What
    # fines apply for breaches of the GDPR?"): the classifier, with few such allowed questions, reads a prediction or
    # an opinion in "drohen"; the asker's own case is a calculation (its rule goes first)
    PENALTY_FOR_INFRINGEMENT)
# A view of what will happen, in the sentence that asks: a prediction's evidence against ASKS_WHAT_THE_TEXT_PROVIDES
PREDICTION_WORDS = _rx(
    _FUTURE, r"\b(likely|probabl[ey]|realistically|expect\w*|future|wahrscheinlich|voraussichtlich|künftig|zukünftig|"
    r"wird|werden (wir|sie|die|der|das)|probablement|vraisemblablement|à l['’]avenir|probablemente|en el futuro|"
    r"waarschijnlijk|zal|zullen|probabilmente|in futuro|\w{3,}(?:erà|irà|arà|eranno|iranno|aranno))\b")

ALLOWED_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("COMPARISON", _rx(r"\b(compare|comparison|difference|differ|differs|versus|vs\.?|compared (to|with)|between .* and)\b",
                       r"\b(comparer|différence|par rapport à)\b", r"\b(comparar|diferencia|frente a)\b",
                       r"\b(unterschied\w*|unterscheid\w*|vergleich\w*)\b", r"\b(verschil\w*|vergelijk\w*)\b",
                       r"\b(differenza|differiscono|confronta\w*)\b")),
    ("DEADLINE", _rx(r"\b(when|deadline|by when|within how|how long|time limit|how soon|by what date|timeline)\b",
                     r"\b(quand|délai|date limite|dans quel délai|au plus tard)\b", r"\b(cuándo|plazo|fecha límite)\b",
                     r"\b(wann|bis wann|ab wann|frist\w*|innerhalb welcher|wie lange|wie schnell)\b",
                     r"\b(wanneer|termijn|binnen welke|hoe lang|uiterlijk)\b", r"\b(quando|entro quando|entro quanto|scadenza|per quanto tempo)\b")),
    ("PROVENANCE", _rx(r"\b(which article|what article|where (does|is|in)|source of|which provision|legal basis for|cite|reference)\b",
                       r"\b(quel article|quelle disposition|quelle source)\b", r"\b(qué artículo|qué disposición|qué fuente)\b",
                       r"\b(welche[rs]? (artikel|vorschrift|bestimmung)|in welchem (artikel|esrs)|wo (ist|steht|regelt))\b",
                       r"\b(welk artikel|welke bepaling|waar (staat|staan))\b", r"\b(quale articolo|quale disposizione|in quale articolo|dove (è|sono))\b")),
    ("APPLICABILITY", _rx(r"\b(appl(y|ies|icable) to|scope|subject to|covered by|who (must|is required|has to)|exempt|in scope)\b",
                          r"\b(s'applique|champ d'application|assujetti|soumis à|exonér)\w*", r"\b(se aplica|ámbito|sujeto a|exent)\w*",
                          r"\b(anwendbar|anwendungsbereich|fällt|fallen|erfasst|befreit|unterliegt|unterliegen)\b|^(gilt|gelten)\b",
                          r"\b(van toepassing|vrijgesteld)\b|\b(valt|vallen)\b.{0,40}\bonder\b|^geldt\b",
                          r"\b(si applica|si applicano|rientra\w*|ambito di applicazione|esent\w*|soggett\w*)\b")),
    ("OBLIGATION", _rx(r"\b(must|shall|required|requirement|obligation|obliged|have to|need to|duty|duties)\b",
                       r"\b(doit|doivent|obligation|tenu de|exigence)\w*", r"\b(debe|deben|obligación|tiene que|requisito)\w*",
                       r"\b(muss|müssen|pflicht\w*|verlangt|erforderlich|vorgeschrieben)\b", r"\b(moet|moeten|verplicht\w*)\b",
                       r"\b(deve|devono|obblig\w*|requisit\w*)\b")),
    ("DEFINITION", _rx(r"\b(what (is|are)|define|definition|meaning|means|explain)\b",
                       r"\b(qu'est-ce|définition|qu'entend-on|signifie)\b", r"\b(qué es|qué son|definición|significa)\b",
                       r"\b(was (ist|sind|bedeutet|versteht)|bedeutet|begriff)\b", r"\b(wat (is|zijn|betekent)|betekent|definitie)\b",
                       r"(\bche cos'è|\bcos'è|\bcosa (significa|si intende)|\bsignifica\b|\bdefinizione\b)")),
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
    r"\b(verordnung\w*|richtlinie\w*|artikel\w*|gesetz\w*|pflicht\w*|verpflicht\w*|datenschutz\w*|personenbezogen\w*|"
    r"verarbeit\w*|verantwortlich\w*|auftragsverarbeit\w*|meldung\w*|melde\w*|frist\w*|steuer\w*|mehrwertsteuer\w*|"
    r"umsatzsteuer\w*|rechnung\w*|aufsicht\w*|behörde\w*|bußgeld\w*|sanktion\w*|risiko\w*|finanz\w*|versicher\w*|"
    r"nachhaltigkeit\w*|bericht\w*|einwilligung\w*|betroffene\w*|dsgvo|datenpanne\w*|gemeldet|melden|vorfall\w*|vorfäll\w*)\b",
    r"\b(verordening\w*|richtlijn\w*|verplicht\w*|verwerk\w*|persoonsgegevens|gegevensbescherming|avg|btw|factu\w*|"
    r"toezicht\w*|melding\w*|termijn\w*|boete\w*|belasting\w*|financi\w*|duurzaamheid\w*|toestemming)\b",
    r"\b(regolament\w*|direttiv\w*|articol\w*|leggi?|obblig\w*|trattamento|dati|iva|fattur\w*|autorità|vigilanza|"
    r"notific\w*|sanzion\w*|impost\w*|finanziar\w*|sostenibilità|consenso|titolare)\b",
)

# The figures of the asker's own case: amounts of money, quantities with a unit, dates and clock times (not article
# numbers or a bare year, which name a rule or its date)
_SCALE = (r"(?:\s?(?:million|billion|bn|mn|k|mio\.?|mrd\.?|millions?|milliards?|millones|mill[óo]n|milliarden?|"
          r"millionen?))?")
MONEY_FIGURE_RE = re.compile(
    rf"(?:[€$£]|\b(?:EUR|USD|GBP))\s?\d[\d.,\u202f\u00a0 ]*{_SCALE}|"
    rf"\b\d[\d.,\u202f\u00a0]*{_SCALE}\s?(?:€|\b(?:EUR|USD|GBP|euros?|dollars?|pounds?)\b)", re.IGNORECASE)
# a month's name in the four languages, for the dates of a case below
_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|janvier|février|"
          r"mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|"
          r"julio|agosto|septiembre|octubre|noviembre|diciembre|januar|februar|märz|juni|juli|oktober|dezember)")
CASE_FIGURE_RE = re.compile(
    MONEY_FIGURE_RE.pattern + r"|"
    r"\b\d[\d.,]*\s?(?:%|(?:MWh|kWh|GWh|TWh|tCO2e?|t|tonnes?|tons?|toneladas?|tonnen|kg|km|m²|m2|m3|litres?|liters?|"
    r"hours?|heures?|horas?|stunden|days?|jours?|d[íi]as?|tage[n]?|employees?|salari[ée]s|empleados|mitarbeiter\w*|"
    r"invoices?|factures?|facturas?|rechnungen|men|women|hommes|femmes|hombres|mujeres|männer|frauen)\b)|"
    rf"\b\d{{1,2}}(?:er|st|nd|rd|th|\.)?\s+(?:de\s+)?{_MONTH}\b|"
    r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b\d{1,2}(?::|h)\d{2}\b", re.IGNORECASE)
# a figure asked for: how much, how many, what total or amount, in euros
FIGURE_ASKED_RE = _rx(
    r"\bhow (?:much|many)\b|\bin (?:euros?|eur|dollars?)\b|\bwhat (?:is|would be|will be|are) (?:the|our) (?:total|"
    r"amount|exact|resulting|maximum|max)\b|\bwhat (?:amount|total)\b",
    r"\bcombien\b|\ben euros?\b|\bquel (?:montant|total)\b|\bà combien\b",
    r"\bcu[áa]nt[oa]s?\b|\ben euros?\b|\bqu[ée] (?:importe|cantidad|total)\b",
    r"\bwie (?:viel|viele|hoch)\b|\bin euro\b|\bwelche[rn]? (?:betrag|summe)\b",
    # the value the asker is to report or apply for its figures ("1,950,000 hours worked and 7 recordable injuries:
    # what rate do we report?", "What deduction prorata do we apply?", "Quel sera concrètement le montant de la
    # sûreté ?", "Welche durchschnittliche Zahlungsdauer geben wir an?"), what it costs them, or when their own
    # figures crossed a threshold ("À quel moment avons-nous dépassé le seuil ?")
    r"\bwhat (?:\w+[\s-]+){0,3}(?:rate|prorata|pro rata|percentage|ratio|average|figure|value|number)\b[^?]{0,60}"
    r"\b(?:do|should|must|would|will) (?:we|i) (?:report|apply|disclose|declare|use|enter|state|show)\b|"
    r"\bwhat is the (?:net |total |final |real )?(?:\w+\s+){0,2}cost (?:for|to) (?:us|me)\b",
    r"\bquel(?:le)?s? (?:sera|serait|est) (?:concrètement |exactement )?(?:le |la |notre )(?:montant|taux|prorata|"
    r"pourcentage|ratio|moyenne|coût)\b",
    r"\bqu[ée] (?:\w+\s+){0,2}(?:tasa|prorrata|porcentaje|ratio|media)\b[^?]{0,60}\b(?:aplicamos|declaramos|"
    r"publicamos|indicamos|reportamos|informamos|tenemos|debemos (?:declarar|aplicar|publicar|indicar|reportar|"
    r"informar|comunicar|divulgar))\b",
    r"\bquel(?:le)?s? (?:\w+\s+){0,2}(?:taux|prorata|pourcentage|ratio|moyenne|part)\b[^?]{0,60}\b(?:avons-nous|"
    r"appliquons-nous|publions-nous|déclarons-nous|indiquons-nous|devons-nous (?:publier|déclarer|indiquer|appliquer|"
    r"reporter|communiquer))\b",
    r"\bwelche[nrs]? (?:\w+\s+){0,2}(?:quote|rate|zahlungsdauer|kennzahl|prozentsatz|anteil|durchschnitt)\b[^?]{0,60}"
    r"\b(?:geben wir an|melden wir|weisen wir aus|wenden wir an|setzen wir an)\b",
    r"\b(?:à quel moment|quand|when|wann|cuándo)\b[^?]{0,30}\b(?:avons-nous|did we|have we|haben wir|hemos)\b"
    r"[^?]{0,30}\b(?:dépassé|exceeded|passed|crossed|überschritten|superado)\b",
    r"\b(?:do|did|have) we (?:exceed|pass|cross)\b|\bdépassons-nous\b|\büberschreiten wir\b|\bsuperamos\b")
MIN_CASE_FIGURES = 2
# a date of the asker's own case given as month and year ("Unser letzter TLPT war im Oktober 2022")
CASE_MONTH_RE = re.compile(
    rf"\b{_MONTH}\s+(?:de\s+)?(?:19|20)\d{{2}}\b|"
    r"\b(?:first|second|third|fourth|premier|deuxième|troisième|quatrième|primer|segundo|tercer|cuarto|ersten|zweiten|"
    r"dritten|vierten) (?:quarter|trimestre|quartal)(?: of| de| del)? (?:19|20)\d{2}\b|"
    r"\b(?:Q|T)[1-4][ /-]?(?:19|20)\d{2}\b",
    re.IGNORECASE)
# the exact date the case comes to ("Bis zu welchem konkreten Datum ...?", "by what exact date", "à quelle date
# précise"): the deadline a rule sets is asked without such a word
EXACT_DATE_ASKED_RE = _rx(
    r"\b(?:which|what) (?:exact|specific|concrete|precise|actual) (?:date|day)\b|\bon what date exactly\b",
    r"\b(?:quelle|quel) (?:date|jour) (?:précise|précis|exacte?|concrète?)\b|\bdate (?:précise|exacte)\b",
    r"\bqu[ée] (?:fecha|día) (?:exact[oa]|concret[oa]|precis[oa])\b|\bfecha (?:exacta|concreta)\b",
    r"\bwelche[mnr]? (?:konkreten|genauen|exakten) (?:datum|tag|stichtag)\b|\b(?:konkrete|genaue)[sn]? datum\b|"
    r"\b(?:an |bis zu )?welche[mnr]? (?:datum|tag) genau\b",
    # a calendar day or date asked ("Bis zu welchem Kalenderdatum ...?", "the very last calendar day on which we can
    # reply"): the deadline a rule sets is a period, the calendar day is where the case's own date puts it
    r"\bcalendar (?:day|date)\b|\bkalender(?:datum|tag)\b|\b(?:jour|date) calendaire\b|\bd[íi]a natural\b|"
    r"\bfecha (?:de|del) calendario\b|"
    r"\b(?:exact|precise) (?:deadline|due date|last day)\b|\bdate limite (?:exacte|précise)\b|"
    r"\bfecha l[íi]mite (?:exacta|concreta)\b|\b(?:genaue|exakte|konkrete) (?:frist|fälligkeit|abgabefrist)\b")
