"""ingest: check the user's message, resolve who and when, and push it to short-term memory first.

Pushing before any model call means a failing model never loses what the user said.

A turn is idempotent by its message id: a message whose id is already in the thread (``add_messages`` replaces it
in place) is a client's retry or a run the server runs again after a crash. If that turn wrote its answer, the run
is a repeat and changes nothing; if it was cut off, what it left after the message is removed and it runs again.
So a retried turn is never in the thread twice, and never pushes older turns out of the thread's window.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage, RemoveMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph.context import Context
from graph.deps import Deps
from graph.state import State, Turn
from memory.errors import InvalidInputError
from memory.language.temporal import parse_timestamp, zone
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


def _last_human(messages: list[AnyMessage]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), None)


def after_ingest(state: State) -> str:
    """A repeat of an answered turn ends here; any other turn goes on to recall."""
    return "end" if state.get("repeat") else "recall"


def make_ingest(deps: Deps) -> Any:
    def ingest(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        ctx = context_of(runtime)
        user = check_id("user id", ctx.user_id, max_length=s.max_id_length)
        session = check_id("session id", _session(ctx), max_length=s.max_id_length)
        tz_name = ctx.timezone or s.timezone
        tz = zone(tz_name)
        messages = state.get("messages") or []
        i = _last_human(messages)
        if i is None:
            raise InvalidInputError("a turn starts with the user's message (a human message last in 'messages')")
        human, after = messages[i], messages[i + 1:]
        if after and human.id and state.get("answered") == human.id:
            return {"repeat": True}  # this message's turn is answered and written: nothing to do again
        removals = [RemoveMessage(id=m.id) for m in after if m.id]  # what a cut-off run of this turn left
        text = check_text("message", human.text, max_chars=s.max_message_chars)
        at = state.get("at")
        now = parse_timestamp(at, tz) if at else datetime.now(tz)
        now_ms = int(now.timestamp() * 1000)
        pushed = deps.short_term().push(user, session, "user", text, ts_ms=now_ms)
        turn = Turn(id=pushed.entry.id, user_id=user, session_id=session, now_ms=now_ms, timezone=tz_name,
                    message=text)
        prefetch_query(deps, turn)  # the answer comes first: recall's embedding starts now,
        prefetch_extraction(deps, ctx, turn)  # and the memory work beside recall
        return {"turn": turn, "tool_rounds": 0, "usage": Overwrite([]), "verdicts": [], "extraction": None,
                "repeat": False, "answered": None, **({"messages": removals} if removals else {}),
                "used": [], "confirmations": [],
                "degraded": {},
                "archive": None, "needs_archive": pushed.needs_archive, "at": None, "important": bool(
                    state.get("important"))}

    return ingest
