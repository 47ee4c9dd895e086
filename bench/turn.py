"""The memory machinery's overhead per turn: a whole turn through the real graph with the model time taken out.

The scripted model (graph.testing) answers at the model boundary in microseconds, so a turn's wall time is the
machinery: short-term window (Redis), task lookup (Postgres), query embedding, hybrid search and rerank, fact
extraction's bookkeeping, embedding the new memories, the verifier's neighbour search, writes to Qdrant, the
ledger and the checkpointer. Redis and Postgres are the configured ones (127.0.0.1 on these machines) or the
embedded ones; Qdrant is the embedded default (Qdrant Edge). The scripted brain's own time is measured
and subtracted (the fake chat model's LangChain plumbing around it stays in: it is a model call's
cost). Warm-up turns are not counted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from langchain_core.messages import AIMessage, BaseMessage

from bench.prompt_budget import clean_up, script
from bench.retrieval import progress
from bench.stats import percentile
from graph.api import run_turn
from graph.deps import Deps
from graph.resources import Resources
from graph.settings import get_settings
from graph.testing import ScriptedBrain, ScriptedModels
from memory.edge import EdgeClient

WARMUP = 5


class _TimedBrain:
    """The scripted brain, with the time spent inside it added up."""

    def __init__(self) -> None:
        self.brain = ScriptedBrain()
        self.spent_s = 0.0

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage | str:
        t0 = time.perf_counter()
        try:
            return self.brain(messages, tools)
        finally:
            self.spent_s += time.perf_counter() - t0


def run(turns: int = 200) -> dict[str, Any]:
    settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai")
    with tempfile.TemporaryDirectory(prefix="palace-turn-") as tmp:
        client = EdgeClient(Path(tmp) / "edge")
        resources = Resources(settings, _qdrant=client)
        brain = _TimedBrain()
        models = ScriptedModels(brain)
        deps = Deps(settings, resources=resources, models=models)
        tz = ZoneInfo(settings.timezone)
        start = datetime(2026, 9, 14, 8, 0, tzinfo=tz)
        step = timedelta(hours=14) / turns
        overhead, model_ms = [], []
        try:
            for i, message in enumerate(progress(script(turns + WARMUP), "turns")):
                spent_before = brain.spent_s
                t0 = time.perf_counter()
                run_turn(deps, "bench-user", "day", message, at=(start + step * i).isoformat())
                wall = time.perf_counter() - t0
                in_model = brain.spent_s - spent_before
                if i >= WARMUP:
                    overhead.append((wall - in_model) * 1000)
                    model_ms.append(in_model * 1000)
        finally:
            clean_up(resources, settings.key_prefix, "bench-user")
            client.close()
    return {"turns": turns, "overhead_p50_ms": round(percentile(overhead, 50), 1),
            "overhead_p95_ms": round(percentile(overhead, 95), 1),
            "scripted_model_p50_ms": round(percentile(model_ms, 50), 2)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=200, help="timed turns (default 200, after 5 warm-up turns)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(args.turns)


def report(r: dict[str, Any]) -> str:
    return (f"memory machinery per turn over {r['turns']} scripted turns (model time subtracted): "
            f"p50 {r['overhead_p50_ms']} ms, p95 {r['overhead_p95_ms']} ms "
            f"(scripted model itself p50 {r['scripted_model_p50_ms']} ms)")
