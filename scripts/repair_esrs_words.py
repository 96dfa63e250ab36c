"""Put back the "th" the ESRS conversion turned into "p" in 160 lines of its text ("pe undertaking" for "the
undertaking", "wip" for "with", "pird-party" for "third-party").

The upstream markdown (a PDF conversion, see ``repair_esrs_headings.py``) lost the "th" ligature in some paragraphs:
about one line in sixty reads "(a) pey may influence pe undertaking's ability to ...". An analyst saw it in the
quotes of answers, and search lost the words: "through", "threshold", "whether", "third" or "methodology" were not
in those passages for BM25 or the embedding model. Every corrupted word of the file is listed below with the number
of times the upstream text holds it (after the heading repair); each was found by the same check (the word never
occurs in a line of the corpus that the defect did not reach, and reads as a word of the corpus once "p" is "th"),
and read in its contexts: "pose" is "those" and "pan" is "than" wherever they occur in this file. The script fails
when a count differs, instead of guessing on a text it was not written for. A word keeps its capital ("Pe" ->
"The").

Usage: ``python scripts/repair_esrs_words.py <in.md> <out.md>`` (on the output of ``repair_esrs_headings.py``;
prints the edits).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# corrupted word (lower case) -> (the word it stands for, how many times the upstream text holds it, any case)
LOST_TH: dict[str, tuple[str, int]] = {
    "pe": ("the", 286), "pat": ("that", 43), "wip": ("with", 33), "wheper": ("whether", 16), "peir": ("their", 14),
    "prough": ("through", 12), "oper": ("other", 12), "opers": ("others", 1), "wipin": ("within", 9),
    "pey": ("they", 6), "pose": ("those", 8), "pem": ("them", 5), "pemselves": ("themselves", 1),
    "presholds": ("thresholds", 5), "preatened": ("threatened", 5), "preaten": ("threaten", 1),
    "preat": ("threat", 4), "pese": ("these", 6), "pan": ("than", 3), "wipout": ("without", 3),
    "mepodology": ("methodology", 2), "mepod": ("method", 2), "pird": ("third", 2), "aupority": ("authority", 2),
    "auporities": ("authorities", 1), "auporized": ("authorized", 1), "raper": ("rather", 2),
    "furpermore": ("furthermore", 2), "pis": ("this", 2), "bop": ("both", 2), "togeper": ("together", 1),
    "pere": ("there", 1), "proughout": ("throughout", 1), "healp": ("health", 1), "pree": ("three", 1),
    "weaper": ("weather", 1), "eiper": ("either", 2),
}
WORD_RE = re.compile(r"\b(" + "|".join(sorted(LOST_TH, key=len, reverse=True)) + r")\b", re.IGNORECASE)


class RepairError(ValueError):
    """The text is not the one this repair was written for (a corrupted word occurs another number of times)."""


def _restored(match: re.Match[str]) -> str:
    found = match.group(0)
    word = LOST_TH[found.lower()][0]
    if found.isupper() and len(found) > 1:
        return word.upper()
    return word.capitalize() if found[0].isupper() else word


def repair(text: str) -> tuple[str, list[str]]:
    counts: dict[str, int] = {}
    for match in WORD_RE.finditer(text):
        counts[match.group(0).lower()] = counts.get(match.group(0).lower(), 0) + 1
    wrong = {word: (counts.get(word, 0), expected) for word, (_, expected) in LOST_TH.items()
             if counts.get(word, 0) != expected}
    if wrong:
        raise RepairError("corrupted words found another number of times than expected (found, expected): "
                          + ", ".join(f"{word!r} {found}/{expected}" for word, (found, expected) in wrong.items()))
    lines = text.split("\n")
    edits: list[str] = []
    for number, line in enumerate(lines):
        repaired = WORD_RE.sub(_restored, line)
        if repaired != line:
            lines[number] = repaired
            edits.append(f"line {number + 1}: {len(WORD_RE.findall(line))} word(s)")
    return "\n".join(lines), edits


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-2])
    text, edits = repair(Path(argv[0]).read_text(encoding="utf-8"))
    Path(argv[1]).write_text(text, encoding="utf-8")
    print("\n".join(edits))
    print(f"{len(edits)} lines repaired")


if __name__ == "__main__":
    main(sys.argv[1:])
