"""Recall latency at 1K, 10K and 50K memories for one user among many, per embedded engine.

The collection holds the measured user's N memories and as many again spread over 9 other users, so every
query filters on the user. Memories are LoCoMo turns (text, and the e5 vector plus a little noise so that no two
are equal), cycled to size; queries are LoCoMo questions, embedded live by the bundled e5 (query embedding is
part of "total"). Per query, from :class:`memory.recall.RecallTimings`: embed, search (the batched dense + BM25
request) and rerank; "search" in the JSON is search + rerank. Warm-up queries are not counted. p50/p95/p99 each.

Stages (``stages`` in the JSON, p50/p95/p99 of each): ``search`` recall's whole hybrid search, ``fusion`` the
z-score fusion and the rest of the scoring, ``context`` the neighbour context (same session, nearby in time),
``rerank`` all of recall's ranking; on Qdrant Edge also ``dense``, ``sparse`` and ``exact_fetch`` (the request for
the exact scores one search missed), timed by a twin of the hybrid search that makes the same engine calls one by
one, on the same query (``twin_mismatches``: queries where its hits differ from the product's; 0 expected).
Ablation (Qdrant Edge only; ``ablation`` in the JSON), each run on every query in turn with the product's (the
order rotates), so a busy moment of the machine hits all alike: ``off``, recall without the exact-score fetch;
``one-thread`` and ``all-cores``, the query embedded on one OpenMP thread or on every core, where the product
chooses by the load average (:meth:`memory.embeddings.E5Embeddings.threads_for_query`).

Edge's segments are optimized (indexed) after ingesting, as ``palace sweep`` and closing the store do; the time
it takes is reported. Engines: ``edge`` (Qdrant Edge, the embedded default) and ``local`` (qdrant-client's
local mode, the previous default: it filters and scores in Python, so it gets fewer queries at the larger sizes).
"""

from __future__ import annotations

import argparse
import os
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
from memory.long_term import (
    DENSE,
    SPARSE,
    Client,
    HybridHit,
    LongTermMemory,
    Memory,
    Status,
    TimeWindow,
    memory_id,
)
from memory.ranking import Candidate, RankingConfig, _neighbour_scores, score_hybrid
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


class _Timed(LongTermMemory):
    """The product's hybrid search, keeping its last candidates for the stage timings."""

    last: list[HybridHit]

    def hybrid_search(self, *args: Any, **kwargs: Any) -> list[HybridHit]:
        self.last = super().hybrid_search(*args, **kwargs)
        return self.last


class _Staged(_Timed):
    """:meth:`LongTermMemory.hybrid_search`'s engine calls made one by one and timed apart (``stages``): the dense
    and the BM25 search, then the request for the scores one of them missed, on their ids."""

    def __init__(self, client: Client, collection: str) -> None:
        super().__init__(client, collection)
        self.stages: dict[str, float] = {}

    def hybrid_search(self, user_id: str, vector: Sequence[float], text: str, *, limit: int = 20,
                      window: TimeWindow | None = None, statuses: Sequence[Status] = ("active",),
                      recorded_before: int | None = None, exact_cosine: bool = True) -> list[HybridHit]:
        m, flt = self._m, self._search_filter(user_id, window, statuses, recorded_before)
        cosine: dict[str, float] = {}
        lexical: dict[str, float] = {}
        memories: dict[str, Memory] = {}
        self.stages = {"dense": 0.0, "sparse": 0.0, "exact_fetch": 0.0}
        query = self._sparse_query(text)
        searches = [("dense", cosine, list(vector), DENSE), ("sparse", lexical, query, SPARSE)]
        for stage, scores, q, using in searches[:2 if query.indices else 1]:
            t0 = time.perf_counter()
            response = self.client.query_points(self.collection, q, using=using, query_filter=flt, limit=limit,
                                                with_payload=True)
            self.stages[stage] = (time.perf_counter() - t0) * 1000
            for p in response.points:
                memories.setdefault(str(p.id), self._to_memory(p.id, p.payload))
                scores[str(p.id)] = float(p.score)
        missed: list[tuple[dict[str, float], list[str], Any, str]] = [
            (cosine, [k for k in lexical if k not in cosine], list(vector), DENSE)]
        if len(lexical) >= limit:  # BM25 may have cut off what only the dense search found
            missed.append((lexical, [k for k in cosine if k not in lexical], query, SPARSE))
        missed = [x for x in missed if x[1]] if exact_cosine else []
        t0 = time.perf_counter()
        if missed:
            more: Sequence[Any] = self.client.query_batch_points(self.collection, requests=[m.QueryRequest(
                query=q, using=using, limit=len(ids), with_payload=False,
                filter=m.Filter(must=[flt, m.HasIdCondition(has_id=ids)])) for _, ids, q, using in missed])
            for (scores, _, _, _), found in zip(missed, more, strict=True):
                scores.update((str(p.id), float(p.score)) for p in found.points)
        self.stages["exact_fetch"] = (time.perf_counter() - t0) * 1000
        self.last = [HybridHit(memory=x, cosine=cosine.get(k), lexical=lexical.get(k)) for k, x in memories.items()]
        return self.last


