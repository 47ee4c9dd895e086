"""confirm: a disputed memory waits for the user. LangGraph ``interrupt()`` asks (Studio shows the question);
resuming with yes makes it active and retires what it contradicted, no deletes it, anything else leaves it
disputed for ``palace memories review``."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.manage import resolve_disputed
from graph.state import State
from nodes._turn import context_of, turn_of

_YES = frozenset({"yes", "y", "true", "ok", "okay", "confirm", "accept", "keep", "是", "是的", "对", "好", "确认",
                  "保留", "要"})
_NO = frozenset({"no", "n", "false", "reject", "discard", "drop", "否", "不", "不是", "不对", "拒绝", "不要", "删除"})


def parse_confirmation(value: object) -> bool | None:
    """True / False for a yes / no answer (English or Chinese, bool, or {"accept": bool}); None otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        for key in ("accept", "confirm", "answer"):
            if key in value:
                return parse_confirmation(value[key])
        return None
    if isinstance(value, str):
        word = value.strip().strip(".!。！").lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
    return None


def make_confirm(deps: Deps) -> Any:
    def confirm(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        pending = [v for v in state.get("verdicts", []) if v["decision"] in ("conflict", "unverified")]
        if not pending:
            return {}
        ctx = context_of(runtime)
        turn = turn_of(state)
        ltm = deps.long_term()
        results = []
        for v in pending:
            new = v["candidate"]["text"]
            if v["target_text"]:
                question = prompts.render("confirm_conflict", {"new": new, "old": v["target_text"]},
                                          override=ctx.prompts.get("confirm_conflict"))
            else:
                question = prompts.render("confirm_unchecked", {"new": new},
                                          override=ctx.prompts.get("confirm_unchecked"))
            answer = interrupt({"kind": "confirm_memory", "question": question, "memory_id": v["memory_id"],
                                "text": new, "conflicts_with": v["target"], "conflicts_with_text": v["target_text"],
                                "reason": v["reason"]})
            accepted = parse_confirmation(answer)
            outcome = "left disputed"
            if accepted is not None:  # "gone": reviewed or forgotten elsewhere in the meantime
                outcome = resolve_disputed(ltm, turn["user_id"], v["memory_id"], accepted, turn["now_ms"])
            results.append({"memory_id": v["memory_id"], "text": new, "answer": answer, "outcome": outcome})
        return {"confirmations": results}

    return confirm
