"""Egress sanitiser benchmark: entity-level precision / recall per PII type on the shared case table, and speed.

Entity-level means each expected ``(type, exact text)`` of a case must be found with the same type and exactly
the same span text; anything else found is a false positive (so a lookalike that is flagged costs precision).
The table is the one tests/test_sanitiser.py asserts on (``data/bench/egress_cases.jsonl``, read by
``load_cases``), so these numbers move only when the table or the sanitiser does.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from regintel.config import REPO_ROOT
from regintel.egress.sanitiser import PII_TYPES, find_pii, sanitise

CASES_PATH = REPO_ROOT / "data" / "bench" / "egress_cases.jsonl"
CASE_GROUPS = ("positive", "lookalike", "mixed")

Expected = list[tuple[str, str]]
Case = tuple[str, str, Expected]


def load_cases(group: str | None = None, path: Path = CASES_PATH) -> list[Case]:
    """The sanitiser's case table as ``(id, text, expected)``, in file order; ``group`` keeps one of CASE_GROUPS.

    Each line of the JSONL file is ``{"id", "group", "text", "expected"}``; ``expected`` lists ``[type, exact matched
    text]`` in order of appearance. Groups: ``positive`` (one PII type per case), ``lookalike`` (``expected == []``:
    regulatory text that resembles PII and must pass untouched), ``mixed`` (several types in one text).
    Identifiers carry valid check digits (computed with the sanitiser's own validators and cross-checked against
    published test values); the invalid variants among the lookalikes differ by one check character.
    """
    cases: list[Case] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["group"] not in CASE_GROUPS:
            raise ValueError(f"{path}: case {row['id']} has unknown group {row['group']!r}")
        if group is None or row["group"] == group:
            cases.append((row["id"], row["text"], [(t, value) for t, value in row["expected"]]))
    return cases


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def _scores(tp: int, fp: int, fn: int) -> dict:
    """Precision is None (n/a) when nothing was found, recall when nothing was expected."""
    return {
        "tp": tp, "fp": fp, "fn": fn, "support": tp + fn,
        "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
    }  # fmt: skip


def score_cases(cases: list[Case]) -> dict:
    """Per-type and overall (micro) counts; expected and found entities are matched as multisets."""
    tp, fp, fn = Counter(), Counter(), Counter()
    flagged_lookalikes = 0
    for _, text, expected in cases:
        wanted = Counter(expected)
        found = Counter((f.type, f.text) for f in find_pii(text))
        for (pii_type, _), n in (wanted & found).items():
            tp[pii_type] += n
        for (pii_type, _), n in (found - wanted).items():
            fp[pii_type] += n
        for (pii_type, _), n in (wanted - found).items():
            fn[pii_type] += n
        flagged_lookalikes += bool(not expected and found)
    per_type = {t: _scores(tp[t], fp[t], fn[t]) for t in PII_TYPES}
    overall = _scores(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    return {"per_type": per_type, "overall": overall, "flagged_lookalikes": flagged_lookalikes}


def _time_per_case_us(function, texts: list[str], repeat: int) -> float:
    for text in texts:  # warm-up: regex caches, first-call overheads
        function(text)
    started = time.perf_counter()
    for _ in range(repeat):
        for text in texts:
            function(text)
    return round((time.perf_counter() - started) / (repeat * len(texts)) * 1e6, 1)


def scan_corpus(corpus_dir: Path | None = None) -> dict:
    """Held-out check: findings on the public regulation corpus, which the case table was not tuned on.

    Regulation text has article numbers, dates, amounts and CELEX numbers everywhere and almost no personal data,
    so what is found here is either public contact details or a false positive worth a look.
    """
    from regintel.config import get_settings
    from regintel.retrieval.corpus import read_document_text, scan_corpus as list_documents

    corpus_dir = corpus_dir or get_settings().corpus_dir
    counts: Counter[str] = Counter()
    chars = 0
    started = time.perf_counter()
    for document in list_documents(corpus_dir).documents:
        text = read_document_text(document.path)
        chars += len(text)
        counts.update(f.type for f in find_pii(text))
    seconds = time.perf_counter() - started
    return {"corpus_chars": chars, "corpus_findings": dict(counts),
            "corpus_findings_per_100k_chars": round(sum(counts.values()) * 100_000 / max(chars, 1), 3),
            "corpus_scan_mb_per_s": round(chars / 1e6 / seconds, 2) if seconds else None}


def run_egress_bench(repeat: int = 20) -> dict:
    """Scores plus mean time per case (find_pii and the full sanitise) over `repeat` passes of the table."""
    cases = load_cases()
    texts = [text for _, text, _ in cases]
    return {
        "bench": "egress",
        "cases": len(cases),
        "lookalikes": sum(1 for _, _, expected in cases if not expected),
        "entities": sum(len(expected) for _, _, expected in cases),
        **score_cases(cases),
        "us_per_case_find_pii": _time_per_case_us(find_pii, texts, repeat),
        "us_per_case_sanitise": _time_per_case_us(sanitise, texts, repeat),
        **scan_corpus(),
    }


def _fmt(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def print_report(result: dict) -> None:
    """A readable table, then one JSON line last (for scripts)."""
    print(f"Egress sanitiser benchmark: {result['cases']} cases ({result['lookalikes']} lookalikes), "
          f"{result['entities']} expected entities")
    print(f"{'type':<15}{'support':>8}{'tp':>5}{'fp':>5}{'fn':>5}{'precision':>11}{'recall':>8}")
    rows = [*result["per_type"].items(), ("OVERALL", result["overall"])]
    for name, s in rows:
        print(f"{name:<15}{s['support']:>8}{s['tp']:>5}{s['fp']:>5}{s['fn']:>5}"
              f"{_fmt(s['precision']):>11}{_fmt(s['recall']):>8}")
    print(f"lookalike cases flagged: {result['flagged_lookalikes']}")
    print(f"time per case: find_pii {result['us_per_case_find_pii']} µs, "
          f"sanitise {result['us_per_case_sanitise']} µs")
    print(f"held-out corpus scan: {result['corpus_chars']:,} characters of regulation, findings "
          f"{result['corpus_findings'] or 'none'} ({result['corpus_findings_per_100k_chars']} per 100k chars; "
          f"all should be public contact details), {result['corpus_scan_mb_per_s']} MB/s")
    print(json.dumps(result, ensure_ascii=False))


def main() -> int:
    print_report(run_egress_bench())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
