"""Options more than one command has."""

from __future__ import annotations

import argparse
from typing import Any

# what add_subparsers returns (argparse's type is private)
Subparsers = Any


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def add_user(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--user", default="default", help=f"{what} (default: default)")


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=what)
