"""Redis clients for one server or a Redis Cluster, chosen by a setting or asked of the server, that ride out a
failover; and the durable write (a script plus ``WAIT`` on the same connection).

- :func:`open_redis` / :func:`open_async_redis`: ``cluster=None`` asks the server (``INFO cluster``); ``True`` /
  ``False`` insist, with a clear error when the server says otherwise (a plain client on a cluster node would get
  ``MOVED`` for two thirds of the keys).
- On a cluster, a command or pipeline whose master is gone is retried with back-off, the slot map re-read each time,
  for up to ``failover_wait_s``: long enough for a replica to be promoted (cluster-node-timeout plus an election),
  so a turn running across a failover goes on instead of failing. redis-py retries too, but without waiting, so its
  retries are spent in milliseconds against a dead port.
- :func:`eval_durably` runs a Lua script on the master of its keys and then ``WAIT n timeout`` on the same
  connection: the reply says how many replicas hold the write. Replication is asynchronous; without ``WAIT`` a write
  acknowledged by a master that dies a millisecond later may never reach the replica that takes its place.

Retried operations must be idempotent: a write may have landed before its connection broke.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import AbstractStrategy as AsyncAbstractStrategy
from redis.asyncio.cluster import ClusterPipeline as AsyncClusterPipeline
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.client import Pipeline
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.commands.core import AsyncScript, Script
from redis.event import EventDispatcherInterface
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MasterDownError,
    NoScriptError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

from memory.errors import InvalidInputError, ServiceUnavailableError, redact_url

log = logging.getLogger(__name__)

RedisClient: TypeAlias = redis.Redis | RedisCluster
AsyncRedisClient: TypeAlias = aioredis.Redis | AsyncRedisCluster

# What a failover looks like from a client: the master's port refuses, the slot has no master for a moment, or
# the slot map names the old master (MOVED / ASK are followed by redis-py itself).
FAILOVER_ERRORS: tuple[type[Exception], ...] = (
    RedisConnectionError, RedisTimeoutError, ClusterDownError, MasterDownError, SlotNotCoveredError, TryAgainError,
)
DEFAULT_FAILOVER_WAIT_S = 10.0


class _Backoff:
    def __init__(self, wait_s: float) -> None:
        self.deadline = time.monotonic() + wait_s
        self.delay = 0.05

    def check(self, exc: Exception) -> None:
        """Re-raise ``exc`` when the wait is over (for retries that need no sleep, like a redirect)."""
        if time.monotonic() > self.deadline:
            raise exc

    def next_delay(self, exc: Exception) -> float:
        """Seconds to sleep before the next attempt; re-raises ``exc`` when the wait is over."""
        if time.monotonic() + self.delay > self.deadline:
            raise exc
        delay, self.delay = self.delay, min(self.delay * 2, 0.5)
        return delay


class FailoverRedisCluster(RedisCluster):
    """``RedisCluster`` whose commands and pipelines wait out a failover (up to ``failover_wait_s``)."""

    failover_wait_s: float = DEFAULT_FAILOVER_WAIT_S

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        execute: Callable[..., Any] = super().execute_command  # unannotated in redis-py: typed here
        backoff = _Backoff(self.failover_wait_s)
        while True:
            try:
                return execute(*args, **kwargs)
            except FAILOVER_ERRORS as exc:
                time.sleep(backoff.next_delay(exc))

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> ClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        pipe = FailoverClusterPipeline(
            nodes_manager=self.nodes_manager, commands_parser=self.commands_parser,
            startup_nodes=list(self.nodes_manager.startup_nodes.values()), result_callbacks=self.result_callbacks,
            cluster_response_callbacks=self.cluster_response_callbacks, read_from_replicas=self.read_from_replicas,
            load_balancing_strategy=self.load_balancing_strategy, reinitialize_steps=self.reinitialize_steps,
            retry=self.retry, lock=self._lock, transaction=transaction, event_dispatcher=self._event_dispatcher)
        pipe.failover_wait_s = self.failover_wait_s
        return pipe


class FailoverClusterPipeline(ClusterPipeline):
    """A cluster pipeline that, when its node is gone, queues its commands again and retries (redis 8.1's pipeline
    clears its queue after every execute, so the queue is copied first)."""

    failover_wait_s: float = DEFAULT_FAILOVER_WAIT_S

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        queued = [(c.args, c.options) for c in self._execution_strategy.command_queue]
        requeue: Callable[..., Any] = self.execute_command  # unannotated in redis-py: typed here
        backoff = _Backoff(self.failover_wait_s)
        while True:
            try:
                return super().execute(raise_on_error)
            except FAILOVER_ERRORS as exc:
                time.sleep(backoff.next_delay(exc))
                self.nodes_manager.initialize()
                for args, options in queued:
                    requeue(*args, **options)


class AsyncFailoverRedisCluster(AsyncRedisCluster):
    """The asyncio twin of :class:`FailoverRedisCluster`."""

    failover_wait_s: float = DEFAULT_FAILOVER_WAIT_S

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        backoff = _Backoff(self.failover_wait_s)
        while True:
            try:
                return await super().execute_command(*args, **kwargs)
            except FAILOVER_ERRORS as exc:
                await asyncio.sleep(backoff.next_delay(exc))

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> AsyncClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        return AsyncFailoverClusterPipeline(self, transaction)


class AsyncFailoverClusterPipeline(AsyncClusterPipeline):
    def __init__(self, client: AsyncRedisCluster, transaction: bool | None = None) -> None:
        super().__init__(client, transaction)
        # redis-py's commands protocol declares this attribute and its async cluster pipeline never sets it, which
        # leaves the class abstract to a type checker: set it to the client's
        self._event_dispatcher: EventDispatcherInterface = client._event_dispatcher

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        client = self.cluster_client
        wait_s = client.failover_wait_s if isinstance(client, AsyncFailoverRedisCluster) else DEFAULT_FAILOVER_WAIT_S
        strategy = self._execution_strategy  # declared as the abstract ExecutionStrategy, which has no queue
        assert isinstance(strategy, AsyncAbstractStrategy), type(strategy)
        queued = [(c.args, c.kwargs) for c in strategy._command_queue]
        backoff = _Backoff(wait_s)
        while True:
            try:
                return await super().execute(raise_on_error, allow_redirections)
            except FAILOVER_ERRORS as exc:
                await asyncio.sleep(backoff.next_delay(exc))
                for args, kwargs in queued:
                    self.execute_command(*args, **kwargs)


_warned: dict[str, float] = {}


def _warn_short(node: str, wanted: int, acked: int, timeout_ms: int) -> None:
    """Say (once a minute per master) that writes are not replicated: a master without its replica (just promoted,
    the old master not back yet) makes every WAIT time out."""
    now = time.monotonic()
    if now - _warned.get(node, -1e9) >= 60:
        _warned[node] = now
        log.warning("WAIT %d: only %d replicas of %s acknowledged within %d ms (writes there are not replicated "
                    "until a replica is back)", wanted, acked, node, timeout_ms)


def _cluster_enabled(url: str, timeout_s: float) -> bool:
    probe = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        return bool(probe.info("cluster").get("cluster_enabled"))
    except (redis.RedisError, OSError) as exc:
        raise ServiceUnavailableError("Redis", url, str(exc) or type(exc).__name__,
                                      fix="start Redis or set PALACE_REDIS_URL") from exc
    finally:
        probe.close()


def decide_cluster(url: str, cluster: bool | None, timeout_s: float) -> bool:
    """Whether ``url`` is to be used as a Redis Cluster: the setting, checked against the server, or the server's
    own answer when the setting is unset."""
    try:
        enabled = _cluster_enabled(url, timeout_s)
    except ValueError as exc:
        raise ServiceUnavailableError("Redis", url, f"invalid URL: {exc}") from exc
    if cluster is True and not enabled:
        raise InvalidInputError(f"PALACE_REDIS_CLUSTER=true but the Redis at {redact_url(url)} is not a cluster "
                                "node (INFO cluster: cluster_enabled:0); unset it or point PALACE_REDIS_URL at a node")
    if cluster is False and enabled:
        raise InvalidInputError(f"the Redis at {redact_url(url)} is a Redis Cluster node: set PALACE_REDIS_CLUSTER="
                                "true (or leave it unset) so that keys are routed to their masters")
    if enabled and url.startswith("unix:"):
        raise InvalidInputError(f"a Redis Cluster is reached over TCP, not {redact_url(url)}")
    return enabled


def open_redis(url: str, *, cluster: bool | None = None, timeout_s: float = 5.0,
               failover_wait_s: float = DEFAULT_FAILOVER_WAIT_S) -> RedisClient:
    """A client for ``url``: :class:`FailoverRedisCluster` on a cluster node, ``redis.Redis`` otherwise."""
    if decide_cluster(url, cluster, timeout_s):
        client = FailoverRedisCluster.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
        assert isinstance(client, FailoverRedisCluster)
        client.failover_wait_s = failover_wait_s
        return client
    return redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)


def open_async_redis(url: str, *, cluster: bool | None = None, timeout_s: float = 5.0,
                     failover_wait_s: float = DEFAULT_FAILOVER_WAIT_S) -> AsyncRedisClient:
    """The asyncio twin of :func:`open_redis` (the cluster question is asked once, synchronously)."""
    if decide_cluster(url, cluster, timeout_s):
        client = AsyncFailoverRedisCluster.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
        assert isinstance(client, AsyncFailoverRedisCluster)
        client.failover_wait_s = failover_wait_s
        return client
    return aioredis.Redis.from_url(url)


def is_cluster(client: object) -> bool:
    return isinstance(client, RedisCluster | AsyncRedisCluster)


def _demoted(exc: ResponseError) -> bool:
    """Whether ``exc`` is Redis's answer to a ``WAIT`` blocked on a master that became a replica meanwhile (a
    failover gave its slots to another node): ``UNBLOCKED force unblock from blocking operation, instance state
    changed (master -> replica?)``. The write before it may be gone with the old master's resync."""
    return "UNBLOCKED" in str(exc)


