"""ingest: check the user's message, resolve who and when, and push it to short-term memory first.

Pushing before any model call means a failing model never loses what the user said.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph.context import Context
from graph.deps import Deps
from graph.state import State, Turn
from memory.errors import InvalidInputError
from memory.temporal import parse_timestamp, zone
from memory.validation import check_id, check_text
from nodes._turn import context_of
from nodes.fact_check import prefetch_extraction
from nodes.recall import prefetch_query


def _session(ctx: Context) -> str:
    if ctx.session_id:
        return ctx.session_id
    thread = get_config().get("configurable", {}).get("thread_id")
    if not thread:
        raise InvalidInputError("no session: set context.session_id or run on a thread")
    return str(thread)


def make_ingest(deps: Deps) -> Any:
    def ingest(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        ctx = context_of(runtime)
        user = check_id("user id", ctx.user_id, max_length=s.max_id_length)
        session = check_id("session id", _session(ctx), max_length=s.max_id_length)
        tz_name = ctx.timezone or s.timezone
        tz = zone(tz_name)
        messages = state.get("messages") or []
        if not messages or not isinstance(messages[-1], HumanMessage):
            raise InvalidInputError("a turn starts with the user's message (a human message last in 'messages')")
        text = check_text("message", messages[-1].text, max_chars=s.max_message_chars)
        at = state.get("at")
        now = parse_timestamp(at, tz) if at else datetime.now(tz)
        now_ms = int(now.timestamp() * 1000)
        pushed = deps.short_term().push(user, session, "user", text, ts_ms=now_ms)
        turn = Turn(id=pushed.entry.id, user_id=user, session_id=session, now_ms=now_ms, timezone=tz_name,
                    message=text)
        prefetch_query(deps, turn)  # the answer comes first: recall's embedding starts now,
        prefetch_extraction(deps, ctx, turn)  # and the memory work beside recall
        return {"turn": turn, "tool_rounds": 0, "usage": Overwrite([]), "verdicts": [], "extraction": None,
                "used": [], "confirmations": [],
                "degraded": {},
                "archive": None, "needs_archive": pushed.needs_archive, "at": None, "important": bool(
                    state.get("important"))}

    return ingest
