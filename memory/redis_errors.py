"""Turn redis-py connection failures into :class:`ServiceUnavailableError` with the server's address."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from redis.exceptions import ClusterDownError, SlotNotCoveredError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from memory.errors import ServiceUnavailableError


def describe_redis(client: Any) -> str:
    """A URL-like description of where a redis-py client points (for error messages)."""
    nodes = getattr(client, "nodes_manager", None)
    if nodes is not None:  # a Redis Cluster client: the node it was given
        first = next(iter(nodes.startup_nodes.values()), None)
        return f"redis://{first.host}:{first.port} (cluster)" if first else "redis cluster"
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {}) or {}
    if kwargs.get("path"):
        return f"unix://{kwargs['path']}"
    return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"


@contextmanager
def redis_unavailable(client: Any) -> Iterator[None]:
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, OSError, ClusterDownError, SlotNotCoveredError,
            TryAgainError) as exc:  # the last three: a Redis Cluster that lost a master and has not replaced it
        raise ServiceUnavailableError("Redis", describe_redis(client), str(exc) or type(exc).__name__,
                                      fix="start Redis or set PALACE_REDIS_URL") from exc
