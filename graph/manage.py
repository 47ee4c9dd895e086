"""Managing one user's memories outside a turn: list, show, pin, review disputed ones, export and import.

Every operation is scoped to the user it is given: an id of another user's memory is "not found", never read
or changed. Export writes one JSON object per line (the memory as stored, without its vector); import reads the
same lines back, re-embeds the texts with the configured embedder, and upserts under the same ids, so importing
a file twice changes nothing and an export imported into a fresh data directory gives the same search results.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from graph.deps import Deps
from memory.errors import InvalidInputError, NotFoundError, ServiceUnavailableError
from memory.events import MemoryEvent, MemoryEvents, event_at
from memory.long_term import STATUSES, LongTermMemory, Memory, Status
from memory.validation import check_id, resolve_prefix

log = logging.getLogger(__name__)
Choice = Literal["yes", "no", "both"]


def list_memories(deps: Deps, user_id: str, *, status: str = "active") -> list[Memory]:
    """The user's memories with ``status`` ("all" for every status), newest first."""
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    statuses: tuple[Status, ...] = STATUSES if status == "all" else (_status(status),)
    found = list(deps.long_term().scroll(user_id, statuses=statuses))
    return sorted(found, key=lambda m: (m.timestamp, m.id), reverse=True)


def _status(value: str) -> Status:
    for s in STATUSES:
        if s == value:
            return s
    raise InvalidInputError(f"status must be one of {', '.join(STATUSES)} or all, got {value!r}")


def resolve_id(deps: Deps, user_id: str, given: str, *, forgotten: bool = False) -> str:
    """The full id of ``user_id``'s memory that ``given`` names (:func:`memory.validation.resolve_prefix`).
    ``forgotten`` also looks in the history (a forgotten memory has a history, not a point)."""
    check_id("user id", user_id, max_length=deps.settings.max_id_length)

    def matching(prefix: str) -> list[str]:
        found = [m.id for m in deps.long_term().scroll(user_id) if m.id.startswith(prefix)]
        return found if found or not forgotten else deps.events().ids_with_prefix(user_id, prefix)

    return resolve_prefix("memory", "memories", given, user_id, matching)


def show_memory(deps: Deps, user_id: str, memory_id: str) -> Memory:
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    found = deps.long_term().get(user_id, [resolve_id(deps, user_id, memory_id)])
    if not found:
        raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
    return found[0]


def memory_chain(deps: Deps, user_id: str, memory: Memory, *, limit: int = 20) -> list[tuple[str, Memory]]:
    """The memories about the same subject as ``memory`` (memory/language/links.py), oldest first, each with how it
    relates: "earlier" (it follows them, directly or through others) or "later" (they follow it)."""
    ltm = deps.long_term()
    out: dict[str, tuple[str, Memory]] = {}
    for relation, links in (("earlier", "follows"), ("later", "followed_by")):
        frontier: list[str] = list(getattr(memory, links))
        while frontier and len(out) < limit:
            found = [m for m in ltm.get(user_id, frontier) if m.id not in out and m.id != memory.id]
            out.update((m.id, (relation, m)) for m in found)
            frontier = [i for m in found for i in getattr(m, links) if i not in out and i != memory.id]
    return sorted(out.values(), key=lambda pair: pair[1].timestamp)


def _now_ms(deps: Deps) -> int:
    return int(datetime.now(ZoneInfo(deps.settings.timezone)).timestamp() * 1000)


def record(deps: Deps, *events: MemoryEvent) -> None:
    """Record management events; a PostgreSQL outage is a warning (the change itself is already made)."""
    try:
        deps.events().record(list(events))
    except ServiceUnavailableError as exc:
        log.warning("memory history not recorded: %s", exc)


def pin_memory(deps: Deps, user_id: str, memory_id: str) -> Memory:
    """Mark a memory important: decay weight PALACE_IMPORTANT_WEIGHT (2.0), it ranks as if twice as relevant."""
    full = resolve_id(deps, user_id, memory_id)
    memory = deps.long_term().set_weight(user_id, full, deps.settings.important_weight)
    record(deps, MemoryEvent(user_id=user_id, memory_id=full, event="pinned", text=memory.text,
                             reason=f"decay weight {deps.settings.important_weight}"))
    return memory


def unpin_memory(deps: Deps, user_id: str, memory_id: str) -> Memory:
    """Undo a pin: decay weight 1.0 again (the weight of a memory nobody marked important)."""
    full = resolve_id(deps, user_id, memory_id)
    memory = deps.long_term().set_weight(user_id, full, 1.0)
    record(deps, MemoryEvent(user_id=user_id, memory_id=full, event="unpinned", text=memory.text,
                             reason="decay weight 1.0"))
    return memory


def memory_history(deps: Deps, user_id: str, memory_id: str) -> list[MemoryEvent]:
    """Every change to the memory (and those that name it: what superseded it, what was merged into it), oldest
    first. Forgotten memories keep one event without text."""
    full = resolve_id(deps, user_id, memory_id, forgotten=True)
    events = deps.events().history(user_id, full)
    if not events and not deps.long_term().get(user_id, [full]):
        raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
    return events


