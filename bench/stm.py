"""Short-term memory latency: ShortTermMemory.push / .window against raw redis-py RPUSH / LRANGE, same server, same run.

The raw baseline is what the seed's code does (one command per call); ours adds the TTL refresh, the archive
check and validation in the same round trip. Operations are interleaved (ours, raw, ours, raw...) so that noise
on this shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import time
import uuid
from typing import Any

from bench.stats import ms, percentile
from graph.resources import connect_redis, redis_url, stm_config
from graph.settings import get_settings
from memory.short_term import ShortTermMemory

MESSAGE = "我下个月从北京搬到上海，在陆家嘴附近找房子，月租八千以内。 Moving to Shanghai next month for a new job."


def run(ops: int = 5000, window: int = 20) -> dict[str, Any]:
    settings = get_settings()
    url = redis_url(settings)
    client = connect_redis(url, settings.service_timeout_s)
    # Keep the list below the archive threshold is not needed: nobody archives here, the list just grows.
    stm = ShortTermMemory(client, stm_config(settings))
    user, session = "bench", f"stm-{uuid.uuid4().hex[:8]}"
    raw_key = f"bench:raw:{session}"
    key = stm.keys(user, session)[0]
    push, raw_push, read, raw_read = [], [], [], []
    clock = time.perf_counter
    try:
        for _ in range(200):  # warm-up: connections, script cache
            stm.push(user, session, "user", MESSAGE)
            client.rpush(raw_key, MESSAGE)
        for _ in range(ops):
            t0 = clock()
            stm.push(user, session, "user", MESSAGE)
            t1 = clock()
            client.rpush(raw_key, MESSAGE)
            t2 = clock()
            stm.window(user, session, window)
            t3 = clock()
            client.lrange(raw_key, -window, -1)
            t4 = clock()
            push.append(t1 - t0)
            raw_push.append(t2 - t1)
            read.append(t3 - t2)
            raw_read.append(t4 - t3)
    finally:
        client.delete(raw_key, key)
        client.close()
    result: dict[str, Any] = {
        "ops": ops,
        "window": window,
        "redis": url,
        "push_p50_ms": ms(percentile(push, 50)),
        "push_p99_ms": ms(percentile(push, 99)),
        "read_p50_ms": ms(percentile(read, 50)),
        "read_p99_ms": ms(percentile(read, 99)),
        "raw_push_p50_ms": ms(percentile(raw_push, 50)),
        "raw_push_p99_ms": ms(percentile(raw_push, 99)),
        "raw_read_p50_ms": ms(percentile(raw_read, 50)),
        "raw_read_p99_ms": ms(percentile(raw_read, 99)),
    }
    result["push_p99_vs_raw"] = round(result["push_p99_ms"] / result["raw_push_p99_ms"], 2)
    result["read_p99_vs_raw"] = round(result["read_p99_ms"] / result["raw_read_p99_ms"], 2)
    return result


def report(result: dict[str, Any]) -> str:
    lines = [f"short-term memory, {result['ops']} ops each, window {result['window']}, {result['redis']}",
             f"{'':<8}{'p50 ms':>10}{'p99 ms':>10}{'raw p50':>10}{'raw p99':>10}{'p99/raw':>9}"]
    for op in ("push", "read"):
        lines.append(f"{op:<8}{result[f'{op}_p50_ms']:>10.3f}{result[f'{op}_p99_ms']:>10.3f}"
                     f"{result[f'raw_{op}_p50_ms']:>10.3f}{result[f'raw_{op}_p99_ms']:>10.3f}"
                     f"{result[f'{op}_p99_vs_raw']:>9.2f}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ops", type=int, default=5000, help="timed operations of each kind (default 5000)")
    parser.add_argument("--window", type=int, default=20, help="entries per window read (default 20)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    if args.ops < 1:
        raise SystemExit("bench stm: --ops must be >= 1")
    return run(ops=args.ops, window=args.window)
