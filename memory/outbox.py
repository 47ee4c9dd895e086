"""The outbox: long-term writes that could not reach Qdrant wait in PostgreSQL and are applied, in order, later.

A turn's long-term writes (new memories with their vectors, supersessions, importance, use counts) are a list of
operations. :meth:`Outbox.deliver` applies them; if Qdrant is unavailable, the operations not yet applied are
stored as one row, and every later delivery for that user (and ``palace sweep``) first flushes the older rows,
so writes land in the order they were made. Every operation is idempotent or harmless to repeat (upserts use
deterministic ids), so a row applied half-way and retried gives the same result. A row leaves the outbox only
when all its operations were applied.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from memory import pg_base as sql
from memory.errors import NotFoundError, ServiceUnavailableError
from memory.long_term import LongTermMemory, Memory
from memory.postgres import pg_unavailable, pool_url
from memory.validation import check_id

log = logging.getLogger(__name__)
Op = dict[str, Any]


def upsert_op(memories: Sequence[Memory], vectors: Sequence[Sequence[float]]) -> Op:
    return {"op": "upsert", "memories": [m.model_dump() for m in memories],
            "vectors": [[float(x) for x in v] for v in vectors]}


def supersede_op(old_id: str, new_id: str | None, now_ms: int) -> Op:
    return {"op": "supersede", "old": old_id, "new": new_id, "now_ms": now_ms}


def link_op(old_id: str, followers: Sequence[str]) -> Op:
    return {"op": "link", "id": old_id, "followers": list(followers)}


def set_weight_op(memory_id: str, weight: float) -> Op:
    return {"op": "set_weight", "id": memory_id, "weight": weight}


def bump_refs_op(ids: Sequence[str], now_ms: int) -> Op:
    return {"op": "bump_refs", "ids": list(ids), "now_ms": now_ms}


def apply_op(ltm: LongTermMemory, user_id: str, op: Op) -> None:
    kind = op.get("op")
    try:
        if kind == "upsert":
            memories = [Memory(**m) for m in op["memories"]]
            if any(m.user_id != user_id for m in memories):
                raise ValueError("outbox row holds another user's memory")  # never written across users
            ltm.upsert(memories, op["vectors"])
        elif kind == "supersede":
            ltm.supersede(user_id, op["old"], op["new"], op["now_ms"])
        elif kind == "link":
            ltm.add_followers(user_id, op["id"], op["followers"])
        elif kind == "set_weight":
            ltm.set_weight(user_id, op["id"], op["weight"])
        elif kind == "bump_refs":
            ltm.bump_refs(user_id, op["ids"], op["now_ms"])
        else:
            raise ValueError(f"unknown outbox operation {kind!r}")
    except NotFoundError:
        log.info("outbox: %s skipped, the memory is gone (forgotten or reviewed meanwhile)", kind)


@dataclass(frozen=True)
class Delivery:
    applied: int  # operations applied now (this turn's and flushed ones)
    queued: int  # operations left waiting in the outbox
    error: str | None = None  # why Qdrant could not be reached


class Outbox:
    def __init__(self, pool: ConnectionPool[Any], *, max_id_length: int = 128) -> None:
        self.pool = pool
        self.url = pool_url(pool)
        self.max_id_length = max_id_length

    def enqueue(self, user_id: str, session_id: str, ops: Sequence[Op]) -> int:
        check_id("user id", user_id, max_length=self.max_id_length)
        check_id("session id", session_id, max_length=self.max_id_length)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            row = conn.execute(sql.INSERT_OUTBOX, (user_id, session_id, Jsonb(list(ops)))).fetchone()
        assert row is not None
        return int(row[0])

    def pending(self, user_id: str | None = None) -> int:
        where, params = self._where(user_id)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            row = conn.execute(sql.COUNT_OUTBOX.format(where=where), params).fetchone()
        return int(row[0]) if row else 0

    def _where(self, user_id: str | None, *, retryable: bool = False) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if user_id is not None:
            clauses.append("user_id = %s")
            params.append(check_id("user id", user_id, max_length=self.max_id_length))
        if retryable:
            clauses.append("attempts < %s")
            params.append(sql.OUTBOX_MAX_ATTEMPTS)
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params

    def flush(self, ltm: LongTermMemory, user_id: str | None = None, *, limit: int = 100) -> int:
        """Apply waiting rows in order (of one user, or everyone's); returns operations applied. Stops at the first
        row Qdrant refuses (it stays, with the error); another process flushing the same row is skipped."""
        where, params = self._where(user_id, retryable=True)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            rows = conn.execute(sql.SELECT_OUTBOX.format(where=where), [*params, limit]).fetchall()
        applied = 0
        for row_id, row_user, ops in rows:
            failure: ServiceUnavailableError | None = None
            with pg_unavailable(self.url), self.pool.connection() as conn, conn.transaction():
                if conn.execute(sql.LOCK_OUTBOX_ROW, (row_id,)).fetchone() is None:
                    continue  # gone, or being flushed by another process right now
                try:
                    for op in ops:
                        apply_op(ltm, row_user, op)
                except ServiceUnavailableError as exc:
                    if exc.service != "Qdrant":
                        raise
                    failure = exc
                    conn.execute(sql.FAIL_OUTBOX_ROW, (exc.reason[:500], row_id))  # the row stays
                except Exception as exc:  # a row Qdrant rejects: kept for inspection, never blocks the others
                    log.error("outbox row %s failed and is kept: %s", row_id, exc)
                    conn.execute(sql.FAIL_OUTBOX_ROW, (f"{type(exc).__name__}: {exc}"[:500], row_id))
                else:
                    conn.execute(sql.DELETE_OUTBOX_ROW, (row_id,))
                    applied += len(ops)
            if failure is not None:
                raise failure
        return applied

    def deliver(self, ltm: Callable[[], LongTermMemory], user_id: str, session_id: str,
                ops: Sequence[Op], *, flushed: bool = False) -> Delivery:
        """Flush this user's older rows, then apply ``ops``; whatever Qdrant does not take waits in the outbox.
        ``ltm`` opens the long-term store (opening it is the first thing that fails when Qdrant is down).
        ``flushed``: the caller flushed this user's rows moments ago (a turn's recall does), skip the query."""
        applied = 0
        try:
            store = ltm()
            if not flushed:
                applied = self.flush(store, user_id)
        except ServiceUnavailableError as exc:
            if exc.service != "Qdrant":  # PostgreSQL down: older rows wait; this turn's writes go straight in
                log.warning("outbox not flushed: %s", exc)
                return self._direct(ltm, user_id, ops, str(exc))
            if ops:
                self.enqueue(user_id, session_id, ops)
            return Delivery(applied=0, queued=len(ops), error=str(exc))
        for i, op in enumerate(ops):
            try:
                apply_op(store, user_id, op)
            except ServiceUnavailableError as exc:
                if exc.service != "Qdrant":
                    raise
                self.enqueue(user_id, session_id, ops[i:])
                return Delivery(applied=applied + i, queued=len(ops) - i, error=str(exc))
        return Delivery(applied=applied + len(ops), queued=0)

    @staticmethod
    def _direct(ltm: Callable[[], LongTermMemory], user_id: str, ops: Sequence[Op], why: str) -> Delivery:
        store = ltm()  # if Qdrant is down too there is nowhere durable to put them: the error says so
        for op in ops:
            apply_op(store, user_id, op)
        return Delivery(applied=len(ops), queued=0, error=why)

    def delete_user(self, user_id: str) -> int:
        check_id("user id", user_id, max_length=self.max_id_length)
        with pg_unavailable(self.url), self.pool.connection() as conn:
            return int(conn.execute(sql.DELETE_USER_OUTBOX, (user_id,)).rowcount)
