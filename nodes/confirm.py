"""confirm: a disputed memory waits for the user. LangGraph ``interrupt()`` asks (Studio shows the question);
resuming with yes makes it active and retires what it contradicted, no deletes it, both keeps the two as separate
memories. Any other answer asks again: the question stays pending until it gets one of the three."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.manage import Choice, resolve_disputed
from graph.state import State
from nodes._turn import context_of, turn_of

_YES = frozenset({"yes", "y", "true", "ok", "okay", "confirm", "accept", "keep new", "new", "replace", "是", "是的",
                  "对", "好", "确认", "替换", "用新的", "新的"})
_NO = frozenset({"no", "n", "false", "reject", "discard", "drop", "keep old", "old", "否", "不", "不是", "不对", "拒绝",
                 "不要", "删除", "旧的", "保留旧的"})
_BOTH = frozenset({"both", "keep both", "b", "all", "两个都要", "都要", "都保留", "两个都保留", "都对", "都"})
ANSWERS = "yes, no or both"


def parse_confirmation(value: object) -> Choice | None:
    """"yes" / "no" / "both" for an answer in English or Chinese (a bool, or {"answer": ...}); None otherwise."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        for key in ("answer", "choice", "accept", "confirm"):
            if key in value:
                return parse_confirmation(value[key])
        return None
    if isinstance(value, str):
        word = " ".join(value.strip().strip(".!。！").lower().split())
        if word in _YES:
            return "yes"
        if word in _NO:
            return "no"
        if word in _BOTH:
            return "both"
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
            ask = {"kind": "confirm_memory", "question": question, "memory_id": v["memory_id"], "text": new,
                   "conflicts_with": v["target"], "conflicts_with_text": v["target_text"], "reason": v["reason"],
                   "answers": ["yes", "no", "both"] if v["target_text"] else ["yes", "no"]}
            answer = interrupt(ask)
            choice = parse_confirmation(answer)
            while choice is None:  # not an answer: ask again (the question stays pending)
                answer = interrupt({**ask, "question": f"Please answer {ANSWERS}. {question}"})
                choice = parse_confirmation(answer)
            outcome = resolve_disputed(ltm, turn["user_id"], v["memory_id"], choice, turn["now_ms"],
                                       events=deps.events())
            results.append({"memory_id": v["memory_id"], "text": new, "other": v["target_text"], "answer": answer,
                            "outcome": outcome})
        return {"confirmations": results}

    return confirm
