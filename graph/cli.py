"""``palace``: the command line. Thin: parses arguments, calls the same functions the graph uses, prints."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from pydantic import ValidationError

from graph.resources import Resources, services_status, stop_services
from graph.settings import Settings, get_settings
from memory.errors import PalaceError, one_line


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="palace", description="Memory Palace: a LangGraph agent with a real memory.")
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
    return parser


def _quiet_library_loggers() -> None:
    # psycopg_pool logs every failed connection attempt as a warning; the CLI reports the failure in one line.
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_library_loggers()
    parser = build_parser()
    args = parser.parse_args(argv)
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
