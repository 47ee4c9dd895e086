"""write: the answer into short-term memory, accepted memories into Qdrant, use counts, the token ledger.

Order matters for "nothing lost": the conversation first (short-term), then memories, then bookkeeping.
Memory ids derive from the turn's short-term entry, so a retried write lands on the same points.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage, RemoveMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.deps import Deps
from graph.state import State, Verdict
from memory import outbox
from memory.errors import ServiceUnavailableError
from memory.events import MemoryEvent, event_at
from memory.language.attribution import used_for
from memory.long_term import Memory, Status
from memory.tokens import PER_MESSAGE, count_tokens
from nodes._turn import final_answer, turn_of

log = logging.getLogger(__name__)
STATUS_OF: dict[str, Status] = {"add": "active", "update": "active", "conflict": "disputed", "unverified": "disputed",
                                "duplicate": "superseded"}


def memories_to_write(verdicts: list[Verdict], turn: dict[str, Any], important_weight: float) -> list[Memory]:
    """Every candidate is written: added and updating ones active, conflicting ones disputed, and duplicates as
    merged (superseded by the memory they repeat), so ``palace memories restore`` can bring any of them back."""
    return [
        Memory(id=v["memory_id"], text=v["candidate"]["text"], detail=v["candidate"]["detail"],
               user_id=turn["user_id"], session_id=turn["session_id"], timestamp=turn["now_ms"],
               event_time=v["candidate"]["event_time"],
               decay_weight=important_weight if v["candidate"]["important"] else 1.0,
               status=STATUS_OF[v["decision"]],
               conflicts_with=v["target"] if v["decision"] == "conflict" else None,
               superseded_by=v["target"] if v["decision"] == "duplicate" else None,
               invalid_at=turn["now_ms"] if v["decision"] == "duplicate" else None,
               source=[turn["id"]], origin=f"turn:{turn['id']}", follows=list(v.get("follows") or []),
               follows_named=list(v.get("follows_named") or []),
               replaces=[v["target"]] if v["decision"] == "update" and v["target"] else [])
        for v in verdicts if v["decision"] in STATUS_OF
    ]


def _why(reason: str, note: str, said: str) -> str:
    """A history row's reason: the rule that decided first, then what the verifier said of it. A verifier that
    was not asked has nothing to add ("not asked: no stored memory is near enough…" beside "the message says the
    value changed, so it replaces the old one" read as a contradiction in the new-user trial)."""
    if not note:
        return reason
    if said == "none" or not reason:
        return note
    return f"{note}; the verifier said {said}: {reason}"  # doors/present.history_lines reads this phrase


def verdict_events(verdicts: list[Verdict], turn: dict[str, Any]) -> list[MemoryEvent]:
    """The history rows of a turn's verdicts: what was created, merged, superseded or disputed, and why."""
    at = event_at(turn["now_ms"])
    origin = f"turn:{turn['id']}"
    events: list[MemoryEvent] = []
    for v in verdicts:
        said = v.get("said") or v["decision"]
        why = _why(v["reason"], v.get("note", ""), said)
        common = {"at": at, "user_id": turn["user_id"], "decision": said, "reason": why, "origin": origin}
        text = v["candidate"]["text"]
        if v["decision"] == "duplicate":
            events.append(MemoryEvent(memory_id=v["memory_id"], event="merged", text=text, related_id=v["target"],
                                      **common))
        elif v["decision"] == "conflict":
            events.append(MemoryEvent(memory_id=v["memory_id"], event="disputed", text=text,
                                      related_id=v["target"], **common))
        else:
            events.append(MemoryEvent(memory_id=v["memory_id"], event="created", text=text, **common))
            if v["decision"] == "update" and v["target"]:
                events.append(MemoryEvent(memory_id=v["target"], event="superseded", text=v["target_text"] or "",
                                          related_id=v["memory_id"], **common))
        for old, why in zip(v.get("follows") or [], v.get("links") or [], strict=False):
            link = {**common, "decision": None, "reason": why.partition(": ")[2] or why}
            # one row per link: the older memory's history shows it too (it names the older one as related)
            events.append(MemoryEvent(memory_id=v["memory_id"], event="follows", text=text, related_id=old, **link))
    return events


def record_events(deps: Deps, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record memory events; returns the rows PostgreSQL did not take (kept in the thread, retried next turn)."""
    if not rows:
        return []
    try:
        deps.events().record([MemoryEvent(**r) for r in rows])
    except ServiceUnavailableError:
        log.warning("memory history unavailable: %d events kept for the next turn", len(rows))
        return rows
    return []


def record_usage(deps: Deps, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record ledger rows (priced by the ledger); returns those PostgreSQL did not take (to retry next turn)."""
    if not rows:
        return []
    try:
        ledger = deps.ledger()
        for i, u in enumerate(rows):
            try:
                ledger.record(u["user_id"], u["session_id"], u["node"], u["model"], u["prompt_tokens"],
                              u["completion_tokens"], baseline_prompt_tokens=int(u.get("baseline_prompt_tokens") or 0))
            except ServiceUnavailableError:
                log.warning("token ledger unavailable: %d usage rows kept for the next turn", len(rows) - i)
                return rows[i:]
    except ServiceUnavailableError:
        log.warning("token ledger unavailable: %d usage rows kept for the next turn", len(rows))
        return rows
    return []


def make_write(deps: Deps) -> Any:
    def write(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        turn = turn_of(state)
        user, session, now_ms = turn["user_id"], turn["session_id"], turn["now_ms"]
        answer = final_answer(state["messages"])
        needs_archive = bool(state.get("needs_archive"))
        if answer:
            stm = deps.short_term()
            pushed = stm.push(user, session, "assistant", answer, ts_ms=now_ms + 1, meta={"turn": turn["id"]})
            needs_archive = needs_archive or pushed.needs_archive
            # the full-history baseline grows by this exchange (palace usage compares against it)
            stm.add_history_tokens(user, session, 2 * PER_MESSAGE + count_tokens(turn["message"], s.token_encoding)
                                   + count_tokens(answer, s.token_encoding))

        verdicts = state.get("verdicts", [])
        ops: list[outbox.Op] = []
        new = memories_to_write(verdicts, dict(turn), s.important_weight)
        if new:
            ops.append(outbox.upsert_op(new, deps.embeddings.embed_documents([m.text for m in new])))
        for v in verdicts:
            for older in v.get("follows") or []:  # the older memory names its follower too (show/history)
                ops.append(outbox.link_op(older, [v["memory_id"]]))
            if v["decision"] == "update" and v["target"]:
                ops.append(outbox.supersede_op(v["target"], v["memory_id"], now_ms))
            if v["decision"] == "duplicate" and v["target"] and v["candidate"]["important"]:
                ops.append(outbox.set_weight_op(v["target"], s.important_weight))
        events = [*state.get("unrecorded_events", []), *(e.row() for e in verdict_events(verdicts, dict(turn)))]

        recalled = state.get("recalled", [])
        used = [recalled[i]["id"] for i in used_for(turn["message"], answer, [m["text"] for m in recalled])]
        duplicates = [v["target"] for v in verdicts if v["decision"] == "duplicate" and v["target"]]
        if used or duplicates:
            ops.append(outbox.bump_refs_op(list(dict.fromkeys(used + duplicates)), now_ms))
        # Qdrant down: the writes wait in the PostgreSQL outbox and are flushed, in order, by a later turn.
        degraded: dict[str, Any] = dict(state.get("degraded") or {})
        # recall flushed this user's waiting rows unless Qdrant or PostgreSQL failed it (then flush again here)
        delivery = deps.outbox().deliver(deps.long_term, user, session, ops,
                                         flushed="recall" not in degraded and "outbox" not in degraded)
        if delivery.queued:
            degraded["outbox"] = {"queued": delivery.queued, "error": delivery.error}

        # PostgreSQL down: the rows ride in the thread state and are recorded by a later turn, never dropped.
        rows = [*state.get("unrecorded_usage", []),
                *({"user_id": user, "session_id": session, **u} for u in state.get("usage", []))]
        unrecorded = record_usage(deps, rows)
        if unrecorded:
            degraded["ledger"] = {"unrecorded": len(unrecorded)}
        unrecorded_events = record_events(deps, events)
        if unrecorded_events:
            degraded["history"] = {"unrecorded": len(unrecorded_events)}

        # The thread keeps only its recent messages: the session lives in short-term memory, the rest in Qdrant.
        old = state["messages"][:-s.state_messages_keep]
        removals = [RemoveMessage(id=m.id) for m in old if m.id]
        asked = next((m.id for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), None)
        return {"used": used, "needs_archive": needs_archive, "messages": removals, "degraded": degraded,
                "answered": asked,
                "unrecorded_usage": unrecorded, "unrecorded_events": unrecorded_events}

    return write
