"""respond: one model call with the system prompt, the top memories, open tasks and the short-term window,
fitted to the prompt token budget (the window is trimmed first, then memories). May call the task tools."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.models import describe, invoke, usage_of, uses_compact
from graph.state import RecalledMemory, State
from memory.budget import BudgetPlan, fit_budget
from memory.embeddings import restates
from memory.language.answers import (
    Restates,
    check_answer,
    clean_answer,
    clock_words,
    hollow_opener,
    replacements,
    second_person,
    stuck,
)
from memory.language.temporal import time_intent
from memory.language.text import language
from memory.tokens import PER_MESSAGE, PER_REPLY, count_tokens
from nodes._turn import add_usage, clock, context_of, this_turn, turn_of


@dataclass(frozen=True)
class Prompt:
    messages: list[BaseMessage]
    plan: BudgetPlan
    fixed_tokens: int = 0  # system prompt without memories + this turn's messages: the full history's fixed part


def _day(ms: int, tz: ZoneInfo) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M")


def memory_line(m: RecalledMemory, tz: ZoneInfo) -> str:
    data: dict[str, Any] = {"text": m["text"], "recorded": _day(m["timestamp"], tz)}
    if m.get("event_time") is not None:
        data["happened"] = _day(int(m["event_time"] or 0), tz)
    if m.get("chain"):  # "now" / "earlier": a newer memory about the same subject follows the earlier one
        data["holds"] = m["chain"]
    return json.dumps(data, ensure_ascii=False)


def task_line(task: dict[str, Any]) -> str:
    return json.dumps({"task_id": task["id"], "title": task["title"], "progress": task.get("progress", ""),
                       "steps": task["steps"]}, ensure_ascii=False)


REPLY_IN = {"zh": "Reply in Chinese (简体中文).", "en": "Reply in English.",
            "": "Reply in the language of the message."}


_ASKS_WHEN = re.compile(r"\b(when|what (day|date|time|year|month)|how long ago)\b|"
                        r"什么时候|哪天|哪一天|几号|几月|哪年|多久", re.IGNORECASE)


def compact_memory_line(m: RecalledMemory, tz: ZoneInfo, *, dated: bool) -> str:
    """A memory for a small model: its text, dated only when the question is about time (small models copy
    whatever else the line holds into the answer)."""
    day = _day(int(m.get("event_time") or m["timestamp"]), tz)[:10]
    text = second_person(m["text"])  # "You live in Hangzhou": a small model copies "I live in…" as its own words
    if m.get("chain") == "earlier":  # replaced by a newer memory about the same subject: dated, always
        return f"- earlier ({day}): {text}"
    if m.get("chain") == "now":
        return f"- now: {text}"
    return f"- {day}: {text}" if dated else f"- {text}"


def build_prompt(*, now: datetime, recalled: Sequence[RecalledMemory], tasks: Sequence[dict[str, Any]],
                 window: Sequence[dict[str, Any]], turn_messages: Sequence[AnyMessage],
                 time_window: dict[str, str] | None, budget: int, encoding: str,
                 window_budget: int | None = None, overrides: dict[str, str] | None = None,
                 compact: bool = False) -> Prompt:
    """The respond call's messages within ``budget`` tokens (pure: no I/O). ``compact``: the short prompt for
    small local models (plain lines, no JSON, no tool instructions)."""
    tz = now.tzinfo if isinstance(now.tzinfo, ZoneInfo) else ZoneInfo("UTC")
    overrides = overrides or {}
    hint = ""
    if time_window:
        hint = prompts.render("time_hint", time_window, override=overrides.get("time_hint"))
    asked = next((m.text for m in turn_messages if isinstance(m, HumanMessage)), "")
    said_in = language(asked)
    dated = bool(time_window) or bool(_ASKS_WHEN.search(asked))
    if compact and time_intent(asked) != "past" and not time_window:
        # a small model answers from a memory marked earlier whatever the mark says (the bundled 0.5B: 0 of 10
        # "now" questions right with the earlier lines shown, 7 of 10 without): for a question about now, or
        # naming no time, it sees only what holds now; a question about the past sees both, marked
        recalled = [m for m in recalled if m.get("chain") != "earlier"]
    lines = [compact_memory_line(m, tz, dated=dated) if compact else memory_line(m, tz) for m in recalled]

    def system(kept: int) -> str:
        if compact:
            return prompts.render("respond_compact", {
                "now": now.strftime("%Y-%m-%d %H:%M (%A)"), "time_hint": hint, "language": REPLY_IN[said_in],
                "memories": "\n".join(lines[:kept]) or "(none)",
                "tasks": "\n".join(f"- {t['title']}: {t.get('progress', '')}" for t in tasks) or "(none)"},
                override=overrides.get("respond_compact"))
        return prompts.render("respond_system", {
            "now": now.strftime("%Y-%m-%d %H:%M (%A)"), "timezone": str(tz), "time_hint": hint,
            "memories": "\n".join(lines[:kept]) or "(none)", "tasks": "\n".join(task_line(t) for t in tasks) or
            "(none)"}, override=overrides.get("respond_system"))

    history: list[BaseMessage] = [
        HumanMessage(e["content"]) if e["role"] == "user" else AIMessage(e["content"])
        for e in window if e["role"] in ("user", "assistant")
        # a small model follows the session's language, not the instruction: with two English turns before it, 7
        # of 10 Chinese messages were answered in English (0 of 10 without them), so it sees only the turns in
        # the language of the message (the memories still hold what the others said)
        and not (compact and said_in and language(e["content"]) not in (said_in, ""))
    ]
    fixed = count_tokens(system(0), encoding) + PER_MESSAGE + PER_REPLY + sum(
        PER_MESSAGE + count_tokens(_content(m), encoding) for m in turn_messages)
    plan = fit_budget(fixed, [PER_MESSAGE + count_tokens(m.text, encoding) for m in history],
                      [count_tokens(line, encoding) + 1 for line in lines], budget, window_budget=window_budget)
    kept_history = history[len(history) - plan.window_kept:] if plan.window_kept else []
    return Prompt([SystemMessage(system(plan.memories_kept)), *kept_history, *turn_messages], plan, fixed)


def _content(message: BaseMessage) -> str:
    extra = ""
    if isinstance(message, AIMessage) and message.tool_calls:
        extra = json.dumps(message.tool_calls, ensure_ascii=False, default=str)
    return message.text + extra


def answered_before(window: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """The session's earlier (user message, assistant answer) pairs, oldest first."""
    pairs: list[tuple[str, str]] = []
    asked = ""
    for e in window:
        if e.get("role") == "user":
            asked = str(e.get("content", ""))
        elif e.get("role") == "assistant":
            pairs.append((asked, str(e.get("content", ""))))
    return pairs


