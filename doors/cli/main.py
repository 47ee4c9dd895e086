"""``palace``: the command line. Thin: parses arguments, calls the same functions the graph uses, prints. This
module parses and dispatches; each command group is a module of its own (:mod:`~doors.cli.chat`,
:mod:`~doors.cli.memories`, :mod:`~doors.cli.tasks` with usage, :mod:`~doors.cli.services` with sweep and doctor,
:mod:`~doors.cli.serve` with mcp), and :mod:`doors.client` runs a command through a running ``palace serve``.

Start-up is part of the interface: these modules import the standard library only, and each command imports what
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
from collections.abc import Sequence
from typing import NoReturn
from zoneinfo import ZoneInfo

from doors.cli import chat, memories, serve, services, tasks
from doors.cli.io import BROKEN_PIPE, INTERRUPTED, install_signal_handlers, silence_stdout
from memory.errors import PalaceError, one_line

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

    services.add_services(sub)
    serve.add_serve(sub)
    services.add_doctor(sub)
    chat.add_chat(sub)
    services.add_sweep(sub)
    memories.add_memories(sub)
    tasks.add_usage(sub)
    tasks.add_tasks(sub)
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

    from memory.language.temporal import parse_timestamp
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


def _run(argv: Sequence[str] | None) -> int:
    _quiet_library_loggers()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already reported in one line)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        chat.read_message(args)
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
