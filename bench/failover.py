"""Redis Cluster failover under load: agent turns run while masters are SIGKILLed; what is lost, how long it takes.

A local 3-master / 3-replica cluster (``bench.local_services``, cluster-node-timeout 1 s) carries short-term memory and
the checkpoints; PostgreSQL is ``PALACE_DATABASE_URL`` (or the embedded one), Qdrant is in memory, the model is the
scripted one. Worker threads run turns for users spread over all masters. Every ``--interval`` seconds the master of
one worker's session is killed with SIGKILL (by pid, no shutdown), so a turn is always running against it.

- ``recovery`` is the time from the kill until a write to that master's slots succeeds again (the replica promoted);
  after it the killed node is started again, rejoins as a replica, and the next kill waits until every master has
  its replica back.
- ``stm_entries_lost``: of the turns that returned an answer, user messages and answers missing from short-term
  memory afterwards. ``checkpoints_lost``: final checkpoints of those turns missing afterwards.
- ``--wait-replicas 0`` runs without WAIT, to see what WAIT buys; the push latency with and without WAIT is measured
  on the same cluster in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from qdrant_client import QdrantClient
from redis.cluster import RedisCluster

from bench.local_services import LocalRedisCluster, RedisNode
from bench.stats import percentile
from graph.api import compiled, run_turn, thread_id
from graph.deps import Deps
from graph.resources import Resources, database_url
from graph.settings import get_settings
from graph.testing import ScriptedBrain, ScriptedModels
from memory.errors import PalaceError
from memory.redis_cluster import master_node
from memory.short_term import ShortTermMemory

WORKERS = 4


@dataclass
class Turn:
    user: str
    session: str
    message: str
    answer: str
    checkpoint_id: str | None


@dataclass
class Load:
    """Worker threads running turns until stopped; what each returned turn wrote."""

    deps: Deps
    sessions: list[tuple[str, str]]
    done: list[Turn] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        self.threads = [threading.Thread(target=self._run, args=(u, s), daemon=True) for u, s in self.sessions]
        for t in self.threads:
            t.start()

    def _run(self, user: str, session: str) -> None:
        graph = compiled(self.deps)
        k = 0
        while not self.stop.is_set():
            message = f"Note {session}-{k}: the code for {session} turn {k} is {k * 7}."
            k += 1
            try:
                result = run_turn(self.deps, user, session, message)
                state = graph.get_state({"configurable": {"thread_id": thread_id(user, session)}})
                cid = (state.config.get("configurable") or {}).get("checkpoint_id")
            except PalaceError as exc:  # the failover outlasted PALACE_REDIS_FAILOVER_WAIT_S: the turn failed
                with self.lock:
                    self.failed.append(f"{session}-{k - 1}: {exc}")
                continue
            with self.lock:
                self.done.append(Turn(user, session, message, result.answer, cid))

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)

    def count(self) -> int:
        with self.lock:
            return len(self.done)


def _sessions_over_masters(client: RedisCluster, prefix: str, stm: ShortTermMemory) -> list[tuple[str, str]]:
    """WORKERS (user, session) pairs whose short-term keys sit on as many different masters as possible."""
    by_master: dict[str, list[tuple[str, str]]] = {}
    for i in range(200):
        pair = (f"user{i}", f"s{i}")
        node = master_node(client, stm.keys(*pair)[0])
        by_master.setdefault(node.name, []).append(pair)
    picked: list[tuple[str, str]] = []
    while len(picked) < WORKERS:
        for pairs in by_master.values():
            if pairs and len(picked) < WORKERS:
                picked.append(pairs.pop(0))
    return picked


def _master_of(cluster: LocalRedisCluster, client: RedisCluster, key: str) -> RedisNode:
    client.nodes_manager.initialize()
    name = master_node(client, key).name
    return next(n for n in cluster.nodes if f"127.0.0.1:{n.port}" == name)


def _recovery(cluster: LocalRedisCluster, key: str, timeout_s: float = 30.0) -> float:
    """Seconds until a plain write to ``key``'s slot succeeds on a fresh cluster client (clock started by caller)."""
    probe = RedisCluster(host="127.0.0.1", port=next(n.port for n in cluster.nodes if n.alive()),
                         socket_connect_timeout=0.5, socket_timeout=0.5)
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            try:
                probe.nodes_manager.initialize()
                probe.set(key + ":probe", "1")
                return time.monotonic()
            except Exception:  # the slot has no master yet
                time.sleep(0.02)
    finally:
        probe.close()
    raise TimeoutError(f"no master for {key!r} after {timeout_s} s")


def push_latency(stm: ShortTermMemory, user: str, n: int = 1000) -> dict[str, float]:
    """p50 / p99 ms of short-term pushes on this store's settings."""
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        stm.push(user, "latency", "user", f"latency probe {i}: 我下个月从北京搬到上海。")
        times.append((time.perf_counter() - t0) * 1000)
    stm.clear(user, "latency")
    return {"p50_ms": round(percentile(times, 50), 3), "p99_ms": round(percentile(times, 99), 3)}


def run(failovers: int = 20, interval_s: float = 1.5, wait_replicas: int = 1, wait_timeout_ms: int = 100,
        progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="palace-failover-") as tmp:
        cluster = LocalRedisCluster(Path(tmp) / "cluster").start()
        try:
            return _run(cluster, failovers, interval_s, wait_replicas, wait_timeout_ms, say)
        finally:
            cluster.stop()


