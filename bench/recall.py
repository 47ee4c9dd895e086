"""Recall latency at 1K, 10K and 50K memories for one user among many, per embedded engine.

The collection holds the measured user's N memories and as many again spread over 9 other users, so every
query filters on the user. Memories are LoCoMo turns (text, and the e5 vector plus a little noise so that no two
are equal), cycled to size; queries are LoCoMo questions, embedded live by the bundled e5 (query embedding is
part of "total"). Per query, from :class:`memory.recall.RecallTimings`: embed, search (the batched dense + BM25
request) and rerank; "search" in the JSON is search + rerank. Warm-up queries are not counted.

Edge's segments are optimized (indexed) after ingesting, as ``palace sweep`` and closing the store do; the time
it takes is reported. Engines: ``edge`` (Qdrant Edge, the embedded default) and ``local`` (qdrant-client's
local mode, the previous default: it filters and scores in Python, so it gets fewer queries at the larger sizes).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.datasets import load_locomo
from bench.locomo import _ranking, memories_of
from bench.retrieval import CachedE5, ingest
from bench.stats import percentile
from graph.settings import get_settings
from memory.edge import EdgeClient
from memory.embeddings import E5Embeddings
from memory.long_term import Client, LongTermMemory, Memory, memory_id
from memory.recall import recall

SIZES = (1_000, 10_000, 50_000)
ENGINES = ("edge", "local")
DEFAULT = "edge"
OTHER_USERS = 9
USER = "measured-user"


def _open(engine: str, directory: Path) -> Client:
    if engine == "edge":
        return EdgeClient(directory / "edge")
    from qdrant_client import QdrantClient

    return QdrantClient(path=str(directory / "local"))


def _corpus(e5: CachedE5) -> tuple[list[Memory], np.ndarray, list[str], np.ndarray]:
    conversations = load_locomo()
    memories = [m for conv in conversations for m in memories_of(conv)[0]]
    vectors = e5.documents([m.text for m in memories], "embedding LoCoMo turns")
    questions = [q.question for conv in conversations for q in conv.questions]
    return memories, vectors, questions, e5.queries(questions, "embedding LoCoMo questions")


def _population(base: Sequence[Memory], vectors: np.ndarray, n: int, rng: np.random.Generator
                ) -> tuple[list[Memory], np.ndarray]:
    """``n`` memories for USER and ``n`` over OTHER_USERS others, cycled from ``base`` with noisy vectors."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    out: list[Memory] = []
    rows = np.empty((2 * n, vectors.shape[1]), dtype=np.float32)
    for i in range(2 * n):
        user = USER if i < n else f"other-{i % OTHER_USERS}"
        src = base[i % len(base)]
        at = start + timedelta(minutes=10 * (i % n))
        out.append(Memory(id=memory_id(user, f"m{i}"), text=src.text, user_id=user, session_id=f"{user}.{i // 40}",
                          timestamp=int(at.timestamp() * 1000), origin="bench"))
        v = vectors[i % len(base)] + np.asarray(rng.normal(0.0, 0.01, vectors.shape[1]), dtype=np.float32)
        rows[i] = v / np.linalg.norm(v)
    return out, rows


def _measure(ltm: LongTermMemory, embedder: E5Embeddings, questions: Sequence[str], queries: int, warmup: int,
             settings: Any, ranking: Any) -> dict[str, float]:
    now = datetime(2024, 12, 1, tzinfo=UTC)
    search, total, embed = [], [], []
    for i in range(warmup + queries):
        q = questions[(i * 37) % len(questions)]
        t = recall(ltm, embedder, USER, q, now, search_k=settings.search_top_k, top_k=settings.recall_top_k,
                   config=ranking).timings
        if i >= warmup:
            search.append(t.search_ms + t.rerank_ms)
            embed.append(t.embed_ms)
            total.append(t.embed_ms + t.search_ms + t.rerank_ms)
    return {"search_p50_ms": round(percentile(search, 50), 2), "search_p95_ms": round(percentile(search, 95), 2),
            "embed_p50_ms": round(percentile(embed, 50), 2), "embed_p95_ms": round(percentile(embed, 95), 2),
            "total_p50_ms": round(percentile(total, 50), 2), "total_p95_ms": round(percentile(total, 95), 2),
            "queries": queries}


def run(sizes: Sequence[int] = SIZES, engines: Sequence[str] = ENGINES, queries: int = 200) -> dict[str, Any]:
    e5 = CachedE5()
    settings = get_settings()
    ranking = _ranking(settings)
    base, vectors, questions, _ = _corpus(e5)
    embedder = e5.model
    rng = np.random.default_rng(7)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for engine in engines:
        for n in sizes:
            memories, rows = _population(base, vectors, n, rng)
            with tempfile.TemporaryDirectory(prefix="palace-recall-") as tmp:
                client = _open(engine, Path(tmp))
                try:
                    ltm = LongTermMemory(client, "recall")
                    ltm.setup(E5Embeddings.dimensions)
                    t0 = time.perf_counter()
                    ingest(ltm, memories, rows, f"{engine}: ingesting {2 * n} memories")
                    ingest_s = time.perf_counter() - t0
                    optimize_s = 0.0
                    if isinstance(client, EdgeClient):  # what `palace sweep` (or closing the store) does
                        t1 = time.perf_counter()
                        client.optimize()
                        optimize_s = time.perf_counter() - t1
                    # local mode scores every point in Python: fewer queries where each takes a second
                    count = queries if engine == "edge" or n <= 1_000 else max(20, queries // (n // 1_000))
                    figures = _measure(ltm, embedder, questions, count,
                                       warmup=5, settings=settings, ranking=ranking)
                    figures["ingest_per_s"] = round(2 * n / ingest_s)
                    figures["optimize_s"] = round(optimize_s, 2)
                    out.setdefault(engine, {})[str(n)] = figures
                finally:
                    client.close()
    return {"default": DEFAULT, "engines": out, "search_top_k": settings.search_top_k}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=list(SIZES),
                        help="memories for the measured user, comma-separated (default 1000,10000,50000)")
    parser.add_argument("--engines", type=lambda s: s.split(","), default=list(ENGINES),
                        help="edge,local (default both)")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size (edge)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    bad = [e for e in args.engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"bench: error: unknown engine {bad[0]!r} (use {', '.join(ENGINES)})")
    return run(args.sizes, args.engines, args.queries)


def report(r: dict[str, Any]) -> str:
    rows = [f"recall latency in ms (search = batched dense + BM25 search + rerank; total adds embedding the query), "
            f"one user among {OTHER_USERS + 1}, search_top_k {r['search_top_k']}; default engine: {r['default']}",
            f"{'engine':<8}{'memories':>10}{'search p50':>12}{'search p95':>12}{'embed p50':>11}{'total p50':>11}"
            f"{'total p95':>11}{'queries':>9}"]
    for engine, per in r["engines"].items():
        for n, f in per.items():
            rows.append(f"{engine:<8}{int(n):>10}{f['search_p50_ms']:>12.2f}{f['search_p95_ms']:>12.2f}"
                        f"{f['embed_p50_ms']:>11.2f}{f['total_p50_ms']:>11.2f}{f['total_p95_ms']:>11.2f}"
                        f"{f['queries']:>9}")
    return "\n".join(rows)
