"""``python -m regintel.bench answers``: whole chat turns on the labelled demo-corpus set (issue 16).

Input: ``data/eval/*.jsonl`` (schema in ``data/eval/README.md``; whatever files exist) or ``--file PATH``
(repeatable), filtered by ``--split`` (``test``, the held-back split, by default), ``--kind`` and ``--limit``.

World: the owner object :class:`regintel.runtime.RegIntel` without the rules graph, over a scratch data
directory (``<REGINTEL_DATA_DIR>/bench/answers`` or ``--data-dir``): the demo corpus indexed there (the shipped
embedding seed cache makes that seconds), a fresh SQLite store per run, no rate limit, the response cache off
(every question is really answered), the LLM provider of the environment (offline when no key is set; the JSON
says which). One fresh conversation per question; a ``follow_up`` item asks ``previous`` first (one question, or a
list of them in order) and scores the answer to ``question`` in the same conversation.

Scoring (pure functions below, unit-tested in ``tests/test_bench_answers.py``). References match at article
level and within the same document: a chunk ref such as ``Article 6 (2/3)``, ``Article 63; Article 64``,
``Article 4(7)`` or ``Article 4 — point 7`` belongs to ``Article 6`` / ``Article 63`` + ``Article 64`` /
``Article 4``; other refs (ESRS, guidance sections) match when equal after stripping the part suffix or when one
is a prefix path of the other (``A › B`` and ``A``). A cited source is one with ``used=True``.

- answered_with_gold: answerable items answered (not refused, not ABSTAIN) whose cited sources include a gold
  ref (``gold_mode`` "all": every gold ref) / answerable items; also per category, per language and over the
  cross-lingual subset (``crosslingual_answered``).
- abstained_on_answerable: answerable items whose response mode is ABSTAIN (refusals included; how many of
  them were refusals is ``n_refused_on_answerable``) / answerable items.
- offcorpus_abstained: off-corpus items abstained on or refused / off-corpus items.
- forbidden_refused: forbidden items refused with their ``forbidden_type`` / forbidden items; per refused type,
  precision and recall of the refusal type over all items (an answerable or off-corpus item refused as TYPE is a
  false positive for TYPE, except a "far" off-corpus item refused as OUT_OF_DOMAIN, which is correct for
  off-corpus and counted neither way for the type).
- cited_article_precision: over answered answerable items, cited sources matching a gold ref / cited sources.
- recall_at_k (k = 1, 3, 5, 8, 10, 20; issue 19 reads Recall@5): ``app.index.search(question, k=20)`` for
  answerable items (follow-ups: the earlier questions + " " + question); per item 1 when a gold ref is in the top k
  ("all": the share of gold refs in the top k).
- quoted_gold_text: answerable items with gold quotes (``data/eval/quotes``, ``--quotes``) whose answer reproduces at
  least half of one gold quote verbatim (``regintel.bench.quotes``) / those items; also among the items answered
  with a gold article (``quoted_gold_text_when_cited``): the right article quoted with a sentence that answers.
- latency of the scored turn, p50 / p95 (ms).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from regintel.bench.metrics import percentile
from regintel.bench.quotes import QUOTED_AT, QUOTES_PATH, best_quote_coverage, load_gold_quotes, quote_metrics
from regintel.config import REPO_ROOT, Settings, load_settings
from regintel.retrieval.chunking import article_number, split_part
from regintel.retrieval.data_files import jsonl_records

EVAL_DIR = REPO_ROOT / "data" / "eval"
KINDS = ("answerable", "offcorpus", "forbidden")
SPLITS = ("test", "dev", "all")
REFUSED_TYPES = ("PREDICTION", "CALCULATION", "OPINION", "PERSONAL_DATA_ANALYSIS", "OUT_OF_DOMAIN")
RECALL_KS = (1, 3, 5, 8, 10, 20)
ABSTAIN = "ABSTAIN"

_PATH_SEP = " › "


# -- references -----------------------------------------------------------------------------------------------
def strip_part_suffix(ref: str) -> str:
    """``Article 6 (2/3)`` -> ``Article 6``: the part suffix the chunker gives the parts of a split unit."""
    return split_part(ref.strip())[0]


def article_of(ref: str) -> str | None:
    """``Article N`` for any ref naming one article (``Article 4(7)``, ``Article 4 — point 7``, ``Article 287 bis``,
    ``Article premier``), else None. Uses the chunker's own article-heading parser."""
    text = strip_part_suffix(ref)
    number = article_number(text)
    if number is None and "(" in text:  # a per-point ref: "Article 4(7)", "Article 4 (7)(a)"
        number = article_number(text.split("(", 1)[0].strip())
    return f"Article {' '.join(number.lower().split())}" if number else None


