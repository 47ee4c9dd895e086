"""Fixtures of the integration tests: the agent on real stores (see ``agent_harness``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.agent_harness import Agent, make_agent


@pytest.fixture
def agent(redis_server_url: str, pg_url: str, tmp_path: Path, e5: Any) -> Iterator[Agent]:
    yield from make_agent(redis_server_url, pg_url, tmp_path, e5)
