"""Answers from the configured model: memory scenarios (bench/scenarios.py) through the real graph.

Each scenario gets a fresh user: its facts are told in earlier sessions (``at`` days before the question, through
the whole turn: extraction, verification, writes), then the question is asked in a new session and its answer
streamed. correct = an expected fact is in the answer (normalised); degenerate = empty, a loop, prompt echo or
another language than the question (memory/language/answers.py); extraction_parsed = share of the turns that called the
extractor whose reply parsed. The model is the configured one: the bundled local model when none is set.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bench.retrieval import progress
from bench.scenarios import SCENARIOS, Scenario
from bench.stats import percentile
from graph.api import forget_user, run_turn
from graph.deps import Deps
from graph.models import describe
from graph.resources import Resources
from graph.settings import get_settings
from memory.errors import PalaceError
from memory.language.answers import degenerate


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def correct(answer: str, expected: tuple[str, ...]) -> bool:
    said = _norm(answer)
    return any(_norm(e) in said for e in expected)


def run(limit: int | None = None, lang: str | None = None) -> dict[str, Any]:
    # answers, not speed, are measured here: a generous model timeout, so a busy machine does not fail a scenario
    settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai",
                            model_timeout_s=600, local_model_timeout_s=600)
    scenarios = [s for s in SCENARIOS if lang in (None, s.lang)][:limit]
    tz = ZoneInfo(settings.timezone)
    asked_at = datetime(2026, 12, 3, 10, 0, tzinfo=tz)
    rows: list[dict[str, Any]] = []
    extractions: list[bool] = []
    ttft: list[float] = []
    turn_ms: list[float] = []
    with Resources(settings) as res:
        deps = Deps(settings, resources=res)
        model = describe(deps.models.chat())[0]
        for sc in progress(scenarios, "scenarios"):
            user = f"bench-{sc.name}-{uuid.uuid4().hex[:6]}"
            try:
                row = _scenario(deps, sc, user, asked_at, extractions, ttft, turn_ms)
            except PalaceError as exc:  # a failed turn is a wrong answer, said so; the other scenarios still run
                row = {"name": sc.name, "question": sc.question, "answer": "", "correct": False, "degenerate": "",
                       "recalled": [], "error": str(exc)}
            finally:
                forget_user(deps, user)
            rows.append(row)
            bad = f" DEGENERATE ({row['degenerate']})" if row["degenerate"] else ""
            bad += f" ERROR ({row['error']})" if row.get("error") else ""
            print(f"{'ok' if row['correct'] else 'NO'}{bad}  {sc.name}: {sc.question} -> {row['answer']!r}  "
                  f"recalled {row['recalled'][:2]}", file=sys.stderr, flush=True)
    n = len(rows)
    return {"model": model, "cases": n,
            "correct": round(100 * sum(r["correct"] for r in rows) / n, 1) if n else 0.0,
            "degenerate": round(100 * sum(bool(r["degenerate"]) for r in rows) / n, 1) if n else 0.0,
            "errors": sum(1 for r in rows if r.get("error")),
            "extraction_parsed": round(100 * sum(extractions) / len(extractions), 1) if extractions else 0.0,
            "ttft_p50_ms": round(percentile(ttft, 50), 1) if ttft else 0.0,
            "turn_p50_ms": round(percentile(turn_ms, 50), 1) if turn_ms else 0.0}


def _scenario(deps: Deps, sc: Scenario, user: str, asked_at: datetime, extractions: list[bool],
              ttft: list[float], turn_ms: list[float]) -> dict[str, Any]:
    for n, (days, fact) in enumerate(sc.facts):
        told = run_turn(deps, user, f"told-{n}", fact, at=(asked_at - timedelta(days=days)).isoformat())
        if told.state.get("extraction") is not None:
            extractions.append(told.state["extraction"] == "parsed")
    first: list[float] = []
    t0 = time.perf_counter()

    def on_token(_: str) -> None:
        if not first:
            first.append(time.perf_counter())

    asked = run_turn(deps, user, "question", sc.question, at=asked_at.isoformat(), on_token=on_token)
    turn_ms.append((time.perf_counter() - t0) * 1000)
    if first:
        ttft.append((first[0] - t0) * 1000)
    answer = asked.answer
    return {"name": sc.name, "question": sc.question, "answer": answer, "correct": correct(answer, sc.expected),
            "degenerate": degenerate(answer, sc.question),
            "recalled": [m["text"] for m in asked.state.get("recalled") or []]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="only the first N scenarios")
    parser.add_argument("--lang", choices=["en", "zh"], default=None, help="only one language")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(args.limit, args.lang)


def report(r: dict[str, Any]) -> str:
    return (f"{r['model']}: {r['cases']} scenarios, correct {r['correct']}%, degenerate {r['degenerate']}%, "
            f"failed turns {r.get('errors', 0)}, extraction parsed {r['extraction_parsed']}%, "
            f"time to first token p50 {r['ttft_p50_ms']} ms, "
            f"question turn p50 {r['turn_p50_ms']} ms (answers per scenario on stderr)")
