"""``palace``: the command line. Thin: parses arguments, calls the same functions the graph uses, prints."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import NoReturn
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from graph.api import TurnResult, add_memory, forget_memories, forget_user, run_turn, search_memories
from graph.deps import Deps
from graph.doctor import run_checks
from graph.models import ModelProvider, OpenAIModels
from graph.resources import Resources, services_status, stop_services
from graph.settings import Settings, get_settings
from memory.errors import InvalidInputError, NotFoundError, PalaceError, one_line
from memory.recall import Recalled


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, object] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return get_settings(**overrides)


def cmd_services_status(args: argparse.Namespace) -> int:
    rows = services_status(_settings(args))
    if args.json:
        print(json.dumps([asdict(r) for r in rows]))
    else:
        for r in rows:
            state = "running" if r.running else "not running"
            pid = f" pid {r.pid}" if r.pid else ""
            detail = f" ({r.detail})" if r.detail else ""
            print(f"{r.name:<11} {r.mode:<9} {state:<12} {r.where}{pid}{detail}")
    return 0 if all(r.running or r.mode == "embedded" for r in rows) else 3


def cmd_services_start(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with Resources(settings) as res:
        res.redis.ping()
        with res.pool.connection() as conn:
            conn.execute("SELECT 1")
    return cmd_services_status(args)


def cmd_services_stop(args: argparse.Namespace) -> int:
    stopped = stop_services(_settings(args))
    print("stopped: " + ", ".join(stopped) if stopped else "no embedded service was running")
    return 0


# The model boundary: tests swap in a scripted model here; everything else stays real.
make_models: Callable[[Settings], ModelProvider] = OpenAIModels


def _iso(ms: int | None, tz: ZoneInfo) -> str:
    return "" if ms is None else datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M")


def _recalled_row(r: Recalled) -> dict[str, object]:
    m, b = r.memory, r.breakdown
    return {"id": m.id, "text": m.text, "score": round(b.score, 6), "relevance": round(b.relevance, 6),
            "cosine": round(b.cosine, 6), "lexical": None if b.lexical is None else round(b.lexical, 6),
            "decay": round(b.decay, 6), "weight": b.weight, "boost": round(b.boost, 6), "timestamp": m.timestamp,
            "event_time": m.event_time}


def _print_turn(result: TurnResult, args: argparse.Namespace, tz: ZoneInfo) -> None:
    state = result.state
    if args.json:
        keys = ("recalled", "time_window", "verdicts", "confirmations", "archive", "usage", "used")
        out: dict[str, object] = {"answer": result.answer, "user_id": result.user_id,
                                  "session_id": result.session_id, "interrupts": result.interrupts}
        out.update({k: state.get(k) for k in keys})
        print(json.dumps(out, ensure_ascii=False, default=str))
        return
    print(result.answer)
    if args.explain:
        window = state.get("time_window")
        head = f"recalled memories (about {window['phrase']}: {window['start']} to {window['end']}, no decay " \
               f"inside):" if window else "recalled memories:"
        print(f"\n{head}")
        for n, r in enumerate(state.get("recalled") or [], 1):
            when = _iso(r["event_time"] or r["timestamp"], tz)
            lexical = "-" if r.get("lexical") is None else f"{r['lexical']:.2f}"
            print(f"  {n}. score {r['score']:.3f} = relevance {r['relevance']:.3f} (cosine {r['cosine']:.3f}, "
                  f"bm25 {lexical}) x decay {r['decay']:.3f} x weight {r['weight']:.1f} x boost {r['boost']:.2f}"
                  f"  [{when}] {r['text']}")
        if not state.get("recalled"):
            print("  (none)")
        for v in state.get("verdicts") or []:
            target = f" -> {v['target_text']!r}" if v.get("target_text") else ""
            print(f"  fact-check: {v['decision']}{target}: {v['candidate']['text']!r}")
    for i in result.interrupts:
        print(f"\nconfirm: {i.get('question', i)}", file=sys.stderr)
        print(f"  answer with: palace chat --user {result.user_id} --session {result.session_id} --resume yes|no",
              file=sys.stderr)


def cmd_chat(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if args.resume is None and args.message is None:
        raise InvalidInputError("a message is required (or --resume yes|no to answer a pending confirmation)")
    with Resources(settings) as res:
        deps = Deps(settings, resources=res, models=make_models(settings))
        result = run_turn(deps, args.user, args.session, args.message, at=args.at, important=args.important,
                          resume=args.resume)
    _print_turn(result, args, ZoneInfo(settings.timezone))
    return 0


def cmd_memories_add(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with Resources(settings) as res:
        memory = add_memory(Deps(settings, resources=res), args.user, args.text, at=args.at,
                            important=args.important)
    if args.json:
        print(json.dumps(memory.model_dump(), ensure_ascii=False))
    else:
        print(memory.id)
    return 0


def cmd_memories_search(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with Resources(settings) as res:
        found = search_memories(Deps(settings, resources=res), args.user, args.query, now=args.now,
                                limit=args.limit)
    if args.json:
        print(json.dumps([_recalled_row(r) for r in found], ensure_ascii=False))
        return 0
    tz = ZoneInfo(settings.timezone)
    for i, r in enumerate(found, 1):
        when = _iso(r.memory.event_time or r.memory.timestamp, tz)
        print(f"{i}. {r.breakdown.score:.3f}  [{when}] {r.memory.text}  ({r.memory.id})")
    if not found:
        print("no memories found")
    return 0


def cmd_memories_forget(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if args.all and args.ids:
        raise InvalidInputError("give memory ids or --all, not both")
    with Resources(settings) as res:
        deps = Deps(settings, resources=res, models=make_models(settings))
        if args.all:
            gone = forget_user(deps, args.user)
            counts: dict[str, int] = dict(vars(gone))
            if args.json:
                print(json.dumps({"user_id": args.user, **counts}))
            else:
                print(f"forgot everything of {args.user}: " + ", ".join(f"{k.replace('_', ' ')} {v}"
                                                                         for k, v in counts.items()))
            return 0
        n = forget_memories(deps, args.user, list(args.ids))
    if args.json:
        print(json.dumps({"user_id": args.user, "memories": n}))
    else:
        print(f"forgot {n} of {len(set(args.ids))} memories of {args.user}")
    if n < len(set(args.ids)):
        raise NotFoundError(f"{len(set(args.ids)) - n} of the ids are not memories of {args.user!r}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from graph.sweep import sweep

    settings = _settings(args)
    with Resources(settings) as res:
        done = sweep(Deps(settings, resources=res, models=make_models(settings)), idle_s=args.idle)
    if args.json:
        print(json.dumps(vars(done)))
    else:
        print(f"swept {done.sessions} idle sessions: {done.entries} entries -> {done.memories} memories; "
              f"{done.flushed} outbox operations applied")
        for e in done.errors:
            print(f"palace: warning: not swept: {e}", file=sys.stderr)
    return 1 if done.errors else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = run_checks(_settings(args))
    if args.json:
        print(json.dumps([asdict(c) for c in checks], ensure_ascii=False))
    else:
        for c in checks:
            state = "ok  " if c.ok else "FAIL"
            print(f"{state} {c.name:<11} {c.where or '-'}: {c.detail} ({c.ms:.0f} ms)")
    return 0 if all(c.ok for c in checks) else 3


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def _add_who(p: argparse.ArgumentParser, *, session: bool) -> None:
    p.add_argument("--user", default="default", help="whose memories (default: default)")
    if session:
        p.add_argument("--session", default="default", help="the short-term memory session (default: default)")


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line like every other error (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        hint = " (a value starting with '-' goes after '--')" if "expected one argument" in message else ""
        self.exit(2, f"palace: error: {self.prog}: {one_line(message)}{hint}; see {self.prog} --help\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="palace", description="Memory Palace: a LangGraph agent with a real memory.")
    parser.add_argument("--data-dir", help="where embedded services keep their data (default: $PALACE_DATA_DIR "
                                           "or ~/.memory-palace)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    services = sub.add_parser("services", help="the embedded Redis, PostgreSQL and Qdrant",
                              description="Embedded services start on first use when no URL is configured.")
    ssub = services.add_subparsers(dest="action", required=True, metavar="ACTION")
    status = ssub.add_parser("status", help="what runs where, checked live")
    status.add_argument("--json", action="store_true", help="one JSON array instead of a table")
    status.set_defaults(func=cmd_services_status)
    start = ssub.add_parser("start", help="start the embedded services now (they otherwise start on first use)")
    start.add_argument("--json", action="store_true", help="print the status as JSON")
    start.set_defaults(func=cmd_services_start)
    stop = ssub.add_parser("stop", help="stop the embedded services (their data is kept)")
    stop.set_defaults(func=cmd_services_stop)

    doctor = sub.add_parser("doctor", help="check the chat model, verifier, embedder, Redis, PostgreSQL, Qdrant",
                            description="Each component in use, checked live, with a one-line fix for failures.")
    doctor.add_argument("--json", action="store_true", help="a JSON array instead of lines")
    doctor.set_defaults(func=cmd_doctor)

    chat = sub.add_parser("chat", help="run one turn of the agent and print its answer",
                          description="One turn: recall, respond, fact-check, write. The session's short-term "
                                      "memory and checkpoints live in Redis, so the next call continues it.")
    chat.add_argument("message", nargs="?", help="what the user says")
    _add_who(chat, session=True)
    chat.add_argument("--at", help="when the message was sent, ISO 8601 (import history); default: now")
    chat.add_argument("--important", action="store_true", help="mark what this message says as important")
    chat.add_argument("--resume", metavar="yes|no", help="answer the session's pending memory confirmation")
    chat.add_argument("--explain", action="store_true", help="also print the recalled memories and their scores")
    chat.add_argument("--json", action="store_true", help="one JSON object: answer, recalled, verdicts, usage")
    chat.set_defaults(func=cmd_chat)

    sweep = sub.add_parser("sweep", help="archive idle sessions' short-term memory before its TTL drops it; "
                           "flush writes that waited for Qdrant")
    sweep.add_argument("--idle", type=int, default=None, metavar="S",
                       help="sessions idle this many seconds (default PALACE_SWEEP_IDLE_S, 1200)")
    sweep.add_argument("--json", action="store_true", help="print the counts as JSON")
    sweep.set_defaults(func=cmd_sweep)

    memories = sub.add_parser("memories", help="the user's long-term memories")
    msub = memories.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = msub.add_parser("add", help="store a memory directly (the user is the authority: no fact-check)")
    add.add_argument("text")
    _add_who(add, session=False)
    add.add_argument("--at", help="when it was said, ISO 8601; default: now")
    add.add_argument("--important", action="store_true", help="decay weight 2.0: ranks as if twice as relevant")
    add.add_argument("--json", action="store_true", help="print the stored memory as JSON")
    add.set_defaults(func=cmd_memories_add)
    search = msub.add_parser("search", help="ranked memories for a query (time intent, decay, importance)")
    search.add_argument("query")
    _add_who(search, session=False)
    search.add_argument("--now", help="rank as of this time, ISO 8601; default: now")
    search.add_argument("--limit", type=_positive_int, help="how many (default: PALACE_RECALL_TOP_K)")
    search.add_argument("--json", action="store_true", help="a JSON array with the score breakdown of each")
    search.set_defaults(func=cmd_memories_search)
    forget = msub.add_parser("forget", help="delete memories by id, or --all: everything of the user in every store")
    forget.add_argument("ids", nargs="*", metavar="ID", help="memory ids (from search or add)")
    _add_who(forget, session=False)
    forget.add_argument("--all", action="store_true",
                        help="everything of the user: memories, short-term lists, tasks, usage, outbox, CLI threads")
    forget.add_argument("--json", action="store_true", help="print the counts as JSON")
    forget.set_defaults(func=cmd_memories_forget)
    return parser


def _quiet_library_loggers() -> None:
    # Our own warnings (e.g. an unparseable model reply that was handled) are one line each on stderr.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("palace: warning: %(message)s"))
    for name in ("nodes", "graph", "memory"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(handler)
            logger.propagate = False
    # psycopg_pool logs every failed connection attempt as a warning; the CLI reports the failure in one line.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_library_loggers()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already reported in one line)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        code: int = args.func(args)
    except PalaceError as exc:
        print(f"palace: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "PALACE_" + "_".join(str(p) for p in first["loc"]).upper()
        print(f"palace: error: invalid setting {name}: {one_line(first['msg'])}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("palace: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
