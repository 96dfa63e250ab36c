"""Writes regintel/egress/common_words.txt: words the regulation corpus (data/corpus) uses in lower case.

Why: the NER model tags Title Case terms of English and French regulation as persons ("Lead Overseer",
"Waste Framework", "Grandes Entreprises"). A word the corpus writes in lower case at least twice is a common
word, not a surname; the person recogniser drops NER spans made of such words unless a known given name or a
courtesy title vouches for them. The words of our hand-written multilingual term lists (the legal term list and
the seed taxonomy's labels, in EN/FR/ES/DE) count too, whatever their case: they are regulatory vocabulary by
construction, and the corpus has no Spanish or German text to learn it from ("Normas Europeas de Información sobre
Sostenibilidad", an alias of the ESRS, is no person). The instrument list is left out: acts are named after people
(Sarbanes-Oxley, Dodd-Frank). Deterministic: ``python data/egress/build_common_words.py``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "regintel" / "egress" / "common_words.txt"
WORD = re.compile(r"(?<![\w-])[a-zß-öø-ÿāăąćčďđęěĺľłńňőŕřśşšţťůűźżž]{3,}(?![\w-])")


TERM_LISTS = (ROOT / "data" / "glossary" / "legal_terms.jsonl", ROOT / "data" / "taxonomy.json")


def term_list_words() -> set[str]:
    """Every word (lower-cased) of the strings in the term lists, keys and metadata left out."""
    texts: list[str] = []

    def collect(value: object) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in {"_meta", "about", "id", "domain"}:
                    collect(item)

    for path in TERM_LISTS:
        raw = path.read_text(encoding="utf-8")
        records = [json.loads(line) for line in raw.splitlines() if line.strip()] if path.suffix == ".jsonl" else [json.loads(raw)]
        for record in records:
            collect(record)
    return {w for text in texts for w in WORD.findall(text.lower())}


def main() -> None:
    counts: Counter[str] = Counter()
    for path in sorted((ROOT / "data" / "corpus").rglob("*.md")):
        counts.update(WORD.findall(path.read_text(encoding="utf-8")))
    words = sorted({w for w, n in counts.items() if n >= 2} | term_list_words())
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
