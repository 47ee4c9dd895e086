"""MemoryBank dated questions: does the top 5 hold a memory of the day the question names? English and Chinese.

Per language, 15 users and 10 days of dialogue; every exchange (the user's message and the reply) is one
memory, stamped at 12:00 of its day (exchange i of a day i x 30 s later, order kept), event time from the
product's temporal parser. The 35 questions per language that name a day ("What dish did I make on May 5th?",
"5月5日我做了什么菜？") are asked at "the user's last day + 1 day". The named day is read by a regex of this
module, not by the product's parser, so the benchmark does not grade the parser with itself.
Known defect kept as is: English John Zhang / 2023-05-05 is empty although a question asks about it.
"""

from __future__ import annotations

import argparse
import re
from datetime import timedelta
from typing import Any

from bench.datasets import LANGUAGES, MemoryBank, load_memorybank, noon
from bench.locomo import DEFAULT, _Fixed, _ranking
from bench.retrieval import CachedE5, edge_store, ingest, progress
from graph.settings import get_settings
from memory.language.temporal import event_time_ms
from memory.long_term import Memory, memory_id
from memory.recall import recall

TOP = 5
STEP = timedelta(seconds=30)
SYSTEMS = ("cosine", DEFAULT)


def user_id(name: str) -> str:
    """A valid user id for a MemoryBank name ("John Zhang" -> "John_Zhang"; Chinese names stay as they are)."""
    return re.sub(r"[^\w.@-]", "_", name.strip())


def memories_of(bank: MemoryBank) -> tuple[list[Memory], dict[str, str]]:
    """The memories of every user, and the ISO day of each memory id."""
    memories: list[Memory] = []
    day_of: dict[str, str] = {}
    position: dict[tuple[str, str], int] = {}
    for n, e in enumerate(bank.exchanges):
        key = (e.user, e.day.isoformat())
        i = position.get(key, 0)
        position[key] = i + 1
        at = noon(e.day) + STEP * i
        user = user_id(e.user)
        m = Memory(id=memory_id(user, f"{bank.language}:{n}"), text=e.memory_text(), user_id=user,
                   session_id=f"{user}.{e.day.isoformat()}", timestamp=int(at.timestamp() * 1000),
                   event_time=event_time_ms(at, e.query), origin=f"memorybank:{bank.language}:{n}")
        memories.append(m)
        day_of[m.id] = e.day.isoformat()
    return memories, day_of


def run() -> dict[str, Any]:
    e5 = CachedE5()
    settings = get_settings()
    ranking = _ranking(settings)
    hits: dict[str, dict[str, list[bool]]] = {s: {} for s in SYSTEMS}
    misses: list[dict[str, str]] = []
    for language in LANGUAGES:
        bank = load_memorybank(language)
        memories, day_of = memories_of(bank)
        vectors = e5.documents([m.text for m in memories], f"embedding MemoryBank ({language})")
        qvectors = e5.queries([q.question for q in bank.dated], f"embedding MemoryBank questions ({language})")
        with edge_store(f"memorybank-{language}") as ltm:
            ingest(ltm, memories, vectors, f"ingesting MemoryBank ({language})")
            for q, qv in progress(list(zip(bank.dated, qvectors, strict=True)), f"asking ({language})"):
                now = bank.now(q.user)
                wanted = q.day.isoformat()
                user = user_id(q.user)
                cosine = [day_of[h.memory.id] for h in ltm.search(user, qv.tolist(), limit=TOP)]
                result = recall(ltm, _Fixed(qv), user, q.question, now,
                                search_k=settings.search_top_k, top_k=TOP, config=ranking)
                palace = [day_of[r.memory.id] for r in result.memories]
                hits["cosine"].setdefault(language, []).append(wanted in cosine)
                hits[DEFAULT].setdefault(language, []).append(wanted in palace)
                if wanted not in palace:
                    misses.append({"language": language, "user": q.user, "question": q.question, "day": wanted,
                                   "window": result.window.phrase if result.window else ""})
    systems = {s: {lang: round(100 * sum(v) / len(v), 1) for lang, v in per.items()} for s, per in hits.items()}
    counts = {lang: len(v) for lang, v in hits[DEFAULT].items()}
    return {"default": DEFAULT, "systems": systems, "questions": counts, "misses": misses}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def main(args: argparse.Namespace) -> dict[str, Any]:
    del args
    return run()


def report(r: dict[str, Any]) -> str:
    rows = [f"MemoryBank dated questions ({', '.join(f'{k} {v}' for k, v in r['questions'].items())}): share "
            f"whose top {TOP} holds a memory of the named day; default system: {r['default']}",
            f"{'system':<10}" + "".join(f"{lang:>8}" for lang in r["questions"])]
    for name, per in r["systems"].items():
        rows.append(f"{name:<10}" + "".join(f"{per[lang]:>8.1f}" for lang in r["questions"]))
    for m in r["misses"]:
        rows.append(f"missed ({m['language']}, {m['user']}, {m['day']}, window {m['window'] or 'none'}): "
                    f"{m['question']}")
    return "\n".join(rows)
