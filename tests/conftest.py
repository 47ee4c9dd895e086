"""Shared fixtures: real Redis, PostgreSQL and Qdrant, external (127.0.0.1) and embedded, isolated per test."""

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

from memory.edge import EdgeClient
from memory.embedded import EmbeddedPostgres, EmbeddedRedis
from memory.long_term import Client

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
def external_stack(kind: str) -> Iterator[tuple[str, str, str]]:
    """The external Redis and a fresh PostgreSQL database, with a fresh key prefix: (redis url, database url,
    prefix). Everything is removed afterwards. For tests that start their own processes on real services."""
    _require_external("Redis", lambda: redis.Redis.from_url(EXTERNAL_REDIS, socket_connect_timeout=2).ping())
    _require_external("PostgreSQL", lambda: psycopg.connect(EXTERNAL_PG, connect_timeout=2).close())
    name = f"{kind}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(EXTERNAL_PG, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    prefix = f"t{uuid.uuid4().hex[:10]}"
    try:
        yield EXTERNAL_REDIS, psycopg.conninfo.make_conninfo(EXTERNAL_PG, dbname=name), prefix
    finally:
        client = redis.Redis.from_url(EXTERNAL_REDIS)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
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


@pytest.fixture(scope="session", params=["external", "embedded"])
def redis_server_url(request: pytest.FixtureRequest, embedded_dir: Path) -> str:
    if request.param == "external":
        _require_external("Redis", lambda: redis.Redis.from_url(EXTERNAL_REDIS, socket_connect_timeout=2).ping())
        return EXTERNAL_REDIS
    return EmbeddedRedis(embedded_dir).ensure()


@pytest.fixture
def redis_client(redis_server_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server_url)
    yield client
    client.close()


@pytest.fixture
def key_prefix(redis_client: redis.Redis) -> Iterator[str]:
    """A fresh key prefix per test; its keys are removed afterwards."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    yield prefix
    keys = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        redis_client.delete(*keys)


@pytest.fixture(scope="session", params=["external", "embedded"])
def pg_server_url(request: pytest.FixtureRequest, embedded_dir: Path) -> str:
    if request.param == "external":
        _require_external("PostgreSQL", lambda: psycopg.connect(EXTERNAL_PG, connect_timeout=2).close())
        return EXTERNAL_PG
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
