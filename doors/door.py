"""The memory operations as JSON, for the doors that speak JSON: the HTTP API (``doors.http_api``), the MCP tools
(``doors.mcp_server``) and, through the HTTP API, the CLI's client mode and the web page.

Each function validates nothing itself and decides nothing: it calls the operation the CLI calls (``graph.api``,
``graph.manage``, the task store and the ledger) and shapes the result, so scoping, validation and gates live once
(STYLE.md rule 16). Every function takes the user it acts for; another user's memory is "not found".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from graph.api import add_memory, forget_memories, forget_user, run_turn, search_memories
from graph.deps import Deps
from graph.manage import (
    Choice,
    export_lines,
    import_lines,
    list_memories,
    memory_chain,
    memory_history,
    pin_memory,
    resolve_disputed,
    resolve_id,
    restore_memory,
    show_memory,
    unpin_memory,
)
from memory.errors import InvalidInputError, NotFoundError
from memory.long_term import Memory
from memory.postgres import GroupBy, Task, TaskStatus
from memory.recall import Recalled
from memory.validation import check_id

if TYPE_CHECKING:
    from graph.api import TurnResult

JSON = dict[str, Any]
TASK_STATUSES: tuple[TaskStatus, ...] = ("active", "completed", "cancelled")
USAGE_GROUPS: tuple[GroupBy, ...] = ("day", "session", "node", "model")


def memory_json(m: Memory) -> JSON:
    return m.model_dump()


def recalled_json(r: Recalled) -> JSON:
    """A ranked memory with its score's parts (the shape of ``palace memories search --json``, plus status)."""
    m, b = r.memory, r.breakdown
    return {"id": m.id, "text": m.text, "score": round(b.score, 6), "relevance": round(b.relevance, 6),
            "cosine": round(b.cosine, 6), "lexical": None if b.lexical is None else round(b.lexical, 6),
            "decay": round(b.decay, 6), "weight": b.weight, "boost": round(b.boost, 6), "timestamp": m.timestamp,
            "event_time": m.event_time, "status": m.status, "chain": r.chain, "follows": m.follows}


def list_(deps: Deps, user_id: str, status: str = "active") -> list[JSON]:
    return [memory_json(m) for m in list_memories(deps, user_id, status=status)]


def search(deps: Deps, user_id: str, query: str, *, now: str | None = None, limit: int | None = None) -> list[JSON]:
    return [recalled_json(r) for r in search_memories(deps, user_id, query, now=now, limit=limit)]


def add(deps: Deps, user_id: str, text: str, *, at: str | None = None, important: bool = False) -> JSON:
    return memory_json(add_memory(deps, user_id, text, at=at, important=important))


def show(deps: Deps, user_id: str, memory_id: str) -> JSON:
    """The memory with the memories about the same subject, oldest first ("chain": earlier ones it follows, later
    ones that follow it)."""
    m = show_memory(deps, user_id, memory_id)
    return {**memory_json(m), "chain": [{"relation": relation, "id": o.id, "text": o.text, "timestamp": o.timestamp,
                                         "status": o.status} for relation, o in memory_chain(deps, user_id, m)]}


def pin(deps: Deps, user_id: str, memory_id: str) -> JSON:
    return memory_json(pin_memory(deps, user_id, memory_id))


def unpin(deps: Deps, user_id: str, memory_id: str) -> JSON:
    return memory_json(unpin_memory(deps, user_id, memory_id))


def forget(deps: Deps, user_id: str, ids: list[str]) -> JSON:
    """Forget memories by id with their lineage; ids that are not this user's memories: NotFoundError after the
    others are forgotten (as the CLI does)."""
    gone = forget_memories(deps, user_id, ids)
    out = {"user_id": user_id, "memories": gone.named, "derived": gone.derived,
           "short_term_entries": gone.short_term_entries}
    if gone.named < len(set(ids)):
        missing = len(set(ids)) - gone.named
        raise NotFoundError(f"{missing} of the ids {'is' if missing == 1 else 'are'} not a memory of {user_id!r} "
                            f"(forgot {gone.named})")
    return out


def forget_all(deps: Deps, user_id: str) -> JSON:
    """Everything of the user in every store (``palace memories forget --all``)."""
    return {"user_id": user_id, **vars(forget_user(deps, user_id))}


