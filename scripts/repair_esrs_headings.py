"""Repair the headings of the ESRS markdown (a PDF conversion) so that each standard is one part of the document.

The upstream conversion (fingreen-ai/greenlang, ``regulations/esrs/ALL.md``) loses the standards' boundaries: ESRS 2
has no title (its "GENERAL DISCLOSURES" is a level-4 heading after ESRS 1's Appendix G), neither has ESRS E4; a stray
level-2 "ESRS 2" inside ESRS 1 (the start of the sentence "ESRS 2 includes: ...") filed most of ESRS 1 under
"ESRS 2"; each topical standard's section "ESRS 2 General disclosures" (its requirements read with ESRS 2) is a
level-2 heading, so it closed the standard it belongs to; table rows ("ESRS S4-1") and each standard's table of
contents are headings. A citation then read "ESRS 2 › 3.4 Impact materiality" for ESRS 1 §3.4.

The repair, with every edit checked against the text it expects (the script fails instead of guessing):
- each standard opens with one level-2 heading "ESRS <code> <title>" (its separate title line is dropped);
- its table of contents (from the title to the first "Objective" heading followed by the standard's first
  paragraph) keeps its lines as plain text under one "Table of contents" heading;
- a topical standard's "ESRS 2 General disclosures" becomes a level-4 section of that standard;
- the stray level-2 headings that are table rows or sentence starts become plain text;
- ESRS 1's section titles written as plain lines ("4. Due diligence", "6. Time horizons") become headings, and so
  does ESRS E1's "Climate-related scenario analysis";
- level-4 headings that are a table's cells or caption inside a standard's application requirements become plain
  text ("Water stress", a cell of ESRS E1's table of climate-related hazards, filed AR 12 on transition risks under
  "Water stress"; "Table 4" filed ESRS S1-6's AR 56-60 under "Table 4").

Usage: ``python scripts/repair_esrs_headings.py <upstream ALL.md> <out.md>`` (prints the edits).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


class RepairError(ValueError):
    """The upstream text is not the one this repair was written for (an expected line is missing or repeated)."""

# (the heading that opens the standard in the upstream file, the title heading we give it, the standard's separate
# upper-case title heading (dropped) or None)
STANDARDS: list[tuple[str, str, str | None]] = [
    ("## ESRS 1 - GENERAL REQUIREMENTS", "## ESRS 1 General requirements", None),
    ("#### GENERAL DISCLOSURES", "## ESRS 2 General disclosures", None),
    ("## ESRS E1", "## ESRS E1 Climate change", "#### CLIMATE CHANGE"),
    ("## ESRS E2 POLLUTION", "## ESRS E2 Pollution", None),
    ("## ESRS E3 - WATER AND MARINE RESOURCES", "## ESRS E3 Water and marine resources", None),
    ("#### BIODIVERSITY AND ECOSYSTEMS", "## ESRS E4 Biodiversity and ecosystems", None),
    ("## ESRS E5", "## ESRS E5 Resource use and circular economy", "#### Resource Use and Circular Economy"),
    ("## ESRS S1", "## ESRS S1 Own workforce", "#### OWN WORKFORCE"),
    ("## ESRS S2 - Workers in the Value Chain", "## ESRS S2 Workers in the value chain", None),
    ("## ESRS S3", "## ESRS S3 Affected communities", "#### AFFECTED COMMUNITIES"),
    ("## ESRS S4 - Consumers and End-Users", "## ESRS S4 Consumers and end-users", None),
    ("## ESRS G1 - BUSINESS CONDUCT", "## ESRS G1 Business conduct", None),
]
# A standard's table of contents stays a section of its own, so that search reads it as navigation (ranked after
# the sections it lists, regintel.retrieval.unit_roles) and citations never name it as the standard itself.
CONTENTS_HEADING = "#### Table of contents"
CONTENTS_RE = re.compile(r"^table of contents$", re.IGNORECASE)
# The first paragraph of a standard's body starts like this (after its "Objective" heading).
BODY_START_RE = re.compile(r"^(?:\d{1,2}\.\s+)?(?:The objective|This ESRS sets out)")
# Level-2 headings that are a table's row or the start of a sentence, each expected this many times.
STRAY_TO_TEXT = {
    "## ESRS S2 Workers in the value chain": 1,  # rows of ESRS 1 AR 16's list of sustainability matters
    "## ESRS S3 Affected communities": 1,
    "## ESRS Disclosure": 1,  # the header row of ESRS 1 Appendix C's table
    "## ESRS S4-1": 1,  # rows of ESRS 2 Appendix B's table
    "## ESRS S4-4": 1,
    "## ESRS G1-1": 2,
    "## ESRS G1-4": 2,
}
STRAY_DROPPED = {"## ESRS 2": 1}  # inside ESRS 1, before the sentence "ESRS 2 includes: ..."
# ESRS 1's section titles written as plain lines in its body: without a heading, due diligence (chapter 4) was cited
# as "3.5 Financial materiality" and the time horizons (chapter 6) as "Reporting undertaking and value chain".
ESRS1_PLAIN_TITLES = [
    "2. Qualitative characteristics of information",
    "4. Due diligence",
    "5.2 Estimation using sector averages and proxies",
    "6. Time horizons",
    "7.7 Classified and sensitive information, and information on intellectual property, know-how or results of "
    "innovation",
    "9. Linkages with other parts of corporate reporting and connected information",
]
# Plain lines that title a section, by standard: without a heading, ESRS E1's AR 13-15 on climate-related scenario
# analysis were cited as a cell of the table before them.
PLAIN_TITLES = {
    "## ESRS 1 General requirements": ESRS1_PLAIN_TITLES,
    "## ESRS E1 Climate change": ["Climate-related scenario analysis"],
}
# Level-4 headings that are a table's cells or its caption, each expected once in the standard's body.
TABLE_HEADINGS_TO_TEXT = {
    "## ESRS E1 Climate change": [
        "#### Sea level rise",  # cells of the table of climate-related hazards (AR 11)
        "#### Water stress",
        "#### Mandates on and regulation of existing production processes",  # the examples of transition events
        "#### Base year         2030 target         2035 target              …              Up to 2050",  # E1-4
        "#### Scope 2 GHG emissions",  # rows of AR 48's table of GHG emissions
        "#### Significant scope 3 GHG emissions",
        "#### Total GHG emissions",
        "#### Recognised quality standard 3 (%)",  # rows of AR 64's table of carbon credits
        "#### Carbon credits planned to be cancelled in the future",
    ],
    "## ESRS S1 Own workforce": ["#### Table 3", "#### Table 4"],  # S1-6's tables of employees (AR 55)
}
ESRS2_SECTION_RE = re.compile(r"^## ESRS 2 GENERAL DISCLOSURES$|^## ESRS 2 General disclosures$")
ESRS2_SECTION = "#### ESRS 2 General disclosures"


def _find(lines: list[str], text: str, start: int) -> int:
    for number in range(start, len(lines)):
        if lines[number].rstrip() == text:
            return number
    raise RepairError(f"expected line not found after line {start + 1}: {text!r}")


def _once_in(lines: list[str], body: range, text: str, standard: str) -> int:
    """The number of the one line of a standard's body that reads ``text``; fails when there is none or several."""
    found = [number for number in body if lines[number].rstrip() == text]
    if len(found) != 1:
        raise RepairError(f"{text!r}: expected once in the body of {standard!r}, found {len(found)} times")
    return found[0]


