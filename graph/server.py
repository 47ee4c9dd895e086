"""The LangGraph server's entry (``langgraph.json`` → ``"graphs"``): the agent compiled with no checkpointer or
store, because the server refuses a graph that brings its own; the Redis checkpointer comes from
``langgraph.json``'s ``"checkpointer"``. Importing this module reads no setting and opens no connection:
:class:`~graph.deps.Deps` does both on the first run. It is the process's one instance (``process_deps``), shared
with the store and the HTTP app (``doors.http_api``), so the stores and the embedder are opened once per process.
The server process also sweeps idle sessions every ``PALACE_SWEEP_INTERVAL_S`` (``graph.sweep``; the first sweep
one interval after start). A thread running a turn's nodes lowers its priority by ``PALACE_TURN_NICE``
(``graph.priority``).
"""

from __future__ import annotations

from graph import priority
from graph.builder import build_graph
from graph.deps import process_deps
from graph.store import PalaceStore
from graph.sweep import start_background_sweeper

deps = process_deps()  # the same instance in the store's copy of this module and in the HTTP app
priority.install(deps)  # the server's turns run on threads that lower their priority: memory searches come first
graph = build_graph(deps).compile(name="memory-palace")
store = PalaceStore(deps)  # langgraph.json "store": the same memories through langgraph_sdk's store API
start_background_sweeper(deps)
