"""Answers from the configured model: memory scenarios (bench/scenarios.py) through the real graph.

Each scenario gets a fresh user: its facts are told in earlier sessions (``at`` days before the session, through
the whole turn: extraction, verification, writes), then its turns are said in one new session, each answer streamed.
Per answer, judged by the bench itself (bench/answer_judges.py), not by the product's own checks: correct = a
question about a told fact names an expected value (normalised; share of those questions); degenerate = empty, a
loop, prompt echo or another language than the message (memory/language/answers.py, as before); invented = it
states a number or name nothing the user said in the scenario, nor a turn's date, holds; wrong_voice = it says the
user's facts as the user; stuck = (nearly) an earlier answer of the session to another message (these three: share
of all answers); abstained_unknown = share of the questions about what was never told answered that it was not
told, with nothing invented; acknowledged = share of the statements and small talk answered briefly (15 words or
30 Chinese characters at most) with nothing invented. extraction_parsed = share of the turns that called the
extractor whose reply parsed; ttft / turn = the session's turns. ``--split`` picks the dev or test half (a hash of
the name; tune on dev only). The model is the configured one: the bundled local model when none is set.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import uuid
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.answer_judges import abstains, brief, date_words, invented, stuck, wrong_voice
from bench.retrieval import progress
from bench.scenarios import SCENARIOS, Scenario, Turn
from bench.stats import percentile
from graph.api import forget_user, run_turn
from graph.deps import Deps
from graph.models import ModelProvider, describe
from graph.resources import Resources
from graph.settings import Settings, get_settings
from memory.edge import EdgeClient
from memory.errors import PalaceError
from memory.language.answers import degenerate
from memory.local_model import DEFAULT_MODEL

TURN_GAP = timedelta(minutes=2)  # between the turns of a session


def normalized(text: str) -> str:
    """``text`` as :func:`correct` compares it: lower case, no spaces, punctuation or underscores."""
    return re.sub(r"[\W_]+", "", text.lower())


def correct(answer: str, expected: tuple[str, ...]) -> bool:
    said = normalized(answer)
    return any(normalized(e) in said for e in expected)


def select(split: str = "test", lang: str | None = None) -> list[Scenario]:
    """The scenarios of ``split`` (``dev``, ``test`` or ``all``), optionally of one language, in file order."""
    return [s for s in SCENARIOS if split in ("all", s.split) and lang in (None, s.lang)]


def _pct(hits: int, n: int) -> float:
    return round(100 * hits / n, 1) if n else 0.0


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The percentages of the JSON line from the scenarios' rows (each with its turns' rows)."""
    turns = [t for r in rows for t in r["turns"]]
    facts = [t for t in turns if t["kind"] == "fact"]
    unknown = [t for t in turns if t["kind"] == "unknown"]
    heard = [t for t in turns if t["kind"] in ("statement", "smalltalk")]
    return {"cases": len(rows), "turns": len(turns), "fact_questions": len(facts), "unknown_questions": len(unknown),
            "correct": _pct(sum(t["correct"] for t in facts), len(facts)),
            "degenerate": _pct(sum(bool(t["degenerate"]) for t in turns), len(turns)),
            "invented": _pct(sum(bool(t["invented"]) for t in turns), len(turns)),
            "stuck": _pct(sum(t["stuck"] for t in turns), len(turns)),
            "wrong_voice": _pct(sum(bool(t["wrong_voice"]) for t in turns), len(turns)),
            "abstained_unknown": _pct(sum(t["abstained"] for t in unknown), len(unknown)),
            "acknowledged": _pct(sum(t["acknowledged"] for t in heard), len(heard))}


