"""Settings -> live stores: external URLs and the embedded default, each store used once."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.resources import Resources
from graph.settings import get_settings
from memory.archive import MemoryDraft, archive_session
from memory.errors import ServiceUnavailableError


def test_resources_open_every_store(redis_server_url: str, pg_url: str, tmp_path: Path) -> None:
    settings = get_settings(redis_url=redis_server_url, database_url=pg_url, data_dir=tmp_path,
                            key_prefix=f"res{tmp_path.name[-6:]}", stm_archive_threshold=3, stm_archive_batch=2)
    with Resources(settings) as res:
        stm, ltm = res.short_term(), res.long_term()
        assert res.long_term() is ltm  # set up once
        for i in range(4):
            stm.push("u", "s", "user", f"fact {i}")
        result = archive_session(stm, ltm, res.embeddings, lambda es: [MemoryDraft(text=e.content) for e in es],
                                 "u", "s")
        assert result.memories == 2 and ltm.count("u") == 2
        task = res.tasks().create("u", "s", "Expense approval", ["submit", "approve"])
        assert res.tasks().advance("u", task.id).current_step == 1
        res.ledger().record("u", "s", "respond", "m", 10, 2)
        assert res.ledger().summary("node", user_id="u")[0].prompt_tokens == 10
        stm.clear("u", "s")
    assert res._redis is None and res._pool is None and res._qdrant is None


def test_unreachable_external_store_names_itself(tmp_path: Path) -> None:
    settings = get_settings(redis_url="redis://127.0.0.1:1/0", database_url="postgresql://postgres@127.0.0.1:1/x",
                            data_dir=tmp_path, service_timeout_s=1)
    with Resources(settings) as res:
        with pytest.raises(ServiceUnavailableError, match=r"^Redis unavailable at redis://127\.0\.0\.1:1/0"):
            res.short_term()
        with pytest.raises(ServiceUnavailableError, match=r"^PostgreSQL unavailable at postgresql://"):
            res.tasks()
