"""Synchronous short-term memory on a redis-py client."""

from __future__ import annotations

import re
from typing import Any

from redis.cluster import RedisCluster
from redis.commands.core import Script

from memory.redis_cluster import RedisClient, eval_durably
from memory.redis_errors import redis_unavailable
from memory.short_term.base import (
    ACK_LUA,
    CLAIM_LUA,
    PUSH_LUA,
    RELEASE_LUA,
    REMOVE_LUA,
    WINDOW_LUA,
    ArchiveBatch,
    PushResult,
    ShortTermBase,
    STMConfig,
    Window,
)
from memory.validation import check_id

HISTORY_TOKENS_TTL_S = 90 * 24 * 3600  # the full-history baseline of `palace usage` (90 days idle: gone)


class ShortTermMemory(ShortTermBase):
    """A Redis list per session. Takes an injected client and never closes it."""

    def __init__(self, client: RedisClient, config: STMConfig | None = None) -> None:
        super().__init__(config)
        self.client = client
        self._push = client.register_script(PUSH_LUA)
        self._window = client.register_script(WINDOW_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._ack = client.register_script(ACK_LUA)
        self._remove = client.register_script(REMOVE_LUA)
        self._release = client.register_script(RELEASE_LUA)

    def push(self, user_id: str, session_id: str, role: str, content: str, *, ts_ms: int | None = None,
             meta: dict[str, Any] | None = None) -> PushResult:
        """Append one message and refresh the TTL, in one round trip. On a Redis Cluster with ``wait_replicas``,
        the same connection then WAITs until that many replicas hold the entry (a second command, no second
        round trip: both go in one pipeline), so a failover right after the push cannot lose it."""
        key, pending, lease = self.keys(user_id, session_id)
        entry = self.new_entry(role, content, ts_ms, meta)
        keys: list[str] = [key, pending, lease]
        args: list[Any] = [entry.to_json(), self.config.ttl_s]
        reply, acked = self._write(self._push, keys, args)
        return self.push_result(entry, reply, acked)

    def _write(self, script: Script, keys: list[str], args: list[Any]) -> tuple[Any, int | None]:
        """Run a writing script: on a Redis Cluster with ``wait_replicas``, durably (``WAIT`` on the same connection,
        see :func:`eval_durably`), so a failover cannot take an acknowledged push, claim or ack with it; returns
        (the script's reply, replicas that acknowledged it, or None when not asked)."""
        with redis_unavailable(self.client):
            if isinstance(self.client, RedisCluster) and self.config.wait_replicas:
                return eval_durably(self.client, script, keys, args, replicas=self.config.wait_replicas,
                                    timeout_ms=self.config.wait_timeout_ms)
            return script(keys=keys, args=args), None

    def window(self, user_id: str, session_id: str, n: int | None = None) -> Window:
        """The last ``n`` entries (default: the configured window), oldest first, in one round trip."""
        key, pending, _lease = self.keys(user_id, session_id)
        size = self.window_size(n)
        with redis_unavailable(self.client):
            reply = self._window(keys=[key, pending], args=[size])
        return self.window_result(reply)

    def idle_sessions(self, idle_ms: int) -> list[tuple[str, str]]:
        """(user, session) of every list written to at least ``idle_ms`` ago (its TTL tells), and of every batch
        a crashed process left pending, across all users."""
        cfg = self.config
        layout = re.compile(rf"^{re.escape(cfg.prefix)}:\{{([^/{{}}]+)/([^{{}}]+)\}}:stm(:pending)?$")
        due: set[tuple[str, str]] = set()
        with redis_unavailable(self.client):
            for raw in self.client.scan_iter(match=f"{cfg.prefix}:{{*}}:stm*", count=1000):
                m = layout.match(raw.decode() if isinstance(raw, bytes) else str(raw))
                if not m:
                    continue  # a lease or token counter
                left_ms = int(self.client.pttl(m.group(0)))
                if m.group(3) or 0 <= left_ms <= cfg.ttl_s * 1000 - idle_ms:
                    due.add((m.group(1), m.group(2)))
        return sorted(due)

    def delete_user(self, user_id: str) -> int:
        """Delete every short-term key of ``user_id`` (lists, pending batches, leases, token counters); ids
        cannot hold glob characters or "/", so no other user's key matches. Returns how many went."""
        check_id("user id", user_id, max_length=self.config.max_id_length)
        with redis_unavailable(self.client):
            keys = list(self.client.scan_iter(match=f"{self.config.prefix}:{{{user_id}/*}}:stm*", count=1000))
            return int(self.client.delete(*keys)) if keys else 0

    def remove_entries(self, user_id: str, session_id: str, entry_ids: list[str]) -> int:
        """Delete these entries from the session's list (not from a batch being archived right now)."""
        if not entry_ids:
            return 0
        key = self.keys(user_id, session_id)[0]
        with redis_unavailable(self.client):
            return int(self._remove(keys=[key], args=list(entry_ids)))

    def _tokens_key(self, user_id: str, session_id: str) -> str:
        return self.keys(user_id, session_id)[0] + ":tokens"

    def history_tokens(self, user_id: str, session_id: str) -> int:
        """Tokens of every message this session has had (what sending the full history would cost)."""
        with redis_unavailable(self.client):
            value = self.client.get(self._tokens_key(user_id, session_id))
        return int(value or 0)

    def add_history_tokens(self, user_id: str, session_id: str, tokens: int) -> int:
        key = self._tokens_key(user_id, session_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.incrby(key, max(0, int(tokens)))
        pipe.expire(key, HISTORY_TOKENS_TTL_S)
        with redis_unavailable(self.client):
            total, _ = pipe.execute()
        return int(total)

    def length(self, user_id: str, session_id: str) -> int:
        key, pending, _ = self.keys(user_id, session_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.llen(key)
        pipe.llen(pending)
        with redis_unavailable(self.client):
            a, b = pipe.execute()
        return int(a) + int(b)

    def claim(self, user_id: str, session_id: str, *, drain: bool = False) -> ArchiveBatch | None:
        """Claim the oldest batch for archiving (or a batch a crashed process left behind); None if none.
        ``drain`` claims even below the threshold (sweeping an idle session)."""
        keys = list(self.keys(user_id, session_id))
        token = self.new_token()
        reply, _ = self._write(self._claim, keys, self.claim_args(token, drain=drain))
        return self.claim_result(user_id, session_id, token, reply)

    def ack(self, batch: ArchiveBatch) -> bool:
        """Delete a batch whose memories have landed in long-term memory. False if another process owns it now."""
        _key, pending, lease = self.keys(batch.user_id, batch.session_id)
        reply, _ = self._write(self._ack, [pending, lease], [batch.token, batch.first_raw])
        return bool(reply)

    def release(self, batch: ArchiveBatch) -> None:
        """Give a batch back after a failed archive step; it stays pending and is offered again."""
        _key, _pending, lease = self.keys(batch.user_id, batch.session_id)
        self._write(self._release, [lease], [batch.token])

    def clear(self, user_id: str, session_id: str) -> int:
        """Delete a session's short-term memory, pending batch included. Returns the number of keys removed."""
        with redis_unavailable(self.client):
            return int(self.client.delete(*self.keys(user_id, session_id)))
