"""Memories that change: a fact, its change in a later session, then "now" and "before" (bench/update_scenarios.py).

Each scenario gets a fresh user; every fact is told through the whole turn (extraction, verification, writes), each
in its own session at its own time. At the question time: recall_now_top1 = share of scenarios where the first
memory that ``palace memories search`` finds for the "now" question holds the new value; recall_before_top5 = where
one of the first five for the "before" question holds the old one; answer_now = where the agent's answer to the
"now" question (a new session) names the new value and not the old, or restates the change as the user told it: both
values, the old first, where the change itself names both ("Tom quit being a chef, he is a journalist now" for "Tom
quit being a chef, he is a journalist now"); answer_restated counts those, answer_now_strict leaves them out;
stale_answers = the old and not the new;
fragments = the users' active memories that are not whole statements ("and bought a Tesla", "他加入了微软");
recall_kept_top1 = share of the questions about the unrelated facts told beside the change (facts that did not
change: "What's my blood type?") whose first memory holds the answer — what links between memories must not cost;
prompt_stale = where one of the memories the "now" question's compact prompt shows (recall's first ``recall_top_k``,
those marked earlier left out, as :func:`nodes.respond.build_prompt` does for a small model) holds an old value and
not the new one: what the bundled model is handed as current; retired = where a memory holding an old value and no new
one was superseded (a stated change retires it); wrongly_retired = superseded memories holding no old value (a fact
that did not change, retired).
``--scripted`` writes memories with the scripted model (graph/testing.py: its extractor returns the message's
sentences, its verifier adds all but identical texts), so the recall figures do not depend on a model.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.answers import correct, normalized
from bench.retrieval import progress
from bench.update_scenarios import UpdateScenario, scenarios, select
from graph.api import forget_user, run_turn, search_memories
from graph.deps import Deps
from graph.manage import list_memories
from graph.models import describe
from graph.resources import Resources
from graph.settings import get_settings
from graph.testing import ScriptedModels
from memory.edge import EdgeClient
from memory.errors import PalaceError

_EN_OPENERS = frozenset({"and", "but", "then", "so", "also", "or", "plus", "yet", "though", "he", "she", "they",
                         "it", "him", "her", "his", "their", "its", "them"})
_ZH_OPENERS = ("而且", "然后", "并且", "但是", "不过", "可是", "所以", "接着", "后来", "还", "也", "但",
               "他们", "她们", "它们", "他", "她", "它")
_LEADING = re.compile(r"^[\W_]+")
_WORD = re.compile(r"[a-z]+")


def fragment(text: str) -> str | None:
    """Why ``text`` is not a whole statement — it opens with a conjunction ("and bought a Tesla", "然后去了腾讯") or
    with a pronoun whose person it does not name ("he joined Microsoft", "她现在在深圳工作") — or None."""
    body = _LEADING.sub("", text)
    word = _WORD.match(body.casefold())
    if word and word.group() in _EN_OPENERS:
        return word.group()
    return next((opener for opener in _ZH_OPENERS if body.startswith(opener)), None)


def mentions(text: str, values: Iterable[str]) -> bool:
    """One of ``values`` is in ``text`` (case, spaces and punctuation do not count)."""
    return correct(text, tuple(values))


def _first_at(text: str, values: Iterable[str]) -> int | None:
    """Where in ``text`` (as :func:`mentions` reads it) one of ``values`` is first named, or None."""
    said = normalized(text)
    found = [said.find(normalized(v)) for v in values if normalized(v)]
    return min((i for i in found if i >= 0), default=None)


def restates_change(answer: str, sc: UpdateScenario) -> bool:
    """Does ``answer`` name both values in the order the change told them, where the change names both ("Tom quit
    being a chef, he is a journalist now"): the user's change said back, the new value last, as current."""
    def old_first(text: str) -> bool:
        old, new = _first_at(text, sc.old_values), _first_at(text, sc.new_values)
        return old is not None and new is not None and old < new

    return old_first(sc.change) and old_first(answer)


def _pct(hits: int, n: int) -> float | None:
    return round(100 * hits / n, 1) if n else None


def _figures(rows: list[dict[str, Any]], answers: bool) -> dict[str, Any]:
    n = len(rows)
    return {"cases": n,
            "recall_now_top1": _pct(sum(r["recall_now"] for r in rows), n),
            "recall_before_top5": _pct(sum(r["recall_before"] for r in rows), n),
            "recall_kept_top1": _pct(sum(r["kept_ok"] for r in rows), sum(len(r["kept"]) for r in rows)),
            "answer_now": _pct(sum(r["answer_ok"] for r in rows), n) if answers else None,
            "answer_now_strict": _pct(sum(r["answer_ok"] and not r["restated"] for r in rows), n) if answers else None,
            "answer_restated": _pct(sum(r["restated"] for r in rows), n) if answers else None,
            "stale_answers": _pct(sum(r["stale"] for r in rows), n) if answers else None,
            "prompt_stale": _pct(sum(r["prompt_stale"] for r in rows), n),
            "retired": _pct(sum(r["retired"] for r in rows), n),
            "wrongly_retired": sum(len(r["wrongly_retired"]) for r in rows),
            "fragments": sum(len(r["fragments"]) for r in rows)}


def run(split: str = "test", limit: int | None = None, lang: str | None = None, answers: bool = True,
        scripted: bool = False, details: Path | None = None, offset: int = 0) -> dict[str, Any]:
    # answers, not speed, are measured here: a generous model timeout, so a busy machine does not fail a scenario
    settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai",
                            model_timeout_s=600, local_model_timeout_s=600)
    chosen = select(split, lang)[offset:][:limit]
    asked_at = datetime(2026, 12, 3, 10, 0, tzinfo=ZoneInfo(settings.timezone))
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    # a Qdrant of its own: the embedded engine admits one process, and another may own the default data directory
    with tempfile.TemporaryDirectory(prefix="palace-updates-") as tmp:
        client = EdgeClient(Path(tmp) / "edge")
        resources = Resources(settings, _qdrant=client)
        try:
            deps = Deps(settings, resources=resources, models=ScriptedModels() if scripted else None)
            model = "scripted" if scripted else describe(deps.models.chat())[0]
            for sc in progress(chosen, "scenarios"):
                user = f"updates-{sc.id}-{uuid.uuid4().hex[:6]}"
                try:
                    row = _scenario(deps, sc, user, asked_at, answers)
                except PalaceError as exc:  # a failed turn is a wrong scenario, said so; the others still run
                    row = _row(sc, error=str(exc))
                finally:
                    forget_user(deps, user)
                rows.append(row)
                _say(row)
        finally:
            resources.close()
            client.close()
    elapsed = time.perf_counter() - started
    if details is not None:
        details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        for tag in r["variants"]:
            by_variant[tag].append(r)
    everything = scenarios()
    return {**_figures(rows, answers), "split": split, "model": model,
            "errors": sum(1 for r in rows if r["error"]),
            "by_lang": {code: _figures([r for r in rows if r["lang"] == code], answers) for code in ("en", "zh")
                        if any(r["lang"] == code for r in rows)},
            "by_variant": {tag: _figures(group, answers) for tag, group in sorted(by_variant.items())},
            "dev_cases": sum(1 for s in everything if s.split == "dev"),
            "test_cases": sum(1 for s in everything if s.split == "test"),
            "seconds_per_scenario": round(elapsed / len(rows), 2) if rows else 0.0}


