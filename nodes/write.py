"""write: the answer into short-term memory, accepted memories into Qdrant, use counts, the token ledger.

Order matters for "nothing lost": the conversation first (short-term), then memories, then bookkeeping.
Memory ids derive from the turn's short-term entry, so a retried write lands on the same points.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import RemoveMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.deps import Deps
from graph.state import State, Verdict
from memory.attribution import used_memories
from memory.long_term import Memory, Status
from nodes._turn import final_answer, turn_of

STATUS_OF: dict[str, Status] = {"add": "active", "update": "active", "conflict": "disputed", "unverified": "disputed"}


def memories_to_write(verdicts: list[Verdict], turn: dict[str, Any], important_weight: float) -> list[Memory]:
    return [
        Memory(id=v["memory_id"], text=v["candidate"]["text"], detail=v["candidate"]["detail"],
               user_id=turn["user_id"], session_id=turn["session_id"], timestamp=turn["now_ms"],
               event_time=v["candidate"]["event_time"],
               decay_weight=important_weight if v["candidate"]["important"] else 1.0,
               status=STATUS_OF[v["decision"]],
               conflicts_with=v["target"] if v["decision"] == "conflict" else None,
               source=[turn["id"]], origin=f"turn:{turn['id']}")
        for v in verdicts if v["decision"] in STATUS_OF
    ]


def make_write(deps: Deps) -> Any:
    def write(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        turn = turn_of(state)
        user, session, now_ms = turn["user_id"], turn["session_id"], turn["now_ms"]
        answer = final_answer(state["messages"])
        needs_archive = bool(state.get("needs_archive"))
        if answer:
            pushed = deps.short_term().push(user, session, "assistant", answer, ts_ms=now_ms + 1,
                                            meta={"turn": turn["id"]})
            needs_archive = needs_archive or pushed.needs_archive

        ltm = deps.long_term()
        verdicts = state.get("verdicts", [])
        new = memories_to_write(verdicts, dict(turn), s.important_weight)
        if new:
            ltm.upsert(new, deps.embeddings.embed_documents([m.text for m in new]))
        for v in verdicts:
            if v["decision"] == "update" and v["target"]:
                ltm.supersede(user, v["target"], v["memory_id"], now_ms)
            if v["decision"] == "duplicate" and v["target"] and v["candidate"]["important"]:
                ltm.set_weight(user, v["target"], s.important_weight)

        recalled = state.get("recalled", [])
        used = [recalled[i]["id"] for i in used_memories(answer, [m["text"] for m in recalled])]
        duplicates = [v["target"] for v in verdicts if v["decision"] == "duplicate" and v["target"]]
        if used or duplicates:
            ltm.bump_refs(user, list(dict.fromkeys(used + duplicates)), now_ms)

        ledger = deps.ledger()
        for u in state.get("usage", []):
            ledger.record(user, session, u["node"], u["model"], u["prompt_tokens"], u["completion_tokens"])

        # The thread keeps only its recent messages: the session lives in short-term memory, the rest in Qdrant.
        old = state["messages"][:-s.state_messages_keep]
        removals = [RemoveMessage(id=m.id) for m in old if m.id]
        return {"used": used, "needs_archive": needs_archive, "messages": removals}

    return write
