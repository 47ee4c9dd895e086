"""The sync checkpointer is generated from the async one; this keeps a hand edit from letting them drift."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sync_saver_is_the_generated_mirror_of_the_async_one() -> None:
    spec = importlib.util.spec_from_file_location("gen_sync_saver", ROOT / "tools" / "gen_sync_saver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.generate() == (ROOT / "memory" / "checkpoint" / "sync.py").read_text(), (
        "memory/checkpoint/sync.py differs from aio.py's mirror: run python tools/gen_sync_saver.py"
    )
