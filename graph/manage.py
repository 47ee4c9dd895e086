"""Managing one user's memories outside a turn: list, show, pin, review disputed ones, export and import.

Every operation is scoped to the user it is given: an id of another user's memory is "not found", never read
or changed. Export writes one JSON object per line (the memory as stored, without its vector); import reads the
same lines back, re-embeds the texts with the configured embedder, and upserts under the same ids, so importing
a file twice changes nothing and an export imported into a fresh data directory gives the same search results.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pydantic import ValidationError

from graph.deps import Deps
from memory.errors import InvalidInputError, NotFoundError
from memory.long_term import STATUSES, LongTermMemory, Memory, Status
from memory.validation import check_id


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


def show_memory(deps: Deps, user_id: str, memory_id: str) -> Memory:
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    found = deps.long_term().get(user_id, [memory_id])
    if not found:
        raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
    return found[0]


def pin_memory(deps: Deps, user_id: str, memory_id: str) -> Memory:
    """Mark a memory important: decay weight PALACE_IMPORTANT_WEIGHT (2.0), it ranks as if twice as relevant."""
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    return deps.long_term().set_weight(user_id, memory_id, deps.settings.important_weight)


def resolve_disputed(ltm: LongTermMemory, user_id: str, memory_id: str, accept: bool, now_ms: int) -> str:
    """Accept (active; what it contradicted is superseded) or reject (deleted) a disputed memory.
    Returns "accepted", "rejected" or "gone" (reviewed or forgotten elsewhere meanwhile)."""
    found = ltm.get(user_id, [memory_id])
    if not found:
        return "gone"
    memory = found[0]
    if not accept:
        ltm.delete_ids(user_id, [memory.id])
        return "rejected"
    try:
        ltm.set_status(user_id, memory.id, "active", now_ms)
    except NotFoundError:
        return "gone"
    if memory.conflicts_with and ltm.get(user_id, [memory.conflicts_with]):
        ltm.supersede(user_id, memory.conflicts_with, memory.id, now_ms)
    return "accepted"


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
        return f"not JSON ({exc.msg})"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
