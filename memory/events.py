"""The history of every memory: each change (created, merged as a duplicate, superseded, disputed, accepted,
rejected, kept both, pinned, forgotten, restored) is a row in PostgreSQL with the verdict and its reason.

A model's verdict may change memory only through the gates (``memory/language/gates.py``), and every change it causes is
an event here, so ``palace memories history ID`` shows what happened and ``palace memories restore ID`` can undo
a supersession or a merge. Forgetting a memory deletes its events (their text included) and leaves one
``forgotten`` event without text, so the history says it was forgotten without keeping what was forgotten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from psycopg_pool import ConnectionPool
from pydantic import BaseModel

from memory import pg_base as sql
from memory.postgres import pg_unavailable, pool_url
from memory.validation import check_id

EventKind = Literal["created", "merged", "superseded", "disputed", "accepted", "rejected", "kept_both", "pinned",
                    "unpinned", "forgotten", "restored", "imported", "follows"]
EVENT_KINDS: tuple[str, ...] = ("created", "merged", "superseded", "disputed", "accepted", "rejected", "kept_both",
                                "pinned", "unpinned", "forgotten", "restored", "imported", "follows")


class MemoryEvent(BaseModel):
    """One change to one memory. ``related_id``: the other memory involved (the one a duplicate was merged into,
    the one that superseded it, the one it contradicts). ``decision``: the verifier's, when one was made."""

    at: datetime | None = None
    user_id: str
    memory_id: str
    event: EventKind
    text: str = ""
    related_id: str | None = None
    decision: str | None = None
    reason: str = ""
    origin: str = ""

    def row(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def event_at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


class MemoryEvents:
    """PostgreSQL front end of ``palace_memory_events``. Every read and write names the user."""

    def __init__(self, pool: ConnectionPool[Any], *, max_id_length: int = 128) -> None:
        self.pool = pool
        self.url = pool_url(pool)
        self.max_id_length = max_id_length

    def record(self, events: Sequence[MemoryEvent]) -> int:
        if not events:
            return 0
        for e in events:
            check_id("user id", e.user_id, max_length=self.max_id_length)
        with pg_unavailable(self.url), self.pool.connection() as conn, conn.cursor() as cur:
            cur.executemany(sql.INSERT_MEMORY_EVENT, [
                (e.at, e.user_id, e.memory_id, e.event, e.text, e.related_id, e.decision, e.reason, e.origin)
                for e in events])
        return len(events)

    def history(self, user_id: str, memory_id: str) -> list[MemoryEvent]:
        """The events of ``memory_id`` and those that name it as the other memory, oldest first."""
        check_id("user id", user_id, max_length=self.max_id_length)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            rows = conn.execute(sql.SELECT_MEMORY_EVENTS, (user_id, memory_id, memory_id)).fetchall()
        return [MemoryEvent(at=r[0], user_id=r[1], memory_id=r[2], event=r[3], text=r[4], related_id=r[5],
                            decision=r[6], reason=r[7], origin=r[8]) for r in rows]

    def ids_with_prefix(self, user_id: str, prefix: str) -> list[str]:
        """Memory ids of ``user_id`` in the history that start with ``prefix`` (forgotten ones included)."""
        check_id("user id", user_id, max_length=self.max_id_length)
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with pg_unavailable(self.url), self.pool.connection() as conn:
            return [str(r[0]) for r in conn.execute(sql.SELECT_EVENT_IDS, (user_id, pattern)).fetchall()]

    def forget(self, user_id: str, memory_ids: Sequence[str], *, reason: str = "") -> None:
        """Drop the history of forgotten memories (their texts) and note only that they were forgotten."""
        check_id("user id", user_id, max_length=self.max_id_length)
        if not memory_ids:
            return
        with pg_unavailable(self.url), self.pool.connection() as conn, conn.transaction():
            conn.execute(sql.DELETE_MEMORY_EVENTS, (user_id, list(memory_ids)))
            with conn.cursor() as cur:
                cur.executemany(sql.INSERT_MEMORY_EVENT, [(None, user_id, m, "forgotten", "", None, None, reason, "")
                                                          for m in memory_ids])

    def delete_user(self, user_id: str) -> int:
        check_id("user id", user_id, max_length=self.max_id_length)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            return int(conn.execute(sql.DELETE_USER_MEMORY_EVENTS, (user_id,)).rowcount)
