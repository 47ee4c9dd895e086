"""The agent's graph, built in one place (STYLE.md rule 1): compile it where it is used.

    ingest → recall ─┬─ respond (⇄ tools) ─ answered ─┬─ write → archive → confirm
                     └─ fact_check ───────────────────┘

The answer comes first: fact_check needs only the user's message and the stored memories, so it runs beside
respond (LangGraph runs both in the same step), and write waits for both (a join edge).

The server module compiles it without a checkpointer (the server brings the Redis one from ``langgraph.json``);
the CLI and tests compile it with theirs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from graph.context import Context
from graph.deps import Deps
from graph.state import InputState, State
from nodes.archive import make_archive
from nodes.confirm import make_confirm
from nodes.fact_check import make_fact_check
from nodes.ingest import after_ingest, make_ingest
from nodes.recall import make_recall
from nodes.respond import make_respond, route_after_respond
from nodes.tools import make_task_tools, make_tool_node
from nodes.write import make_write


def answered(state: State) -> dict[str, Any]:
    """The answer is complete (no more tool calls): one side of the join before write."""
    return {}


def on_turn_thread(deps: Deps, node: Callable[[State, Runtime[Context]], dict[str, Any]]) -> Any:
    """``node``, first calling ``deps.enter_turn_thread()`` in the thread it runs in (``palace serve`` lowers
    that thread's priority there, ``graph.priority``; elsewhere nothing). Same signature: LangGraph still injects
    the runtime."""

    @functools.wraps(node)
    def run(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        deps.enter_turn_thread()
        return node(state, runtime)

    return run


def build_graph(deps: Deps) -> StateGraph[State, Context, InputState, State]:
    """The uncompiled graph over ``deps`` (stores and models, opened on first use)."""
    tools = make_task_tools(deps)
    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("ingest", on_turn_thread(deps, make_ingest(deps)))
    builder.add_node("recall", on_turn_thread(deps, make_recall(deps)))
    builder.add_node("respond", on_turn_thread(deps, make_respond(deps, tools)))
    builder.add_node("tools", make_tool_node(tools))
    builder.add_node("fact_check", on_turn_thread(deps, make_fact_check(deps)))
    builder.add_node("answered", answered)
    builder.add_node("write", on_turn_thread(deps, make_write(deps)))
    builder.add_node("archive", on_turn_thread(deps, make_archive(deps)))
    builder.add_node("confirm", on_turn_thread(deps, make_confirm(deps)))
    builder.add_edge(START, "ingest")
    builder.add_conditional_edges("ingest", after_ingest, {"recall": "recall", "end": END})  # "end": a repeat
    builder.add_edge("recall", "respond")
    builder.add_edge("recall", "fact_check")
    builder.add_conditional_edges("respond", route_after_respond, ["tools", "answered"])
    builder.add_edge("tools", "respond")
    builder.add_edge(["answered", "fact_check"], "write")
    builder.add_edge("write", "archive")
    builder.add_edge("archive", "confirm")
    builder.add_edge("confirm", END)
    return builder