def _as_failover(exc: ResponseError) -> Exception:
    """``exc`` as a failover error (what callers map to "Redis unavailable", exit 3) if the wait ends on it."""
    return exc if isinstance(exc, FAILOVER_ERRORS) else MasterDownError(str(exc))


def command(conn: redis.Redis | RedisCluster | Pipeline, *args: EncodableT) -> Any:
    """``conn.execute_command(*args)``: redis-py leaves ``execute_command`` unannotated (an untyped call under strict
    mypy), so the call goes through a ``Callable`` here and its callers stay checked."""
    execute: Callable[..., Any] = conn.execute_command
    return execute(*args)


async def acommand(conn: aioredis.Redis, *args: EncodableT) -> Any:
    """The asyncio twin of :func:`command` (``redis.asyncio.Redis.execute_command`` is unannotated too)."""
    execute: Callable[..., Awaitable[Any]] = conn.execute_command
    return await execute(*args)


def master_node(client: RedisCluster, key: str | bytes) -> ClusterNode:
    """The master of ``key``'s slot in ``client``'s slot map (redis-py leaves ``get_node_from_key`` unannotated, so
    the call is typed here). Raises ``SlotNotCoveredError`` when no master serves the slot."""
    lookup: Callable[..., ClusterNode | None] = client.get_node_from_key
    node = lookup(key, replica=False)
    if node is None:
        raise SlotNotCoveredError(f"no master serves the slot of {key!r}")
    return node