def _ranking_stages(hits: Sequence[HybridHit], ranking: RankingConfig) -> dict[str, float]:
    """The hybrid ranking's share of a recall: ``context`` the neighbour scores, ``fusion`` the rest."""
    candidates = [Candidate(cosine=h.cosine, lexical=h.lexical, session_id=h.memory.session_id,
                            timestamp_ms=h.memory.timestamp) for h in hits]
    t0 = time.perf_counter()
    scored = score_hybrid(candidates, 0, decay_floor=ranking.decay_floor, config=ranking)
    t1 = time.perf_counter()
    _neighbour_scores(candidates, [b.relevance for b in scored], ranking.context_window_ms)
    t2 = time.perf_counter()
    return {"fusion": max(0.0, (t1 - t0) - (t2 - t1)) * 1000, "context": (t2 - t1) * 1000}


def _quantiles(samples: Sequence[float]) -> dict[str, float]:
    return {f"p{q}_ms": round(percentile(samples, q), 2) for q in (50, 95, 99)}


def _figures(times: dict[str, list[float]], stages: dict[str, list[float]], queries: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("search", "embed", "total"):
        out.update({f"{name}_{k}": v for k, v in _quantiles(times[name]).items()})
    out["queries"] = queries
    out["stages"] = {name: _quantiles(xs) for name, xs in stages.items()}
    return out


def _measure(ltm: _Timed, twin: _Staged | None, embedder: E5Embeddings, questions: Sequence[str], queries: int,
             warmup: int, settings: Any, ranking: Any) -> dict[str, Any]:
    """The product's recall, and with ``twin`` the ablation (``off``) and the twin's stage timings, each query
    in turn (the order rotates)."""
    now = datetime(2024, 12, 1, tzinfo=UTC)
    names = ["default", "off", "twin", "one-thread", "all-cores"] if twin is not None else ["default"]
    cores = os.cpu_count() or 1
    embedders = {"one-thread": E5Embeddings(query_threads=1), "all-cores": E5Embeddings(query_threads=cores)}
    times: dict[str, dict[str, list[float]]] = {n: {"search": [], "embed": [], "total": []} for n in names}
    stages: dict[str, dict[str, list[float]]] = {n: {} for n in names}
    mismatches = 0
    for i in range(warmup + queries):
        q = questions[(i * 37) % len(questions)]
        hits: dict[str, list[tuple[str, float | None, float | None]]] = {}
        for name in names[i % len(names):] + names[:i % len(names)]:
            store = twin if name == "twin" and twin is not None else ltm
            t = recall(store, embedders.get(name, embedder), USER, q, now, search_k=settings.search_top_k,
                       top_k=settings.recall_top_k, config=ranking, exact_cosine=name != "off").timings
            hits[name] = [(h.memory.id, h.cosine, h.lexical) for h in store.last]
            if i < warmup:
                continue
            times[name]["search"].append(t.search_ms + t.rerank_ms)
            times[name]["embed"].append(t.embed_ms)
            times[name]["total"].append(t.embed_ms + t.search_ms + t.rerank_ms)
            per = dict(twin.stages) if store is twin and twin is not None else {}
            per.update(search=t.search_ms, **_ranking_stages(store.last, ranking), rerank=t.rerank_ms)
            for stage, ms in per.items():
                stages[name].setdefault(stage, []).append(ms)
        mismatches += "twin" in hits and hits["twin"] != hits["default"]
    figures = _figures(times["default"], stages["default"], queries)
    if twin is None:
        return figures
    for stage in ("dense", "sparse", "exact_fetch"):
        figures["stages"][stage] = _quantiles(stages["twin"][stage])
    figures["twin_mismatches"] = mismatches
    return {**figures, "ablation": {name: _figures(times[name], stages[name], queries)
                                    for name in ("off", "one-thread", "all-cores")}}


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
                    ltm = _Timed(client, "recall")
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
                    twin = _Staged(client, "recall") if isinstance(client, EdgeClient) else None
                    figures = _measure(ltm, twin, embedder, questions, count,
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
    parser.add_argument("--save", action="store_true",
                        help="write bench/results/recall.json for the report, adding this run's headline to its "
                             "runs (the goals hold when they hold run after run)")


RUNS_KEPT = 10


def headline(r: dict[str, Any]) -> dict[str, Any]:
    """One run's figures against the goals (search p95 <= 20 ms, total p95 <= 50 ms), per engine and size, with
    when and on what load it ran (``_meta``)."""
    meta = r.get("_meta", {})
    sizes = {f"{engine} {n}": {k: f[k] for k in ("search_p95_ms", "search_p99_ms", "total_p95_ms", "total_p99_ms")
                               if k in f}
             for engine, per in r["engines"].items() for n, f in per.items()}
    return {"commit": meta.get("commit"), "at": meta.get("at"), "load": meta.get("load"), "sizes": sizes}


def main(args: argparse.Namespace) -> dict[str, Any]:
    import json

    from bench.report import RESULTS, save

    bad = [e for e in args.engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"bench: error: unknown engine {bad[0]!r} (use {', '.join(ENGINES)})")
    t0, load = time.perf_counter(), os.getloadavg()[0]
    result = run(args.sizes, args.engines, args.queries)
    if args.save:
        path = RESULTS / "recall.json"
        try:
            previous = json.loads(path.read_text())
        except (OSError, ValueError):
            previous = {}
        save("recall", result, t0, load)  # stamps _meta
        result["runs"] = [*previous.get("runs", []), headline(result)][-RUNS_KEPT:]
        if "before" in previous:  # the figures before issue 26, for the report
            result["before"] = previous["before"]
        save("recall", result, t0, load)
    return result


def report(r: dict[str, Any]) -> str:
    rows = [f"recall latency in ms (search = batched dense + BM25 search + rerank; total adds embedding the query), "
            f"one user among {OTHER_USERS + 1}, search_top_k {r['search_top_k']}; default engine: {r['default']}",
            f"{'engine':<8}{'variant':<11}{'memories':>10}{'search p50':>12}{'search p95':>12}{'search p99':>12}"
            f"{'embed p50':>11}{'total p50':>11}{'total p95':>11}{'total p99':>11}{'queries':>9}"]
    for engine, per in r["engines"].items():
        for n, figures in per.items():
            for variant, f in [("default", figures), *figures.get("ablation", {}).items()]:
                rows.append(f"{engine:<8}{variant:<11}{int(n):>10}{f['search_p50_ms']:>12.2f}"
                            f"{f['search_p95_ms']:>12.2f}{f.get('search_p99_ms', float('nan')):>12.2f}"
                            f"{f['embed_p50_ms']:>11.2f}{f['total_p50_ms']:>11.2f}{f['total_p95_ms']:>11.2f}"
                            f"{f.get('total_p99_ms', float('nan')):>11.2f}{f['queries']:>9}")
    rows.append("stages, ms p50 / p95 / p99")
    for engine, per in r["engines"].items():
        for n, figures in per.items():
            for variant, f in [("default", figures), *figures.get("ablation", {}).items()]:
                stages = "  ".join(f"{name} {q['p50_ms']:.2f}/{q['p95_ms']:.2f}/{q['p99_ms']:.2f}"
                                   for name, q in f.get("stages", {}).items())
                rows.append(f"{engine:<8}{variant:<11}{int(n):>10}  {stages}")
    return "\n".join(rows)