def _row(sc: UpdateScenario, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"id": sc.id, "lang": sc.lang, "kind": sc.kind, "variants": list(sc.variants),
                           "now_question": sc.now_question, "before_question": sc.before_question,
                           "new_values": list(sc.new_values), "old_values": list(sc.old_values),
                           "recall_now": False, "recall_before": False, "top_now": [], "top_before": [],
                           "answer": None, "answer_ok": False, "restated": False, "stale": False, "stored": [],
                           "fragments": [],
                           "kept": [], "kept_ok": 0, "prompt_stale": False, "retired": False,
                           "wrongly_retired": [], "error": ""}
    row.update(fields)
    return row


def _scenario(deps: Deps, sc: UpdateScenario, user: str, asked_at: datetime, answers: bool) -> dict[str, Any]:
    for n, (days, text) in enumerate(sc.facts):
        run_turn(deps, user, f"told-{n}", text, at=(asked_at - timedelta(days=days)).isoformat())
    memories = list_memories(deps, user, status="all")
    text_of = {m.id: m.text for m in memories}
    stored = [m.text for m in memories if m.status == "active"]
    superseded = [m.text for m in memories if m.status == "superseded"]
    old_only = [t for t in superseded if mentions(t, sc.old_values) and not mentions(t, sc.new_values)]
    links = [[m.text, text_of[old]] for m in memories for old in m.follows if old in text_of]
    now = asked_at.isoformat()
    top_now = [r.memory.text for r in search_memories(deps, user, sc.now_question, now=now, limit=5)]
    shown = [r.memory.text for r in search_memories(deps, user, sc.now_question, now=now,
                                                    limit=deps.settings.recall_top_k) if r.chain != "earlier"]
    top_before = [r.memory.text for r in search_memories(deps, user, sc.before_question, now=now, limit=5)]
    kept = [(q, [r.memory.text for r in search_memories(deps, user, q, now=now, limit=1)]) for q, _ in sc.kept]
    row = _row(sc, kept=[[q, top[0] if top else ""] for q, top in kept],
               kept_ok=sum(bool(top) and mentions(top[0], values) for (_, top), (_, values) in zip(kept, sc.kept,
                                                                                                      strict=True)),
               recall_now=bool(top_now) and mentions(top_now[0], sc.new_values),
               recall_before=any(mentions(t, sc.old_values) for t in top_before), top_now=top_now,
               top_before=top_before, stored=stored, links=links, fragments=[t for t in stored if fragment(t)],
               prompt_stale=any(mentions(t, sc.old_values) and not mentions(t, sc.new_values) for t in shown),
               retired=bool(old_only), superseded=superseded,
               wrongly_retired=[t for t in superseded if not mentions(t, sc.old_values)])
    if answers:
        answer = run_turn(deps, user, "question", sc.now_question, at=now).answer
        new, old = mentions(answer, sc.new_values), mentions(answer, sc.old_values)
        restated = new and old and restates_change(answer, sc)
        row.update(answer=answer, answer_ok=new and (not old or restated), restated=restated, stale=old and not new)
    return row