def _run(cluster: LocalRedisCluster, failovers: int, interval_s: float, wait_replicas: int, wait_timeout_ms: int,
         say: Callable[[str], None]) -> dict[str, Any]:
    base = get_settings()
    settings = get_settings(
        redis_url=cluster.url, redis_cluster=True, database_url=database_url(base), data_dir=base.data_dir,
        key_prefix=f"fo{uuid.uuid4().hex[:8]}", redis_wait_replicas=wait_replicas,
        redis_wait_timeout_ms=wait_timeout_ms, redis_failover_wait_s=20.0,
        stm_archive_threshold=100_000, stm_archive_batch=20, stm_window=20)  # nothing archived: all stays to count
    qdrant = QdrantClient(":memory:")
    resources = Resources(settings, _qdrant=qdrant)
    deps = Deps(settings, resources=resources, models=ScriptedModels(ScriptedBrain()))
    client = resources.redis
    assert isinstance(client, RedisCluster)
    stm = deps.short_term()
    latency = {"wait": push_latency(stm, "latency-wait")}
    no_wait = ShortTermMemory(client, type(stm.config)(**{**stm.config.__dict__, "wait_replicas": 0}))
    latency["no_wait"] = push_latency(no_wait, "latency-nowait")
    sessions = _sessions_over_masters(client, settings.key_prefix, stm)
    deps.long_term()
    compiled(deps)
    load = Load(deps, sessions)
    load.start()
    recoveries: list[float] = []
    try:
        for i in range(failovers):
            time.sleep(interval_s)
            user, session = sessions[i % len(sessions)]
            key = stm.keys(user, session)[0]
            victim = _master_of(cluster, client, key)
            before = load.count()
            t_kill = time.monotonic()
            cluster.kill(victim)
            recoveries.append(_recovery(cluster, key) - t_kill)
            say(f"failover {i + 1}/{failovers}: killed 127.0.0.1:{victim.port}, writable again after "
                f"{recoveries[-1]:.2f} s; {before} turns so far")
            cluster.restart(victim)
            cluster.wait_healthy(60)
        time.sleep(interval_s)
    finally:
        load.finish()
    lost_entries, lost_checkpoints = _losses(deps, load.done)
    graph_turns = len(load.done)
    resources.close()
    qdrant.close()
    return {"failovers": failovers, "turns": graph_turns, "stm_entries_lost": lost_entries,
            "checkpoints_lost": lost_checkpoints,
            "recovery_p95_s": round(percentile(recoveries, 95), 2) if recoveries else 0.0,
            "recovery_p50_s": round(percentile(recoveries, 50), 2) if recoveries else 0.0,
            "turns_failed": len(load.failed), "wait_replicas": wait_replicas, "wait_timeout_ms": wait_timeout_ms,
            "push_ms": latency, "node_timeout_ms": cluster.node_timeout_ms}


def _losses(deps: Deps, done: list[Turn]) -> tuple[int, int]:
    """(user messages and answers of returned turns missing from short-term memory, their final checkpoints
    missing from the checkpointer)."""
    stm = deps.short_term()
    graph = compiled(deps)
    saver = graph.checkpointer
    assert saver is not None and not isinstance(saver, bool)
    lost_entries = lost_checkpoints = 0
    windows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for turn in done:
        pair = (turn.user, turn.session)
        if pair not in windows:
            windows[pair] = [(e.role, e.content) for e in stm.window(*pair, n=100_000).entries]
        have = windows[pair]
        lost_entries += ("user", turn.message) not in have
        lost_entries += ("assistant", turn.answer) not in have
        if turn.checkpoint_id:
            config: RunnableConfig = {"configurable": {"thread_id": thread_id(*pair), "checkpoint_ns": "",
                                                       "checkpoint_id": turn.checkpoint_id}}
            lost_checkpoints += saver.get_tuple(config) is None
    return lost_entries, lost_checkpoints


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--failovers", type=int, default=20, help="masters to kill (default 20)")
    parser.add_argument("--interval", type=float, default=1.5, help="seconds of turns between kills (default 1.5)")
    parser.add_argument("--wait-replicas", type=int, default=1, help="WAIT for this many replicas (0: no WAIT)")
    parser.add_argument("--wait-timeout-ms", type=int, default=100, help="the longest WAIT (default 100)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    import sys

    return run(args.failovers, args.interval, args.wait_replicas, args.wait_timeout_ms,
               progress=lambda msg: print(msg, file=sys.stderr, flush=True))


def report(r: dict[str, Any]) -> str:
    p = r["push_ms"]
    return (f"{r['failovers']} master failovers under load (SIGKILL, cluster-node-timeout {r['node_timeout_ms']} ms): "
            f"{r['turns']} turns answered, {r['turns_failed']} failed; lost: {r['stm_entries_lost']} short-term "
            f"entries, {r['checkpoints_lost']} checkpoints; writable again after p50 {r['recovery_p50_s']} s, "
            f"p95 {r['recovery_p95_s']} s. Push with WAIT {r['wait_replicas']}: p50 {p['wait']['p50_ms']} / "
            f"p99 {p['wait']['p99_ms']} ms, without: {p['no_wait']['p50_ms']} / {p['no_wait']['p99_ms']} ms")
