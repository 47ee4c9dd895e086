"""Shared fixtures: real Redis, PostgreSQL and Qdrant, external (127.0.0.1) and embedded, isolated per test.

Tests that take ``redis_server_url`` run on the external Redis and the embedded one; marked
``@pytest.mark.redis_cluster`` they also run on a 3-master / 3-replica Redis Cluster started for the session. Tests
that take ``pg_server_url`` run on the external and the embedded PostgreSQL; marked ``@pytest.mark.pgbouncer`` they
also run through a PgBouncer in transaction mode in front of the external one. A test taking both gets every
pairing of the two single-server backends, plus (cluster, external PostgreSQL) and (external Redis, PgBouncer).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
import redis
from hypothesis import settings
from qdrant_client import QdrantClient

from bench.local_services import LocalPgBouncer, LocalRedisCluster, LocalServiceError
from memory.edge import EdgeClient
from memory.embedded import EmbeddedPostgres, EmbeddedRedis
from memory.long_term import Client
from memory.redis_cluster import RedisClient, open_redis

# The machines are shared and noisy (2 cores): a per-example deadline fails on a slow moment, not on a bug.
settings.register_profile("palace", deadline=None)
settings.load_profile("palace")

EXTERNAL_REDIS = os.environ.get("PALACE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
EXTERNAL_PG = os.environ.get("PALACE_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def _require_external(name: str, check: object) -> None:
    try:
        check()  # type: ignore[operator]
    except Exception as exc:  # any failure to reach the service
        if os.environ.get("CI"):
            raise RuntimeError(f"CI needs the external {name}: {exc}") from exc
        pytest.skip(f"external {name} not reachable: {exc}")


@contextmanager
def external_stack(kind: str, redis_url: str = EXTERNAL_REDIS) -> Iterator[tuple[str, str, str]]:
    """A Redis (the external one unless ``redis_url`` names another, e.g. the session's cluster) and a fresh
    database on the external PostgreSQL, with a fresh key prefix: (redis url, database url, prefix). Everything is
    removed afterwards. For tests that start their own processes on real services."""
    _require_external("Redis", lambda: open_redis(redis_url, timeout_s=2).ping())
    _require_external("PostgreSQL", lambda: psycopg.connect(EXTERNAL_PG, connect_timeout=2).close())
    name = f"{kind}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(EXTERNAL_PG, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    prefix = f"t{uuid.uuid4().hex[:10]}"
    try:
        yield redis_url, psycopg.conninfo.make_conninfo(EXTERNAL_PG, dbname=name), prefix
    finally:
        client = open_redis(redis_url)
        delete_prefix(client, prefix)
        client.close()
        with psycopg.connect(EXTERNAL_PG, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def embedded_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One data directory for the embedded services of the whole run; they are stopped at the end."""
    path = tmp_path_factory.mktemp("palace-embedded")
    yield path
    EmbeddedRedis(path).stop()
    EmbeddedPostgres(path).stop()


SINGLE = ["external", "embedded"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Backends of ``redis_server_url`` and ``pg_server_url`` (see the module docstring)."""
    redis_used = "redis_server_url" in metafunc.fixturenames
    pg_used = "pg_server_url" in metafunc.fixturenames
    cluster = metafunc.definition.get_closest_marker("redis_cluster") is not None
    bouncer = metafunc.definition.get_closest_marker("pgbouncer") is not None
    if redis_used and pg_used:
        pairs = [(r, p) for r in SINGLE for p in SINGLE]
        pairs += [("cluster", "external")] * cluster + [("external", "pgbouncer")] * bouncer
        metafunc.parametrize(("redis_server_url", "pg_server_url"), pairs, indirect=True, scope="session",
                             ids=[f"{r}-{p}" for r, p in pairs])
    elif redis_used:
        metafunc.parametrize("redis_server_url", SINGLE + ["cluster"] * cluster, indirect=True, scope="session")
    elif pg_used:
        metafunc.parametrize("pg_server_url", SINGLE + ["pgbouncer"] * bouncer, indirect=True, scope="session")


def _local_service(start: object) -> object:
    try:
        return start()  # type: ignore[operator]
    except LocalServiceError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedisCluster]:
    """A 3-master / 3-replica Redis Cluster of the machine's redis-server on free loopback ports, for the run."""
    cluster = _local_service(LocalRedisCluster(tmp_path_factory.mktemp("redis-cluster")).start)
    assert isinstance(cluster, LocalRedisCluster)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def pgbouncer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPgBouncer]:
    """PgBouncer (pool_mode = transaction) in front of the external PostgreSQL, for the run."""
    _require_external("PostgreSQL", lambda: psycopg.connect(EXTERNAL_PG, connect_timeout=2).close())
    bouncer = _local_service(LocalPgBouncer(tmp_path_factory.mktemp("pgbouncer"), EXTERNAL_PG).start)
    assert isinstance(bouncer, LocalPgBouncer)
    yield bouncer
    bouncer.stop()


@pytest.fixture(scope="session")
def redis_server_url(request: pytest.FixtureRequest, embedded_dir: Path) -> str:
    if request.param == "external":
        _require_external("Redis", lambda: redis.Redis.from_url(EXTERNAL_REDIS, socket_connect_timeout=2).ping())
        return EXTERNAL_REDIS
    if request.param == "cluster":
        cluster: LocalRedisCluster = request.getfixturevalue("redis_cluster")
        return cluster.url
    return EmbeddedRedis(embedded_dir).ensure()


@pytest.fixture
def redis_client(redis_server_url: str) -> Iterator[RedisClient]:
    """A client of the test's Redis: a cluster client on the cluster (detected, as the product does)."""
    client = open_redis(redis_server_url)
    yield client
    client.close()


@pytest.fixture
def key_prefix(redis_client: RedisClient) -> Iterator[str]:
    """A fresh key prefix per test; its keys are removed afterwards."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    yield prefix
    delete_prefix(redis_client, prefix)


def delete_prefix(client: RedisClient, prefix: str) -> None:
    """Remove every key under ``prefix`` (on a cluster: on every master, one slot at a time)."""
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)  # a cluster client splits the DEL by slot


@pytest.fixture(scope="session")
def pg_server_url(request: pytest.FixtureRequest, embedded_dir: Path) -> str:
    if request.param == "external":
        _require_external("PostgreSQL", lambda: psycopg.connect(EXTERNAL_PG, connect_timeout=2).close())
        return EXTERNAL_PG
    if request.param == "pgbouncer":
        bouncer: LocalPgBouncer = request.getfixturevalue("pgbouncer")
        return bouncer.url()  # CREATE / DROP DATABASE of pg_url go through it too (autocommit: one transaction each)
    return EmbeddedPostgres(embedded_dir).ensure()


def _with_dbname(url: str, dbname: str) -> str:
    return psycopg.conninfo.make_conninfo(url, dbname=dbname)


@pytest.fixture
def pg_url(pg_server_url: str) -> Iterator[str]:
    """A fresh database per test, dropped afterwards."""
    name = f"palace_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield _with_dbname(pg_server_url, name)
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["edge", "memory", "path"])
def qdrant_client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Client]:
    """Qdrant Edge (the embedded default) and local mode, in memory and on disk (no Qdrant server runs on these
    machines; PALACE_TEST_QDRANT_URL replaces the in-memory one with a server)."""
    url = os.environ.get("PALACE_TEST_QDRANT_URL")
    client: Client
    if request.param == "edge":
        client = EdgeClient(tmp_path / "edge")
    elif url and request.param == "memory":
        client = QdrantClient(url=url)
    else:
        client = QdrantClient(":memory:") if request.param == "memory" else QdrantClient(path=str(tmp_path / "q"))
    yield client
    client.close()


@pytest.fixture(scope="session")
def e5() -> object:
    """One real e5 embedder for the run (its model loads once)."""
    from memory.embeddings import E5Embeddings

    return E5Embeddings()
