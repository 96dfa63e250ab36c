"""Words of a question standing for something an earlier question named, read by both the context decision (which
passages a follow-up is searched with) and the offline composer (which question a follow-up's sentences answer)."""

from __future__ import annotations

import re

from regintel.text.normalise import fold_for_comparison

# "one" standing for a thing the previous question named ("Do we have to report one to the supervisory authority?"
# after "What is a personal data breach?", "Do we need one?"), not a number or part of a name ("one of", "one year",
# "one stop shop"); the French "en ... un" and the Spanish "uno" closing the question ("Faut-il en désigner un ?",
# "¿Debemos nombrar uno?"): folded
PRONOUN_ONE_RE = re.compile(
    r"(?<!\bthe )(?<!\bany )(?<!\beach )(?<!\bno )(?<!\bonly )\bone\b(?= *$| (?:to|for|if|when|in|at|on|with|as|"
    r"before|after|and|or|too|also|now|under|by|from|yet|even|again|ourselves|myself|themselves)\b)|"
    r"\ben [a-z]+ (?:un|une)$|\b(?:uno|una)$|"
    # "Which one applies to direct marketing?", "Laquelle s'applique ... ?" pick among what the previous answer listed
    # (not "which one of the supervisory authorities ...", which names what it picks among)
    r"^(?:and |et |y )?(?:which one|which ones|lequel|laquelle|lesquels|lesquelles)\b(?! of\b)")


# pronouns that, as the whole of what a follow-up puts in the previous question's place ("What about them?", "Et eux
# ?"), stand for something named before and name no other term (lower case, as written). Wider than the words the
# context decision reads as referring back inside a question (``context_decision.BACK_REFERENCES``): there "es" and
# "sie" would be the Spanish verb and the German polite "Sie"
STANDING_PRONOUNS = frozenset("it them they that this those these cela ça ca ceci eux elle elles lui ello eso esto "
                              "ellos ellas das dies diese sie ihn es".split())


def stands_for_something_named_before(question: str) -> bool:
    """Whether "one" (or "en ... un", "uno", "which one") in ``question`` stands for a thing an earlier question
    named: "How long do we have to report one to the supervisory authority?" after a question on personal data
    breaches."""
    return bool(PRONOUN_ONE_RE.search(fold_for_comparison(question)))
