"""Long-term memory as a LangGraph ``BaseStore`` (``langgraph.json`` → ``"store": {"path": ...}``).

The namespace of a user's memories is ``("memories", <user_id>)``; ``langgraph_sdk``'s ``store.search_items``,
``get_item``, ``put_item`` and ``delete_item`` on it read and change the same Qdrant memories the agent recalls:

- ``search_items(ns, query=...)`` ranks with the product's recall (hybrid search, time intent, decay,
  importance); without a query it lists the user's active memories, newest first. ``filter`` supports
  ``{"status": "active" | "disputed" | "superseded"}`` (without a query) and nothing else.
- ``get_item(ns, key)``: ``key`` is a memory id (what search returns), or the key a ``put_item`` used.
- ``put_item(ns, key, {"text": ..., "important": bool, "at": ISO time})`` stores a memory as ``palace memories
  add`` does (the caller is the authority: no fact-check); putting an existing memory's id replaces its text
  and keeps everything else (recorded time, use count, lineage).
- ``delete_item(ns, key)`` forgets that memory.

Not served, with a clear error (HTTP 400 through the server, the message in ``detail``): ``list_namespaces`` (it
would enumerate users), namespaces other than ``("memories", <user_id>)``, TTLs (memories fade by the ranking's
decay, they do not expire), filters other than ``status``.

User ids with periods (e-mail addresses): the SDK and the server refuse periods in namespace labels, so the label
writes each ``.`` as ``%2E`` (:func:`memory.validation.id_to_label`): ``("memories", "jo%2Eli@example%2Ecom")``
is the namespace of ``jo.li@example.com``. Items carry the real id in ``value["user_id"]``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from graph.deps import Deps
from graph.manage import list_memories
from memory.errors import InvalidInputError
from memory.language.temporal import event_time_ms, parse_timestamp
from memory.long_term import STATUSES, Memory, memory_id
from memory.recall import recall
from memory.validation import check_id, check_text, label_to_id

NAMESPACE = "memories"


class UnsupportedStoreOperation(InvalidInputError):
    """A BaseStore operation this store does not serve (see the module docstring). An
    :class:`~memory.errors.InvalidInputError`, so a ``ValueError``: the LangGraph server answers it with 400 and
    the message (a ``NotImplementedError`` was a bare 500)."""


class PalaceStore(BaseStore):
    """The user's Qdrant memories behind LangGraph's store API. Shares ``deps`` with the graph (one process
    opens the embedded stores once)."""

    supports_ttl = False

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    # --- BaseStore ---------------------------------------------------------------------------------
    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
            index: Literal[False] | list[str] | None = None, *,
            ttl: float | NotProvided | None = NOT_PROVIDED) -> None:
        _refuse_ttl(ttl)
        super().put(namespace, key, value, index)

    async def aput(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
                   index: Literal[False] | list[str] | None = None, *,
                   ttl: float | NotProvided | None = NOT_PROVIDED) -> None:
        _refuse_ttl(ttl)  # BaseStore raises a NotImplementedError here, which the server answers with a bare 500
        await super().aput(namespace, key, value, index)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, ListNamespacesOp):
            raise UnsupportedStoreOperation("list_namespaces is not served: it would enumerate users; the "
                                            "namespace of a user's memories is ('memories', <user_id>)")
        raise UnsupportedStoreOperation(f"unsupported store operation {type(op).__name__}")

    # --- operations --------------------------------------------------------------------------------
    def _user(self, namespace: tuple[str, ...]) -> str:
        if len(namespace) != 2 or namespace[0] != NAMESPACE:
            raise InvalidInputError(f"namespace must be ('{NAMESPACE}', <user_id>), got {namespace!r}")
        return check_id("user id", label_to_id(namespace[1]), max_length=self.deps.settings.max_id_length)

    def _id(self, user: str, key: str) -> str:
        check_text("key", key, max_chars=200)
        try:
            return str(uuid.UUID(key))
        except ValueError:
            return memory_id(user, f"store:{key}")

    def _get(self, op: GetOp) -> Item | None:
        user = self._user(op.namespace)
        found = self.deps.long_term().get(user, [self._id(user, op.key)])
        return _item(found[0], op.namespace) if found else None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        user = self._user(op.namespace_prefix)
        s = self.deps.settings
        if op.limit <= 0 or op.offset < 0:
            raise InvalidInputError(f"limit must be > 0 and offset >= 0, got {op.limit} and {op.offset}")
        flt = dict(op.filter or {})
        status = str(flt.pop("status", "active"))
        if flt or status not in STATUSES:
            raise UnsupportedStoreOperation(f"filter {op.filter!r} is not served: only {{'status': one of "
                                            f"{', '.join(STATUSES)}}} (and with a query, active memories only)")
        if op.query:
            if status != "active":
                raise UnsupportedStoreOperation("a query searches active memories only")
            now = datetime.now(ZoneInfo(s.timezone))
            top = op.offset + op.limit
            result = recall(self.deps.long_term(), self.deps.embeddings, user, op.query, now,
                            search_k=max(s.search_top_k, top), top_k=top, config=self.deps.ranking())
            return [_search_item(r.memory, op.namespace_prefix, r.breakdown.score)
                    for r in result.memories[op.offset:]]
        listed = list_memories(self.deps, user, status=status)[op.offset:op.offset + op.limit]
        return [_search_item(m, op.namespace_prefix, None) for m in listed]

    def _put(self, op: PutOp) -> None:
        user = self._user(op.namespace)
        ltm = self.deps.long_term()
        target = self._id(user, op.key)
        if op.value is None:
            ltm.delete_ids(user, [target])
            return
        if op.ttl is not None:
            raise UnsupportedStoreOperation("TTLs are not served: memories fade by the ranking's decay")
        value = dict(op.value)
        s = self.deps.settings
        text = check_text("value.text", value.get("text"), max_chars=s.max_message_chars)
        existing = ltm.get(user, [target])
        if existing:
            memory = existing[0].model_copy(update={"text": text, "detail": text})
        else:
            tz = ZoneInfo(s.timezone)
            at = value.get("at")
            when = parse_timestamp(at, tz) if at else datetime.now(tz)
            memory = Memory(id=target, text=text, detail=text, user_id=user, session_id="store",
                            timestamp=int(when.timestamp() * 1000), event_time=event_time_ms(when, text),
                            origin=f"store:{op.key}")
        if "important" in value:
            memory = memory.model_copy(update={"decay_weight": s.important_weight if value["important"] else 1.0})
        ltm.upsert([memory], self.deps.embeddings.embed_documents([memory.text]))


def _refuse_ttl(ttl: object) -> None:
    if ttl is not NOT_PROVIDED and ttl is not None:
        raise UnsupportedStoreOperation("TTLs are not served: memories fade by the ranking's decay")


def _times(m: Memory) -> tuple[datetime, datetime]:
    created = datetime.fromtimestamp(m.timestamp / 1000, UTC)
    return created, datetime.fromtimestamp((m.last_accessed or m.timestamp) / 1000, UTC)


def _item(m: Memory, namespace: tuple[str, ...]) -> Item:
    created, updated = _times(m)
    return Item(value=m.model_dump(exclude={"id"}), key=m.id, namespace=namespace, created_at=created,
                updated_at=updated)


def _search_item(m: Memory, namespace: tuple[str, ...], score: float | None) -> SearchItem:
    created, updated = _times(m)
    return SearchItem(namespace=namespace, key=m.id, value=m.model_dump(exclude={"id"}), created_at=created,
                      updated_at=updated, score=score)
