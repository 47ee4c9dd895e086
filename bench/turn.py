"""Answer first, measured: the real graph against an OpenAI-compatible model server with a fixed latency per call
(bench/model_server.py in a process of its own, a real socket), next to the same model called bare (the user's
message only, no memory), the two alternating.

For each turn: time to the answer's first token (the respond node's first streamed token), the whole turn, and
how much model time the turn waited for, in calls (the union of the server's call intervals during the turn over
the per-call latency: extraction and verification beside the answer count once, not three times). Messages carry
1 to 5 facts, so the figure holds whatever the number of candidates. Warm-up turns are not counted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from langchain_core.messages import HumanMessage
from pydantic import SecretStr

from bench.model_server import ServerProcess
from bench.retrieval import progress
from bench.stats import percentile
from graph.api import forget_user, run_turn
from graph.deps import Deps
from graph.models import make_chat_openai
from graph.resources import Resources
from graph.settings import get_settings
from memory.edge import EdgeClient

WARMUP = 3
FACTS = ["I live in Hangzhou.", "My sister is called Anna.", "I play the violin.", "My dog is called Max.",
         "I work at a law firm.", "我喜欢喝龙井茶。", "我的护照号码尾号是42。", "My favourite book is Dune."]


def message(i: int) -> str:
    n = 1 + i % 5  # 1..5 facts: the turn's cost must not grow with the number of candidates
    return " ".join(FACTS[(i + k) % len(FACTS)].replace(".", f" ({i}).").replace("。", f"（{i}）。") for k in range(n))


def _union_s(calls: list[tuple[float, float, str]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop, _ in sorted(calls):
        if start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


class _FirstToken:
    def __init__(self) -> None:
        self.at: float | None = None

    def __call__(self, _: str) -> None:
        if self.at is None:
            self.at = time.perf_counter()


def run(turns: int = 60, calls_ms: int = 150) -> dict[str, Any]:
    """The model server runs in a process of its own, as a model server does (in this process it would share the
    GIL with the turn and slow the graph's side only). A bare call and a turn alternate, so the machine's load
    falls on both alike."""
    with ServerProcess(calls_ms) as server, tempfile.TemporaryDirectory(prefix="palace-turn-") as tmp:
        settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai",
                                chat_model="fixed-latency", chat_base_url=server.url, chat_api_key="unused",
                                data_dir=Path(tmp) / "data")
        bare_model = make_chat_openai(settings, "fixed-latency", server.url, SecretStr("unused"))
        client = EdgeClient(Path(tmp) / "edge")
        resources = Resources(settings, _qdrant=client)
        deps = Deps(settings, resources=resources)
        tz = ZoneInfo(settings.timezone)
        start = datetime(2026, 9, 14, 8, 0, tzinfo=tz)
        bare_ttft, bare_turn, ttft, turn_ms, spans = [], [], [], [], []
        user = f"bench-turn-{uuid.uuid4().hex[:6]}"
        try:
            for i in progress(range(turns + WARMUP), "turns"):
                t0 = time.perf_counter()
                got: float | None = None
                for _ in bare_model.stream([HumanMessage(message(i))]):
                    got = got or time.perf_counter()
                t1 = time.perf_counter()
                if i >= WARMUP:
                    bare_ttft.append(((got or t1) - t0) * 1000)
                    bare_turn.append((t1 - t0) * 1000)
                stamp = _FirstToken()
                t0 = time.perf_counter()
                run_turn(deps, user, "day", message(i), at=(start + timedelta(minutes=3 * i)).isoformat(),
                         on_token=stamp)
                t1 = time.perf_counter()
                if i >= WARMUP:
                    ttft.append(((stamp.at or t1) - t0) * 1000)
                    turn_ms.append((t1 - t0) * 1000)
                    spans.append((t0, t1))
            server.fetch()
        finally:
            forget_user(deps, user)
            resources.close()
            client.close()
    on_path = [_union_s(server.calls_between(t0, t1)) * 1000 / calls_ms for t0, t1 in spans]
    return {"calls_ms": calls_ms, "bare_ttft_p95_ms": round(percentile(bare_ttft, 95), 1),
            "ttft_p95_ms": round(percentile(ttft, 95), 1), "bare_turn_p50_ms": round(percentile(bare_turn, 50), 1),
            "turn_p50_ms": round(percentile(turn_ms, 50), 1), "turn_p95_ms": round(percentile(turn_ms, 95), 1),
            "model_calls_on_path": round(sum(on_path) / len(on_path), 2) if on_path else 0.0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=40, help=f"timed turns (default 60, after {WARMUP} warm-up)")
    parser.add_argument("--calls-ms", type=int, default=150, help="the model server's latency per call (150)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(args.turns, args.calls_ms)


def report(r: dict[str, Any]) -> str:
    ttft_ok = r["ttft_p95_ms"] <= r["bare_ttft_p95_ms"] + 80
    turn_ok = r["turn_p50_ms"] <= 2 * r["bare_turn_p50_ms"] + 150
    return (f"model server at {r['calls_ms']} ms per call: first token p95 {r['ttft_p95_ms']} ms (bare call "
            f"{r['bare_ttft_p95_ms']} ms; goal +80: {'met' if ttft_ok else 'MISSED'}); turn p50 {r['turn_p50_ms']} ms"
            f" / p95 {r['turn_p95_ms']} ms (bare call p50 {r['bare_turn_p50_ms']} ms; goal 2x+150: "
            f"{'met' if turn_ok else 'MISSED'}); model calls on the path {r['model_calls_on_path']}")