def _role(reply: Any) -> bytes:
    """The role in a ``ROLE`` reply: b"master", b"slave" (b"" for anything unexpected)."""
    return bytes(reply[0]) if isinstance(reply, list | tuple) and reply else b""


def _wait_for(client: RedisCluster | AsyncRedisCluster, wait_s: float | None) -> float:
    if wait_s is not None:
        return wait_s
    if isinstance(client, FailoverRedisCluster | AsyncFailoverRedisCluster):
        return client.failover_wait_s
    return DEFAULT_FAILOVER_WAIT_S


def eval_durably(client: RedisCluster, script: Script, keys: Sequence[str], args: Sequence[Any], *,
                 replicas: int, timeout_ms: int, wait_s: float | None = None) -> tuple[Any, int]:
    """Run ``script`` on the master of ``keys`` (one slot), then ``WAIT replicas timeout_ms`` on the same connection.
    Returns (the script's reply, how many replicas acknowledged the write). A failover on the way is waited out (up
    to ``wait_s``, by default the client's ``failover_wait_s``) and the script run again on the new master, so the
    script must be idempotent. That includes a master demoted while its ``WAIT`` was blocked (a paused or
    partitioned master whose replica took over): its write is not trusted and is made again on the new master."""
    backoff = _Backoff(_wait_for(client, wait_s))
    while True:
        node = master_node(client, keys[0])
        conn = client.get_redis_connection(node)
        pipe = conn.pipeline(transaction=False)
        pipe.evalsha(script.sha, len(keys), *keys, *args)
        command(pipe, "WAIT", replicas, timeout_ms)
        try:
            reply, acked = pipe.execute()
            if int(acked) < replicas and _role(command(conn, "ROLE")) != b"master":
                raise MasterDownError(f"{node.name} is no longer a master (it WAITed for no replica)")
        except NoScriptError:
            conn.script_load(script.script)
            continue
        except AskError as exc:  # MOVED (a subclass) or ASK: the slot map changed under us
            backoff.check(exc)
            client.nodes_manager.initialize()
            continue
        except ResponseError as exc:
            if not isinstance(exc, FAILOVER_ERRORS) and not _demoted(exc):
                raise
            time.sleep(backoff.next_delay(_as_failover(exc)))
            client.nodes_manager.initialize()
            continue
        except FAILOVER_ERRORS as exc:
            time.sleep(backoff.next_delay(exc))
            client.nodes_manager.initialize()
            continue
        if int(acked) < replicas:
            _warn_short(node.name, replicas, int(acked), timeout_ms)
        return reply, int(acked)