def chat(deps: Deps, user_id: str, session_id: str, message: str | None, *, at: str | None = None,
         important: bool = False, resume: str | None = None, on_token: Callable[[str], None] | None = None,
         on_answer: Callable[[], None] | None = None) -> JSON:
    """One turn on the session's CLI thread (``palace chat --json``): answer, recalled memories with their scores,
    verdicts, usage, pending confirmations. ``on_token`` gets the respond node's tokens as they are generated
    (nothing of the internal model calls); ``on_answer`` is called once the answer is complete."""
    if resume is None and message is None:
        raise InvalidInputError("a message is required (or resume yes|no|both to answer a pending confirmation)")
    result = run_turn(deps, user_id, session_id, message, at=at, important=important, resume=resume,
                      on_token=on_token, on_answer=on_answer)
    loaded: JSON = json.loads(json.dumps(turn_json(result), ensure_ascii=False, default=str))
    return loaded


def disputed(deps: Deps, user_id: str) -> list[JSON]:
    """The user's disputed memories, each with the text of the memory it contradicts."""
    found = list_memories(deps, user_id, status="disputed")
    others = {m.id: m for m in deps.long_term().get(user_id, [d.conflicts_with for d in found if d.conflicts_with])}
    return [{**memory_json(d), "conflicts_with_text": others[d.conflicts_with].text
             if d.conflicts_with in others else None} for d in found]


def review(deps: Deps, user_id: str, *, accept: list[str], reject: list[str], both: list[str] | None = None) -> JSON:
    """Settle disputed memories by id (short ids too): accept (active; what it contradicted is superseded), reject
    (deleted) or both (active, the other stays active). ``{full id: "accepted" | "rejected" | "kept both" |
    "gone"}``; any "gone": NotFoundError naming them, after the others are settled. Recorded in the history."""
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    choices: list[tuple[str, Choice]] = [*((i, "yes") for i in accept), *((i, "no") for i in reject),
                                         *((i, "both") for i in both or [])]
    if not choices:
        raise InvalidInputError("name the disputed memories to accept, reject or keep both")
    resolved = [(resolve_id(deps, user_id, i), c) for i, c in choices]
    ltm = deps.long_term()
    now_ms = int(datetime.now(ZoneInfo(deps.settings.timezone)).timestamp() * 1000)
    out = {i: resolve_disputed(ltm, user_id, i, c, now_ms, events=deps.events()) for i, c in resolved}
    gone = [i for i, o in out.items() if o == "gone"]
    if gone:
        raise NotFoundError(f"not disputed memories of {user_id!r}: {', '.join(gone)} (the others: "
                            f"{ {i: o for i, o in out.items() if o != 'gone'} })")
    return out


def history(deps: Deps, user_id: str, memory_id: str) -> list[JSON]:
    """Every change to the memory, oldest first (``palace memories history``)."""
    return [e.model_dump(mode="json") for e in memory_history(deps, user_id, memory_id)]


def restore(deps: Deps, user_id: str, memory_id: str) -> JSON:
    """Bring back a superseded, merged or disputed memory (``palace memories restore``)."""
    done = restore_memory(deps, user_id, memory_id)
    return {**memory_json(done.memory), "was": done.was}


def export(deps: Deps, user_id: str) -> str:
    """Every memory of the user as JSON lines (``palace memories export``)."""
    return "".join(line + "\n" for line in export_lines(deps, user_id))


def import_(deps: Deps, user_id: str, text: str) -> JSON:
    """Import JSON lines for ``user_id``: a line naming another user is refused (a door scoped to one user cannot
    write another's memories). Bad lines are reported with their number; the rest are imported."""
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    lines = text.splitlines()
    foreign: list[str] = []
    kept: list[str] = []
    for n, line in enumerate(lines, 1):
        try:
            owner = json.loads(line).get("user_id") if line.strip() else user_id
        except (ValueError, AttributeError):
            owner = user_id  # import_lines reports it with its number
        if owner != user_id:
            foreign.append(f"line {n}: user_id {owner!r} is not {user_id!r}")
            kept.append("")
        else:
            kept.append(line)
    report = import_lines(deps, kept)
    errors = sorted(foreign + report.errors, key=lambda e: int(e.split(":")[0].removeprefix("line ")))
    return {"imported": report.imported, "lines": len(lines), "errors": errors}


def tasks(deps: Deps, user_id: str, *, session_id: str | None = None, status: str | None = None) -> list[JSON]:
    wanted: TaskStatus | None = None
    if status is not None:
        if status not in TASK_STATUSES:
            raise InvalidInputError(f"status must be one of {', '.join(TASK_STATUSES)}, got {status!r}")
        wanted = next(s for s in TASK_STATUSES if s == status)
    if session_id is not None:
        check_id("session id", session_id, max_length=deps.settings.max_id_length)
    return [task_json(t) for t in deps.tasks().list_tasks(user_id, session_id=session_id, status=wanted)]


