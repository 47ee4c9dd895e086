"""The product graph for the server e2e test, with the scripted model at the model boundary (settings, stores
and the Redis checkpointer are the real ones, from the PALACE_* environment the test gives the server)."""

from __future__ import annotations

from graph.builder import build_graph
from graph.deps import Deps
from graph.store import PalaceStore
from graph.testing import ScriptedBrain, ScriptedModels


def _conflict_on_city(new: str, existing: list[str]) -> tuple[str, int]:
    for i, text in enumerate(existing, 1):
        if "live in" in new and "live in" in text and new != text:
            return "conflict", i
    return "add", 0


deps = Deps(models=ScriptedModels(ScriptedBrain(_conflict_on_city)))
graph = build_graph(deps).compile(name="scripted-palace")
store = PalaceStore(deps)  # the store API on the same stores as this graph
