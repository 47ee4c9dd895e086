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

Round two (issue 16 items 4-5; query variants from :mod:`bench.query_variants`, no LLM call, no extra embedding:
each variant is one more BM25 query in the same batched search, every candidate scored by every query, and a
candidate's BM25 score is its mean share of each query's best score, times the question's best):
- ``+strip``: the question without question words and hedges ("What", "Would … likely");
- ``+nonames``: the question without the people it names (a name matches every memory its person said);
- ``+split``: the question split at its conjunctions ("and", "or", "both", ",");
- ``+speaker``: a memory whose speaker label ("Melanie: …") the question names gets +0.5 on its relevance logit;
- ``+useridf``: BM25 with the user's own document frequencies instead of the collection's (Qdrant's IDF counts
  every user's memories: a user's name or city is rare in the collection but in most of that user's memories);
  the bench's query weights idf_user / idf_collection, from counts over the ingested turns;
- fusion weights: ``dense0.4``, ``dense0.6`` (``PALACE_DENSE_WEIGHT``), ``lexpow3`` (``PALACE_LEXICAL_POWER``),
  ``context0.3``, ``context0.8`` (``PALACE_CONTEXT_WEIGHT``), ``window30``, ``window120`` (``PALACE_CONTEXT_WINDOW_S``).

Memories over time (issue 22 item 7): ``+links`` asks the same questions of a copy of the store in which every
turn follows the earlier turns of its conversation that :func:`memory.language.links.links_to` links it to among its 20
nearest earlier ones (as the write node links a new memory), so recall brings each recalled turn's followers
along and ranks the newest of a chain first (:func:`memory.recall.newest_first`): the links as expansion.

The ten conversations are split in two halves (even positions: tuning, odd: held back); ``halves`` in the
result holds R@5/R@10 of every system and ablation on each half, so a choice made on one can be checked on the
other.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from bench.datasets import CATEGORY_ORDER, Conversation, load_locomo
from bench.query_variants import names_speaker, stripped, sub_questions, without_names
from bench.retrieval import KS, POOL, CachedE5, Scores, edge_store, ingest, progress
from graph.settings import get_settings
from memory.language.temporal import event_time_ms, parse_time_window, time_intent
from memory.long_term import DENSE, SPARSE, HybridHit, LongTermMemory, Memory, TimeWindow, bm25_model, memory_id
from memory.ranking import _logistic
from memory.recall import Recalled, decay_floor_for, lexical_query, recall, rerank, rerank_hybrid, with_changes

TURN_STEP = timedelta(seconds=30)
DEFAULT = "palace"
SYSTEMS = ("bm25", "cosine", "cosine+decay", DEFAULT)
ABLATIONS = (f"{DEFAULT}-sharpen", f"{DEFAULT}-exact", f"{DEFAULT}+sessions", f"{DEFAULT}+diverse", f"{DEFAULT}+prf",
             f"{DEFAULT}+strip", f"{DEFAULT}+nonames", f"{DEFAULT}+split", f"{DEFAULT}+speaker", f"{DEFAULT}+useridf",
             f"{DEFAULT}:dense0.4", f"{DEFAULT}:dense0.6", f"{DEFAULT}:lexpow3", f"{DEFAULT}:context0.3",
             f"{DEFAULT}:context0.8", f"{DEFAULT}:window30", f"{DEFAULT}:window120", f"{DEFAULT}+links")
# The weight rows: the setting each changes (RankingConfig field, value).
TUNED: dict[str, tuple[str, Any]] = {
    f"{DEFAULT}:dense0.4": ("dense_weight", 0.4), f"{DEFAULT}:dense0.6": ("dense_weight", 0.6),
    f"{DEFAULT}:lexpow3": ("lexical_power", 3.0), f"{DEFAULT}:context0.3": ("context_weight", 0.3),
    f"{DEFAULT}:context0.8": ("context_weight", 0.8), f"{DEFAULT}:window30": ("context_window_ms", 30_000),
    f"{DEFAULT}:window120": ("context_window_ms", 120_000),
}
VARIANTS = {f"{DEFAULT}+strip": stripped, f"{DEFAULT}+nonames": without_names, f"{DEFAULT}+split": sub_questions}
HALVES = ("tuning", "held-back")
SPEAKER_BONUS = 0.5
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


def linked(memories: Sequence[Memory], vectors: np.ndarray, near: int = 20) -> list[Memory]:
    """``memories`` with the links the write node would have made: each follows the earlier memories of its user,
    among its ``near`` nearest earlier ones, that :func:`memory.language.links.links_to` links it to."""
    from memory.language.links import links_for, links_to

    config = links_for("e5")
    follows: dict[str, list[str]] = defaultdict(list)
    named: dict[str, list[str]] = defaultdict(list)
    followed_by: dict[str, list[str]] = defaultdict(list)
    by_user: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(memories):
        by_user[m.user_id].append(i)
    for rows in by_user.values():
        rows.sort(key=lambda i: (memories[i].timestamp, i))
        for k in range(1, len(rows)):
            i, earlier = rows[k], rows[:k]
            cosines = vectors[earlier] @ vectors[i]
            nearest = [earlier[j] for j in np.argsort(-cosines)[:near]]
            found = links_to(memories[i].text, [(memories[j].text, float(vectors[j] @ vectors[i]))
                                                for j in nearest], config)
            for j, k_ in zip(nearest, found, strict=True):
                if k_.follows:
                    follows[memories[i].id].append(memories[j].id)
                    followed_by[memories[j].id].append(memories[i].id)
                    if k_.named:
                        named[memories[i].id].append(memories[j].id)
    return [m.model_copy(update={"follows": follows[m.id], "follows_named": named[m.id],
                                 "followed_by": followed_by[m.id]}) for m in memories]


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
    scores = {name: {h: {c: Scores.empty() for c in CATEGORY_ORDER} for h in HALVES} for name in SYSTEMS + ABLATIONS}
    row_of = {m.id: i for i, m in enumerate(all_memories)}
    idf = _UserIdf(all_memories)
    with edge_store("locomo") as ltm, edge_store("locomo-links") as ltm_links:
        ingest(ltm, all_memories, vectors, "ingesting LoCoMo into Qdrant Edge")
        ingest(ltm_links, linked(all_memories, vectors), vectors, "ingesting LoCoMo with links")
        qi = 0
        for ci, conv in enumerate(progress(conversations, "asking LoCoMo questions")):
            half = HALVES[ci % 2]
            texts = [t.memory_text() for t in conv.turns]
            bm25 = _bm25_rankings(conv, texts)
            now = conv.now
            user = conv.sample_id
            for n, q in enumerate(conv.questions):
                qv = qvectors[qi]
                qi += 1
                palace = _palace(ltm, user, q.question, qv, now, settings, ranking)
                top = palace[:3]
                feedback = qv + 0.5 * np.mean([vectors[row_of[r.memory.id]] for r in top], axis=0) if top else qv
                ranked = {
                    "bm25": [conv.turns[i].dia_id for i in bm25[n]],
                    "cosine": _cosine(ltm, user, qv, dia_of),
                    "cosine+decay": _seed(ltm, user, qv, now, dia_of, ranking),
                    DEFAULT: [dia_of[r.memory.id] for r in palace],
                    f"{DEFAULT}-sharpen": [dia_of[r.memory.id] for r in _palace(
                        ltm, user, q.question, qv, now, settings, raw_lexical)],
                    f"{DEFAULT}-exact": [dia_of[r.memory.id] for r in _palace(
                        ltm, user, q.question, qv, now, settings, ranking, exact_cosine=False)],
                    f"{DEFAULT}+sessions": [dia_of[r.memory.id] for r in _by_session(palace)],
                    f"{DEFAULT}+diverse": [dia_of[r.memory.id] for r in _diverse(palace)],
                    f"{DEFAULT}+prf": [dia_of[r.memory.id] for r in _palace(
                        ltm, user, q.question, feedback / np.linalg.norm(feedback), now, settings, ranking)],
                    **{name: [dia_of[m.id] for m in _variant_recall(ltm, user, q.question, qv, now, ranking,
                                                                     variants(q.question))]
                       for name, variants in VARIANTS.items()},
                    f"{DEFAULT}+links": [dia_of[r.memory.id] for r in _palace(
                        ltm_links, user, q.question, qv, now, settings, ranking)],
                    f"{DEFAULT}+speaker": [dia_of[m.id] for m in _variant_recall(
                        ltm, user, q.question, qv, now, ranking, [], speaker_bonus=SPEAKER_BONUS)],
                    f"{DEFAULT}+useridf": [dia_of[m.id] for m in _variant_recall(
                        ltm, user, q.question, qv, now, ranking, [], idf=idf)],
                    **{name: [dia_of[r.memory.id] for r in _palace(
                        ltm, user, q.question, qv, now, settings, replace(ranking, **{field: value}))]
                       for name, (field, value) in TUNED.items()},
                }
                for name, ids in ranked.items():
                    scores[name][half][q.category].add(ids, q.evidence)
    systems: dict[str, dict[str, dict[str, float]]] = {}
    halves: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for name, per_half in scores.items():
        merged = {c: Scores.empty() for c in CATEGORY_ORDER}
        halves[name] = {}
        for h, per_category in per_half.items():
            total = Scores.empty()
            for c, sc in per_category.items():
                total.extend(sc)
                merged[c].extend(sc)
            halves[name][h] = {"all": total.summary(), **{c: sc.summary() for c, sc in per_category.items()}}
        total = Scores.empty()
        for sc in merged.values():
            total.extend(sc)
        systems[name] = {"all": total.summary(), **{c: sc.summary() for c, sc in merged.items()}}
    counts = {c: sum(len(scores[DEFAULT][h][c].rr) for h in HALVES) for c in CATEGORY_ORDER}
    ablations = {name: systems.pop(name) for name in ABLATIONS}
    return {"default": DEFAULT, "systems": systems, "ablations": ablations, "questions": counts,
            "halves": {"split": "tuning: conversations at even positions (0, 2, ...), held-back: odd",
                       "figures": halves}}


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


class _UserIdf:
    """Per-user BM25 document frequencies of the ingested turns, and the query weights that turn Qdrant's
    collection-wide IDF into the user's own: weight(t) = idf(t over the user's memories) / idf(t over all)."""

    def __init__(self, memories: Sequence[Memory]) -> None:
        model = bm25_model()
        self.df_all: Counter[int] = Counter()
        self.df_user: dict[str, Counter[int]] = defaultdict(Counter)
        self.n_user: Counter[str] = Counter()
        for m in memories:
            terms = {int(i) for i in model.embed_document(m.text).indices}
            self.df_all.update(terms)
            self.df_user[m.user_id].update(terms)
            self.n_user[m.user_id] += 1
        self.n_all = len(memories)

    @staticmethod
    def _idf(n: int, df: int) -> float:  # Qdrant's IDF
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def weights(self, user: str, indices: Sequence[int]) -> list[float]:
        out = []
        for i in indices:
            everyone = self._idf(self.n_all, self.df_all[i])
            out.append(self._idf(self.n_user[user], self.df_user[user][i]) / everyone if everyone > 0 else 0.0)
        return out


def _multi_search(ltm: LongTermMemory, user: str, vector: np.ndarray, texts: Sequence[str], limit: int,
                  window: Any, now_ms: int, idf: _UserIdf | None) -> list[tuple[Memory, float, list[float]]]:
    """The dense ``limit`` nearest plus each text's BM25 ``limit`` best, in one batch; every candidate gets its
    cosine and its BM25 score under every text (a follow-up batch on the ids one search missed)."""
    m = ltm._m
    ms = TimeWindow.between(window.start, window.end) if window else None
    flt = ltm._search_filter(user, ms, ("active",), now_ms + 1)
    sparse = []
    for t in texts:
        v = ltm._sparse_query(t)
        if idf is not None:
            weights = idf.weights(user, list(v.indices))
            v = m.SparseVector(indices=list(v.indices), values=[a * w for a, w in zip(v.values, weights, strict=True)])
        sparse.append(v)
    used = [i for i, v in enumerate(sparse) if v.indices]
    requests = [m.QueryRequest(query=vector.tolist(), using=DENSE, filter=flt, limit=limit, with_payload=True)]
    requests += [m.QueryRequest(query=sparse[i], using=SPARSE, filter=flt, limit=limit, with_payload=True)
                 for i in used]
    responses: Sequence[Any] = ltm.client.query_batch_points(ltm.collection, requests=requests)
    memories: dict[str, Memory] = {}
    cosine: dict[str, float] = {}
    lexical: list[dict[str, float]] = [{} for _ in texts]
    for scores, response in zip([cosine, *[lexical[i] for i in used]], responses, strict=True):
        for p in response.points:
            memories.setdefault(str(p.id), ltm._to_memory(p.id, p.payload))
            scores[str(p.id)] = float(p.score)
    follow = []
    for scores, query, using in [(cosine, vector.tolist(), DENSE), *[(lexical[i], sparse[i], SPARSE) for i in used]]:
        missed = [k for k in memories if k not in scores]
        if missed:
            follow.append((scores, m.QueryRequest(query=query, using=using, limit=len(missed), with_payload=False,
                                                  filter=m.Filter(must=[flt, m.HasIdCondition(has_id=missed)]))))
    if follow:
        more: Sequence[Any] = ltm.client.query_batch_points(ltm.collection, requests=[r for _, r in follow])
        for (scores, _), response in zip(follow, more, strict=True):
            scores.update((str(p.id), float(p.score)) for p in response.points)
    return [(mem, cosine.get(k, 0.0), [lex.get(k, 0.0) for lex in lexical]) for k, mem in memories.items()]


def _variant_recall(ltm: LongTermMemory, user: str, question: str, qv: np.ndarray, now: Any, ranking: Any,
                    variants: Sequence[str], *, speaker_bonus: float = 0.0, idf: _UserIdf | None = None,
                    limit: int = 50) -> list[Memory]:
    """The product's recall (time window, intent, rerank) with extra BM25 queries: a candidate's BM25 score is
    its mean share of each query's best, times the question's best; ``speaker_bonus`` is added to the relevance
    logit of a memory whose speaker the question names; ``idf`` reweights every BM25 query to the user's IDF."""
    window = parse_time_window(question, now)
    intent = time_intent(question)
    now_ms = int(now.timestamp() * 1000)
    texts = [lexical_query(question, intent), *variants]
    found = _multi_search(ltm, user, qv, texts, limit, window, now_ms, idf)
    if window is not None and not found:
        window = None
        found = _multi_search(ltm, user, qv, texts, limit, None, now_ms, idf)
    best = [max((lex[i] for _, _, lex in found), default=0.0) for i in range(len(texts))]
    hits = []
    for mem, cos, lex in found:
        share = sum(s / b for s, b in zip(lex, best, strict=True) if b > 0) / len(texts)
        fused = share * best[0] if best[0] > 0 else share
        hits.append(HybridHit(memory=mem, cosine=cos, lexical=fused if fused > 0 else None))
    present = window is None and intent == "present"
    if present:
        hits = with_changes(question, hits)
    ranked = rerank_hybrid(hits, now_ms, decay_floor=decay_floor_for(window, intent, ranking), top_k=len(hits),
                           present=present, config=ranking)
    if speaker_bonus:
        def score(r: Recalled) -> float:
            b = r.breakdown
            if not names_speaker(question, r.memory.text) or b.on_topic or not 0 < b.relevance < 1:
                return b.score
            logit = math.log(b.relevance / (1 - b.relevance))
            return _logistic(logit + speaker_bonus) * b.decay * b.weight * b.boost
        ranked = sorted(ranked, key=lambda r: (r.breakdown.on_topic is not False, score(r)), reverse=True)
    return [r.memory for r in ranked[: max(KS)]]


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