def _checked(answer: str, state: State, turn: Any, *, compact: bool, drew_on: str = "",
             restates: Restates | None = None) -> tuple[str, list[str]]:
    """The answer as the user sees it (:func:`memory.language.answers.check_answer`): for a small model (``compact``),
    no sentence with a number, date or name that nothing given to it says, never the user's voice, no loop or echoed
    prompt line. A capable model keeps its world knowledge and its own wording: only a hollow opener goes."""
    message = turn["message"]
    recalled = [m["text"] for m in state.get("recalled", [])]
    replaced = replacements([(m["text"], m.get("chain", "")) for m in state.get("recalled", [])], message,
                            windowed=bool(state.get("time_window")))
    window = [str(e.get("content", "")) for e in state.get("window", [])]
    hint = " ".join(str(v) for v in (state.get("time_window") or {}).values())
    text = clean_answer(answer) if compact and answer else answer
    sources = "\n".join([message, *window, *recalled, hint, *(t["title"] for t in state.get("tasks", []))])
    now = clock_words(clock(turn))
    times = {m["text"]: m.get("event_time") or m["timestamp"] for m in state.get("recalled", [])}
    checked = check_answer(text, message, sources=sources, facts=[*recalled, message], now=now, replaced=replaced,
                           drew_on=drew_on, restates=restates, times=times) if compact else None
    text = checked.text if checked else text
    text = text[hollow_opener(text, message):]  # as the stream showed it (OpenerFilter)
    return text, list(checked.changes) if checked else []