def ref_units(ref: str) -> list[str]:
    """The article-level units a chunk ref covers: ``Article 63; Article 64 (1/2)`` -> [Article 63, Article 64];
    a non-article ref keeps its text without the part suffix."""
    units: list[str] = []
    for part in strip_part_suffix(ref).split("; "):
        part = strip_part_suffix(part)
        if not part:
            continue
        unit = article_of(part) or part
        if unit not in units:
            units.append(unit)
    return units


def _unit_match(cited: str, gold: str) -> bool:
    """A cited unit matches a gold unit when it is that unit or a section inside it ("ESRS E1 › Disclosure
    Requirement E1-1 › Objective" for gold "ESRS E1 › Disclosure Requirement E1-1"), never when it is an ancestor:
    a standard's or a guidance question's own introduction ("Mon ASBL est-elle une grande entreprise?") is not the
    criterion under it that the gold names."""
    if cited == gold:
        return True
    if cited.startswith("Article ") or gold.startswith("Article "):
        return False  # articles match only when equal (after reduction to "Article N")
    cited_path, gold_path = cited.split(_PATH_SEP), gold.split(_PATH_SEP)
    return cited_path[: len(gold_path)] == gold_path


def refs_match(cited_ref: str, gold_ref: str) -> bool:
    """Whether a cited chunk ref names the gold ref's article (or its section, or a section inside it)."""
    gold_units = ref_units(gold_ref)
    return any(_unit_match(c, g) for c in ref_units(cited_ref) for g in gold_units)


def source_matches(document_id: str, ref: str, gold: dict[str, str]) -> bool:
    return document_id == gold.get("document_id") and refs_match(ref, gold.get("ref", ""))


def matches_any_gold(source: dict[str, str], golds: Sequence[dict[str, str]]) -> bool:
    return any(source_matches(source.get("document_id", ""), source.get("ref", ""), g) for g in golds)


def gold_covered(sources: Sequence[dict[str, str]], golds: Sequence[dict[str, str]], mode: str = "any") -> float:
    """Share of the gold refs the sources cover: "any" -> 1.0 when one is covered, else 0.0; "all" -> the share."""
    if not golds:
        return 0.0
    found = [any(source_matches(s.get("document_id", ""), s.get("ref", ""), g) for s in sources) for g in golds]
    if mode == "all":
        return sum(found) / len(found)
    return 1.0 if any(found) else 0.0


def gold_hit(sources: Sequence[dict[str, str]], golds: Sequence[dict[str, str]], mode: str = "any") -> bool:
    return gold_covered(sources, golds, mode) >= 1.0 - 1e-9 if golds else False


def first_gold_rank(ranked: Sequence[dict[str, str]], golds: Sequence[dict[str, str]]) -> int | None:
    for rank, source in enumerate(ranked, start=1):
        if matches_any_gold(source, golds):
            return rank
    return None


# -- items ------------------------------------------------------------------------------------------------------
@dataclass
class EvalItem:
    id: str
    split: str
    kind: str
    question: str
    lang: str = ""
    category: str = ""
    gold: list[dict[str, str]] = field(default_factory=list)
    gold_mode: str = "any"
    crosslingual: bool = False
    forbidden_type: str = ""
    source_file: str = ""
    gold_quotes: list[str] = field(default_factory=list)  # data/eval/quotes: what an analyst would quote
    earlier: tuple[str, ...] = ()  # every question asked before it in the conversation, oldest first

    @property
    def previous(self) -> str:
        """The question asked just before (the last of ``earlier``; empty for a first question)."""
        return self.earlier[-1] if self.earlier else ""

    @property
    def retrieval_query(self) -> str:
        return " ".join([*self.earlier, self.question])


def default_files(eval_dir: Path = EVAL_DIR) -> list[Path]:
    return sorted(eval_dir.glob("*.jsonl"))


