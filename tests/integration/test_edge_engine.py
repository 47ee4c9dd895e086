"""The embedded default engine (Qdrant Edge): one process at a time, durable across reopen, and the old
local-mode data copied over without loss."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from qdrant_client import QdrantClient, models

from graph.resources import connect_qdrant
from graph.settings import get_settings
from memory.edge import EdgeClient
from memory.embedded import EdgeQdrant, migrate_local_to_edge
from memory.errors import InvalidInputError, StorageLockedError
from memory.long_term import LongTermMemory, Memory, memory_id

DIM = 4


def mem(user: str, key: str, text: str, ts: int = 1_780_000_000_000) -> Memory:
    return Memory(id=memory_id(user, key), text=text, user_id=user, session_id="s", timestamp=ts)


def test_memories_survive_closing_and_reopening(tmp_path: Path) -> None:
    client = EdgeClient(tmp_path / "edge")
    ltm = LongTermMemory(client, "m")
    ltm.setup(DIM)
    ltm.upsert([mem("u", "a", "the locker code is 4512")], [[1.0, 0.0, 0.0, 0.0]])
    client.close()
    reopened = EdgeClient(tmp_path / "edge")
    ltm = LongTermMemory(reopened, "m")
    ltm.setup(DIM)
    hits = ltm.hybrid_search("u", [1.0, 0.0, 0.0, 0.0], "locker code")
    assert [h.memory.text for h in hits] == ["the locker code is 4512"]
    assert hits[0].cosine == pytest.approx(1.0) and hits[0].lexical is not None and hits[0].lexical > 0
    reopened.close()


def test_a_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from memory.embedded import EdgeQdrant
        client = EdgeQdrant({str(tmp_path)!r}).open()
        print("held", flush=True)
        time.sleep(30)
    """)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(StorageLockedError) as caught:
            EdgeQdrant(tmp_path).open(wait_s=0.3)
        assert time.monotonic() - t0 >= 0.3
        assert f"process {holder.pid}" in str(caught.value) and "PALACE_QDRANT_URL" in str(caught.value)
        status = EdgeQdrant(tmp_path).status()
        assert status.pid == holder.pid
    finally:
        holder.kill()
        holder.wait()
    EdgeQdrant(tmp_path).open(wait_s=1.0).close()  # released when the holder died


def _old_local_collection(data_dir: Path, n: int) -> None:
    """The previous default: local mode under <data>/qdrant, one unnamed vector, no sparse vectors."""
    client = QdrantClient(path=str(data_dir / "qdrant"))
    client.create_collection("memories", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE))
    client.upsert("memories", points=[
        models.PointStruct(id=memory_id("u", f"k{i}"), vector=[1.0, float(i), 0.0, 0.0],
                           payload=mem("u", f"k{i}", f"memory number {i}").payload()) for i in range(n)])
    client.close()


def test_old_local_mode_memories_are_copied_to_edge_once(tmp_path: Path) -> None:
    _old_local_collection(tmp_path, 300)  # more than one scroll page
    settings = get_settings(data_dir=tmp_path)
    with pytest.warns(UserWarning, match="copied 300 memories"):
        client = connect_qdrant(settings)
    try:
        ltm = LongTermMemory(client, "memories")
        ltm.setup(DIM)
        assert ltm.count("u") == 300
        assert {m.text for m in ltm.scroll("u")} == {f"memory number {i}" for i in range(300)}
        hits = ltm.hybrid_search("u", [1.0, 7.0, 0.0, 0.0], "memory number 7", limit=3)
        assert "memory number 7" in [h.memory.text for h in hits]
    finally:
        client.close()
    assert not (tmp_path / "qdrant").exists() and (tmp_path / "qdrant.migrated").is_dir()
    again = connect_qdrant(settings)  # nothing left to copy: no warning, same data
    try:
        assert LongTermMemory(again, "memories").count("u") == 300
    finally:
        again.close()


def test_a_failed_copy_keeps_the_old_data_and_leaves_edge_empty(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _old_local_collection(tmp_path, 10)
    edge = EdgeQdrant(tmp_path).open()

    def broken(self: LongTermMemory, memories: object, vectors: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(LongTermMemory, "upsert", broken)
    try:
        with pytest.raises(OSError, match="disk full"):
            migrate_local_to_edge(tmp_path, edge)
        assert edge.collections() == []
    finally:
        edge.close()
    assert (tmp_path / "qdrant" / "collection").is_dir() and not (tmp_path / "qdrant.migrated").exists()


def test_a_collection_in_the_old_layout_is_refused_and_left_untouched(tmp_path: Path) -> None:
    _old_local_collection(tmp_path, 3)
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        with pytest.raises(InvalidInputError, match="old single-vector layout"):
            LongTermMemory(client, "memories").setup(DIM)
        assert client.count("memories").count == 3
    finally:
        client.close()