def _body_start(lines: list[str], start: int) -> int:
    """The "#### Objective" heading followed by the standard's first paragraph."""
    for number in range(start, len(lines)):
        if lines[number].rstrip() != "#### Objective":
            continue
        following = next((line for line in lines[number + 1:] if line.strip()), "")
        if BODY_START_RE.match(following.strip()):
            return number
    raise RepairError(f"no 'Objective' heading opening a standard's body after line {start + 1}")


def repair(text: str) -> tuple[str, list[str]]:
    lines = text.splitlines()
    edits: list[str] = []
    out = list(lines)
    drop: set[int] = set()
    cursor = 0
    body_ranges: list[tuple[int, int]] = []  # each standard's (body start, next standard's opening)
    for upstream, title, separate_title in STANDARDS:
        opening = _find(lines, upstream, cursor)
        if body_ranges:
            body_ranges[-1] = (body_ranges[-1][0], opening)
        body = _body_start(lines, opening + 1)
        body_ranges.append((body, len(lines)))
        out[opening] = f"{title}\n\n{CONTENTS_HEADING}"
        edits.append(f"line {opening + 1}: {upstream!r} -> {title!r}, its contents under {CONTENTS_HEADING!r}")
        for number in range(opening + 1, body):
            heading = HEADING_RE.match(lines[number])
            if not heading:
                continue
            if (separate_title and lines[number].rstrip() == separate_title) or CONTENTS_RE.match(heading.group(2)):
                drop.add(number)
                edits.append(f"line {number + 1}: dropped {lines[number]!r} (in the title or the contents heading)")
                continue
            out[number] = f"- {heading.group(2)}"  # a table-of-contents entry
            edits.append(f"line {number + 1}: contents entry {lines[number]!r} -> text")
        cursor = body
    body_of = {title: range(*body) for (_, title, _), body in zip(STANDARDS, body_ranges)}
    for standard, plain_titles in PLAIN_TITLES.items():
        for plain_title in plain_titles:
            number = _once_in(lines, body_of[standard], plain_title, standard)
            out[number] = f"#### {plain_title}"
            edits.append(f"line {number + 1}: section title {plain_title!r} -> heading")
    for standard, headings in TABLE_HEADINGS_TO_TEXT.items():
        for table_heading in headings:
            number = _once_in(lines, body_of[standard], table_heading, standard)
            out[number] = HEADING_RE.match(table_heading).group(2)
            edits.append(f"line {number + 1}: table cell or caption {table_heading!r} -> text")
    seen: dict[str, int] = {}
    for number, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped in STRAY_TO_TEXT:
            seen[stripped] = seen.get(stripped, 0) + 1
            out[number] = HEADING_RE.match(stripped).group(2)
            edits.append(f"line {number + 1}: stray heading {stripped!r} -> text")
        elif stripped in STRAY_DROPPED:
            seen[stripped] = seen.get(stripped, 0) + 1
            drop.add(number)
            edits.append(f"line {number + 1}: stray heading {stripped!r} dropped")
        elif ESRS2_SECTION_RE.match(stripped) and out[number] == line:
            out[number] = ESRS2_SECTION
            edits.append(f"line {number + 1}: {stripped!r} -> {ESRS2_SECTION!r} (a section of the standard)")
    for expected in (STRAY_TO_TEXT, STRAY_DROPPED):
        for heading, count in expected.items():
            if seen.get(heading, 0) != count:
                raise RepairError(f"{heading!r}: expected {count} occurrence(s), found {seen.get(heading, 0)}")
    repaired = [line for number, line in enumerate(out) if number not in drop]
    return "\n".join(repaired) + ("\n" if text.endswith("\n") else ""), edits


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    text, edits = repair(Path(argv[0]).read_text(encoding="utf-8"))
    Path(argv[1]).write_text(text, encoding="utf-8")
    print("\n".join(edits))
    print(f"{len(edits)} edits")


if __name__ == "__main__":
    main(sys.argv[1:])
