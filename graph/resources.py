"""Turn settings into live stores: external services by URL, embedded ones when a URL is unset.

Everything is opened lazily on first use and closed by :meth:`Resources.close` (only what was opened here).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graph.settings import Settings
from memory.embedded import EdgeQdrant, EmbeddedPostgres, EmbeddedRedis, LocalQdrant, ServiceStatus
from memory.errors import InvalidInputError, ServiceUnavailableError, one_line, redact_url

if TYPE_CHECKING:  # each client library loads when its store is first opened (a CLI command pays for its own)
    from psycopg_pool import ConnectionPool

    from memory.checkpoint.base import SaverConfig
    from memory.embeddings import Embedder
    from memory.events import MemoryEvents
    from memory.long_term import Client, LongTermMemory
    from memory.outbox import Outbox
    from memory.postgres import TaskStore, UsageLedger
    from memory.redis_cluster import RedisClient
    from memory.short_term import ShortTermMemory, STMConfig


def stm_config(settings: Settings) -> STMConfig:
    from memory.short_term import STMConfig

    return STMConfig(
        prefix=settings.key_prefix, ttl_s=settings.stm_ttl_s, archive_threshold=settings.stm_archive_threshold,
        archive_batch=settings.stm_archive_batch, lease_s=settings.stm_archive_lease_s,
        pending_ttl_s=settings.stm_pending_ttl_s, window=settings.stm_window,
        max_message_chars=settings.max_message_chars, max_id_length=settings.max_id_length,
        wait_replicas=settings.redis_wait_replicas, wait_timeout_ms=settings.redis_wait_timeout_ms,
    )


def saver_config(settings: Settings) -> SaverConfig:
    """The Redis checkpointer's settings (the WAIT ones apply on a Redis Cluster only)."""
    from memory.checkpoint.base import SaverConfig

    return SaverConfig(prefix=f"{settings.key_prefix}:cp", ttl_s=settings.checkpoint_ttl_s,
                       refresh_on_read=settings.checkpoint_refresh_on_read,
                       wait_replicas=settings.redis_wait_replicas, wait_timeout_ms=settings.redis_wait_timeout_ms)


def redis_url(settings: Settings) -> str:
    """The configured Redis URL, or the embedded server's (started if needed)."""
    return settings.redis_url or EmbeddedRedis(settings.data_dir).ensure()


def database_url(settings: Settings) -> str:
    """The configured PostgreSQL URL, or the embedded server's (started if needed)."""
    return settings.database_url or EmbeddedPostgres(settings.data_dir).ensure()


def connect_redis(url: str, timeout_s: float, *, cluster: bool | None = None,
                  failover_wait_s: float = 10.0) -> RedisClient:
    """A client that has answered PING, or :class:`ServiceUnavailableError` naming the URL: a Redis Cluster
    client on a cluster node (``cluster`` None: the server says whether it is one), a plain one otherwise."""
    import redis

    from memory.redis_cluster import open_redis

    try:
        client = open_redis(url, cluster=cluster, timeout_s=timeout_s, failover_wait_s=failover_wait_s)
    except ValueError as exc:
        if isinstance(exc, ServiceUnavailableError | InvalidInputError):
            raise
        raise ServiceUnavailableError("Redis", url, f"invalid URL: {exc}") from exc
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        client.close()
        raise ServiceUnavailableError("Redis", url, str(exc) or type(exc).__name__,
                                      fix="start Redis or set PALACE_REDIS_URL") from exc
    return client