def task_json(t: Task) -> JSON:
    """A task with its progress in words ("step 2 of 4: manager approval")."""
    return {**t.model_dump(mode="json"), "progress": t.progress}


def task(deps: Deps, user_id: str, task_id: str) -> JSON:
    return task_json(deps.tasks().get(user_id, task_id, history=True))


def usage(deps: Deps, user_id: str | None, by: str = "day") -> JSON:
    """Tokens and cost per ``by`` from the ledger (every user's for ``user_id`` None), with the full-history
    baseline (``palace usage --json``; costs in USD as JSON numbers)."""
    group = next((g for g in USAGE_GROUPS if g == by), None)
    if group is None:
        raise InvalidInputError(f"by must be one of {', '.join(USAGE_GROUPS)}, got {by!r}")
    if user_id is not None:
        check_id("user id", user_id, max_length=deps.settings.max_id_length)
    rows = deps.ledger().summary(group, user_id=user_id)
    ours = sum(r.prompt_tokens for r in rows)
    full = sum(r.baseline_prompt_tokens for r in rows)
    cost = sum((r.cost_usd for r in rows), Decimal(0))
    full_cost = sum((r.baseline_cost_usd for r in rows), Decimal(0))
    # the baseline prices each answer with the whole session in its prompt; ours counts every call we made
    # (extraction, verification, archive summaries included), so the saving is not flattered
    saving = round(100 * (1 - ours / full), 1) if full else None
    return {"by": by, "rows": [{**r.model_dump(mode="json"), "cost_usd": float(r.cost_usd),
                                "baseline_cost_usd": float(r.baseline_cost_usd)} for r in rows],
            "prompt_tokens": ours, "full_history_prompt_tokens": full, "cost_usd": float(cost),
            "full_history_cost_usd": float(full_cost), "saving_pct": saving}


def doctor(deps: Deps) -> list[JSON]:
    """``palace doctor`` on the stores and models this process has open (``GET /palace/api/doctor``): the CLI asks
    the server while one runs, since the embedded stores are the server's to open."""
    from dataclasses import asdict

    from doors.doctor import run_checks

    return [asdict(c) for c in run_checks(deps.settings, deps.resources, deps.models)]


def health(deps: Deps) -> JSON:
    """What the server's stores are (no secrets): enough for a client to know it talks to a palace; and the zone
    the web inspector shows times in (PALACE_INSPECTOR_TIMEZONE, else PALACE_TIMEZONE)."""
    s = deps.settings
    return {"ok": True, "data_dir": str(s.data_dir), "qdrant": "server" if s.qdrant_url else s.qdrant_engine,
            "redis": "external" if s.redis_url else "embedded",
            "postgres": "external" if s.database_url else "embedded",
            "timezone": s.inspector_timezone or s.timezone}


class LocalDoor:
    """The operations on this process's stores (``doors.mcp_server.MemoryDoor``)."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    def add(self, user_id: str, text: str, *, important: bool = False, at: str | None = None) -> JSON:
        return add(self.deps, user_id, text, at=at, important=important)

    def search(self, user_id: str, query: str, *, limit: int | None = None) -> list[JSON]:
        return search(self.deps, user_id, query, limit=limit)

    def memories(self, user_id: str, status: str = "active") -> list[JSON]:
        return list_(self.deps, user_id, status)

    def forget(self, user_id: str, ids: list[str]) -> JSON:
        return forget(self.deps, user_id, ids)

    def disputed(self, user_id: str) -> list[JSON]:
        return disputed(self.deps, user_id)

    def review(self, user_id: str, *, accept: list[str], reject: list[str], both: list[str] | None = None) -> JSON:
        return review(self.deps, user_id, accept=accept, reject=reject, both=both)


TURN_KEYS = ("recalled", "time_window", "verdicts", "confirmations", "archive", "usage", "used", "degraded",
             "answer_changes")


def turn_json(result: TurnResult) -> dict[str, Any]:
    """A turn as ``palace chat --json`` prints it (and the server's chat API returns it)."""
    out: dict[str, Any] = {"answer": result.answer, "user_id": result.user_id, "session_id": result.session_id,
                           "interrupts": result.interrupts}
    out.update({k: result.state.get(k) for k in TURN_KEYS})
    return out
