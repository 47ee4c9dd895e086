"""``palace sweep``: idle sessions' short-term entries become long-term memories before their TTL drops them.

A short-term list's TTL (``PALACE_STM_TTL_S``, 30 min) is refreshed on every write, so its remaining TTL says how
long a session has been idle. Every list idle for ``PALACE_SWEEP_IDLE_S`` (20 min) or more, and every batch a
crashed process left pending, is archived in full through the same two-phase path as a turn's archive (the same
summariser, exactly once; a message whose turn was interrupted is kept even if the summariser leaves it out, see
``nodes.archive``). Then the outbox of writes that waited for Qdrant is flushed for everyone, and Qdrant
Edge's new segments are indexed. The LangGraph server process runs it (without indexing) every
``PALACE_SWEEP_INTERVAL_S`` (see :func:`start_background_sweeper`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from graph.deps import Deps
from memory.archive import Summarizer, archive_session
from memory.edge import EdgeClient
from memory.errors import InvalidInputError, PalaceError
from nodes.archive import answered_in, ledger_usage, make_summarizer, record_archived

log = logging.getLogger(__name__)


@dataclass
class SweepResult:
    sessions: int = 0  # idle sessions (or ones with a left-behind batch) archived
    entries: int = 0
    memories: int = 0
    flushed: int = 0  # outbox operations applied
    errors: list[str] = field(default_factory=list)


def sweep(deps: Deps, *, idle_s: int | None = None, optimize: bool = True) -> SweepResult:
    """Archive idle sessions, flush the outbox and (``optimize``) index Qdrant Edge's new segments.

    Optimizing holds the interpreter while it builds the index (about a minute for 100K new points on two
    cores), so the server's background sweeper does not do it; ``palace sweep`` does."""
    s = deps.settings
    idle = s.sweep_idle_s if idle_s is None else idle_s
    if idle >= s.stm_ttl_s:
        raise InvalidInputError(f"sweep idle time ({idle} s) must be below the short-term TTL ({s.stm_ttl_s} s), "
                          "or the TTL drops the entries first")
    result = SweepResult()
    for user, session in deps.short_term().idle_sessions(idle * 1000):
        try:
            done = archive_session(deps.short_term(), deps.long_term(), deps.embeddings,
                                   _recording(deps, user, session), user, session, drain=True,
                                   max_batches=1000, on_written=record_archived(deps, "sweep"))
        except PalaceError as exc:  # the batch stays pending; the next sweep (or turn) retries it
            result.errors.append(f"{user}/{session}: {exc}")
            continue
        if done.entries:
            result.sessions += 1
            result.entries += done.entries
            result.memories += done.memories
    try:
        result.flushed = deps.outbox().flush(deps.long_term(), limit=10_000)
    except PalaceError as exc:
        result.errors.append(f"outbox: {exc}")
    client = deps.resources.qdrant
    if optimize and isinstance(client, EdgeClient):
        with deps.long_term().locked():  # indexes the segments written since the last sweep
            client.optimize()
    return result


def _recording(deps: Deps, user: str, session: str) -> Summarizer:
    """The summariser with its token usage recorded in the ledger under the swept user and session."""
    return make_summarizer(deps.models.memory(None), deps, ZoneInfo(deps.settings.timezone), None,
                           ledger_usage(deps, user, session, "sweep"), answered_later=answered_in(deps, user, session))


_started = threading.Event()


def start_background_sweeper(deps: Deps) -> bool:
    """Sweep every ``PALACE_SWEEP_INTERVAL_S`` in a daemon thread of this process (once per process; returns
    False if already started). The thread reads the settings, so starting it reads and opens nothing."""
    if _started.is_set():
        return False
    _started.set()

    def loop() -> None:
        try:
            interval = deps.settings.sweep_interval_s
        except Exception as exc:  # a bad setting is reported by the first turn; the sweeper just stays off
            log.warning("sweeper off: %s", exc)
            return
        while interval > 0:
            threading.Event().wait(interval)  # the first sweep one interval after start
            try:
                done = sweep(deps, optimize=False)  # optimizing would stall the server's other threads
                if done.sessions or done.flushed or done.errors:
                    log.info("sweep: %d sessions, %d entries -> %d memories, %d outbox operations, errors: %s",
                             done.sessions, done.entries, done.memories, done.flushed, done.errors or "none")
            except Exception as exc:  # a sweep failing must never take the server down; the next one retries
                log.warning("sweep failed: %s", exc)

    threading.Thread(target=loop, name="palace-sweep", daemon=True).start()
    return True
