"""The LangGraph server's entry (``langgraph.json`` → ``"graphs"``): the agent compiled with no checkpointer or
store, because the server refuses a graph that brings its own; the Redis checkpointer comes from
``langgraph.json``'s ``"checkpointer"``. Importing this module reads no setting and opens no connection:
:class:`~graph.deps.Deps` does both on the first run.
"""

from __future__ import annotations

from graph.builder import build_graph
from graph.deps import Deps

graph = build_graph(Deps()).compile(name="memory-palace")
