"""Checkpointer latency: AsyncRedisSaver vs LangGraph's InMemorySaver and AsyncPostgresSaver, same run.

Each iteration writes one checkpoint (a chat-like state: a growing message list plus two small channels, so
every ``aput`` stores new channel values) and reads the latest back, for every saver in turn, so noise on this
shared machine falls on all of them alike. ``bytes_per_checkpoint`` is what the backend holds per checkpoint
(Redis: MEMORY USAGE of the thread's keys; PostgreSQL: size of its tables; memory: serialised bytes).
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from typing import Any

import psycopg
import redis.asyncio as aioredis
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointMetadata, empty_checkpoint
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from bench.stats import ms, percentile
from graph.resources import database_url, redis_url
from graph.settings import get_settings
from memory.checkpoint import AsyncRedisSaver, SaverConfig

TEXT = "我下个月从北京搬到上海，在陆家嘴附近找房子。 I'm moving to Shanghai next month for a new job at a bank. "


def _checkpoint(step: int) -> tuple[Any, dict[str, Any]]:
    cp = empty_checkpoint()
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{i}: {TEXT}"} for i in range(10)]
    cp["channel_values"] = {"messages": messages, "step": step, "summary": TEXT}
    cp["channel_versions"] = {"messages": step, "step": step, "summary": 1}
    return cp, {"messages": step, "step": step, **({"summary": 1} if step == 1 else {})}


Times = dict[str, dict[str, list[float]]]


async def _measure(savers: dict[str, BaseCheckpointSaver[Any]], iterations: int) -> tuple[Times, dict[str, str]]:
    times: Times = {n: {"aput": [], "aget_tuple": []} for n in savers}
    threads = {n: f"bench-{uuid.uuid4().hex[:8]}" for n in savers}
    parents: dict[str, Any] = {n: None for n in savers}
    clock = time.perf_counter
    for step in range(1, iterations + 1):
        for name, saver in savers.items():
            cp, versions = _checkpoint(step)
            config: RunnableConfig = {"configurable": {"thread_id": threads[name], "checkpoint_ns": ""}}
            if parents[name]:
                config["configurable"]["checkpoint_id"] = parents[name]
            t0 = clock()
            metadata: CheckpointMetadata = {"source": "loop", "step": step}
            stored = await saver.aput(config, cp, metadata, versions)
            t1 = clock()
            got = await saver.aget_tuple({"configurable": {"thread_id": threads[name], "checkpoint_ns": ""}})
            t2 = clock()
            assert got is not None and got.checkpoint["channel_values"]["step"] == step
            parents[name] = stored["configurable"]["checkpoint_id"]
            times[name]["aput"].append(t1 - t0)
            times[name]["aget_tuple"].append(t2 - t1)
    return times, threads


async def _run(iterations: int, warmup: int) -> dict[str, Any]:
    settings = get_settings()
    r_url, pg_url = redis_url(settings), database_url(settings)
    prefix = f"bench{uuid.uuid4().hex[:6]}:cp"
    dbname = f"palace_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    bench_pg = psycopg.conninfo.make_conninfo(pg_url, dbname=dbname)
    rclient = aioredis.Redis.from_url(r_url)
    try:
        async with AsyncPostgresSaver.from_conn_string(bench_pg) as pg_saver:
            await pg_saver.setup()
            memory_saver = InMemorySaver()
            savers: dict[str, BaseCheckpointSaver[Any]] = {
                "redis": AsyncRedisSaver(rclient, config=SaverConfig(prefix=prefix)),
                "memory": memory_saver,
                "postgres": pg_saver,
            }
            _, warm_threads = await _measure(savers, warmup)
            for name, saver in savers.items():  # sizes count the timed checkpoints alone
                await saver.adelete_thread(warm_threads[name])
            times, _ = await _measure(savers, iterations)
            sizes = {
                "redis": await _redis_bytes(rclient, prefix),
                "memory": _memory_bytes(memory_saver),
                "postgres": _pg_bytes(bench_pg),
            }
    finally:
        keys = [k async for k in rclient.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await rclient.delete(*keys)
        await rclient.aclose()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    result: dict[str, Any] = {"iterations": iterations, "redis_url": r_url, "savers": {}}
    for name, t in times.items():
        result["savers"][name] = {
            "aput_p50_ms": ms(percentile(t["aput"], 50)), "aput_p95_ms": ms(percentile(t["aput"], 95)),
            "aget_tuple_p50_ms": ms(percentile(t["aget_tuple"], 50)),
            "aget_tuple_p95_ms": ms(percentile(t["aget_tuple"], 95)),
            "bytes_per_checkpoint": round(sizes[name] / iterations),
        }
    return result


async def _redis_bytes(client: aioredis.Redis, prefix: str) -> int:
    total = 0
    async for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        total += int(await client.memory_usage(key) or 0)
    return total


def _memory_bytes(saver: InMemorySaver) -> int:
    total = 0
    for namespaces in saver.storage.values():
        for checkpoints in namespaces.values():
            for (_, ck), (_, md), _parent in checkpoints.values():
                total += len(ck) + len(md)
    total += sum(len(data) for _, data in saver.blobs.values())
    return total


def _pg_bytes(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c WHERE c.relkind = 'r' "
            "AND c.relname IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')").fetchone()
    return int(row[0] or 0) if row else 0


def report(result: dict[str, Any]) -> str:
    lines = [f"checkpointers, {result['iterations']} checkpoints each ({result['redis_url']})",
             f"{'saver':<10}{'aput p50':>10}{'aput p95':>10}{'get p50':>10}{'get p95':>10}{'bytes/cp':>10}"]
    for name, r in result["savers"].items():
        lines.append(f"{name:<10}{r['aput_p50_ms']:>10.3f}{r['aput_p95_ms']:>10.3f}{r['aget_tuple_p50_ms']:>10.3f}"
                     f"{r['aget_tuple_p95_ms']:>10.3f}{r['bytes_per_checkpoint']:>10}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--iterations", type=int, default=1000, help="checkpoints per saver (default 1000)")
    parser.add_argument("--warmup", type=int, default=50, help="untimed checkpoints first (default 50)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    if args.iterations < 1:
        raise SystemExit("bench checkpointer: --iterations must be >= 1")
    return asyncio.run(_run(args.iterations, args.warmup))
