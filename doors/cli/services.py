"""``palace services ...``, ``palace sweep`` and ``palace doctor``: the stores and models the agent runs on."""

from __future__ import annotations

import argparse
import sys

from doors import present
from doors.cli import agent
from doors.cli.io import dumps
from doors.cli.options import Subparsers, add_json
from doors.present import count as _count


def cmd_services_status(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from doors.serve import server_status
    from graph.resources import services_status

    settings = agent.settings(args)
    rows = [*services_status(settings), server_status(settings.data_dir)]
    if args.json:
        print(dumps([asdict(r) for r in rows]))
    else:
        width = max(len(r.name) for r in rows)  # "memory model" with PALACE_LOCAL_MEMORY_MODEL
        for r in rows:
            state = "running" if r.running else "not running"
            pid = f" pid {r.pid}" if r.pid else ""
            detail = f" ({r.detail})" if r.detail else ""
            print(f"{r.name:<{width}} {r.mode:<9} {state:<12} {r.where}{pid}{detail}")
    return 0 if all(r.running or r.mode == "embedded" for r in rows) else 3


def cmd_services_start(args: argparse.Namespace) -> int:
    from graph.resources import start_services

    start_services(agent.settings(args))
    return cmd_services_status(args)


def cmd_services_stop(args: argparse.Namespace) -> int:
    from graph.resources import stop_services

    stopped = stop_services(agent.settings(args))
    print("stopped: " + ", ".join(stopped) if stopped else "no embedded service was running")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from graph.sweep import sweep

    settings = agent.settings(args)
    with agent.resources(settings) as res:
        done = sweep(agent.deps(settings, res, agent.make_models(settings)), idle_s=args.idle)
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


def cmd_doctor(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from doors.doctor import run_checks

    return present.print_checks([asdict(c) for c in run_checks(agent.settings(args))], args.json)


def add_services(sub: Subparsers) -> None:
    """``palace services ACTION``."""
    services = sub.add_parser("services", help="the embedded Redis, PostgreSQL, Qdrant and local chat model",
                              description="Embedded services start on first use when no URL is configured; "
                                          "status, start and stop cover the same set (the local chat model when "
                                          "PALACE_CHAT_MODEL is unset).")
    ssub = services.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    status = ssub.add_parser("status", help="what runs where, checked live")
    add_json(status, "one JSON array instead of a table")
    status.set_defaults(func=cmd_services_status)
    start = ssub.add_parser("start", help="start the embedded services now (they otherwise start on first use), "
                                          "then print their status")
    add_json(start, "print the status as one JSON array")
    start.set_defaults(func=cmd_services_start)
    stop = ssub.add_parser("stop", help="stop the embedded services (their data is kept)")
    stop.set_defaults(func=cmd_services_stop)


def add_sweep(sub: Subparsers) -> None:
    """``palace sweep``."""
    sweep = sub.add_parser("sweep", help="archive idle sessions' short-term memory before its TTL drops it; "
                           "flush writes that waited for Qdrant")
    sweep.add_argument("--idle", type=int, default=None, metavar="S",
                       help="sessions idle this many seconds (default PALACE_SWEEP_IDLE_S, 1200)")
    add_json(sweep, "print the counts as JSON")
    sweep.set_defaults(func=cmd_sweep)


def add_doctor(sub: Subparsers) -> None:
    """``palace doctor``."""
    doctor = sub.add_parser("doctor", help="check the chat model, verifier, embedder, Redis, PostgreSQL, Qdrant",
                            description="Each component in use, checked live, with a one-line fix for failures; "
                                        "while palace serve runs, by the server, on the stores it holds.")
    add_json(doctor, "a JSON array instead of lines")
    doctor.set_defaults(func=cmd_doctor)