def _say(row: dict[str, Any]) -> None:
    def mark(ok: bool) -> str:
        return "ok" if ok else "NO"

    top = row["top_now"][0] if row["top_now"] else ""
    line = (f"now {mark(row['recall_now'])} before {mark(row['recall_before'])}  {row['id']} "
            f"[{','.join(row['variants'])}]: {row['now_question']} -> top-1 {top!r}")
    if row["answer"] is not None:
        line += f"; answer {mark(row['answer_ok'])}{' STALE' if row['stale'] else ''}"
        line += f"{' (restated)' if row['restated'] else ''} {row['answer']!r}"
    if row["fragments"]:
        line += f"; fragments {row['fragments']}"
    if row["prompt_stale"]:
        line += "; OLD SHOWN AS CURRENT"
    if row["wrongly_retired"]:
        line += f"; WRONGLY RETIRED {row['wrongly_retired']}"
    if row["error"]:
        line += f"  ERROR ({row['error']})"
    print(line, file=sys.stderr, flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", choices=["dev", "test", "all"], default="test",
                        help="which scenarios (split by a hash of their id; default test)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N scenarios")
    parser.add_argument("--offset", type=int, default=0,
                        help="skip the first N scenarios (a sample of the test part not yet looked at)")
    parser.add_argument("--lang", choices=["en", "zh"], default=None, help="only one language")
    parser.add_argument("--no-answers", action="store_true", help="recall only: do not ask the agent")
    parser.add_argument("--scripted", action="store_true",
                        help="write memories with the scripted model, so recall does not depend on a model")
    parser.add_argument("--save", action="store_true",
                        help="write bench/results/updates.json (--scripted) or updates-answers.json for the report")
    parser.add_argument("--details", type=Path, default=None,
                        help="write one JSON line per scenario (what was stored, recalled, answered) to this file")


def main(args: argparse.Namespace) -> dict[str, Any]:
    import os

    from bench.report import save

    t0, load = time.perf_counter(), os.getloadavg()[0]
    result = run(args.split, args.limit, args.lang, answers=not args.no_answers, scripted=args.scripted,
                 details=args.details, offset=args.offset)
    result["limit"], result["offset"] = args.limit, args.offset
    if args.save:  # for bench/REPORT.md: the scripted recall run, or the model's answers
        save("updates" if args.scripted else "updates-answers", result, t0, load)
    return result


def report(r: dict[str, Any]) -> str:
    def pct(key: str) -> str:
        return "n/a" if r.get(key) is None else f"{r[key]}%"

    langs = ", ".join(f"{code} now {f['recall_now_top1']}% / before {f['recall_before_top5']}%"
                      for code, f in r["by_lang"].items())
    restated = "" if r.get("answer_restated") is None else (
        f" (the change said back {pct('answer_restated')}, without those {pct('answer_now_strict')})")
    return (f"{r['model']} on {r['split']}: {r['cases']} scenarios, recall now@1 {pct('recall_now_top1')}, "
            f"before@5 {pct('recall_before_top5')}, kept@1 {pct('recall_kept_top1')}, "
            f"old value shown as current {pct('prompt_stale')}, retired {pct('retired')} "
            f"({r.get('wrongly_retired', 'n/a')} wrongly), "
            f"answer now {pct('answer_now')}{restated}, stale {pct('stale_answers')}, {r['fragments']} fragments, "
            f"failed {r['errors']} ({langs}; {r['seconds_per_scenario']} s a scenario; "
            "per scenario on stderr)")
