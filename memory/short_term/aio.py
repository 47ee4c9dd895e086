"""Asynchronous short-term memory on a redis.asyncio client."""

from __future__ import annotations

from typing import Any

from memory.redis_cluster import AsyncRedisClient
from memory.redis_errors import redis_unavailable
from memory.short_term.base import (
    ACK_LUA,
    CLAIM_LUA,
    PUSH_LUA,
    RELEASE_LUA,
    WINDOW_LUA,
    ArchiveBatch,
    PushResult,
    ShortTermBase,
    STMConfig,
    Window,
)


class AsyncShortTermMemory(ShortTermBase):
    """A Redis list per session. Takes an injected client and never closes it."""

    def __init__(self, client: AsyncRedisClient, config: STMConfig | None = None) -> None:
        super().__init__(config)
        self.client = client
        self._push = client.register_script(PUSH_LUA)
        self._window = client.register_script(WINDOW_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._ack = client.register_script(ACK_LUA)
        self._release = client.register_script(RELEASE_LUA)

    async def push(self, user_id: str, session_id: str, role: str, content: str, *, ts_ms: int | None = None,
             meta: dict[str, Any] | None = None) -> PushResult:
        """Append one message and refresh the TTL, in one round trip."""
        key, pending, lease = self.keys(user_id, session_id)
        entry = self.new_entry(role, content, ts_ms, meta)
        with redis_unavailable(self.client):
            reply = await self._push(keys=[key, pending, lease], args=[entry.to_json(), self.config.ttl_s])
        return self.push_result(entry, reply)

    async def window(self, user_id: str, session_id: str, n: int | None = None) -> Window:
        """The last ``n`` entries (default: the configured window), oldest first, in one round trip."""
        key, pending, _lease = self.keys(user_id, session_id)
        size = self.window_size(n)
        with redis_unavailable(self.client):
            reply = await self._window(keys=[key, pending], args=[size])
        return self.window_result(reply)

    async def length(self, user_id: str, session_id: str) -> int:
        key, pending, _ = self.keys(user_id, session_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.llen(key)
        pipe.llen(pending)
        with redis_unavailable(self.client):
            a, b = await pipe.execute()
        return int(a) + int(b)

    async def claim(self, user_id: str, session_id: str, *, drain: bool = False) -> ArchiveBatch | None:
        """Claim the oldest batch for archiving (or a batch a crashed process left behind); None if none."""
        keys = list(self.keys(user_id, session_id))
        token = self.new_token()
        with redis_unavailable(self.client):
            reply = await self._claim(keys=keys, args=self.claim_args(token, drain=drain))
        return self.claim_result(user_id, session_id, token, reply)

    async def ack(self, batch: ArchiveBatch) -> bool:
        """Delete a batch whose memories have landed in long-term memory. False if another process owns it now."""
        _key, pending, lease = self.keys(batch.user_id, batch.session_id)
        with redis_unavailable(self.client):
            return bool(await self._ack(keys=[pending, lease], args=[batch.token, batch.first_raw]))

    async def release(self, batch: ArchiveBatch) -> None:
        """Give a batch back after a failed archive step; it stays pending and is offered again."""
        _key, _pending, lease = self.keys(batch.user_id, batch.session_id)
        with redis_unavailable(self.client):
            await self._release(keys=[lease], args=[batch.token])

    async def clear(self, user_id: str, session_id: str) -> int:
        """Delete a session's short-term memory, pending batch included. Returns the number of keys removed."""
        with redis_unavailable(self.client):
            return int(await self.client.delete(*self.keys(user_id, session_id)))
