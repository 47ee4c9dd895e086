"""A hostile model cannot lose a fact, store junk or retire a memory for another one (bench/integrity.py, smaller):
an extractor, verifier and summariser that answer at random (any decision, any memory number, malformed output,
junk, inventions), over scripted English and Chinese turns with archiving and a final sweep, on real stores."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.integrity import HostileBrain, run_integrity
from graph.deps import Deps
from graph.resources import Resources
from graph.settings import get_settings
from graph.testing import ScriptedModels
from memory.edge import EdgeClient
from tests.conftest import EXTERNAL_PG, EXTERNAL_REDIS

pytestmark = [pytest.mark.slow, pytest.mark.external]


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A fresh database on the external PostgreSQL (this test runs once, on the external services)."""
    name = f"palace_test_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(EXTERNAL_PG, autocommit=True, connect_timeout=2) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"external PostgreSQL not reachable: {exc}")
    yield psycopg.conninfo.make_conninfo(EXTERNAL_PG, dbname=name)
    with psycopg.connect(EXTERNAL_PG, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@settings(max_examples=4, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_a_hostile_model_cannot_lose_facts_store_junk_or_retire_the_wrong_memory(
        seed: int, pg_url: str, tmp_path_factory: pytest.TempPathFactory, e5: Any) -> None:
    s = get_settings(redis_url=EXTERNAL_REDIS, database_url=pg_url, key_prefix=f"t{uuid.uuid4().hex[:10]}",
                     timezone="Asia/Shanghai", stm_archive_threshold=10, stm_archive_batch=6,
                     data_dir=tmp_path_factory.mktemp("data"))
    client = EdgeClient(Path(tmp_path_factory.mktemp("edge")) / "edge")
    resources = Resources(s, _qdrant=client, _embeddings=e5)
    deps = Deps(s, resources=resources, models=ScriptedModels(HostileBrain(random.Random(seed + 1))))
    try:
        result = run_integrity(deps, "u", turns=30, seed=seed)
        assert result["facts"] > 0
        assert (result["facts_lost"], result["junk_stored"], result["wrong_supersedes"]) == (0, 0, 0), result
    finally:
        r = resources.redis
        keys = list(r.scan_iter(match=f"{s.key_prefix}:*", count=1000))
        if keys:
            r.delete(*keys)
        resources.close()
        client.close()


@pytest.fixture(scope="module")
def e5() -> Any:
    from memory.embeddings import E5Embeddings

    return E5Embeddings()
