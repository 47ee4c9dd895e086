"""LoCoMo retrieval (the data README's protocol): R@5/10/25/50 and MRR per category for four systems, one run.

One user per conversation; every dialogue turn is one memory ("<speaker>: <text>", an image's caption in
brackets), stamped with its session's date_time (the data has one time per session: turn i of a session is
stamped i x 30 s later, so the order within a session is kept); the event time comes from the product's
temporal parser, as the write node does. Each question is asked verbatim at "last session + 1 day" through an
injected clock. Systems: see :mod:`bench.retrieval`. The published DRAGON figures are printed alongside.

Ablations (issue 16, ideas for multi-hop and open-domain questions), in the same run, each a change to the
product's ranking of the same question, none shipped unless it helps without hurting (bench/REPORT.md):
- ``-sharpen``: BM25 fused as raw scores (``lexical_power`` 1, the default before it was 2);
- ``-exact``: a candidate one search missed gets the lowest cosine seen or BM25 0 instead of its own scores;
- ``+sessions``: session-level aggregation; a memory's score x (1 + the share of the top-50 score mass its
  session holds);
- ``+diverse``: the top k spread over sessions (greedy, each further memory of an already picked session
  counts half), since multi-hop evidence sits in several sessions;
- ``+prf``: pseudo-relevance feedback; the query vector plus half the mean vector of the top 3, searched again.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from bench.datasets import CATEGORY_ORDER, Conversation, load_locomo
from bench.retrieval import KS, POOL, CachedE5, Scores, edge_store, ingest, progress
from graph.settings import get_settings
from memory.long_term import LongTermMemory, Memory, memory_id
from memory.recall import Recalled, recall, rerank
from memory.temporal import event_time_ms

TURN_STEP = timedelta(seconds=30)
DEFAULT = "palace"
SYSTEMS = ("bm25", "cosine", "cosine+decay", DEFAULT)
ABLATIONS = (f"{DEFAULT}-sharpen", f"{DEFAULT}-exact", f"{DEFAULT}+sessions", f"{DEFAULT}+diverse", f"{DEFAULT}+prf")
# LoCoMo paper, Table 3 (DRAGON, unit = one dialogue turn), from ../shared/data/README.md
DRAGON: dict[str, dict[str, float]] = {
    "single-hop": {"R@5": 68.0, "R@10": 77.7, "R@25": 87.1, "R@50": 91.1},
    "multi-hop": {"R@5": 35.4, "R@10": 46.6, "R@25": 62.5, "R@50": 73.0},
    "temporal": {"R@5": 70.4, "R@10": 77.3, "R@25": 83.5, "R@50": 89.6},
    "open-domain": {"R@5": 33.1, "R@10": 40.8, "R@25": 52.6, "R@50": 61.7},
    "adversarial": {"R@5": 43.9, "R@10": 54.7, "R@25": 66.3, "R@50": 72.5},
    "all": {"R@5": 56.7, "R@10": 66.2, "R@25": 76.7, "R@50": 82.7},
}


def memories_of(conv: Conversation) -> tuple[list[Memory], list[str]]:
    """The memories of one conversation, and the dia_id of each."""
    memories, ids = [], []
    position: dict[str, int] = {}
    for turn in conv.turns:
        session = turn.dia_id.split(":")[0]
        i = position.get(session, 0)
        position[session] = i + 1
        at = turn.at + TURN_STEP * i
        text = turn.memory_text()
        memories.append(Memory(id=memory_id(conv.sample_id, turn.dia_id), text=text, user_id=conv.sample_id,
                               session_id=f"{conv.sample_id}.{session}", timestamp=int(at.timestamp() * 1000),
                               event_time=event_time_ms(at, turn.text), origin=f"locomo:{turn.dia_id}"))
        ids.append(turn.dia_id)
    return memories, ids


def _bm25_rankings(conv: Conversation, texts: Sequence[str]) -> list[list[int]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    index = bm25s.BM25()
    index.index(bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, show_progress=False),
                show_progress=False)
    queries = bm25s.tokenize([q.question for q in conv.questions], stopwords="en", stemmer=stemmer,
                             show_progress=False)
    docs, _ = index.retrieve(queries, k=min(max(KS), len(texts)), show_progress=False, n_threads=1)
    return [list(map(int, row)) for row in docs]


def run(limit_conversations: int | None = None) -> dict[str, Any]:
    conversations = load_locomo()[:limit_conversations]
    e5 = CachedE5()
    settings = get_settings()
    ranking = _ranking(settings)
    raw_lexical = replace(ranking, lexical_power=1.0)
    all_memories: list[Memory] = []
    dia_of: dict[str, str] = {}
    for conv in conversations:
        memories, ids = memories_of(conv)
        all_memories += memories
        dia_of.update({m.id: d for m, d in zip(memories, ids, strict=True)})
    vectors = e5.documents([m.text for m in all_memories], "embedding LoCoMo turns")
    questions = [q for conv in conversations for q in conv.questions]
    qvectors = e5.queries([q.question for q in questions], "embedding LoCoMo questions")
    scores = {name: {c: Scores.empty() for c in CATEGORY_ORDER} for name in SYSTEMS + ABLATIONS}
    row_of = {m.id: i for i, m in enumerate(all_memories)}
    with edge_store("locomo") as ltm:
        ingest(ltm, all_memories, vectors, "ingesting LoCoMo into Qdrant Edge")
        qi = 0
        for conv in progress(conversations, "asking LoCoMo questions"):
            texts = [t.memory_text() for t in conv.turns]
            bm25 = _bm25_rankings(conv, texts)
            now = conv.now
            for n, q in enumerate(conv.questions):
                qv = qvectors[qi]
                qi += 1
                palace = _palace(ltm, conv.sample_id, q.question, qv, now, settings, ranking)
                top = palace[:3]
                feedback = qv + 0.5 * np.mean([vectors[row_of[r.memory.id]] for r in top], axis=0) if top else qv
                ranked = {
                    "bm25": [conv.turns[i].dia_id for i in bm25[n]],
                    "cosine": _cosine(ltm, conv.sample_id, qv, dia_of),
                    "cosine+decay": _seed(ltm, conv.sample_id, qv, now, dia_of, ranking),
                    DEFAULT: [dia_of[r.memory.id] for r in palace],
                    f"{DEFAULT}-sharpen": [dia_of[r.memory.id] for r in _palace(
                        ltm, conv.sample_id, q.question, qv, now, settings, raw_lexical)],
                    f"{DEFAULT}-exact": [dia_of[r.memory.id] for r in _palace(
                        ltm, conv.sample_id, q.question, qv, now, settings, ranking, exact_cosine=False)],
                    f"{DEFAULT}+sessions": [dia_of[r.memory.id] for r in _by_session(palace)],
                    f"{DEFAULT}+diverse": [dia_of[r.memory.id] for r in _diverse(palace)],
                    f"{DEFAULT}+prf": [dia_of[r.memory.id] for r in _palace(
                        ltm, conv.sample_id, q.question, feedback / np.linalg.norm(feedback), now, settings,
                        ranking)],
                }
                for name, ids in ranked.items():
                    scores[name][q.category].add(ids, q.evidence)
    systems: dict[str, dict[str, dict[str, float]]] = {}
    for name, per_category in scores.items():
        total = Scores.empty()
        for s in per_category.values():
            total.extend(s)
        systems[name] = {"all": total.summary(), **{c: s.summary() for c, s in per_category.items()}}
    counts = {c: len(scores[DEFAULT][c].rr) for c in CATEGORY_ORDER}
    ablations = {name: systems.pop(name) for name in ABLATIONS}
    return {"default": DEFAULT, "systems": systems, "ablations": ablations, "questions": counts}


def _ranking(settings: Any) -> Any:
    from graph.deps import Deps

    return Deps(settings).ranking()


def _cosine(ltm: LongTermMemory, user: str, qv: np.ndarray, dia_of: dict[str, str]) -> list[str]:
    return [dia_of[h.memory.id] for h in ltm.search(user, qv.tolist(), limit=max(KS))]


def _seed(ltm: LongTermMemory, user: str, qv: np.ndarray, now: Any, dia_of: dict[str, str], ranking: Any) -> list[str]:
    hits = ltm.search(user, qv.tolist(), limit=POOL)
    ranked = rerank(hits, int(now.timestamp() * 1000), in_window=False, top_k=max(KS), config=ranking)
    return [dia_of[r.memory.id] for r in ranked]


class _Fixed(Embeddings):
    """Embeddings that return the cached query vector (the e5 vector of that very question, embedded once)."""

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError("recall embeds only the query")


def _palace(ltm: LongTermMemory, user: str, question: str, qv: np.ndarray, now: Any, settings: Any,
            ranking: Any, *, exact_cosine: bool = True) -> list[Recalled]:
    return recall(ltm, _Fixed(qv), user, question, now, search_k=max(settings.search_top_k, max(KS)),
                  top_k=max(KS), config=ranking, exact_cosine=exact_cosine).memories


def _by_session(ranked: Sequence[Recalled]) -> list[Recalled]:
    """Session-level aggregation: score x (1 + the share of the list's score mass the memory's session holds)."""
    mass: dict[str, float] = {}
    for r in ranked:
        mass[r.memory.session_id] = mass.get(r.memory.session_id, 0.0) + r.breakdown.score
    total = sum(mass.values()) or 1.0
    return sorted(ranked, key=lambda r: r.breakdown.score * (1 + mass[r.memory.session_id] / total), reverse=True)


def _diverse(ranked: Sequence[Recalled], penalty: float = 0.5) -> list[Recalled]:
    """Greedy: each further memory of a session already picked counts ``penalty`` times less."""
    left, out = list(ranked), []
    picked: dict[str, int] = {}
    while left:
        best = max(left, key=lambda r: r.breakdown.score * penalty ** picked.get(r.memory.session_id, 0))
        left.remove(best)
        out.append(best)
        picked[best.memory.session_id] = picked.get(best.memory.session_id, 0) + 1
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(args.conversations)


def report(r: dict[str, Any]) -> str:
    rows = [f"LoCoMo retrieval, {sum(r['questions'].values())} questions "
            f"({', '.join(f'{c} {n}' for c, n in r['questions'].items())}); default system: {r['default']}"]
    for block in ("all", *CATEGORY_ORDER):
        rows.append(f"\n[{block}]" + (" (questions about time)" if block == "temporal" else ""))
        rows.append(f"{'system':<14}" + "".join(f"{'R@' + str(k):>8}" for k in KS) + f"{'MRR':>8}")
        for name, per in r["systems"].items():
            s = per[block]
            rows.append(f"{name:<14}" + "".join(f"{s['R@' + str(k)]:>8.1f}" for k in KS) + f"{s['MRR']:>8.3f}")
        for name, per in r.get("ablations", {}).items():
            s = per[block]
            rows.append(f"{name:<14}" + "".join(f"{s['R@' + str(k)]:>8.1f}" for k in KS) + f"{s['MRR']:>8.3f}")
        d = DRAGON[block]
        rows.append(f"{'DRAGON (paper)':<14}" + "".join(f"{d['R@' + str(k)]:>8.1f}" for k in KS) + f"{'-':>8}")
    return "\n".join(rows)
