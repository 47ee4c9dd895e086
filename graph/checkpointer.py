"""The LangGraph server's checkpointer factory (``langgraph.json`` → ``"checkpointer": {"path": ...}``).

Reads the project's settings (``PALACE_REDIS_URL``, or the embedded Redis), never ``REDIS_URI``: ``langgraph dev``
sets that to a fake value for its own use.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graph.resources import redis_url
from graph.settings import Settings, get_settings
from memory.checkpoint import AsyncRedisSaver


@asynccontextmanager
async def checkpointer(settings: Settings | None = None) -> AsyncIterator[AsyncRedisSaver]:
    """Yield an :class:`AsyncRedisSaver` on the configured Redis; closes its client on exit."""
    settings = settings or get_settings()
    url = await asyncio.to_thread(redis_url, settings)  # may start the embedded server: keep it off the loop
    async with AsyncRedisSaver.from_conn_string(
        url, ttl_s=settings.checkpoint_ttl_s, refresh_on_read=settings.checkpoint_refresh_on_read,
        prefix=f"{settings.key_prefix}:cp", cluster=settings.redis_cluster,
        wait_replicas=settings.redis_wait_replicas, wait_timeout_ms=settings.redis_wait_timeout_ms,
        failover_wait_s=settings.redis_failover_wait_s,
    ) as saver:
        yield saver