_async_nodes: dict[tuple[int, str], aioredis.Redis] = {}


async def aeval_durably(client: AsyncRedisCluster, script: AsyncScript, keys: Sequence[str], args: Sequence[Any],
                        *, replicas: int, timeout_ms: int, wait_s: float | None = None) -> tuple[Any, int]:
    """The asyncio twin of :func:`eval_durably` (a plain client per master, cached per cluster client)."""
    backoff = _Backoff(_wait_for(client, wait_s))
    while True:
        node = client.get_node_from_key(keys[0], replica=False)
        if node is None:
            exc: Exception = SlotNotCoveredError(f"no master serves the slot of {keys[0]!r}")
            await asyncio.sleep(backoff.next_delay(exc))
            await client.initialize()
            continue
        plain = _async_nodes.get((id(client), node.name))
        if plain is None:
            plain = _async_nodes[(id(client), node.name)] = aioredis.Redis(host=node.host, port=int(node.port))
        pipe = plain.pipeline(transaction=False)
        pipe.evalsha(script.sha, len(keys), *keys, *args)
        pipe.execute_command("WAIT", replicas, timeout_ms)
        try:
            reply, acked = await pipe.execute()
            if int(acked) < replicas and _role(await acommand(plain, "ROLE")) != b"master":
                raise MasterDownError(f"{node.name} is no longer a master (it WAITed for no replica)")
        except NoScriptError:
            await plain.script_load(script.script)
            continue
        except AskError as exc:
            backoff.check(exc)
            client._initialize = True  # redis-py's own flag: re-read the slot map on the next command
            await client.initialize()
            continue
        except ResponseError as exc:
            if not isinstance(exc, FAILOVER_ERRORS) and not _demoted(exc):
                raise
            await asyncio.sleep(backoff.next_delay(_as_failover(exc)))
            client._initialize = True
            await client.initialize()
            continue
        except FAILOVER_ERRORS as exc:
            await asyncio.sleep(backoff.next_delay(exc))
            client._initialize = True
            await client.initialize()
            continue
        if int(acked) < replicas:
            _warn_short(node.name, replicas, int(acked), timeout_ms)
        return reply, int(acked)


async def aclose_durable_nodes(client: AsyncRedisCluster) -> None:
    """Close the per-master clients :func:`aeval_durably` opened for ``client``."""
    for key in [k for k in _async_nodes if k[0] == id(client)]:
        await _async_nodes.pop(key).aclose()
