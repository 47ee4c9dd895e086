"""Processes that run agent turns for the crash and concurrency tests (scripted model, real stores).

``python -m tests.integration.turn_worker --tag T --turns N [--advance TASK] [--go]`` (PALACE_* environment):
prints ``ready``, then ``sent T-k`` before turn k and ``done T-k`` after it (flushed), so a test that kills it knows
which messages it may have stored. With ``--advance``, every turn also advances that task one step; with ``--go``
it waits for a ``go`` line on stdin after ``ready`` (so several workers start their turns together). SIGUSR1
prints every thread's stack to stderr.

``--zygote``: imports everything and loads the embedder once, prints ``ready``, then for every ``run T N`` line
on stdin forks a fresh agent process (it opens its own connections after the fork) that runs N turns as above,
printing ``child PID`` first; ``reap PID`` waits for it and prints ``exited PID STATUS``. Killing those children
with SIGKILL costs milliseconds per trial instead of an interpreter start.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import signal
import sys
from typing import Any

from graph.api import run_turn
from graph.deps import Deps
from graph.resources import Resources
from graph.settings import get_settings
from graph.testing import ScriptedBrain, ScriptedModels
from memory.embeddings import E5Embeddings


def run_turns(tag: str, turns: int, user: str, session: str, advance: str | None, embeddings: Any = None,
              wait_for_go: bool = False) -> None:
    settings = get_settings()
    with Resources(settings, _embeddings=embeddings) as res:
        deps = Deps(settings, resources=res, models=ScriptedModels(ScriptedBrain()))
        deps.long_term()  # open the stores before saying ready
        print("ready" if embeddings is None else f"child {os.getpid()}", flush=True)
        if wait_for_go and sys.stdin.readline().strip() != "go":
            raise SystemExit("expected 'go' on stdin")
        for k in range(turns):
            name = f"{tag}-{k}"
            print(f"sent {name}", flush=True)
            run_turn(deps, user, session, f"Note {name}: the code for {name} is {k}.")
            if advance:
                deps.tasks().advance(user, advance, note=name)
            print(f"done {name}", flush=True)


def preload() -> None:
    """What a turn loads on first use, loaded once here so forked children start turns at once (the CLI's lazy
    imports otherwise cost each child seconds before its first turn)."""
    from datetime import UTC, datetime

    import graph.builder
    import graph.models
    import memory.checkpoint
    import memory.edge
    import memory.events
    import memory.long_term
    import memory.outbox
    import memory.postgres
    import memory.redis_cluster
    from memory.language.temporal import parse_time_window
    from memory.tokens import count_tokens

    count_tokens("warm up the vocabulary", "o200k_base")
    parse_time_window("我端午节在哪家餐厅请的客户", datetime.now(UTC))  # the holiday tables
    del graph, memory


def zygote(user: str, session: str) -> int:
    # Imports are done; the embedder is loaded by each child (its thread pool would not survive a fork).
    preload()
    print("ready", flush=True)
    for line in sys.stdin:
        parts = line.split()
        if parts[:1] == ["run"]:
            pid = os.fork()
            if pid == 0:  # the child: fresh connections, then turns until it is killed or done
                try:
                    run_turns(parts[1], int(parts[2]), user, session, None, E5Embeddings())
                finally:
                    os._exit(0)
        elif parts[:1] == ["reap"]:
            _, status = os.waitpid(int(parts[1]), 0)
            print(f"exited {parts[1]} {status}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", default="t")
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--user", default="u")
    parser.add_argument("--session", default="s")
    parser.add_argument("--advance", default=None)
    parser.add_argument("--zygote", action="store_true")
    parser.add_argument("--go", action="store_true", help="after 'ready', wait for a 'go' line on stdin")
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a test that times out asks where every thread is
    if args.zygote:
        return zygote(args.user, args.session)
    run_turns(args.tag, args.turns, args.user, args.session, args.advance, wait_for_go=args.go)
    return 0


if __name__ == "__main__":
    sys.exit(main())
