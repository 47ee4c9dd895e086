"""Redis Cluster specifics on a real 3-master / 3-replica cluster (the session's, tests/conftest.py): where keys land,
how the setting is checked against the server, and a master failover while turns run."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from redis.cluster import RedisCluster

from bench.failover import run as failover_run
from bench.local_services import LocalRedisCluster, RedisNode
from graph.api import thread_id
from graph.resources import connect_redis
from memory.errors import InvalidInputError
from memory.redis_cluster import command, open_redis
from memory.short_term import ShortTermMemory, STMConfig
from tests.conftest import EXTERNAL_PG, EXTERNAL_REDIS, _require_external, delete_prefix
from tests.integration.agent_harness import make_agent


@pytest.fixture
def cluster_client(redis_cluster: LocalRedisCluster) -> Any:
    client = open_redis(redis_cluster.url)
    assert isinstance(client, RedisCluster)
    yield client
    client.close()


def _slot(client: RedisCluster, key: bytes | str) -> int:
    return int(command(client, "CLUSTER", "KEYSLOT", key))


def test_keys_of_one_session_and_of_one_thread_share_a_slot(redis_cluster: LocalRedisCluster, cluster_client: Any,
                                                            pg_url: str, tmp_path: Path, e5: Any) -> None:
    """Asked of the cluster (CLUSTER KEYSLOT), after real turns: list, pending batch, lease and token counter of a
    session in one slot; every key of a checkpoint thread in one slot."""
    for agent in make_agent(redis_cluster.url, pg_url, tmp_path, e5, stm_archive_threshold=4, stm_archive_batch=2):
        prefix = agent.settings.key_prefix
        for i in range(3):
            agent.turn("alice", "s1", f"Note {i}: the gate code is {100 + i}.")
            agent.turn("bob", "s1", f"Note {i}: bob's code is {i}.")
        stm = agent.deps.short_term()
        stm.push("alice", "s1", "user", "one more")
        assert stm.claim("alice", "s1", drain=True) is not None  # a pending batch and its lease exist now
        keys = [k.decode() for k in cluster_client.scan_iter(match=f"{prefix}:*", count=1000)]
        session_keys = [k for k in keys if "{alice/s1}" in k]
        assert {k.rsplit("}", 1)[1] for k in session_keys} >= {":stm", ":stm:pending", ":stm:lease", ":stm:tokens"}
        assert len({_slot(cluster_client, k) for k in session_keys}) == 1, session_keys
        thread_keys = [k for k in keys if "{" + thread_id("alice", "s1") + "}" in k]
        assert len(thread_keys) >= 4 and len({_slot(cluster_client, k) for k in thread_keys}) == 1, thread_keys
        bob = [k for k in keys if "{bob/s1}" in k]
        assert bob and {_slot(cluster_client, k) for k in bob} != {_slot(cluster_client, k) for k in session_keys}


def test_users_spread_over_every_master(redis_cluster: LocalRedisCluster, cluster_client: Any,
                                        key_prefix: str) -> None:
    stm = ShortTermMemory(cluster_client, STMConfig(prefix=key_prefix))
    for i in range(60):
        stm.push(f"user{i}", "s", "user", "hello")
    owners: dict[str, int] = {}
    for key in cluster_client.scan_iter(match=f"{key_prefix}:*", count=1000):
        node = cluster_client.get_node_from_key(key)
        owners[node.name] = owners.get(node.name, 0) + 1
    masters = {f"127.0.0.1:{n.port}" for n in redis_cluster.masters_now()}
    assert set(owners) == masters and len(masters) == 3, owners
    assert min(owners.values()) >= 8, owners  # 60 users: none of the three masters is left nearly idle
    delete_prefix(cluster_client, key_prefix)


def test_cluster_setting_is_checked_against_the_server(redis_cluster: LocalRedisCluster) -> None:
    _require_external("Redis", lambda: open_redis(EXTERNAL_REDIS).ping())
    with pytest.raises(InvalidInputError, match=r"PALACE_REDIS_CLUSTER=true but the Redis at .* is not a cluster"):
        connect_redis(EXTERNAL_REDIS, 2.0, cluster=True)
    with pytest.raises(InvalidInputError, match="is a Redis Cluster node: set PALACE_REDIS_CLUSTER=true"):
        connect_redis(redis_cluster.url, 2.0, cluster=False)
    assert isinstance(connect_redis(redis_cluster.url, 2.0), RedisCluster)  # unset: asked of the server
    assert not isinstance(connect_redis(EXTERNAL_REDIS, 2.0), RedisCluster)


def test_cli_refuses_a_cluster_setting_the_server_contradicts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from doors.cli.main import main

    _require_external("Redis", lambda: open_redis(EXTERNAL_REDIS).ping())
    monkeypatch.setenv("PALACE_REDIS_URL", EXTERNAL_REDIS)
    monkeypatch.setenv("PALACE_REDIS_CLUSTER", "true")
    monkeypatch.setenv("PALACE_DATABASE_URL", EXTERNAL_PG)
    monkeypatch.setenv("PALACE_CHAT_MODEL", "unused")  # no local model is started: Redis fails first
    monkeypatch.setenv("PALACE_CHAT_BASE_URL", "http://127.0.0.1:1/v1")
    assert main(["--data-dir", str(tmp_path), "chat", "hello"]) == 2
    err = capsys.readouterr().err
    assert "PALACE_REDIS_CLUSTER=true but the Redis at redis://127.0.0.1:6379" in err and err.count("\n") == 1


def test_turns_go_on_across_a_master_failover_and_lose_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """One SIGKILLed master under load (its own cluster: the session's keeps its topology): every turn returns,
    and every returned turn's messages and final checkpoint are there afterwards. 20+ failovers: python -m bench
    failover."""
    _require_external("PostgreSQL", lambda: __import__("psycopg").connect(EXTERNAL_PG, connect_timeout=2).close())
    monkeypatch.setenv("PALACE_DATABASE_URL", EXTERNAL_PG)
    result = failover_run(failovers=1, interval_s=1.0)
    assert result["turns"] > 0 and result["turns_failed"] == 0, result
    assert result["stm_entries_lost"] == 0 and result["checkpoints_lost"] == 0, result
    assert 0 < result["recovery_p95_s"] < 10, result


async def test_async_checkpointer_waits_for_a_replica(redis_cluster: LocalRedisCluster, key_prefix: str) -> None:
    """The server's saver on the cluster with WAIT 1 (the LangGraph server's setting by default): a checkpoint is
    stored, read back, and on the replica of its master when aput returns."""
    from langgraph.checkpoint.base import empty_checkpoint

    from memory.checkpoint import AsyncRedisSaver

    async with AsyncRedisSaver.from_conn_string(redis_cluster.url, prefix=f"{key_prefix}:cp", wait_replicas=1,
                                               wait_timeout_ms=1000) as saver:
        config = {"configurable": {"thread_id": "t-wait", "checkpoint_ns": ""}}
        checkpoint = empty_checkpoint()
        stored = await saver.aput(config, checkpoint, {"source": "input", "step": -1}, {})  # type: ignore[arg-type]
        got = await saver.aget_tuple(stored)
        assert got is not None and got.checkpoint["id"] == checkpoint["id"]
        key = saver.checkpoint_prefix("t-wait", "") + checkpoint["id"]
        master = saver.client.get_node_from_key(key)  # type: ignore[union-attr]
    replicas = [n for n in redis_cluster.nodes if n.alive() and n not in redis_cluster.masters_now()]
    holders = []
    for node in replicas:
        client = node.client()
        try:
            command(client, "READONLY")
            info = command(client, "ROLE")
            if f"{info[1].decode()}:{info[2]}" == master.name and client.exists(key):
                holders.append(node.port)
        finally:
            client.close()
    assert holders, f"no replica of {master.name} holds {key}"


def _master_of(cluster: LocalRedisCluster, key: str, but: RedisNode | None = None) -> RedisNode | None:
    """The node the cluster names as master of ``key``'s slot, asked of every node but ``but`` (it may be
    stalled)."""
    for node in cluster.nodes:
        if node is but or not node.alive():
            continue
        client = node.client(timeout_s=0.5)
        try:
            slot = int(command(client, "CLUSTER", "KEYSLOT", key))
            for start, end, master, *_ in command(client, "CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return next(n for n in cluster.nodes if n.port == int(master[1]))
        except Exception:  # this peer is busy or stalled too: ask the next one
            continue
        finally:
            client.close()
    return None


def _until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"{what} after {timeout_s} s"
        time.sleep(0.05)


def test_a_push_waiting_on_a_master_that_loses_its_slot_is_made_again_on_the_new_master(
        redis_cluster: LocalRedisCluster, cluster_client: Any) -> None:
    """What a loaded machine does to a cluster with a short cluster-node-timeout: a master stalls (SIGSTOP here)
    long enough for its replica to take over, then wakes up and runs the push it had queued, whose WAIT Redis ends
    with "UNBLOCKED ... master -> replica". The old master drops that write when it resyncs as a replica, so the push
    is made again on the new master: it returns, and the entry is there once. (Before, the push failed with that
    error, and a claim or ack made on the stalled master could be lost with it.)"""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    stm = ShortTermMemory(cluster_client, STMConfig(prefix=prefix, wait_replicas=1, wait_timeout_ms=1000))
    stm.push("u", "s", "user", "before the stall")
    key = stm.keys("u", "s")[0]
    old = _master_of(redis_cluster, key)
    assert old is not None and old.proc is not None
    outcome: dict[str, Any] = {}

    def push() -> None:
        try:
            outcome["result"] = stm.push("u", "s", "user", "during the stall")
        except Exception as exc:  # reported below, with the test's assertion
            outcome["error"] = exc

    os.kill(old.proc.pid, signal.SIGSTOP)
    try:
        pusher = threading.Thread(target=push)
        pusher.start()
        _until(lambda: _master_of(redis_cluster, key, but=old) not in (None, old), 30, "no replica took over")
    finally:
        os.kill(old.proc.pid, signal.SIGCONT)
    pusher.join(timeout=30)
    assert not pusher.is_alive() and "error" not in outcome, outcome
    assert [e.content for e in stm.window("u", "s").entries] == ["before the stall", "during the stall"]
    _give_slots_back(redis_cluster, old)
    delete_prefix(cluster_client, prefix)


def _give_slots_back(cluster: LocalRedisCluster, old: RedisNode) -> None:
    """A manual failover to the stalled node once it has caught up as a replica: the session's cluster keeps its
    topology for the other tests."""
    cluster.wait_healthy(30)
    client = old.client()
    try:
        command(client, "CLUSTER", "FAILOVER")
    finally:
        client.close()
    _until(lambda: old in cluster.masters_now(), 30, "the old master did not take its slots back")
    cluster.wait_healthy(30)


async def test_a_checkpoint_waiting_on_a_stalled_master_is_written_again_on_the_new_master(
        redis_cluster: LocalRedisCluster) -> None:
    """The server's (asyncio) saver, same stall: aput returns once the checkpoint is on the new master."""
    from langgraph.checkpoint.base import empty_checkpoint

    from memory.checkpoint import AsyncRedisSaver

    prefix = f"t{uuid.uuid4().hex[:10]}"
    async with AsyncRedisSaver.from_conn_string(redis_cluster.url, prefix=f"{prefix}:cp", wait_replicas=1,
                                               wait_timeout_ms=1000) as saver:
        config = {"configurable": {"thread_id": "t-stall", "checkpoint_ns": ""}}
        first = await saver.aput(config, empty_checkpoint(), {"source": "input", "step": -1}, {})  # type: ignore[arg-type]
        key = saver.checkpoint_prefix("t-stall", "") + "x"  # any key of the thread: they share its slot
        old = _master_of(redis_cluster, key)
        assert old is not None and old.proc is not None
        stalled, replaced = threading.Event(), threading.Event()

        def stall() -> None:
            os.kill(old.proc.pid, signal.SIGSTOP)  # type: ignore[union-attr]
            stalled.set()
            try:
                _until(lambda: _master_of(redis_cluster, key, but=old) not in (None, old), 30, "no replica took over")
            finally:
                os.kill(old.proc.pid, signal.SIGCONT)  # type: ignore[union-attr]
                replaced.set()

        staller = threading.Thread(target=stall)
        staller.start()
        await asyncio.to_thread(stalled.wait, 10)
        checkpoint = empty_checkpoint()
        stored = await saver.aput(first, checkpoint, {"source": "loop", "step": 0}, {})  # type: ignore[arg-type]
        await asyncio.to_thread(staller.join, 30)
        assert replaced.is_set()
        got = await saver.aget_tuple(stored)
        assert got is not None and got.checkpoint["id"] == checkpoint["id"]
    _give_slots_back(redis_cluster, old)
    client = open_redis(redis_cluster.url)
    delete_prefix(client, prefix)
    client.close()
