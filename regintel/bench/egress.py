"""Egress detector benchmark: precision / recall per personal-data type on two tables, and detection time.

Tables:
- ``data/bench/egress_cases.jsonl``: the original case table (written with the old hand-made sanitiser; the
  unit tests assert on it row by row, so it scores what was tuned on);
- ``data/egress/independent.jsonl``: written independently of the detector from issue 18's type list (see
  ``data/egress/build_independent.py``), split by a hash of the row id into ``dev`` (looked at while tuning) and
  ``test`` (held back: only its scores are read).

Matching: an expected ``(type, value)`` is found when a finding of the same type overlaps its span ("typed");
a finding that overlaps no expected value is a false positive. "exact" counts findings with exactly the
expected span, "covered" counts expected values wholly inside some finding of any type (the value does not
leave, whatever it was called). A lookalike row (no expected value) is "flagged" when anything is found in it.

Time: ``find_pii`` on 1,000-character questions made of the independent table's rows (p50 / p95 in ms).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from regintel.config import REPO_ROOT
from regintel.egress.sanitiser import PII_TYPES, find_pii

CASES_PATH = REPO_ROOT / "data" / "bench" / "egress_cases.jsonl"
INDEPENDENT_PATH = REPO_ROOT / "data" / "egress" / "independent.jsonl"
CASE_GROUPS = ("positive", "lookalike", "mixed")

Expected = list[tuple[str, str]]
Case = tuple[str, str, Expected]


def load_cases(group: str | None = None, path: Path = CASES_PATH, split: str | None = None) -> list[Case]:
    """A case table as ``(id, text, expected)`` in file order; ``group`` keeps one of CASE_GROUPS, ``split`` one
    split (``dev`` / ``test``) of a table that has them.

    Each line is ``{"id", "group", "text", "expected"}`` (plus ``split`` in the independent table); ``expected``
    lists ``[type, exact text]`` in order of appearance; lookalikes have ``expected == []``."""
    cases: list[Case] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["group"] not in CASE_GROUPS:
            raise ValueError(f"{path}: case {row['id']} has unknown group {row['group']!r}")
        if (group is None or row["group"] == group) and (split is None or row.get("split") == split):
            cases.append((row["id"], row["text"], [(t, value) for t, value in row["expected"]]))
    return cases


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def _spans(text: str, expected: Expected) -> list[tuple[str, int, int]]:
    """Each expected value's span, in order (a value repeated in the text takes its next occurrence)."""
    spans, cursor = [], {}
    for pii_type, value in expected:
        start = text.index(value, cursor.get(value, 0))
        cursor[value] = start + len(value)
        spans.append((pii_type, start, start + len(value)))
    return spans


def score_cases(cases: list[Case], detect=find_pii) -> dict:
    """Per-type and overall (micro) scores with overlap matching; see the module docstring."""
    tp, fp, fn, exact, covered = Counter(), Counter(), Counter(), Counter(), Counter()
    flagged = lookalikes = 0
    for _, text, expected in cases:
        findings = detect(text)
        used: set[int] = set()
        for pii_type, start, end in _spans(text, expected):
            hits = [i for i, f in enumerate(findings) if f.type == pii_type and f.start < end and start < f.end]
            if hits:
                tp[pii_type] += 1
                used.update(hits)
                exact[pii_type] += any(findings[i].start == start and findings[i].end == end for i in hits)
            else:
                fn[pii_type] += 1
            covered[pii_type] += all(any(f.start <= p < f.end for f in findings)
                                     for p in range(start, end) if not text[p].isspace())
        expected_spans = _spans(text, expected)
        for i, f in enumerate(findings):
            if i not in used and not any(f.start < e and s < f.end for _, s, e in expected_spans):
                fp[f.type] += 1
        lookalikes += not expected
        flagged += bool(not expected and findings)
    per_type = {}
    for t in PII_TYPES:
        support = tp[t] + fn[t]
        if support or fp[t]:
            per_type[t] = {"support": support, "tp": tp[t], "fp": fp[t], "fn": fn[t], "exact": exact[t],
                           "covered": covered[t], "precision": _ratio(tp[t], tp[t] + fp[t]),
                           "recall": _ratio(tp[t], support)}
    total_tp, total_fp, total_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    overall = {"support": total_tp + total_fn, "tp": total_tp, "fp": total_fp, "fn": total_fn,
               "exact": sum(exact.values()), "covered": sum(covered.values()),
               "precision": _ratio(total_tp, total_tp + total_fp), "recall": _ratio(total_tp, total_tp + total_fn),
               "covered_rate": _ratio(sum(covered.values()), total_tp + total_fn)}
    return {"cases": len(cases), "per_type": per_type, "overall": overall, "lookalikes": lookalikes,
            "flagged_lookalikes": flagged, "flagged_lookalike_rate": _ratio(flagged, lookalikes)}


def questions_of(cases: list[Case], n: int = 200, size: int = 1000, seed: int = 18) -> list[str]:
    """``n`` questions of exactly ``size`` characters, each made of table rows drawn at random (names, ids and
    regulatory references mixed as in a long pasted question)."""
    rng = random.Random(seed)
    texts = [text for _, text, _ in cases]
    questions = []
    for _ in range(n):
        parts: list[str] = []
        while len(" ".join(parts)) < size:
            parts.append(rng.choice(texts))
        questions.append(" ".join(parts)[:size])
    return questions


def time_questions(questions: list[str], detect=find_pii) -> dict:
    """Detection time per question (ms) after a warm-up: p50, p95, max."""
    for question in questions[:10]:
        detect(question)
    times = []
    for question in questions:
        started = time.perf_counter()
        detect(question)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"questions": len(times), "chars": len(questions[0]) if questions else 0,
            "p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "max_ms": round(times[-1], 2)}