def connect_qdrant(settings: Settings) -> Client:
    """A client for the configured Qdrant server, or the embedded engine under the data directory (Qdrant Edge
    by default; memories left in the old local-mode directory are copied over on first use)."""
    from memory.embedded import migrate_local_to_edge

    if not settings.qdrant_url:
        if settings.qdrant_engine == "local":
            local: Client = LocalQdrant(settings.data_dir).open(wait_s=settings.qdrant_lock_wait_s)
            return local
        edge = EdgeQdrant(settings.data_dir).open(wait_s=settings.qdrant_lock_wait_s)
        try:
            copied = migrate_local_to_edge(settings.data_dir, edge)
        except Exception as exc:
            edge.close()
            raise ServiceUnavailableError("Qdrant", f"edge:{settings.data_dir / 'qdrant-edge'}",
                                          f"copying memories from local mode failed: {one_line(exc)}",
                                          fix="set PALACE_QDRANT_ENGINE=local to keep using local mode") from exc
        if copied:
            warnings.warn(f"copied {sum(copied.values())} memories from Qdrant local mode to Qdrant Edge "
                          f"({settings.data_dir / 'qdrant.migrated'} keeps the old copy)", stacklevel=2)
        client: Client = edge
        return client
    from qdrant_client import QdrantClient

    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    try:
        client = QdrantClient(url=settings.qdrant_url, api_key=key, timeout=int(max(1, settings.service_timeout_s)))
        client.get_collections()
    except Exception as exc:  # qdrant-client raises httpx, grpc and its own errors for an unreachable server
        raise ServiceUnavailableError("Qdrant", settings.qdrant_url, one_line(exc),
                                      fix="start Qdrant or fix PALACE_QDRANT_URL") from exc
    return client


@dataclass
class Resources:
    """The stores of one process, opened on first use."""

    settings: Settings
    _redis: RedisClient | None = None
    _pool: ConnectionPool[Any] | None = None
    _qdrant: Client | None = None
    _embeddings: Embedder | None = None
    _ltm: LongTermMemory | None = None
    _opened: list[Any] = field(default_factory=list)

    @property
    def redis(self) -> RedisClient:
        if self._redis is None:
            s = self.settings
            self._redis = connect_redis(redis_url(s), s.service_timeout_s, cluster=s.redis_cluster,
                                        failover_wait_s=s.redis_failover_wait_s)
            self._opened.append(self._redis)
        return self._redis

    @property
    def pool(self) -> ConnectionPool[Any]:
        if self._pool is None:
            from memory import postgres

            s = self.settings
            self._pool = postgres.open_pool(database_url(s), min_size=s.pg_pool_min_size,
                                            max_size=s.pg_pool_max_size, timeout_s=s.service_timeout_s)
            self._opened.append(self._pool)
            postgres.setup(self._pool)
        return self._pool

    @property
    def qdrant(self) -> Client:
        if self._qdrant is None:
            self._qdrant = connect_qdrant(self.settings)
            self._opened.append(self._qdrant)
        return self._qdrant

    @property
    def embeddings(self) -> Embedder:
        if self._embeddings is None:
            from memory.embeddings import make_embeddings

            s = self.settings
            self._embeddings = make_embeddings(
                s.embedding_model, base_url=s.embedding_base_url,
                api_key=s.embedding_api_key.get_secret_value() if s.embedding_api_key else None)
        return self._embeddings

    def short_term(self) -> ShortTermMemory:
        from memory.short_term import ShortTermMemory

        return ShortTermMemory(self.redis, stm_config(self.settings))

    def long_term(self) -> LongTermMemory:
        """The long-term store, its collection set up once per Resources (setup costs round trips)."""
        if self._ltm is None:
            from memory.embeddings import vector_size
            from memory.long_term import LongTermMemory

            ltm = LongTermMemory(self.qdrant, self.settings.qdrant_collection,
                                 max_id_length=self.settings.max_id_length,
                                 max_text_chars=self.settings.max_message_chars)
            ltm.setup(vector_size(self.embeddings))
            self._ltm = ltm
        return self._ltm

    def tasks(self) -> TaskStore:
        from memory.postgres import TaskStore

        return TaskStore(self.pool, max_id_length=self.settings.max_id_length)

    def ledger(self) -> UsageLedger:
        from memory.postgres import UsageLedger

        return UsageLedger(self.pool, max_id_length=self.settings.max_id_length, prices=self.settings.prices)

    def outbox(self) -> Outbox:
        from memory.outbox import Outbox

        return Outbox(self.pool, max_id_length=self.settings.max_id_length)

    def events(self) -> MemoryEvents:
        from memory.events import MemoryEvents

        return MemoryEvents(self.pool, max_id_length=self.settings.max_id_length)

    def close(self) -> None:
        while self._opened:
            self._opened.pop().close()
        self._redis = self._pool = self._qdrant = None
        self._ltm = None

    def __enter__(self) -> Resources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- palace services: one set of services for status, start and stop ---------------------------------------
