"""What the retrieval benchmarks share: cached embeddings, ingestion into the embedded engine, the systems, metrics.

Every system ranks the same memories in the same run with the same embedder (the bundled e5):
- ``bm25``: BM25 over the memory texts (``bm25s``, English stemming and stopwords), a standard baseline;
- ``cosine``: plain cosine, Qdrant's dense search;
- ``cosine+decay``: the seed's formula (cosine x 30-day half-life decay x stale factor) over the cosine top-100;
- ``palace``: the product's recall (:func:`memory.recall.recall`) with its default ranking settings.

Embeddings are cached under ``$PALACE_BENCH_CACHE`` (default ``bench/.cache``, git-ignored) keyed by the texts
and the embedder, so a second run does not spend minutes re-embedding the same data.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.edge import EdgeClient
from memory.embeddings import E5Embeddings
from memory.long_term import LongTermMemory, Memory

KS = (5, 10, 25, 50)
POOL = 100  # candidates the reranking systems reorder


def progress(iterable: Any, desc: str, total: int | None = None) -> Any:
    """A progress bar on stderr (tqdm) when it is a terminal or asked for; the plain iterable otherwise."""
    from tqdm import tqdm

    disable = not (sys.stderr.isatty() or os.environ.get("PALACE_BENCH_PROGRESS", "") not in ("", "0"))
    return tqdm(iterable, desc=desc, total=total, disable=disable, file=sys.stderr, leave=False)


def cache_dir() -> Path:
    path = Path(os.environ.get("PALACE_BENCH_CACHE") or Path(__file__).resolve().parent / ".cache")
    path.mkdir(parents=True, exist_ok=True)
    return path


class CachedE5:
    """The bundled e5 with a disk cache of document and query vectors."""

    name = "multilingual-e5-small-q4"

    def __init__(self) -> None:
        self.model = E5Embeddings()

    def _cached(self, kind: str, texts: Sequence[str], embed: Callable[[list[str]], list[list[float]]],
                desc: str) -> np.ndarray:
        digest = hashlib.sha256("\x1e".join([self.name, kind, *texts]).encode()).hexdigest()[:24]
        path = cache_dir() / f"{kind}-{digest}.npy"
        if path.is_file():
            cached: np.ndarray = np.load(path)
            return cached
        batch = 32
        rows: list[list[float]] = []
        for start in progress(range(0, len(texts), batch), desc, total=(len(texts) + batch - 1) // batch):
            rows.extend(embed(list(texts[start:start + batch])))
        array = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, array)
        tmp.replace(path)
        return array

    def documents(self, texts: Sequence[str], desc: str = "embedding memories") -> np.ndarray:
        return self._cached("doc", texts, self.model.embed_documents, desc)

    def queries(self, texts: Sequence[str], desc: str = "embedding questions") -> np.ndarray:
        return self._cached("query", texts, lambda batch: [self.model.embed_query(t) for t in batch], desc)


@contextmanager
def edge_store(collection: str = "bench") -> Iterator[LongTermMemory]:
    """A LongTermMemory on a fresh Qdrant Edge storage (the embedded default) in a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="palace-bench-") as tmp:
        client = EdgeClient(Path(tmp) / "edge")
        try:
            ltm = LongTermMemory(client, collection)
            ltm.setup(E5Embeddings.dimensions)
            yield ltm
        finally:
            client.close()


def ingest(ltm: LongTermMemory, memories: Sequence[Memory], vectors: np.ndarray, desc: str = "ingesting") -> None:
    batch = 256
    for start in progress(range(0, len(memories), batch), desc, total=(len(memories) + batch - 1) // batch):
        ltm.upsert(memories[start:start + batch], vectors[start:start + batch].tolist())


@dataclass
class Scores:
    """R@k (share of a question's gold ids in the top k) and reciprocal rank, per question."""

    recall: dict[int, list[float]]
    rr: list[float]

    @classmethod
    def empty(cls) -> Scores:
        return cls(recall={k: [] for k in KS}, rr=[])

    def add(self, ranked: Sequence[str], gold: Sequence[str]) -> None:
        gold_set = set(gold)
        for k in KS:
            self.recall[k].append(len(gold_set & set(ranked[:k])) / len(gold_set))
        self.rr.append(next((1.0 / (i + 1) for i, g in enumerate(ranked[:max(KS)]) if g in gold_set), 0.0))

    def extend(self, other: Scores) -> None:
        for k in KS:
            self.recall[k].extend(other.recall[k])
        self.rr.extend(other.rr)

    def summary(self) -> dict[str, float]:
        out = {f"R@{k}": round(100 * float(np.mean(v)), 1) if v else 0.0 for k, v in self.recall.items()}
        out["MRR"] = round(float(np.mean(self.rr)), 3) if self.rr else 0.0
        return out
