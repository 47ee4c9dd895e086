"""The archive hand-off end to end: Redis short-term -> Qdrant long-term, exactly once, across a crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import redis
from qdrant_client import QdrantClient

from memory.archive import MemoryDraft, archive_session
from memory.embeddings import E5Embeddings
from memory.long_term import LongTermMemory
from memory.short_term import Entry, ShortTermMemory, STMConfig


def summarize(entries: Sequence[Entry]) -> list[MemoryDraft]:
    """A deterministic stand-in for the LLM summariser: one memory per two entries."""
    return [MemoryDraft(text=" / ".join(e.content for e in entries[i:i + 2])) for i in range(0, len(entries), 2)]


def test_archive_moves_oldest_batch_with_lineage(redis_client: redis.Redis, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=6, archive_batch=4))
    ltm = LongTermMemory(QdrantClient(":memory:"), "m")
    ltm.setup(384)
    ids = [stm.push("u", "s", "user", f"fact {i}").entry.id for i in range(9)]
    result = archive_session(stm, ltm, E5Embeddings(), summarize, "u", "s")
    assert (result.batches, result.entries, result.memories) == (1, 4, 2)
    memories = sorted(ltm.scroll("u"), key=lambda m: m.text)
    assert [m.text for m in memories] == ["fact 0 / fact 1", "fact 2 / fact 3"]
    assert all(m.source == ids[:4] and m.session_id == "s" for m in memories)
    assert [e.id for e in stm.window("u", "s").entries] == ids[4:]
    again = archive_session(stm, ltm, E5Embeddings(), summarize, "u", "s")
    assert again.batches == 0 and ltm.count("u") == 2


def test_failed_upsert_keeps_the_batch_for_a_retry(redis_client: redis.Redis, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=3, archive_batch=2))
    ltm = LongTermMemory(QdrantClient(":memory:"), "m")
    ltm.setup(384)
    for i in range(4):
        stm.push("u", "s", "user", f"m{i}")

    def broken(entries: Sequence[Entry]) -> list[MemoryDraft]:
        raise RuntimeError("model down")

    with pytest.raises(RuntimeError):
        archive_session(stm, ltm, E5Embeddings(), broken, "u", "s")
    assert stm.length("u", "s") == 4  # nothing lost
    result = archive_session(stm, ltm, E5Embeddings(), summarize, "u", "s")
    assert result.recovered == 1 and ltm.count("u") == 1


ARCHIVE_AND_DIE = textwrap.dedent("""
    import os, signal, sys, redis
    from qdrant_client import QdrantClient
    from memory import archive
    from memory.embeddings import E5Embeddings
    from memory.long_term import LongTermMemory
    from memory.short_term import ShortTermMemory, STMConfig
    stm = ShortTermMemory(redis.Redis.from_url(sys.argv[1]),
                          STMConfig(prefix=sys.argv[2], archive_threshold=5, archive_batch=4, lease_s=0.2))
    ltm = LongTermMemory(QdrantClient(path=sys.argv[3]), "m")
    ltm.setup(384)
    real_ack = stm.ack
    def die(batch):  # the upsert landed; the process dies before acknowledging
        os.kill(os.getpid(), signal.SIGKILL)
    stm.ack = die
    summarize = lambda entries: [archive.MemoryDraft(text=e.content) for e in entries]
    archive.archive_session(stm, ltm, E5Embeddings(), summarize, "u", "s")
""")


def test_killed_between_upsert_and_ack_archives_exactly_once(
    redis_server_url: str, redis_client: redis.Redis, key_prefix: str, tmp_path: Path
) -> None:
    cfg = STMConfig(prefix=key_prefix, archive_threshold=5, archive_batch=4, lease_s=0.2)
    stm = ShortTermMemory(redis_client, cfg)
    ids = [stm.push("u", "s", "user", f"entry {i}").entry.id for i in range(7)]
    qpath = str(tmp_path / "q")
    proc = subprocess.run([sys.executable, "-c", ARCHIVE_AND_DIE, redis_server_url, key_prefix, qpath],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    time.sleep(0.3)  # the dead process's lease expires
    ltm = LongTermMemory(QdrantClient(path=qpath), "m")
    ltm.setup(384)
    assert ltm.count("u") == 4  # its upsert had landed
    result = archive_session(stm, ltm, E5Embeddings(), lambda es: [MemoryDraft(text=e.content) for e in es], "u", "s")
    assert result.recovered == 1
    archived = sorted(m.text for m in ltm.scroll("u"))
    assert archived == [f"entry {i}" for i in range(4)]  # once each, not twice
    assert [e.id for e in stm.window("u", "s").entries] == ids[4:]
