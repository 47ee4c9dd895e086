"""One presenter behind both CLI modes: every read command (memories list / search / show / history / review, tasks
list / show, usage), run in process and through a running server on the same memories, prints the same bytes, text
and ``--json`` alike. The server is the real HTTP API app (``doors.http_api``) served by uvicorn on a socket in this
process, on the stores the in-process CLI opens (the embedded Qdrant Edge is shared within a process); the CLI
finds it through ``server.json`` as it finds ``palace serve``. The scripted model answers the chat turns."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import doors.client
from doors.http_api import create_app
from graph import endpoint
from graph.deps import Deps
from graph.settings import get_settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(cli: Any, tmp_path: Path) -> Iterator[str]:
    """The HTTP API on the cli fixture's stores (not yet published: the CLI runs in process until it is)."""
    deps = Deps(get_settings(data_dir=tmp_path / "data"))
    port = _free_port()
    running = uvicorn.Server(uvicorn.Config(create_app(deps), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, name="parity-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not running.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the API app did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(30)
        deps.close()


def _both(cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, url: str,
          data_dir: Path, *args: str) -> tuple[str, str]:
    """``palace ARGS``'s stdout in process, then through the server (checked to be used)."""
    assert cli(*args) == 0, capsys.readouterr().err
    local = capsys.readouterr().out
    remote_calls: list[str] = []
    real = doors.client.run_remote

    def counted(at: str, parsed: Any) -> int:
        remote_calls.append(at)
        return real(at, parsed)

    monkeypatch.setattr(doors.client, "run_remote", counted)
    endpoint.write(data_dir, url)
    try:
        assert cli(*args) == 0, capsys.readouterr().err
    finally:
        endpoint.remove(data_dir)
        monkeypatch.setattr(doors.client, "run_remote", real)
    assert remote_calls == [url], "the command did not go through the server"
    return local, capsys.readouterr().out


def test_read_commands_print_the_same_in_process_and_through_the_server(
        cli: Any, server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data_dir = tmp_path / "data"
    # memories with a history (a stated change the user confirmed), an important one, one recorded for a past day
    assert cli("chat", "I live in Beijing.", "--user", "ann", "--session", "s1") == 0
    assert cli("chat", "I live in Shanghai.", "--user", "ann", "--session", "s2") == 0
    assert cli("chat", "--resume", "yes", "--user", "ann", "--session", "s2") == 0
    assert cli("memories", "add", "My passport ends in 42", "--user", "ann", "--important") == 0
    assert cli("memories", "add", "我在西贝请客户周总吃饭", "--user", "ann", "--at", "2026-07-12T20:00") == 0
    assert cli("memories", "add", "I like jasmine tea", "--user", "solo") == 0
    assert cli("tasks", "add", "Renew the passport", "--step", "book", "--step", "photo", "--user", "ann",
               "--session", "s1") == 0
    capsys.readouterr()
    assert cli("tasks", "list", "--user", "ann", "--json") == 0
    [task] = json.loads(capsys.readouterr().out)
    assert cli("tasks", "advance", task["id"], "--user", "ann", "--note", "booked") == 0
    capsys.readouterr()
    assert cli("memories", "list", "--user", "ann", "--status", "all", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    shanghai = next(m["id"] for m in listed if m["text"] == "I live in Shanghai")
    beijing = next(m["id"] for m in listed if m["text"] == "I live in Beijing")
    # a disputed memory waiting for the user
    assert cli("chat", "I live in Hangzhou.", "--user", "ann", "--session", "s3") == 0
    capsys.readouterr()

    commands = [
        ("memories", "list", "--user", "ann"),
        ("memories", "list", "--user", "ann", "--status", "all"),
        ("memories", "list", "--user", "solo"),
        ("memories", "list", "--user", "nobody"),
        ("memories", "search", "where do I live", "--user", "ann", "--now", "2026-12-01T10:00"),
        ("memories", "search", "我在哪家餐厅请客户", "--user", "ann", "--now", "2026-07-15T10:00", "--limit", "2"),
        ("memories", "search", "anything", "--user", "nobody"),
        ("memories", "show", shanghai[:8], "--user", "ann"),
        ("memories", "show", beijing, "--user", "ann"),
        ("memories", "history", shanghai[:8], "--user", "ann"),
        ("memories", "history", beijing[:8], "--user", "ann"),
        ("memories", "review", "--user", "ann"),
        ("tasks", "list", "--user", "ann"),
        ("tasks", "list", "--user", "nobody"),
        ("tasks", "show", task["id"][:8], "--user", "ann"),
        ("usage", "--user", "ann"),
        ("usage", "--user", "ann", "--by", "node"),
        ("usage", "--user", "nobody"),
    ]
    for args in commands:
        for form in (args, (*args, "--json")):
            local, remote = _both(cli, capsys, monkeypatch, server, data_dir, *form)
            assert local, form
            assert remote == local, f"palace {' '.join(form)}:\nin process:\n{local}\nthrough the server:\n{remote}"

    # what the drift used to show, now the same both ways: the user's zone, "1 memory", usage's header and wording
    local, _ = _both(cli, capsys, monkeypatch, server, data_dir, "memories", "list", "--user", "solo")
    assert local.endswith("\n1 memory of solo (active; * important, ? disputed, - superseded, ~ a newer memory "
                          "follows it)\n")
    local, _ = _both(cli, capsys, monkeypatch, server, data_dir, "usage", "--user", "ann")
    assert local.startswith("day  ") and "sending the full session history to each answer" in local
    local, _ = _both(cli, capsys, monkeypatch, server, data_dir, "memories", "search", "我在哪家餐厅请客户",
                     "--user", "ann", "--now", "2026-07-15T10:00", "--limit", "1")
    assert "[2026-07-12 20:00] 我在西贝请客户周总吃饭" in local  # Asia/Shanghai (PALACE_TIMEZONE), as it was said
