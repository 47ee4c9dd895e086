"""Regenerate ``memory/checkpoint/sync.py`` from ``aio.py`` by dropping async/await.

Edit ``aio.py`` only, then run ``python tools/gen_sync_saver.py && ruff check --fix memory/checkpoint``.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "memory" / "checkpoint"
HEADER = '"""``AsyncRedisSaver``: LangGraph\'s checkpointer on plain Redis, async (redis.asyncio)."""'
SYNC_HEADER = (
    '"""``RedisSaver``: LangGraph\'s checkpointer on plain Redis, sync (redis-py).\n\n'
    "Generated from ``aio.py`` by ``tools/gen_sync_saver.py``: edit ``aio.py``, then regenerate.\n"
    '"""'
)
PAIRS = '''def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}
'''
REPLACEMENTS = [
    (HEADER, SYNC_HEADER),
    ("import redis.asyncio as aioredis", "import redis"),
    ("from redis.asyncio.cluster import RedisCluster", "from redis.cluster import RedisCluster"),
    ("aioredis.Redis", "redis.Redis"),
    ("AsyncRedisClient, aeval_durably, open_async_redis", "RedisClient, eval_durably, open_redis"),
    ("AsyncRedisClient", "RedisClient"),
    ("aeval_durably(", "eval_durably("),
    ("open_async_redis(", "open_redis("),
    ("from contextlib import asynccontextmanager", "from contextlib import contextmanager"),
    ("@asynccontextmanager", "@contextmanager"),
    ("AsyncIterator", "Iterator"),
    ("AsyncRedisSaver", "RedisSaver"),
    ("await self.client.aclose()", "self.client.close()"),
    ("await saver.asetup()", "saver.setup()"),
    ("await saver.aclose()", "saver.close()"),
    ("await self.adelete_thread(", "self.delete_thread("),
    (":meth:`asetup`", ":meth:`setup`"),
    ("async for ", "for "),
    ("await ", ""),
]
PUBLIC = "put_writes|put|get_tuple|list|delete_thread|delete_for_runs|copy_thread|prune|setup|close"


def generate() -> str:
    source = (HERE / "aio.py").read_text()
    source = source.split("    # --- the sync API is the other class's job")[0].rstrip() + "\n\n\n" + PAIRS
    for old, new in REPLACEMENTS:
        source = source.replace(old, new)
    source = re.sub(rf"async def a({PUBLIC})\(", r"def \1(", source)
    return source.replace("async def ", "def ")


if __name__ == "__main__":
    (HERE / "sync.py").write_text(generate())