# Redis, PostgreSQL and Qdrant always; the local chat model when no chat model is configured (or when one is
# still running from before). Each is external (a URL is set: checked, never started or stopped) or embedded.


def _uses_local_model(settings: Settings) -> bool:
    from memory.local_model import running_endpoints

    return not settings.chat_model or bool(running_endpoints(settings.data_dir))


def _embedded_qdrant(settings: Settings) -> EdgeQdrant | LocalQdrant:
    return (LocalQdrant if settings.qdrant_engine == "local" else EdgeQdrant)(settings.data_dir)


def services_status(settings: Settings) -> list[ServiceStatus]:
    """What runs where, each checked live (nothing is started): a server answers, a process is alive, the
    embedded Qdrant's lock is held (it runs inside the process that opened it, so idle storage is not running)."""
    out: list[ServiceStatus] = []
    if settings.redis_url:
        try:
            connect_redis(settings.redis_url, settings.service_timeout_s, cluster=settings.redis_cluster).close()
            out.append(ServiceStatus("Redis", "external", redact_url(settings.redis_url), True))
        except ServiceUnavailableError as exc:
            out.append(ServiceStatus("Redis", "external", redact_url(settings.redis_url), False, detail=exc.reason))
    else:
        out.append(EmbeddedRedis(settings.data_dir).status())
    if settings.database_url:
        from memory import postgres

        try:
            postgres.open_pool(settings.database_url, min_size=1, max_size=1,
                               timeout_s=settings.service_timeout_s).close()
            out.append(ServiceStatus("PostgreSQL", "external", redact_url(settings.database_url), True))
        except ServiceUnavailableError as exc:
            out.append(ServiceStatus("PostgreSQL", "external", redact_url(settings.database_url), False,
                                     detail=exc.reason))
    else:
        out.append(EmbeddedPostgres(settings.data_dir).status())
    if settings.qdrant_url:
        from memory.long_term import describe_qdrant

        try:
            client = connect_qdrant(settings)
            out.append(ServiceStatus("Qdrant", "external", describe_qdrant(client), True))
            client.close()
        except ServiceUnavailableError as exc:
            out.append(ServiceStatus("Qdrant", "external", settings.qdrant_url, False, detail=exc.reason))
    else:
        out.append(_embedded_qdrant(settings).status())
    if _uses_local_model(settings):
        from graph.local_servers import local_servers

        out += [server.status() for server in local_servers(settings)]
    return out


def start_services(settings: Settings) -> list[str]:
    """Start the embedded services of :func:`services_status` that are not running (Redis, PostgreSQL, the local
    model when no chat model is configured) and check each external one answers; the embedded Qdrant is opened
    once to check it can be (it runs inside each command). Returns what was started or checked."""
    done: list[str] = []
    with Resources(settings) as res:
        res.redis.ping()
        done.append("Redis")
        with res.pool.connection() as conn:
            conn.execute("SELECT 1")
        done.append("PostgreSQL")
        res.qdrant  # noqa: B018 - opens (or connects to) it; closed with the resources
        done.append("Qdrant")
    if not settings.chat_model:
        from graph.local_servers import local_servers

        for server in local_servers(settings):
            server.ensure()
            done.append(server.name)
    return done


def stop_services(settings: Settings) -> list[str]:
    """Stop the embedded services of :func:`services_status` that run (their data stays on disk); external ones
    are never touched, and the embedded Qdrant has no process of its own (it stops with the process holding it).
    Returns the names of those stopped."""
    stopped = []
    if not settings.redis_url and EmbeddedRedis(settings.data_dir).stop():
        stopped.append("Redis")
    if not settings.database_url and EmbeddedPostgres(settings.data_dir).stop():
        stopped.append("PostgreSQL")
    if _uses_local_model(settings):
        from memory.local_model import stop_all

        stopped += [f"local model {key}" for key in stop_all(settings.data_dir)]
    return stopped
