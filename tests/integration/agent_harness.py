"""An agent on real Redis, PostgreSQL and Qdrant with the scripted model at the model boundary."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient

from graph.api import TurnResult, run_turn
from graph.deps import Deps
from graph.resources import Resources
from graph.settings import Settings, get_settings
from graph.testing import ScriptedBrain, ScriptedModels


@dataclass
class Agent:
    deps: Deps
    brain: ScriptedBrain
    models: ScriptedModels

    @property
    def settings(self) -> Settings:
        return self.deps.settings

    def turn(self, user: str, session: str, text: str, **kw: Any) -> TurnResult:
        return run_turn(self.deps, user, session, text, **kw)

    def resume(self, user: str, session: str, value: str) -> TurnResult:
        return run_turn(self.deps, user, session, None, resume=value)

    def calls(self, tool: str | None = None) -> list[dict[str, Any]]:
        return [c for c in self.models.model.calls if tool is None or tool in c["tools"]]


def make_agent(redis_url: str, pg_url: str, data_dir: Path, e5: Any, brain: ScriptedBrain | None = None,
               **overrides: Any) -> Iterator[Agent]:
    settings = get_settings(redis_url=redis_url, database_url=pg_url, data_dir=data_dir,
                            key_prefix=f"t{uuid.uuid4().hex[:10]}", timezone="Asia/Shanghai", **overrides)
    client = QdrantClient(":memory:")
    resources = Resources(settings, _qdrant=client, _embeddings=e5)
    brain = brain or ScriptedBrain()
    models = ScriptedModels(brain)
    deps = Deps(settings, resources=resources, models=models)
    yield Agent(deps=deps, brain=brain, models=models)
    r = resources.redis
    keys = list(r.scan_iter(match=f"{settings.key_prefix}:*", count=1000))
    if keys:
        r.delete(*keys)
    resources.close()
    client.close()