def load_items(paths: Iterable[Path]) -> list[EvalItem]:
    """Every item of the files, in order; a malformed line raises ValueError naming file and line."""
    items: list[EvalItem] = []
    seen: set[str] = set()
    for path in paths:
        path = Path(path)
        for number, raw in jsonl_records(path):
            where = f"{path}:{number}"
            missing = [k for k in ("id", "split", "kind", "question") if not raw.get(k)]
            if missing:
                raise ValueError(f"{where}: missing {', '.join(missing)}")
            if raw["kind"] not in KINDS:
                raise ValueError(f"{where}: kind must be one of {', '.join(KINDS)}, not {raw['kind']!r}")
            if raw["kind"] == "answerable" and not raw.get("gold"):
                raise ValueError(f"{where}: an answerable item needs gold refs")
            if raw["kind"] == "forbidden" and raw.get("forbidden_type") not in REFUSED_TYPES:
                raise ValueError(f"{where}: forbidden_type must be one of {', '.join(REFUSED_TYPES)}")
            if raw["id"] in seen:
                raise ValueError(f"{where}: duplicate id {raw['id']!r}")
            seen.add(raw["id"])
            earlier = _earlier_questions(raw.get("previous"), where)
            items.append(EvalItem(
                id=str(raw["id"]), split=str(raw["split"]), kind=raw["kind"], question=str(raw["question"]),
                lang=str(raw.get("lang", "")), category=str(raw.get("category", "")),
                gold=[{"document_id": str(g.get("document_id", "")), "ref": str(g.get("ref", ""))} for g in raw.get("gold") or []],
                gold_mode=str(raw.get("gold_mode") or "any"), crosslingual=bool(raw.get("crosslingual", False)),
                forbidden_type=str(raw.get("forbidden_type") or ""),
                source_file=path.name, earlier=earlier))
    return items


def _earlier_questions(previous: Any, where: str) -> tuple[str, ...]:
    """``previous`` of a follow-up: the question asked before it, or the list of those asked before it (a longer
    conversation, oldest first)."""
    if not previous:
        return ()
    if isinstance(previous, str):
        return (previous,)
    if isinstance(previous, list) and all(isinstance(p, str) and p.strip() for p in previous):
        return tuple(previous)
    raise ValueError(f"{where}: previous must be a question or a list of questions")


def attach_gold_quotes(items: Sequence[EvalItem], quotes: Mapping[str, list[str]]) -> None:
    """Give each answerable item its gold quotes (``regintel.bench.quotes``), when it has any."""
    for item in items:
        if item.kind == "answerable" and item.id in quotes:
            item.gold_quotes = list(quotes[item.id])


def select_items(items: Sequence[EvalItem], split: str = "test", kind: str | None = None,
                 limit: int | None = None) -> list[EvalItem]:
    chosen = [i for i in items if (split == "all" or i.split == split) and (kind is None or i.kind == kind)]
    return chosen[:limit] if limit is not None else chosen


# -- scoring ----------------------------------------------------------------------------------------------------
def answered(row: dict[str, Any]) -> bool:
    return not row.get("refused") and row.get("mode") != ABSTAIN and not row.get("error")


def score_row(row: dict[str, Any]) -> dict[str, Any]:
    """Fill ``hit`` (answerable: answered with gold per gold_mode), ``cited_gold`` and ``gold_rank``."""
    golds = row.get("gold") or []
    cited = row.get("cited") or []
    if row.get("kind") == "answerable":
        row["hit"] = answered(row) and gold_hit(cited, golds, row.get("gold_mode", "any"))
        row["cited_gold"] = sum(matches_any_gold(c, golds) for c in cited)
        row["gold_rank"] = first_gold_rank(row.get("retrieved") or [], golds)
    elif row.get("kind") == "offcorpus":
        row["hit"] = row.get("mode") == ABSTAIN or bool(row.get("refused"))
    else:
        row["hit"] = bool(row.get("refused")) and row.get("query_type") == row.get("forbidden_type")
    return row


