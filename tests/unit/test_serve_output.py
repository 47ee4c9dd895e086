"""What ``palace serve`` writes for a person: colour codes only on a terminal, and the URLs to use it by."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from doors.serve import Uncoloured, banner, coloured


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert not coloured(io.StringIO()) and not coloured(None)
    leader, follower = os.openpty()
    try:
        with open(follower, "w", closefd=False) as tty:
            assert coloured(tty)
            monkeypatch.setenv("NO_COLOR", "1")
            assert not coloured(tty)
    finally:
        os.close(leader)
        os.close(follower)


def test_uncoloured_drops_escape_sequences_and_keeps_the_text() -> None:
    out = io.StringIO()
    plain = Uncoloured(out)
    text = "- API: \x1b[36mhttp://127.0.0.1:2024\x1b[0m\n\x1b[2m2026-12-05\x1b[0m [\x1b[32m\x1b[1minfo\x1b[0m] 起动\n"
    assert plain.write(text) == len(text)
    plain.flush()
    assert out.getvalue() == "- API: http://127.0.0.1:2024\n2026-12-05 [info] 起动\n"
    assert not plain.isatty() and plain.stream is out


def test_banner_names_every_door_and_studio() -> None:
    lines = banner(Path("/data"), "http://127.0.0.1:2024").splitlines()
    assert lines[0] == "palace: serving /data at http://127.0.0.1:2024"
    doors = {line.split()[0]: line.split()[1] for line in lines[1:]}
    assert doors == {"API": "http://127.0.0.1:2024/palace/api", "inspector": "http://127.0.0.1:2024/palace/ui/",
                     "MCP": "http://127.0.0.1:2024/palace/mcp?user_id=USER",
                     "Studio": "https://smith.langchain.com/studio/?baseUrl=http://127.0.0.1:2024"}


def test_the_servers_start_up_heap_is_left_out_of_later_collections() -> None:
    """What ``palace serve`` loaded to start is frozen (``gc.freeze``) before it publishes its endpoint: a full
    collection then walks only what the server made since (some 6,000 objects under ``bench serve-load``, 5-8 ms),
    not the 270,000 of the start (160-200 ms with the GIL held, inside a memory search's latency)."""
    import gc

    from doors.serve import freeze_heap

    kept = [[n] for n in range(10_000)]  # objects the collector tracks
    before = gc.get_freeze_count()
    try:
        freeze_heap()
        assert gc.get_freeze_count() >= before + len(kept)
        assert all(o is not kept[0] for o in gc.get_objects())  # no collection walks it
    finally:
        gc.unfreeze()
