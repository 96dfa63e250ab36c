"""Repair the markdown of the Belgian guidance "TVA pour les ASBL" (a web-page conversion) where it misplaced text.

The upstream conversion (lbrpsoftware/Documentation, ``ASBLTVA_AOUT2024.md``) cut the list of conditions under
"Dois-je payer la TVA sur une vente de crêpes ?" after its second point: the third condition ("l'activité est
organisée par l'ASBL ...") and the warning that follows it ("Attention ! Des activités de ce genre ne peuvent pas
survenir fréquemment ...") sit at the end of the "grandes ASBL" part, under an empty level-2 heading after the
section on ASBL established in the German-speaking municipalities. An analyst asking whether a crêpe sale is
subject to VAT was quoted two conditions of three, and the missing one was cited as part of the Amblève/Eupen
section. The level-1 heading "Quelles ASBL sont considérées comme des « grandes ASBL » ?**" also carries the stray
closing "**" of a bold mark.

The repair, with every edit checked against the text it expects (the script fails instead of guessing):
- the lines under the empty level-2 heading go back after the crêpe list's second point, and the empty heading
  is dropped;
- the stray "**" at the end of the level-1 heading is dropped.

Usage: ``python scripts/repair_be_asbl_guidance.py <upstream .md> <out.md>`` (prints the edits).
"""

from __future__ import annotations

import sys
from pathlib import Path

CREPES_HEADING = "## **Dois-je payer la TVA sur une vente de crêpes ?**"
SECOND_POINT = "- les activités sont organisées dans le but d’apporter un soutien financier à l’ASBL"
EMPTY_HEADING = "##"
NEXT_PART = "# Point de contact unique"
ORPHAN_START = "- l’activité est organisée par l’ASBL"
STRAY_BOLD_HEADING = "# Quelles ASBL sont considérées comme des « grandes ASBL » ?**"


class RepairError(ValueError):
    """The upstream text is not the one this repair was written for."""


def _only(lines: list[str], wanted: str) -> int:
    """The index of the one line equal to ``wanted``."""
    found = [i for i, line in enumerate(lines) if line == wanted]
    if len(found) != 1:
        raise RepairError(f"expected one line {wanted!r}, found {len(found)}")
    return found[0]


def repair(text: str) -> tuple[str, list[str]]:
    """The repaired text and a description of each edit."""
    lines = text.splitlines()
    edits: list[str] = []

    empty = _only(lines, EMPTY_HEADING)
    next_part = _only(lines, NEXT_PART)
    if not empty < next_part:
        raise RepairError("the empty level-2 heading is not before the 'Point de contact unique' part")
    orphan = lines[empty + 1:next_part]
    while orphan and not orphan[-1].strip():
        orphan.pop()
    if not orphan or not orphan[0].startswith(ORPHAN_START):
        raise RepairError(f"the empty heading is not followed by the crêpe list's third point ({ORPHAN_START!r})")
    trailing_blank = lines[empty + 1 + len(orphan):next_part]
    del lines[empty:next_part]
    lines[empty:empty] = trailing_blank
    edits.append(f"moved {len(orphan)} lines from under the empty level-2 heading (line {empty + 1}) to the crêpe list")

    crepes = _only(lines, CREPES_HEADING)
    second = _only(lines, SECOND_POINT)
    if not crepes < second:
        raise RepairError("the crêpe list's second point is not under its heading")
    lines[second + 1:second + 1] = ["", *orphan]
    edits.append(f"inserted them after the second point (line {second + 1})")

    heading = _only(lines, STRAY_BOLD_HEADING)
    lines[heading] = STRAY_BOLD_HEADING[:-2].rstrip()
    edits.append(f"dropped the stray '**' of the heading at line {heading + 1}")
    return "\n".join(lines) + ("\n" if text.endswith("\n") else ""), edits


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    repaired, edits = repair(Path(argv[0]).read_text(encoding="utf-8"))
    Path(argv[1]).write_text(repaired, encoding="utf-8")
    print("\n".join(edits))


if __name__ == "__main__":
    main(sys.argv[1:])
