"""A turn's threads yield the CPU: ``PALACE_TURN_NICE`` (``doors.lanes`` says why; the server's entries install
it: ``graph.server`` for LangGraph's runs, ``doors.http_api`` for the memory API's turns)."""

from __future__ import annotations

import os
import sys
import threading

from graph.deps import Deps


def lower_this_thread(by: int) -> bool:
    """Lower the calling thread's CPU priority to the process's nice value plus ``by`` (at most 19; on Linux a
    thread has a nice value of its own). Idempotent. False where it cannot: ``by`` 0, not Linux, refused."""
    if by <= 0 or not sys.platform.startswith("linux"):
        return False
    tid = threading.get_native_id()
    try:
        target = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + by)
        if os.getpriority(os.PRIO_PROCESS, tid) < target:
            os.setpriority(os.PRIO_PROCESS, tid, target)
    except OSError:
        return False
    return True


def install(deps: Deps) -> None:
    """Make every thread that runs a turn's work on ``deps`` (graph nodes, prefetches) lower its priority by
    ``PALACE_TURN_NICE`` (read when the thread starts the work): the server's entries call this."""

    def lower() -> None:
        lower_this_thread(deps.settings.turn_nice)

    deps.on_turn_thread = lower
