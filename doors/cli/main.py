"""``palace``: the command line. Thin: parses arguments, calls the same functions the graph uses, prints.

Start-up is part of the interface: this module imports the standard library only, and each command imports what
it uses when it runs (``palace --help`` loads no model, vocabulary or database client; ``memories``, ``tasks``,
``usage`` and ``services`` never load OpenAI or LangChain's model stack). Ctrl-C and a closed pipe are handled
in :mod:`doors.cli.io`, installed before anything heavy is imported.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from zoneinfo import ZoneInfo

from doors import present
from doors.cli.io import BROKEN_PIPE, INTERRUPTED, dumps, install_signal_handlers, run_interruptible, silence_stdout
from doors.present import count as _count
from memory.errors import InvalidInputError, NotFoundError, PalaceError, one_line

if TYPE_CHECKING:
    from graph.deps import Deps
    from graph.models import ModelProvider
    from graph.resources import Resources
    from graph.settings import Settings


def _settings(args: argparse.Namespace) -> Settings:
    from graph.settings import get_settings

    overrides: dict[str, object] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return get_settings(**overrides)


def _resources(settings: Settings) -> Resources:
    from graph.resources import Resources

    return Resources(settings)


def _deps(settings: Settings, res: Resources, models: ModelProvider | None = None) -> Deps:
    from graph.deps import Deps

    return Deps(settings, resources=res, models=models)


def cmd_services_status(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from doors.serve import server_status
    from graph.resources import services_status

    settings = _settings(args)
    rows = [*services_status(settings), server_status(settings.data_dir)]
    if args.json:
        print(dumps([asdict(r) for r in rows]))
    else:
        for r in rows:
            state = "running" if r.running else "not running"
            pid = f" pid {r.pid}" if r.pid else ""
            detail = f" ({r.detail})" if r.detail else ""
            print(f"{r.name:<11} {r.mode:<9} {state:<12} {r.where}{pid}{detail}")
    return 0 if all(r.running or r.mode == "embedded" for r in rows) else 3


def cmd_services_start(args: argparse.Namespace) -> int:
    from graph.resources import start_services

    start_services(_settings(args))
    return cmd_services_status(args)


def cmd_services_stop(args: argparse.Namespace) -> int:
    from graph.resources import stop_services

    stopped = stop_services(_settings(args))
    print("stopped: " + ", ".join(stopped) if stopped else "no embedded service was running")
    return 0


def _openai_models(settings: Settings) -> ModelProvider:
    from graph.models import OpenAIModels

    return OpenAIModels(settings)


# The model boundary: tests swap in a scripted model here; everything else stays real.
make_models: Callable[[Settings], ModelProvider] = _openai_models


def cmd_chat(args: argparse.Namespace) -> int:
    if args.resume is None and args.message is None:
        raise InvalidInputError("a message is required (or --resume yes|no|both to answer a pending confirmation)")
    from doors import door
    from doors.cli.progress import AnswerStream, Spinner
    from graph.api import run_turn, validate_turn

    settings = _settings(args)
    # before the model stack loads: bad input (and a message the model cannot hold) is a quick one-line error
    validate_turn(settings, args.user, args.session, args.message if args.resume is None else None, at=args.at)

    with Spinner("recalling") as spinner, _resources(settings) as res:
        deps = _deps(settings, res, make_models(settings))
        answer = AnswerStream(spinner, stream=not args.json and args.resume is None)
        result = run_interruptible(
            lambda: run_turn(deps, args.user, args.session, args.message, at=args.at, important=args.important,
                             resume=args.resume, on_token=answer.on_token, on_answer=answer.on_answer),
            critical=lambda: answer.answered or args.resume is not None)  # once answered, the turn writes
        spinner.stop()
    args.answer_printed = answer.started
    present.print_turn(door.turn_json(result), args, ZoneInfo(settings.timezone))
    if args.resume is None and not args.json:
        _task_hint(args, deps)
    return 0


def _task_hint(args: argparse.Namespace, deps: Any) -> None:
    """A model on the compact profile is given no tools: a request for a task makes none, so say how to make it."""
    from graph.models import describe, uses_compact
    from memory.junk import asks_for_task

    model = deps.models.chat()
    if asks_for_task(args.message) and uses_compact(deps.settings, model):
        print(f"palace: {describe(model)[0]} does not create tasks; add it with: palace tasks add TITLE --steps N "
              f"--user {args.user}", file=sys.stderr)


def cmd_memories_add(args: argparse.Namespace) -> int:
    from graph.api import add_memory

    settings = _settings(args)
    with _resources(settings) as res:
        memory = add_memory(_deps(settings, res), args.user, args.text, at=args.at,
                            important=args.important)
    if args.json:
        print(dumps(memory.model_dump()))
    else:
        print(memory.id)
    return 0


def cmd_memories_search(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        found = door.search(_deps(settings, res), args.user, args.query, now=args.now, limit=args.limit)
    present.show(args, found, lambda: present.search_lines(found, ZoneInfo(settings.timezone)))
    return 0


def cmd_memories_forget(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if args.all and args.ids:
        raise InvalidInputError("give memory ids or --all, not both")
    from graph.api import forget_memories, forget_user

    with _resources(settings) as res:
        deps = _deps(settings, res)  # no model: forgetting loads no model stack
        if args.all:
            everything = forget_user(deps, args.user)
            out = {"user_id": args.user, **vars(everything)}
            present.show(args, out, lambda: [present.forgot_all_line(out)])
            return 0
        gone = forget_memories(deps, args.user, list(args.ids))
    n = gone.named
    if args.json:
        print(dumps({"user_id": args.user, "memories": n, "derived": gone.derived,
                     "short_term_entries": gone.short_term_entries}))
    elif n:  # nothing forgotten: the error below says so, without a "forgot 0 of 1" that reads like success
        print(present.forgot_line({"memories": n, "derived": gone.derived,
                                   "short_term_entries": gone.short_term_entries}, len(set(args.ids)), args.user))
    if n < len(set(args.ids)):
        missing = len(set(args.ids)) - n
        raise NotFoundError(f"{missing} of the ids {'is' if missing == 1 else 'are'} not a memory of {args.user!r}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from graph.sweep import sweep

    settings = _settings(args)
    with _resources(settings) as res:
        done = sweep(_deps(settings, res, make_models(settings)), idle_s=args.idle)
    if args.json:
        print(dumps(vars(done)))
    else:
        print(f"swept {_count(done.sessions, 'idle session', 'idle sessions')}: "
              f"{_count(done.entries, 'entry', 'entries')} -> {_count(done.memories, 'memory', 'memories')}; "
              f"{_count(done.flushed, 'outbox operation', 'outbox operations')} applied")
        for e in done.errors:
            print(f"palace: warning: not swept: {e}", file=sys.stderr)
    if done.errors:  # a service or the model failed: the sessions stay and the next sweep tries again
        print(f"palace: error: {_count(len(done.errors), 'session was', 'sessions were')} not swept (see the "
              "warnings); the next sweep tries again", file=sys.stderr)
        return 3
    return 0


def cmd_memories_list(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        found = door.list_(_deps(settings, res), args.user, status=args.status)
    present.show(args, found, lambda: present.memory_list(found, args.user, args.status, ZoneInfo(settings.timezone)))
    return 0


def cmd_memories_show(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        m = door.show(_deps(settings, res), args.user, args.id)
    present.show(args, m, lambda: present.memory_lines(m, ZoneInfo(settings.timezone)))
    return 0


def cmd_memories_pin(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        m = door.pin(_deps(settings, res), args.user, args.id)
    present.show(args, m, lambda: [f"pinned {m['id']}: {m['text']}"])
    return 0


def cmd_memories_review(args: argparse.Namespace) -> int:
    from graph.manage import Choice, resolve_disputed, resolve_id

    settings = _settings(args)
    with _resources(settings) as res:
        deps = _deps(settings, res)
        if args.accept or args.reject or args.both:
            ltm = deps.long_term()
            now_ms = int(datetime.now(ZoneInfo(settings.timezone)).timestamp() * 1000)
            choices: list[tuple[str, Choice]] = [*((i, "yes") for i in args.accept), *((i, "no") for i in args.reject),
                                                 *((i, "both") for i in args.both)]
            resolved = [(resolve_id(deps, args.user, i), c) for i, c in choices]
            out = {i: resolve_disputed(ltm, args.user, i, c, now_ms, events=deps.events()) for i, c in resolved}
            print(dumps(out) if args.json else "\n".join(f"{i}: {o}" for i, o in out.items()))
            if "gone" in out.values():
                raise NotFoundError("some ids are not disputed memories of this user (see 'gone' above)")
            return 0
        from doors import door

        disputed = door.disputed(deps, args.user)
    present.show(args, disputed, lambda: present.disputed_lines(disputed, args.user))
    return 0


def cmd_memories_history(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        events = door.history(_deps(settings, res), args.user, args.id)
    present.show(args, events, lambda: present.history_lines(events, ZoneInfo(settings.timezone)))
    return 0


def cmd_memories_restore(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        done = door.restore(_deps(settings, res), args.user, args.id)
    present.show(args, done, lambda: [present.restored_line(done)])
    return 0


def cmd_memories_export(args: argparse.Namespace) -> int:
    from graph.manage import export_lines

    settings = _settings(args)
    with _resources(settings) as res:
        count = 0
        for line in export_lines(_deps(settings, res), args.user):
            print(line)
            count += 1
    print(f"palace: exported {_count(count, 'memory', 'memories')} of {args.user}", file=sys.stderr)
    return 0


def cmd_memories_import(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from graph.manage import import_lines

    settings = _settings(args)
    try:
        handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise InvalidInputError(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    with handle, _resources(settings) as res:
        lines = handle.read().splitlines()
        progress = tqdm(lines, desc="importing", unit="line", file=sys.stderr, disable=not sys.stderr.isatty())
        report = import_lines(_deps(settings, res), progress)
    for error in report.errors:
        print(f"palace: warning: {args.file}: {error}", file=sys.stderr)
    if args.json:
        print(dumps({"imported": report.imported, "lines": report.lines, "errors": report.errors}))
    else:
        print(f"imported {_count(report.imported, 'memory', 'memories')} from {_count(report.lines, 'line', 'lines')}")
    if report.errors:
        bad = len(report.errors)
        raise InvalidInputError(f"{bad} line{' was' if bad == 1 else 's were'} not imported (listed above); the rest "
                                "were")
    return 0


def cmd_tasks_list(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        tasks = door.tasks(_deps(settings, res), args.user, session_id=args.session, status=args.status)
    present.show(args, tasks, lambda: present.task_list(tasks, args.user))
    return 0


def cmd_tasks_show(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        task = door.task(_deps(settings, res), args.user, args.id)
    present.show(args, task, lambda: present.task_lines(task, ZoneInfo(settings.timezone)))
    return 0


def cmd_tasks_add(args: argparse.Namespace) -> int:
    settings = _settings(args)
    steps = list(args.step) or [f"step {i}" for i in range(1, (args.steps or 1) + 1)]
    if args.step and args.steps and args.steps != len(args.step):
        raise InvalidInputError(f"--steps {args.steps} but {len(args.step)} --step texts given")
    with _resources(settings) as res:
        task = _deps(settings, res).tasks().create(args.user, args.session, args.title, steps)
    from doors.door import task_json

    out = task_json(task)
    present.show(args, out, lambda: [present.task_row(out)])
    return 0


def _cmd_task_change(args: argparse.Namespace, change: str) -> int:
    settings = _settings(args)
    with _resources(settings) as res:
        store = _deps(settings, res).tasks()
        task = store.advance(args.user, args.id, note=args.note) if change == "advance" else \
            store.complete(args.user, args.id, note=args.note)
    from doors.door import task_json

    out = task_json(task)
    present.show(args, out, lambda: [present.task_row(out)])
    return 0


def cmd_tasks_advance(args: argparse.Namespace) -> int:
    return _cmd_task_change(args, "advance")


def cmd_tasks_done(args: argparse.Namespace) -> int:
    return _cmd_task_change(args, "done")


def cmd_usage(args: argparse.Namespace) -> int:
    from doors import door

    settings = _settings(args)
    with _resources(settings) as res:
        report = door.usage(_deps(settings, res), args.user, args.by)
    present.show(args, report, lambda: present.usage_lines(report))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from doors.doctor import run_checks

    return present.print_checks([asdict(c) for c in run_checks(_settings(args))], args.json)


def cmd_serve(args: argparse.Namespace) -> int:
    from doors.serve import serve

    return serve(_settings(args).data_dir, host=args.host, port=args.port)


def cmd_mcp(args: argparse.Namespace) -> int:
    from doors.mcp_stdio import run_stdio

    code: int = run_stdio(_settings(args), args.user)
    return code


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def _add_user(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--user", default="default", help=f"{what} (default: default)")


def _add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=what)


_NUMBER = re.compile(r"-\d+|-\d*\.\d+")


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line like every other error (exit code 2), and an unknown option before
    the command named as such (argparse would only say that the command is missing)."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        argv = list(sys.argv[1:] if args is None else args)
        unknown = self._unknown_leading_options(argv) if self.prog == "palace" else []
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return super().parse_known_args(argv, namespace)

    def _unknown_leading_options(self, argv: list[str]) -> list[str]:
        """The options before the first positional argument (the command) that this parser does not know."""
        unknown, skip = [], False
        for token in argv:
            if skip:
                skip = False
                continue
            if token in ("-", "--") or not token.startswith("-") or " " in token or _NUMBER.fullmatch(token):
                break  # what argparse takes for a positional argument (the command), or the end of the options
            name = token.split("=", 1)[0]
            known = [o for o in self._option_string_actions if o == name or (self.allow_abbrev and
                                                                            o.startswith(name) and name != "-")]
            if not known:
                unknown.append(token)
            elif "=" not in token and self._option_string_actions[known[0]].nargs != 0:
                skip = True  # its value follows
        return unknown

    def error(self, message: str) -> NoReturn:
        hint = " (a value starting with '-' goes after '--')" if "expected one argument" in message else ""
        where = self.prog.removeprefix("palace").strip()  # "chat", "memories list"; nothing for palace itself
        self.exit(2, f"palace: error: {where + ': ' if where else ''}{one_line(message)}{hint}; see {self.prog} "
                     "--help\n")


def build_parser() -> argparse.ArgumentParser:
    """Every command and option, each with a help line true for that command (tested)."""
    parser = _Parser(prog="palace", description="Memory Palace: a LangGraph agent with a real memory.")
    parser.add_argument("--data-dir", help="where embedded services keep their data (default: $PALACE_DATA_DIR "
                                           "or ~/.memory-palace)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="one of (palace COMMAND --help for its options):")

    services = sub.add_parser("services", help="the embedded Redis, PostgreSQL, Qdrant and local chat model",
                              description="Embedded services start on first use when no URL is configured; "
                                          "status, start and stop cover the same set (the local chat model when "
                                          "PALACE_CHAT_MODEL is unset).")
    ssub = services.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    status = ssub.add_parser("status", help="what runs where, checked live")
    _add_json(status, "one JSON array instead of a table")
    status.set_defaults(func=cmd_services_status)
    start = ssub.add_parser("start", help="start the embedded services now (they otherwise start on first use), "
                                          "then print their status")
    _add_json(start, "print the status as one JSON array")
    start.set_defaults(func=cmd_services_start)
    stop = ssub.add_parser("stop", help="stop the embedded services (their data is kept)")
    stop.set_defaults(func=cmd_services_stop)

    serve = sub.add_parser("serve", help="the LangGraph server with the memory API, MCP and the web inspector",
                           description="Runs the LangGraph API server (langgraph dev, offline) with the project's "
                                       "langgraph.json; it owns the data directory's stores while it runs and other "
                                       "palace commands go through it.")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2024, help="the port to listen on (default: 2024)")
    serve.set_defaults(func=cmd_serve, local_only=True)
    mcp = sub.add_parser("mcp", help="the memory tools over MCP on stdio, for one user",
                         description="Through the running palace serve when there is one, else on the stores.")
    _add_user(mcp, "whose memories the tools read and change (never a tool argument)")
    mcp.set_defaults(func=cmd_mcp, local_only=True)
    mcp.set_defaults(func=cmd_mcp, local_only=True)

    doctor = sub.add_parser("doctor", help="check the chat model, verifier, embedder, Redis, PostgreSQL, Qdrant",
                            description="Each component in use, checked live, with a one-line fix for failures; "
                                        "while palace serve runs, by the server, on the stores it holds.")
    _add_json(doctor, "a JSON array instead of lines")
    doctor.set_defaults(func=cmd_doctor)

    chat = sub.add_parser("chat", help="run one turn of the agent and print its answer",
                          description="One turn: recall, respond, fact-check, write. The session's short-term "
                                      "memory and checkpoints live in Redis, so the next call continues it.")
    chat.add_argument("message", nargs="?", help="what the user says; - reads it from standard input")
    chat.add_argument("--message", dest="message_text", metavar="TEXT",
                      help="what the user says, taken as given (a message that is '-' or starts with '-')")
    _add_user(chat, "who is talking: whose memories are recalled and written")
    chat.add_argument("--session", default="default", help="the conversation this turn continues (its short-term "
                                                            "memory) (default: default)")
    chat.add_argument("--at", help="when the message was sent, ISO 8601 (import history); default: now")
    chat.add_argument("--important", action="store_true", help="mark what this message says as important")
    chat.add_argument("--resume", metavar="yes|no|both", help="answer the session's pending memory confirmation: yes "
                      "(keep the new memory, retire the old), no (forget the new one), both (keep both)")
    chat.add_argument("--explain", action="store_true", help="also print the recalled memories and their scores")
    _add_json(chat, "one JSON object: answer, recalled, verdicts, usage")
    chat.set_defaults(func=cmd_chat)

    sweep = sub.add_parser("sweep", help="archive idle sessions' short-term memory before its TTL drops it; "
                           "flush writes that waited for Qdrant")
    sweep.add_argument("--idle", type=int, default=None, metavar="S",
                       help="sessions idle this many seconds (default PALACE_SWEEP_IDLE_S, 1200)")
    _add_json(sweep, "print the counts as JSON")
    sweep.set_defaults(func=cmd_sweep)

    memories = sub.add_parser("memories", help="the user's long-term memories")
    msub = memories.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    add = msub.add_parser("add", help="store a memory directly (the user is the authority: no fact-check)")
    add.add_argument("text", help="the memory, as the user would say it")
    _add_user(add, "whose memory it is")
    add.add_argument("--at", help="when it was said, ISO 8601; default: now")
    add.add_argument("--important", action="store_true", help="decay weight 2.0: ranks as if twice as relevant")
    _add_json(add, "print the stored memory as JSON")
    add.set_defaults(func=cmd_memories_add)
    search = msub.add_parser("search", help="ranked memories for a query (time intent, decay, importance)")
    search.add_argument("query", help="what to look for, in words (\"where do I live\", \"上周的会议\")")
    _add_user(search, "whose memories to search")
    search.add_argument("--now", help="rank as of this time, ISO 8601; default: now")
    search.add_argument("--limit", type=_positive_int, help="how many (default: PALACE_RECALL_TOP_K)")
    _add_json(search, "a JSON array with the score breakdown of each")
    search.set_defaults(func=cmd_memories_search)
    forget = msub.add_parser("forget", help="delete memories by id, or --all: everything of the user in every store")
    forget.add_argument("ids", nargs="*", metavar="ID", help="memory ids (from search or add)")
    _add_user(forget, "whose memories to forget")
    forget.add_argument("--all", action="store_true",
                        help="everything of the user: memories, short-term lists, tasks, usage, outbox, CLI threads")
    _add_json(forget, "print the counts as JSON")
    forget.set_defaults(func=cmd_memories_forget)
    lst = msub.add_parser("list", help="the user's memories, newest first")
    _add_user(lst, "whose memories to list")
    lst.add_argument("--status", default="active", choices=["active", "disputed", "superseded", "all"],
                     help="which memories: active (recalled), disputed (waiting for the user), superseded "
                          "(replaced by a newer one) or all (default: active)")
    _add_json(lst, "a JSON array of the stored memories")
    lst.set_defaults(func=cmd_memories_list)
    for name, func, text in (("show", cmd_memories_show, "one memory with every field"),
                             ("pin", cmd_memories_pin, "mark a memory important (decay weight 2.0)"),
                             ("history", cmd_memories_history, "every change to a memory, with the verdicts and "
                                                                "their reasons"),
                             ("restore", cmd_memories_restore, "bring back a superseded or merged memory")):
        p = msub.add_parser(name, help=text)
        p.add_argument("id", help="the memory's id or a prefix of it (at least 4 characters, as memories list shows)")
        _add_user(p, "whose memory it is (another user's id is not found)")
        _add_json(p, "print the memory (or its history) as JSON")
        p.set_defaults(func=func)
    review = msub.add_parser("review", help="disputed memories: list them, or accept / reject them by id")
    _add_user(review, "whose disputed memories")
    review.add_argument("--accept", action="append", default=[], metavar="ID", help="make it active (repeatable)")
    review.add_argument("--reject", action="append", default=[], metavar="ID", help="delete it (repeatable)")
    review.add_argument("--both", action="append", default=[], metavar="ID",
                        help="keep it and the memory it contradicts, as separate memories (repeatable)")
    _add_json(review, "the disputed memories (or, with --accept / --reject / --both, each id's outcome) as JSON")
    review.set_defaults(func=cmd_memories_review)
    export = msub.add_parser("export", help="every memory of the user as JSON lines on stdout")
    _add_user(export, "whose memories to export")
    export.set_defaults(func=cmd_memories_export)
    imp = msub.add_parser("import", help="memories from an export (JSON lines; - for stdin); idempotent")
    imp.add_argument("file", help="an export file (each line names its user), or - to read stdin")
    _add_json(imp, "print the counts and errors as JSON")
    imp.set_defaults(func=cmd_memories_import)

    usage = sub.add_parser("usage", help="tokens and cost from the ledger, and the saving against the full history")
    usage.add_argument("--user", default=None, help="one user's model calls (default: everyone's)")
    usage.add_argument("--by", default="day", choices=["day", "session", "node", "model"],
                       help="one row per day, session, graph node or model (default: day)")
    _add_json(usage, "rows and totals as one JSON object (costs in USD, as numbers)")
    usage.set_defaults(func=cmd_usage)

    tasks = sub.add_parser("tasks", help="the user's structured tasks (PostgreSQL)")
    tsub = tasks.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    tlist = tsub.add_parser("list", help="tasks, most recently changed first")
    _add_user(tlist, "whose tasks")
    tlist.add_argument("--session", default=None, help="only this session's tasks (default: every session)")
    tlist.add_argument("--status", default=None, choices=["active", "completed", "cancelled"],
                       help="only tasks in this state (default: all)")
    _add_json(tlist, "a JSON array of the tasks")
    tlist.set_defaults(func=cmd_tasks_list)
    tshow = tsub.add_parser("show", help="one task with its steps and step history")
    tshow.add_argument("id", help="the task id (from tasks list)")
    _add_user(tshow, "whose task it is (another user's id is not found)")
    _add_json(tshow, "the task, its steps and history as JSON")
    tshow.set_defaults(func=cmd_tasks_show)
    tadd = tsub.add_parser("add", help="create a task (for models that do not call the task tools)")
    tadd.add_argument("title", help="what the task is")
    _add_user(tadd, "whose task it is")
    tadd.add_argument("--session", default="default", help="the session the task belongs to (default: default)")
    tadd.add_argument("--steps", type=_positive_int, default=None, metavar="N",
                      help="how many steps (named 'step 1' ... 'step N'; default 1)")
    tadd.add_argument("--step", action="append", default=[], metavar="TEXT", help="a named step, in order "
                      "(repeatable; instead of --steps)")
    _add_json(tadd, "print the task as JSON")
    tadd.set_defaults(func=cmd_tasks_add)
    for name, func, text in (("advance", cmd_tasks_advance, "mark the task's current step done"),
                             ("done", cmd_tasks_done, "mark the whole task completed")):
        tp = tsub.add_parser(name, help=text)
        tp.add_argument("id", help="the task id (from tasks list)")
        _add_user(tp, "whose task it is (another user's id is not found)")
        tp.add_argument("--note", default=None, help="a note kept in the task's step history")
        _add_json(tp, "print the task as JSON")
        tp.set_defaults(func=func)
    return parser


def _quiet_library_loggers() -> None:
    # Our own warnings (e.g. an unparseable model reply that was handled) are one line each on stderr.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("palace: warning: %(message)s"))
    for name in ("nodes", "graph", "memory", "doors"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(handler)
            logger.propagate = False
    # psycopg_pool logs every failed connection attempt as a warning; the CLI reports the failure in one line.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)


def _invalid_setting(exc: BaseException) -> str | None:
    """The one-line message of a bad PALACE_* setting (pydantic's ValidationError, or pydantic-settings' error for
    a JSON setting such as PALACE_PRICES that does not parse), else None. pydantic is not imported for this: a
    command that never read the settings cannot have raised one."""
    settings_errors = sys.modules.get("pydantic_settings.exceptions")
    if settings_errors is not None and isinstance(exc, settings_errors.SettingsError):
        field = re.search(r'field "(\w+)"', str(exc))
        cause = exc.__cause__
        why = f"not valid JSON ({one_line(str(cause))})" if type(cause).__name__ == "JSONDecodeError" else \
            one_line(str(cause)) if cause is not None else "cannot be parsed"
        return f"invalid setting PALACE_{field[1].upper() if field else '?'}: {why}"
    core = sys.modules.get("pydantic_core")
    if core is None or not isinstance(exc, core.ValidationError):
        return None
    first = exc.errors()[0]
    wrapped = (first.get("ctx") or {}).get("error")
    if not first["loc"] and isinstance(wrapped, BaseException):  # the SettingsError, raised inside a validator
        return _invalid_setting(wrapped)
    name = "PALACE_" + "_".join(str(p) for p in first["loc"]).upper()
    return f"invalid setting {name}: {one_line(first['msg'])}"


def main(argv: Sequence[str] | None = None) -> int:
    """The ``palace`` entry point. ``argv`` None: this is the process (Ctrl-C ends it at once after the one
    line, see :mod:`doors.cli.io`); a list: called in-process (tests), which only returns the exit code."""
    install_signal_handlers()
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
    except KeyboardInterrupt:
        print("palace: interrupted", file=sys.stderr, flush=True)
        if argv is None:
            # Threads still waiting on a model or a service must not hold the exit or print at shutdown;
            # what the command opened was closed while the interrupt unwound through its `with` blocks.
            import os

            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            os._exit(INTERRUPTED)
        return INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return BROKEN_PIPE
    return code


def _precheck(args: argparse.Namespace) -> None:
    """The input rules that need no setting, before any settings or store load: bad input is a quick one-line
    error. Limits that are settings (id and message lengths) and the user's clock are checked where they apply."""
    from zoneinfo import ZoneInfo

    from memory.temporal import parse_timestamp
    from memory.validation import check_id, check_text

    unbounded = sys.maxsize
    for name, kind in (("user", "user id"), ("session", "session id")):
        if getattr(args, name, None) is not None:
            check_id(kind, getattr(args, name), max_length=unbounded)
    for name, kind in (("text", "memory text"), ("query", "query")):
        if getattr(args, name, None) is not None:
            check_text(kind, getattr(args, name), max_chars=unbounded)
    if getattr(args, "message", None) is not None and getattr(args, "resume", None) is None:
        check_text("message", args.message, max_chars=unbounded)
    for name in ("at", "now"):
        if getattr(args, name, None):
            parse_timestamp(getattr(args, name), ZoneInfo("UTC"))  # the syntax; the user's clock comes later


def _read_message(args: argparse.Namespace) -> None:
    """``palace chat -``: the message is standard input (a message that is a single dash: ``--message -``)."""
    if getattr(args, "command", None) != "chat":
        return
    if args.message_text is not None:
        if args.message is not None:
            raise InvalidInputError("give the message once: as an argument or with --message, not both")
        args.message = args.message_text
    elif args.message == "-":
        if sys.stdin is None:
            raise InvalidInputError("'palace chat -' reads the message from standard input, and there is none")
        try:
            args.message = sys.stdin.read().strip()
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"the message on standard input is not UTF-8 text ({exc.reason} at byte "
                                    f"{exc.start})") from None


def _run(argv: Sequence[str] | None) -> int:
    _quiet_library_loggers()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already reported in one line)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        _read_message(args)
        _precheck(args)
        from doors.client import run_remote, server_for

        remote = None if getattr(args, "local_only", False) else server_for(args)
        code: int = run_remote(remote, args) if remote else args.func(args)
    except PalaceError as exc:
        print(f"palace: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:
        message = _invalid_setting(exc)
        if message is None:
            raise
        print(f"palace: error: {message}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
