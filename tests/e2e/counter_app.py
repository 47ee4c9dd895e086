"""A tiny graph for the server e2e test of the checkpointer (the product graph has its own tests)."""

from __future__ import annotations

import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    total: Annotated[int, operator.add]
    notes: Annotated[list[str], operator.add]


def add(state: State) -> dict[str, object]:
    return {"total": 1, "notes": [f"seen {state['total']}"]}


builder = StateGraph(State)
builder.add_node("add", add)
builder.add_edge(START, "add")
builder.add_edge("add", END)
graph = builder.compile()
