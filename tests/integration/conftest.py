"""Fixtures of the integration tests: the agent on real stores (see ``agent_harness``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import doors.cli.agent
from doors.cli.main import main
from graph.testing import ScriptedBrain, ScriptedModels
from memory.redis_cluster import open_redis
from tests.conftest import delete_prefix
from tests.integration.agent_harness import Agent, make_agent


@pytest.fixture
def agent(redis_server_url: str, pg_url: str, tmp_path: Path, e5: Any) -> Iterator[Agent]:
    yield from make_agent(redis_server_url, pg_url, tmp_path, e5)


@pytest.fixture
def cli_env(tmp_path: Path, embedded_dir: Path) -> Iterator[dict[str, str]]:
    """The environment of a ``palace`` process on the run's embedded Redis and PostgreSQL (what a new user gets),
    a fresh key prefix and a fresh Qdrant Edge directory; no chat model (subprocesses swap in the scripted one,
    see ``scripted_cli``)."""
    from memory.embedded import EmbeddedPostgres, EmbeddedRedis

    prefix = f"t{uuid.uuid4().hex[:10]}"
    redis_url = EmbeddedRedis(embedded_dir).ensure()
    yield {"PALACE_REDIS_URL": redis_url, "PALACE_DATABASE_URL": EmbeddedPostgres(embedded_dir).ensure(),
           "PALACE_KEY_PREFIX": prefix, "PALACE_DATA_DIR": str(tmp_path / "data"), "PALACE_QDRANT_URL": "",
           "PALACE_CHAT_MODEL": "", "PALACE_TIMEZONE": "UTC"}
    client = open_redis(redis_url)
    delete_prefix(client, prefix)
    client.close()


@pytest.fixture
def cli(redis_server_url: str, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    prefix = f"t{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("PALACE_REDIS_URL", redis_server_url)
    monkeypatch.setenv("PALACE_DATABASE_URL", pg_url)
    monkeypatch.setenv("PALACE_KEY_PREFIX", prefix)
    monkeypatch.setenv("PALACE_TIMEZONE", "Asia/Shanghai")
    monkeypatch.delenv("PALACE_QDRANT_URL", raising=False)
    brain = ScriptedBrain(lambda new, existing: ("conflict", 1) if "live in" in new and any(
        "live in" in e for e in existing) else ("add", 0))
    monkeypatch.setattr(doors.cli.agent, "make_models", lambda settings: ScriptedModels(brain))

    def run(*args: str) -> int:
        return main(["--data-dir", str(tmp_path / "data"), *args])

    yield run
    client = open_redis(redis_server_url)
    delete_prefix(client, prefix)
    client.close()