@dataclass(frozen=True)
class Restored:
    memory: Memory
    was: str  # the status it had: superseded (or merged), disputed


def restore_memory(deps: Deps, user_id: str, memory_id: str) -> Restored:
    """Bring back a superseded or merged memory (or a disputed one, accepting it without retiring anything): it
    is active again and recalled. What superseded it stays active too; the user can forget either."""
    full = resolve_id(deps, user_id, memory_id)
    ltm = deps.long_term()
    memory = ltm.get(user_id, [full])[0]
    if memory.status == "active":
        raise InvalidInputError(f"memory {full} is already active: nothing to restore")
    ltm.reactivate(user_id, full)
    was: str = memory.status
    try:
        if memory.status == "superseded" and any(e.event == "merged" and e.memory_id == full
                                                 for e in deps.events().history(user_id, full)):
            was = "merged"
    except ServiceUnavailableError as exc:
        log.warning("memory history unavailable: %s", exc)
    record(deps, MemoryEvent(user_id=user_id, memory_id=full, event="restored", text=memory.text,
                             related_id=memory.superseded_by or memory.conflicts_with, reason=f"was {was}"))
    return Restored(memory.model_copy(update={"status": "active", "invalid_at": None, "superseded_by": None,
                                              "conflicts_with": None}), was)


def resolve_disputed(ltm: LongTermMemory, user_id: str, memory_id: str, choice: Choice, now_ms: int,
                     events: MemoryEvents | None = None) -> str:
    """Settle a disputed memory: "yes" (active; what it contradicted is superseded), "no" (deleted) or "both"
    (active, and what it contradicted stays active). Returns "accepted", "rejected", "kept both" or "gone"
    (reviewed or forgotten elsewhere meanwhile). Each outcome is recorded in the history when ``events``."""
    found = ltm.get(user_id, [memory_id])
    if not found:
        return "gone"
    memory = found[0]
    rows: list[MemoryEvent] = []
    at = event_at(now_ms)
    if choice == "no":
        ltm.delete_ids(user_id, [memory.id])
        rows.append(MemoryEvent(at=at, user_id=user_id, memory_id=memory.id, event="rejected", text=memory.text,
                                related_id=memory.conflicts_with, reason="the user said no"))
        outcome = "rejected"
    else:
        try:
            ltm.reactivate(user_id, memory.id)
        except NotFoundError:
            return "gone"
        other = memory.conflicts_with
        if choice == "yes":
            rows.append(MemoryEvent(at=at, user_id=user_id, memory_id=memory.id, event="accepted", text=memory.text,
                                    related_id=other, reason="the user said yes"))
            if other and ltm.get(user_id, [other]):
                old = ltm.supersede(user_id, other, memory.id, now_ms)
                rows.append(MemoryEvent(at=at, user_id=user_id, memory_id=other, event="superseded", text=old.text,
                                        related_id=memory.id, reason="the user kept the newer memory"))
            outcome = "accepted"
        else:
            rows.append(MemoryEvent(at=at, user_id=user_id, memory_id=memory.id, event="kept_both",
                                    text=memory.text, related_id=other, reason="the user kept both"))
            outcome = "kept both"
    if events is not None:
        try:
            events.record(rows)
        except ServiceUnavailableError as exc:
            log.warning("memory history not recorded: %s", exc)
    return outcome


def export_lines(deps: Deps, user_id: str) -> Iterator[str]:
    """One JSON line per memory of the user, every status, oldest first."""
    for m in reversed(list_memories(deps, user_id, status="all")):
        yield json.dumps(m.model_dump(), ensure_ascii=False)


@dataclass
class ImportReport:
    imported: int = 0
    lines: int = 0
    errors: list[str] = field(default_factory=list)  # "line N: why", one per rejected line


def import_lines(deps: Deps, lines: Iterable[str], *, batch: int = 64) -> ImportReport:
    """Upsert the memories of an export (any users: each line names its own). Bad lines are reported with their
    line number and skipped; the rest are imported. Idempotent: same ids, same points."""
    report = ImportReport()
    pending: list[Memory] = []
    s = deps.settings
    for number, line in enumerate(lines, 1):
        report.lines = number
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
            memory = Memory(**raw)
            check_id("user id", memory.user_id, max_length=s.max_id_length)
            check_id("session id", memory.session_id, max_length=s.max_id_length)
        except (ValueError, TypeError, ValidationError, InvalidInputError) as exc:
            report.errors.append(f"line {number}: {_why(exc)}")
            continue
        pending.append(memory)
        if len(pending) >= batch:
            report.imported += _flush(deps, pending)
    report.imported += _flush(deps, pending)
    return report


def _flush(deps: Deps, pending: list[Memory]) -> int:
    if not pending:
        return 0
    memories = list(pending)
    pending.clear()
    deps.long_term().upsert(memories, deps.embeddings.embed_documents([m.text for m in memories]))
    return len(memories)


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "line"
        return f"{where}: {first['msg']}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg} at column {exc.colno})"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