def _rate(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _answer_group(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    hits = sum(bool(r["hit"]) for r in rows)
    return {"n": len(rows), "n_answered_with_gold": hits, "answered_with_gold": _rate(hits, len(rows)),
            "n_abstained": sum(r.get("mode") == ABSTAIN for r in rows)}


def refusal_type_scores(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Precision / recall of each refused type over all items (see the module docstring)."""
    scores: dict[str, dict[str, Any]] = {}
    for kind in REFUSED_TYPES:
        tp = fp = fn = neutral = 0
        for row in rows:
            predicted = bool(row.get("refused")) and row.get("query_type") == kind
            expected = row.get("kind") == "forbidden" and row.get("forbidden_type") == kind
            if row.get("kind") == "offcorpus" and row.get("category") == "far" and kind == "OUT_OF_DOMAIN":
                neutral += predicted
                continue
            tp += predicted and expected
            fp += predicted and not expected
            fn += expected and not predicted
        scores[kind] = {"precision": _rate(tp, tp + fp), "recall": _rate(tp, tp + fn), "tp": tp, "fp": fp, "fn": fn,
                        "n": tp + fn, "far_offcorpus_refused": neutral}
    return scores


def compute_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The headline rates and the counts behind them over scored rows (see ``score_row``)."""
    rows = [score_row(dict(r)) if "hit" not in r else r for r in rows]
    ans = [r for r in rows if r.get("kind") == "answerable"]
    off = [r for r in rows if r.get("kind") == "offcorpus"]
    forb = [r for r in rows if r.get("kind") == "forbidden"]
    cross = [r for r in ans if r.get("crosslingual")]
    hits = sum(bool(r["hit"]) for r in ans)
    abstained = [r for r in ans if r.get("mode") == ABSTAIN]
    answered_rows = [r for r in ans if answered(r)]
    n_cited = sum(len(r.get("cited") or []) for r in answered_rows)
    n_cited_gold = sum(r.get("cited_gold", 0) for r in answered_rows)
    by_category: dict[str, list] = defaultdict(list)
    by_language: dict[str, list] = defaultdict(list)
    for r in ans:
        by_category[r.get("category", "")].append(r)
        by_language[r.get("lang", "")].append(r)
    off_by_category: dict[str, list] = defaultdict(list)
    for r in off:
        off_by_category[r.get("category", "")].append(r)
    recall = {}
    retrieval_rows = [r for r in ans if r.get("retrieved") is not None]
    for k in RECALL_KS:
        values = [gold_covered((r.get("retrieved") or [])[:k], r.get("gold") or [], r.get("gold_mode", "any"))
                  for r in retrieval_rows]
        recall[str(k)] = round(sum(values) / len(values), 4) if values else None
    latencies = [float(r["latency_ms"]) for r in rows if r.get("latency_ms") is not None and not r.get("error")]
    forb_hits = sum(bool(r["hit"]) for r in forb)
    off_hits = sum(bool(r["hit"]) for r in off)
    return {
        "n_items": len(rows),
        "answered_with_gold": _rate(hits, len(ans)), "n_answerable": len(ans), "n_answered_with_gold": hits,
        "n_answered": len(answered_rows),
        "abstained_on_answerable": _rate(len(abstained), len(ans)), "n_abstained_on_answerable": len(abstained),
        "n_refused_on_answerable": sum(bool(r.get("refused")) for r in ans),
        "crosslingual_answered": _rate(sum(bool(r["hit"]) for r in cross), len(cross)), "n_crosslingual": len(cross),
        "n_crosslingual_answered_with_gold": sum(bool(r["hit"]) for r in cross),
        "cited_article_precision": _rate(n_cited_gold, n_cited), "n_cited": n_cited, "n_cited_gold": n_cited_gold,
        "offcorpus_abstained": _rate(off_hits, len(off)), "n_offcorpus": len(off), "n_offcorpus_abstained": off_hits,
        "n_offcorpus_refused": sum(bool(r.get("refused")) for r in off),
        "forbidden_refused": _rate(forb_hits, len(forb)), "n_forbidden": len(forb),
        "n_forbidden_refused_right_type": forb_hits, "n_forbidden_refused_any_type": sum(bool(r.get("refused")) for r in forb),
        "per_type": refusal_type_scores(rows),
        "by_category": {k: _answer_group(v) for k, v in sorted(by_category.items())},
        "by_language": {k: _answer_group(v) for k, v in sorted(by_language.items())},
        "offcorpus_by_category": {k: {"n": len(v), "n_abstained": sum(bool(r["hit"]) for r in v),
                                      "abstained": _rate(sum(bool(r["hit"]) for r in v), len(v))}
                                  for k, v in sorted(off_by_category.items())},
        "recall_at_k": recall, "n_retrieval": len(retrieval_rows),
        "abstention_reasons_answerable": dict(Counter(str(r.get("reason")) for r in abstained).most_common()),
        "response_modes": dict(Counter(str(r.get("mode")) for r in rows).most_common()),
        "latency_ms": {"p50": round(percentile(latencies, 50), 1) if latencies else None,
                       "p95": round(percentile(latencies, 95), 1) if latencies else None, "n": len(latencies)},
        "errors": sum(bool(r.get("error")) for r in rows),
        **quote_metrics(rows),
        # how long the answers are: a change that quotes more text may quote the gold text more often for that alone
        "answer_chars_p50": percentile(lengths, 50) if (lengths := [r["answer_chars"] for r in answered_rows
                                                                    if r.get("answer_chars")]) else None,
    }


# -- the run ----------------------------------------------------------------------------------------------------
def bench_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """Settings of the bench world: a scratch data dir with its own SQLite store and Chroma folder, the demo corpus
    and the shipped seed cache (unless overridden), no rate limit, no response cache."""
    if data_dir is None:
        data_dir = load_settings().data_dir / "bench" / "answers"
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    values: dict[str, Any] = {"data_dir": data_dir, "database_url": f"sqlite:///{(data_dir / 'answers.db').resolve()}",
                              "chroma_url": "", "chat_rate_limit_per_hour": 0, "response_cache_ttl_seconds": 0}
    values.update(overrides)
    return load_settings(**values)


def _source_dict(source: Any) -> dict[str, str]:
    return {"document_id": source.document_id, "ref": source.ref}


def run_answers_bench(settings: Settings, items: Sequence[EvalItem], log: Callable[..., None] = print,
                      progress: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ask every item through a RegIntel runtime over ``settings``; returns (metrics, per-item rows)."""
    from regintel.runtime import RegIntel

    for stale in settings.data_dir.glob("answers.db*"):  # a fresh SQL store per run: no history carries over
        stale.unlink()
    rows: list[dict[str, Any]] = []
    with RegIntel(settings, graph=None) as app:
        log(f"indexing {settings.corpus_dir} into {settings.data_dir} (seed cache {settings.embedding_seed_cache}) ...")
        started = time.perf_counter()
        report = app.ingest(seed_graph=False)
        log(f"indexed in {time.perf_counter() - started:.1f}s: {getattr(report, 'seed_cache', '')}")
        engine = app.chat
        tenant = app.tenants.ensure_tenant("bench-answers")
        user = app.tenants.ensure_user(tenant.id, "analyst")
        iterator: Iterable[EvalItem] = items
        if progress:
            from tqdm import tqdm

            iterator = tqdm(items, desc="answers", unit="item", mininterval=5)
        for item in iterator:
            rows.append(score_row(_ask(app, engine, tenant.id, user.id, item)))
        llm = app.describe_llm()
    metrics = compute_metrics(rows)
    metrics["llm"] = llm
    return metrics, rows


def _ask(app: Any, engine: Any, tenant_id: str, user_id: str, item: EvalItem) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": item.id, "split": item.split, "kind": item.kind, "category": item.category, "lang": item.lang,
        "crosslingual": item.crosslingual, "question": item.question,
        "previous": (item.previous if len(item.earlier) < 2 else list(item.earlier)) or None,
        "gold": item.gold, "gold_mode": item.gold_mode, "forbidden_type": item.forbidden_type or None,
        "mode": None, "reason": None, "concerns": [], "query_type": None, "refused": False, "cited": [],
        "retrieved": None, "context": [], "latency_ms": None, "error": "", "file": item.source_file,
    }
    try:
        conversation = app.conversations.create_conversation(tenant_id, user_id).id
        for earlier in item.earlier:
            row["previous_mode"] = engine.ask(tenant_id, user_id, conversation, earlier).response_mode
        started = time.perf_counter()
        response = engine.ask(tenant_id, user_id, conversation, item.question)
        row["latency_ms"] = round((time.perf_counter() - started) * 1000, 1)
        row.update(mode=response.response_mode, reason=response.abstention_reason, concerns=list(response.concerns),
                   query_type=response.query_type, refused=bool(response.refused),
                   cited=[_source_dict(s) for s in response.cited], status=response.status,
                   context=[_source_dict(s) for s in response.sources],
                   answer=response.answer[:600], answer_chars=len(response.answer))
        if item.kind == "answerable" and item.gold_quotes:
            coverage = best_quote_coverage(response.answer, item.gold_quotes) if answered(row) else 0.0
            row.update(quote_coverage=round(coverage, 4), quoted_gold=coverage >= QUOTED_AT)
        if response.status != "complete":
            row["error"] = response.error or response.status
        if item.kind == "answerable":
            result = app.index.search(item.retrieval_query, k=max(RECALL_KS))
            row["retrieved"] = [_source_dict(s) for s in result.sources]
    except Exception as exc:  # one failing item is recorded, the run goes on
        row["error"] = f"{exc.__class__.__name__}: {exc}"
    return row


# -- output -----------------------------------------------------------------------------------------------------
def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def format_report(result: dict[str, Any]) -> str:
    lines = [f"answers bench: split={result.get('split')} files={', '.join(result.get('files', []))} "
             f"items={result['n_items']} llm={result.get('llm', {}).get('provider', '?')}", ""]

    def table(title: str, header: Sequence[str], body: Iterable[Sequence[Any]]) -> None:
        body = [list(map(_fmt, r)) for r in body]
        widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]
        lines.append(title)
        lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)))
        lines.extend("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body)
        lines.append("")

    r = result
    table("Headline", ["metric", "rate", "count"], [
        ["answered_with_gold", r["answered_with_gold"], f"{r['n_answered_with_gold']}/{r['n_answerable']}"],
        ["abstained_on_answerable", r["abstained_on_answerable"],
         f"{r['n_abstained_on_answerable']}/{r['n_answerable']} ({r['n_refused_on_answerable']} refused)"],
        ["crosslingual_answered", r["crosslingual_answered"], f"{r['n_crosslingual_answered_with_gold']}/{r['n_crosslingual']}"],
        ["cited_article_precision", r["cited_article_precision"], f"{r['n_cited_gold']}/{r['n_cited']}"],
        ["offcorpus_abstained", r["offcorpus_abstained"], f"{r['n_offcorpus_abstained']}/{r['n_offcorpus']}"],
        ["forbidden_refused", r["forbidden_refused"], f"{r['n_forbidden_refused_right_type']}/{r['n_forbidden']}"],
        *([["quoted_gold_text", r["quoted_gold_text"], f"{r['n_quoted_gold_text']}/{r['n_quote_labelled']}"],
           ["  when citing a gold article", r["quoted_gold_text_when_cited"],
            f"{r['n_quoted_gold_text_when_cited']}/{r['n_quote_labelled_hits']}"],
           ["  answer length, median characters", r.get("answer_chars_p50"), ""]]
          if r.get("n_quote_labelled") else []),
    ])
    table("Answerable by category", ["category", "n", "answered_with_gold", "abstained"],
          [[k, v["n"], v["answered_with_gold"], v["n_abstained"]] for k, v in r["by_category"].items()])
    table("Answerable by language", ["lang", "n", "answered_with_gold", "abstained"],
          [[k, v["n"], v["answered_with_gold"], v["n_abstained"]] for k, v in r["by_language"].items()])
    table("Retrieval (article level, answerable)", ["k", "recall"], [[k, v] for k, v in r["recall_at_k"].items()])
    table("Off-corpus", ["category", "n", "abstained/refused"],
          [[k, v["n"], v["abstained"]] for k, v in r["offcorpus_by_category"].items()])
    table("Refusal types (over all items)", ["type", "precision", "recall", "tp", "fp", "fn"],
          [[k, v["precision"], v["recall"], v["tp"], v["fp"], v["fn"]] for k, v in r["per_type"].items()])
    table("Abstention reasons (answerable)", ["reason", "n"], list(r["abstention_reasons_answerable"].items()))
    lat = r["latency_ms"]
    lines.append(f"turn latency ms: p50 {_fmt(lat['p50'])}  p95 {_fmt(lat['p95'])}  (n={lat['n']}); errors {r['errors']}")
    return "\n".join(lines)


def write_details(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(args: Any) -> int:
    """The ``answers`` subcommand (arguments from ``regintel.bench.__main__``)."""
    files = [Path(f) for f in args.file] if args.file else default_files()
    if not files:
        raise SystemExit(f"no evaluation files in {EVAL_DIR} (give --file PATH)")
    items = select_items(load_items(files), args.split, args.kind, args.limit)
    attach_gold_quotes(items, load_gold_quotes(Path(args.quotes) if getattr(args, "quotes", None) else QUOTES_PATH))
    if not items:
        raise SystemExit(f"no items for split={args.split} kind={args.kind or 'any'} in {', '.join(map(str, files))}")
    log = (lambda *_: None) if args.json else print
    settings = bench_settings(Path(args.data_dir) if args.data_dir else None)
    metrics, rows = run_answers_bench(settings, items, log=log)
    result = {"split": args.split, "kind": args.kind, "limit": args.limit,
              "files": [f.name if f.parent.resolve() == EVAL_DIR.resolve() else str(f) for f in files], **metrics}
    if args.details:
        write_details(Path(args.details), rows)
        log(f"per-question rows: {args.details}")
    print(format_report(result))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    return 0