def make_respond(deps: Deps, tools: list[BaseTool]) -> Any:
    def respond(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        ctx = context_of(runtime)
        turn = turn_of(state)
        rounds = state.get("tool_rounds", 0)
        model = deps.models.chat(ctx.chat_model)
        compact = uses_compact(s, model)
        prompt = build_prompt(now=clock(turn), recalled=state.get("recalled", []), tasks=state.get("tasks", []),
                              window=state.get("window", []), turn_messages=this_turn(state["messages"]),
                              time_window=state.get("time_window"), budget=s.prompt_token_budget,
                              encoding=s.token_encoding, window_budget=s.window_token_budget,
                              overrides=ctx.prompts, compact=compact)
        use_tools = bool(tools) and rounds < s.max_tool_rounds and not compact
        reply = invoke(model, prompt.messages, tools=tools if use_tools else ())
        changes: list[str] = []
        if not use_tools and reply.tool_calls:  # a model that calls tools it was not given: keep the text only
            reply = AIMessage(reply.text, id=reply.id, usage_metadata=reply.usage_metadata)
        if not reply.tool_calls:
            window = state.get("window", [])
            earlier = answered_before(window)
            if stuck(reply.text, turn["message"], earlier):
                # the same words as an earlier answer to another message (a small model copies the session's
                # answers): once more without them
                changes.append("stuck: the answer repeated an earlier one; generated again without the "
                               "session's answers")
                again = build_prompt(now=clock(turn), recalled=state.get("recalled", []),
                                     tasks=state.get("tasks", []),
                                     window=[e for e in window if e.get("role") == "user"],
                                     turn_messages=this_turn(state["messages"]),
                                     time_window=state.get("time_window"), budget=s.prompt_token_budget,
                                     encoding=s.token_encoding, window_budget=s.window_token_budget,
                                     overrides=ctx.prompts, compact=compact)
                reply = invoke(model, again.messages, tools=())
                reply = AIMessage(reply.text, id=reply.id, usage_metadata=reply.usage_metadata)
            judge = restates(deps.resources.embeddings) if compact else None
            text, checked = _checked(reply.text, state, turn, compact=compact, restates=judge)
            changes += checked
            if stuck(text, turn["message"], earlier):  # still the same: say plainly what is known
                text, _ = _checked("", state, turn, compact=True, drew_on=text, restates=judge)
                changes.append("stuck: the second answer repeated one too; answered plainly")
            if text != reply.text:
                reply = AIMessage(text, id=reply.id, usage_metadata=reply.usage_metadata)
        prompt_tokens, completion = usage_of(reply, prompt.messages, s.token_encoding)
        # what this call would have sent with the whole session instead of memories (palace usage's baseline)
        baseline = prompt.fixed_tokens + deps.short_term().history_tokens(turn["user_id"], turn["session_id"])
        return {"messages": [reply], "tool_rounds": rounds + (1 if reply.tool_calls else 0),
                "answer_changes": changes,  # this turn's, even none: the last turn's would stand in the state
                "prompt_tokens": prompt.plan.tokens,
                "usage": add_usage(state, "respond", describe(model)[0], prompt_tokens, completion,
                                   baseline=baseline)}

    return respond


def route_after_respond(state: State) -> str:
    last = state["messages"][-1] if state.get("messages") else None
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "answered"
