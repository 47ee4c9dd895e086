"""``python -m bench NAME [--json]``: one entry point for every benchmark."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from memory.errors import PalaceError


def _benchmarks() -> dict[str, ModuleType]:
    from bench import (
        answers,
        checkpointer,
        cli,
        failover,
        integrity,
        locomo,
        memorybank,
        prompt_budget,
        recall,
        serve_load,
        stm,
        turn,
        updates,
    )

    return {"stm": stm, "checkpointer": checkpointer, "prompt-budget": prompt_budget, "locomo": locomo,
            "memorybank": memorybank, "recall": recall, "turn": turn, "failover": failover, "answers": answers,
            "integrity": integrity, "cli": cli, "updates": updates,
            "serve-load": serve_load}


def _with_all() -> dict[str, ModuleType]:
    from bench import report

    return {**_benchmarks(), "all": report}


def main(argv: list[str] | None = None) -> int:
    benches = _with_all()
    parser = argparse.ArgumentParser(prog="python -m bench", description="Memory Palace benchmarks.")
    sub = parser.add_subparsers(dest="name", required=True, metavar="NAME")
    for name, module in benches.items():
        p = sub.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0])
        p.add_argument("--json", action="store_true", help="print the figures as one JSON object on the last line")
        module.add_arguments(p)
    args = parser.parse_args(argv)
    module = benches[args.name]
    run: Callable[[argparse.Namespace], dict[str, Any]] = module.main
    try:
        result = run(args)
    except PalaceError as exc:
        print(f"bench: error: {exc}", file=sys.stderr)
        return exc.exit_code
    print(module.report(result))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