def run(limit: int | None = None, lang: str | None = None, split: str = "test", details: Path | None = None,
        models: ModelProvider | None = None, offset: int = 0) -> dict[str, Any]:
    # answers, not speed, are measured here: a generous model timeout, so a busy machine does not fail a scenario
    settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai",
                            model_timeout_s=600, local_model_timeout_s=600)
    scenarios = select(split, lang)[offset:][:limit]
    tz = ZoneInfo(settings.timezone)
    asked_at = datetime(2026, 12, 3, 10, 0, tzinfo=tz)
    rows: list[dict[str, Any]] = []
    extractions: list[bool] = []
    ttft: list[float] = []
    turn_ms: list[float] = []
    # a Qdrant of its own: the embedded engine admits one process, and another may own the default data directory
    with tempfile.TemporaryDirectory(prefix="palace-answers-") as tmp, \
            closing(EdgeClient(Path(tmp) / "edge")) as client, Resources(settings, _qdrant=client) as res:
        deps = Deps(settings, resources=res, models=models)
        model, memory_model = describe(deps.models.chat())[0], describe(deps.models.memory())[0]
        for sc in progress(scenarios, "scenarios"):
            user = f"bench-{sc.name}-{uuid.uuid4().hex[:6]}"
            try:
                row = _scenario(deps, sc, user, asked_at, extractions, ttft, turn_ms)
            except PalaceError as exc:  # a failed turn is a wrong answer, said so; the other scenarios still run
                row = {"name": sc.name, "lang": sc.lang, "error": str(exc),
                       "turns": [_judged(t, "", [], [], [], error=str(exc)) for t in sc.turns]}
            finally:
                forget_user(deps, user)
            rows.append(row)
            _say(row)
    if details is not None:
        details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    everything = select("all")
    return {"model": model, "memory_model": memory_model, **figures(rows),
            "errors": sum(1 for r in rows if r.get("error")),
            "extraction_parsed": round(100 * sum(extractions) / len(extractions), 1) if extractions else 0.0,
            "ttft_p50_ms": round(percentile(ttft, 50), 1) if ttft else 0.0,
            "turn_p50_ms": round(percentile(turn_ms, 50), 1) if turn_ms else 0.0,
            "split": split,
            "by_lang": {code: figures([r for r in rows if r["lang"] == code]) for code in ("en", "zh")
                        if any(r["lang"] == code for r in rows)},
            "dev_cases": sum(1 for s in everything if s.split == "dev"),
            "test_cases": sum(1 for s in everything if s.split == "test")}


def _judged(turn: Turn, answer: str, said: list[str], statements: list[str], earlier: list[tuple[str, str]],
            error: str = "") -> dict[str, Any]:
    """One answer and the bench's verdicts on it."""
    made_up = invented(answer, said) if answer else []
    return {"kind": turn.kind, "message": turn.text, "answer": answer,
            "correct": turn.kind == "fact" and correct(answer, turn.expected),
            "degenerate": degenerate(answer, turn.text) or "", "invented": made_up,
            "wrong_voice": wrong_voice(answer, statements) if answer else [],
            "stuck": bool(answer) and stuck(answer, turn.text, earlier),
            "abstained": turn.kind == "unknown" and abstains(answer) and not made_up,
            "acknowledged": turn.kind in ("statement", "smalltalk") and brief(answer) and not made_up, "error": error}


def _scenario(deps: Deps, sc: Scenario, user: str, asked_at: datetime, extractions: list[bool],
              ttft: list[float], turn_ms: list[float]) -> dict[str, Any]:
    said: list[str] = [date_words(asked_at)]
    statements: list[str] = []
    for n, (days, fact) in enumerate(sc.facts):
        when = asked_at - timedelta(days=days)
        said += [fact, date_words(when), date_words(when - timedelta(days=1))]
        statements.append(fact)
        told = run_turn(deps, user, f"told-{n}", fact, at=when.isoformat())
        if told.state.get("extraction") is not None:
            extractions.append(told.state["extraction"] == "parsed")
    judged: list[dict[str, Any]] = []
    earlier: list[tuple[str, str]] = []
    recalled: list[str] = []
    for n, turn in enumerate(sc.turns):
        when = asked_at + n * TURN_GAP
        said += [turn.text, date_words(when)]
        if turn.kind == "statement":
            statements.append(turn.text)
        first: list[float] = []
        t0 = time.perf_counter()

        def on_token(_: str, first: list[float] = first) -> None:
            if not first:
                first.append(time.perf_counter())

        try:
            asked = run_turn(deps, user, "question", turn.text, at=when.isoformat(), on_token=on_token)
        except PalaceError as exc:  # this turn failed; the session goes on
            judged.append(_judged(turn, "", said, statements, earlier, error=str(exc)))
            continue
        turn_ms.append((time.perf_counter() - t0) * 1000)
        if first:
            ttft.append((first[0] - t0) * 1000)
        if asked.state.get("extraction") is not None:
            extractions.append(asked.state["extraction"] == "parsed")
        judged.append(_judged(turn, asked.answer, said, statements, earlier))
        earlier.append((turn.text, asked.answer))
        recalled = [m["text"] for m in asked.state.get("recalled") or []]
    return {"name": sc.name, "lang": sc.lang, "error": "", "turns": judged, "recalled": recalled}


