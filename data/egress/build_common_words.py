"""Writes regintel/egress/common_words.txt: words the regulation corpus (data/corpus) uses in lower case.

Why: the NER model tags Title Case terms of English and French regulation as persons ("Lead Overseer",
"Waste Framework", "Grandes Entreprises"). A word the corpus writes in lower case at least twice is a common
word, not a surname; the person recogniser drops NER spans made of such words unless a known given name or a
courtesy title vouches for them. Deterministic: ``python data/egress/build_common_words.py``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "regintel" / "egress" / "common_words.txt"
WORD = re.compile(r"(?<![\w-])[a-zß-öø-ÿāăąćčďđęěĺľłńňőŕřśşšţťůűźżž]{3,}(?![\w-])")


def main() -> None:
    counts: Counter[str] = Counter()
    for path in sorted((ROOT / "data" / "corpus").rglob("*.md")):
        counts.update(WORD.findall(path.read_text(encoding="utf-8")))
    words = sorted(w for w, n in counts.items() if n >= 2)
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