def run_egress_bench(n_questions: int = 200) -> dict:
    started = time.perf_counter()
    find_pii("warm-up: Jan Kowalski")  # builds the detector (loads the spaCy pipeline) outside the timings
    build_s = round(time.perf_counter() - started, 2)
    independent = load_cases(path=INDEPENDENT_PATH)
    return {
        "bench": "egress",
        "detector_build_s": build_s,
        "original": score_cases(load_cases()),
        "independent_dev": score_cases(load_cases(path=INDEPENDENT_PATH, split="dev")),
        "independent_test": score_cases(load_cases(path=INDEPENDENT_PATH, split="test")),
        "independent_all": score_cases(independent),
        "timing_1000_chars": time_questions(questions_of(independent, n_questions)),
        "ner_only_person": ner_only_person(independent),
        "real_questions": real_questions(),
        **scan_corpus(),
    }


QUESTION_FILES = ("data/eval/answerable_gdpr_dora.jsonl", "data/eval/answerable_esrs_vat_be.jsonl",
                  "data/eval/offcorpus.jsonl", "data/guardrails/train.jsonl")


def real_questions() -> dict:
    """Analysts' questions written for the answer and guardrail benchmarks (other authors, six languages), minus
    those labelled as personal-data analysis: what is found in them is a false positive."""
    flagged, total, types = 0, 0, Counter()
    for name in QUESTION_FILES:
        path = REPO_ROOT / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            question = row.get("question") or row.get("text") or ""
            if not question or (row.get("query_type") or row.get("label")) == "PERSONAL_DATA_ANALYSIS":
                continue
            total += 1
            found = find_pii(question)
            flagged += bool(found)
            types.update(f.type for f in found)
    return {"questions": total, "flagged": flagged, "flagged_rate": _ratio(flagged, total), "types": dict(types)}


def scan_corpus(corpus_dir: Path | None = None) -> dict:
    """Findings on the public regulation corpus (EN/FR): real regulatory text with almost no personal data, so
    what is found is public contact details (the Belgian administration's e-mails and phone) or a false positive."""
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
            "corpus_scan_kb_per_s": round(chars / 1e3 / seconds, 1) if seconds else None}


def ner_only_person(cases: list[Case]) -> dict:
    """PERSON scores with the given-name list switched off: what the NER model finds alone (the table's names are
    common European names, most of them on the list, so the main figures say little about rarer names)."""
    from regintel.egress.detector import Detector, get_detector
    from regintel.egress.sanitiser import Finding

    detector = Detector(nlp=get_detector().nlp, given_names=False)

    def detect(text: str) -> list:
        return [Finding(s.type, s.start, s.end, text[s.start:s.end]) for s in detector.spans(text)]

    person_cases = [(i, t, [e for e in exp if e[0] == "PERSON"]) for i, t, exp in cases]
    scores = score_cases(person_cases, detect)
    questions = questions_of(cases, 100, seed=19)
    return {"person": scores["per_type"].get("PERSON"), "timing_1000_chars": time_questions(questions, detect)}


def _fmt(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def print_table(title: str, result: dict) -> None:
    print(f"\n{title}: {result['cases']} cases, {result['lookalikes']} lookalikes "
          f"({result['flagged_lookalikes']} flagged, rate {_fmt(result['flagged_lookalike_rate']).strip()})")
    print(f"{'type':<16}{'support':>8}{'tp':>5}{'fp':>5}{'fn':>5}{'exact':>7}{'covered':>9}{'precision':>11}{'recall':>8}")
    for name, s in [*result["per_type"].items(), ("OVERALL", result["overall"])]:
        print(f"{name:<16}{s['support']:>8}{s['tp']:>5}{s['fp']:>5}{s['fn']:>5}{s['exact']:>7}{s['covered']:>9}"
              f"{_fmt(s['precision']):>11}{_fmt(s['recall']):>8}")


def print_report(result: dict) -> None:
    """Readable tables, then one JSON line last (for scripts)."""
    print(f"Egress detector benchmark (detector built in {result['detector_build_s']} s)")
    print_table("Original table (data/bench/egress_cases.jsonl)", result["original"])
    print_table("Independent table, dev split (looked at while tuning)", result["independent_dev"])
    print_table("Independent table, test split (held back)", result["independent_test"])
    print_table("Independent table, both splits", result["independent_all"])
    t = result["timing_1000_chars"]
    print(f"\nDetection time, {t['questions']} questions of {t['chars']} characters: p50 {t['p50_ms']} ms, "
          f"p95 {t['p95_ms']} ms, max {t['max_ms']} ms")
    ner = result["ner_only_person"]
    p, t = ner["person"] or {}, ner["timing_1000_chars"]
    print(f"Without the given-name list (NER alone), both splits: PERSON recall {_fmt(p.get('recall')).strip()}, "
          f"precision {_fmt(p.get('precision')).strip()} (fp counted on every row); time p50 {t['p50_ms']} ms, "
          f"p95 {t['p95_ms']} ms")
    q = result["real_questions"]
    print(f"Questions of data/eval and data/guardrails without personal data: {q['flagged']} of {q['questions']} "
          f"flagged ({q['types'] or 'none'})")
    print(f"Corpus scan: {result['corpus_chars']:,} characters of regulation, findings {result['corpus_findings'] or 'none'} "
          f"({result['corpus_findings_per_100k_chars']} per 100k chars), {result['corpus_scan_kb_per_s']} kB/s")
    print(json.dumps(result, ensure_ascii=False))


def main() -> int:
    print_report(run_egress_bench())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