def _say(row: dict[str, Any]) -> None:
    for t in row["turns"]:
        marks = [{"fact": "ok" if t["correct"] else "NO", "unknown": "abstained" if t["abstained"] else "NO-ABSTAIN"}
                 .get(t["kind"], t["kind"])]
        marks += [f"DEGENERATE ({t['degenerate']})"] if t["degenerate"] else []
        marks += [f"INVENTED {t['invented']}"] if t["invented"] else []
        marks += ["WRONG-VOICE"] if t["wrong_voice"] else []
        marks += ["STUCK"] if t["stuck"] else []
        marks += [f"ERROR ({t['error']})"] if t["error"] else []
        print(f"{' '.join(marks)}  {row['name']}: {t['message']} -> {t['answer']!r}", file=sys.stderr, flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", choices=["dev", "test", "all"], default="test",
                        help="which scenarios (split by a hash of their name; default test, never tuned on)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N scenarios")
    parser.add_argument("--offset", type=int, default=0, help="skip the first N scenarios of the split")
    parser.add_argument("--lang", choices=["en", "zh"], default=None, help="only one language")
    parser.add_argument("--save", action="store_true", help="write bench/results/answers.json for the report "
                        "(answers-1.5b.json with PALACE_LOCAL_MODEL=1.5b, answers-memory-1.5b.json with "
                        "PALACE_LOCAL_MEMORY_MODEL=1.5b: each choice of bundled models has its own)")
    parser.add_argument("--details", type=Path, default=None,
                        help="write one JSON line per scenario (every turn, its answer and verdicts) to this file")


def main(args: argparse.Namespace) -> dict[str, Any]:
    import os

    from bench.report import save

    t0, load = time.perf_counter(), os.getloadavg()[0]
    result = run(args.limit, args.lang, args.split, args.details, offset=args.offset)
    result["limit"], result["offset"] = args.limit, args.offset
    if args.save:
        save(saved_name(get_settings()), result, t0, load)
    return result


def saved_name(settings: Settings) -> str:
    """The result file of a run on ``settings``' models: "answers" for the default (or a configured chat model),
    else named by the bundled models it chose ("answers-1.5b", "answers-memory-1.5b": the 0.5B answers, the 1.5B
    does the memory work)."""
    if settings.chat_model or settings.local_model_path:
        return "answers"
    memory = settings.local_memory_model or settings.local_model
    name = "answers" if settings.local_model == DEFAULT_MODEL else f"answers-{settings.local_model}"
    return name if memory == settings.local_model else f"{name}-memory-{memory}"


def report(r: dict[str, Any]) -> str:
    split = f" on {r['split']}" if r.get("split") else ""
    judged = (f"invented {r['invented']}%, stuck {r['stuck']}%, wrong voice {r['wrong_voice']}%, "
              f"abstained on the never told {r['abstained_unknown']}%, "
              f"acknowledged briefly {r.get('acknowledged', '-')}%, " if "invented" in r else "")
    turns = f" ({r['turns']} turns)" if "turns" in r else ""
    return (f"{r['model']}{split}: {r['cases']} scenarios{turns}, correct {r['correct']}%, "
            f"degenerate {r['degenerate']}%, {judged}"
            f"failed scenarios {r.get('errors', 0)}, extraction parsed {r['extraction_parsed']}%, "
            f"time to first token p50 {r['ttft_p50_ms']} ms, "
            f"session turn p50 {r['turn_p50_ms']} ms (answers per turn on stderr)")
