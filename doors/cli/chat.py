"""``palace chat``: one turn of the agent, streamed, then what it did."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any
from zoneinfo import ZoneInfo

from doors import present
from doors.cli import agent
from doors.cli.io import run_interruptible
from doors.cli.options import Subparsers, add_json, add_user
from memory.errors import InvalidInputError


def cmd_chat(args: argparse.Namespace) -> int:
    if args.resume is None and args.message is None:
        raise InvalidInputError("a message is required (or --resume yes|no|both to answer a pending confirmation)")
    from doors import door
    from doors.cli.progress import AnswerStream, Spinner
    from graph.api import run_turn, validate_turn

    settings = agent.settings(args)
    # before the model stack loads: bad input (and a message the model cannot hold) is a quick one-line error
    validate_turn(settings, args.user, args.session, args.message if args.resume is None else None, at=args.at)

    models = agent.make_models(settings)
    starting = getattr(models, "local_starting", lambda: False)()
    with Spinner(STARTING if starting else "recalling") as spinner:
        if starting:  # the local model starts beside the stores, and the user knows what the wait is
            if not spinner.enabled:
                print(f"palace: {STARTING}", file=sys.stderr, flush=True)
            warm = threading.Thread(target=_start_local, args=(models, spinner), daemon=True)
            warm.start()
        with agent.resources(settings) as res:
            deps = agent.deps(settings, res, models)
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


STARTING = "starting the local model (the first turn after a restart takes up to a minute)"


def _start_local(models: Any, spinner: Any) -> None:
    """Start the local model server (the turn's first model call waits for the same start: a file lock); a
    failure is left to that call, which reports it as the turn's error."""
    try:
        models.local()
    except Exception:
        return
    if spinner.label == STARTING:
        spinner.say("recalling")


def _task_hint(args: argparse.Namespace, deps: Any) -> None:
    """A model on the compact profile is given no tools: a request for a task makes none, so say how to make it."""
    from graph.models import describe, uses_compact
    from memory.language.junk import asks_for_task

    model = deps.models.chat()
    if asks_for_task(args.message) and uses_compact(deps.settings, model):
        print(f"palace: {describe(model)[0]} does not create tasks; add it with: palace tasks add TITLE --steps N "
              f"--user {args.user}", file=sys.stderr)


def read_message(args: argparse.Namespace) -> None:
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


def add_chat(sub: Subparsers) -> None:
    """``palace chat``."""
    chat = sub.add_parser("chat", help="run one turn of the agent and print its answer",
                          description="One turn: recall, respond, fact-check, write. The session's short-term "
                                      "memory and checkpoints live in Redis, so the next call continues it.")
    chat.add_argument("message", nargs="?", help="what the user says; - reads it from standard input")
    chat.add_argument("--message", dest="message_text", metavar="TEXT",
                      help="what the user says, taken as given (a message that is '-' or starts with '-')")
    add_user(chat, "who is talking: whose memories are recalled and written")
    chat.add_argument("--session", default="default", help="the conversation this turn continues (its short-term "
                                                            "memory) (default: default)")
    chat.add_argument("--at", help="when the message was sent, ISO 8601 (import history); default: now")
    chat.add_argument("--important", action="store_true", help="mark what this message says as important")
    chat.add_argument("--resume", metavar="yes|no|both", help="answer the session's pending memory confirmation: yes "
                      "(keep the new memory, retire the old), no (forget the new one), both (keep both)")
    chat.add_argument("--explain", action="store_true", help="also print the recalled memories and their scores")
    add_json(chat, "one JSON object: answer, recalled, verdicts, usage")
    chat.set_defaults(func=cmd_chat)
