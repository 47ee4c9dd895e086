"""Embedded services (start, reuse across processes, stop) and the ``palace services`` CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from doors.cli.main import main
from memory.embedded import EmbeddedPostgres, EmbeddedRedis, LocalQdrant
from memory.errors import StorageLockedError
from memory.local_model import LocalModelServer


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "doors.cli", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd(), **(env or {})})


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    yield d
    EmbeddedRedis(d).stop()
    EmbeddedPostgres(d).stop()
    LocalModelServer(d).stop()


def test_services_start_reuse_status_and_stop(data_dir: Path) -> None:
    env = {"PALACE_DATA_DIR": str(data_dir)}
    for var in ("PALACE_REDIS_URL", "PALACE_DATABASE_URL", "PALACE_QDRANT_URL"):
        os.environ.pop(var, None)
    os.environ.pop("PALACE_CHAT_MODEL", None)  # no chat model: the local one is part of the set
    before = {r["name"]: r for r in json.loads(run_cli("services", "status", "--json", env=env).stdout)}
    assert set(before) == {"Redis", "PostgreSQL", "Qdrant", "chat model", "Server"}
    assert not any(r["running"] for r in before.values()), before  # nothing runs yet, Qdrant included
    first = run_cli("services", "start", "--json", env=env)
    assert first.returncode == 0, first.stderr
    rows = {r["name"]: r for r in json.loads(first.stdout)}
    assert set(rows) == set(before)
    assert rows["Redis"]["running"] and rows["PostgreSQL"]["running"] and rows["chat model"]["running"]
    # Qdrant Edge runs inside the process that opens it: checked, created, and idle between commands
    assert not rows["Qdrant"]["running"] and "idle" in rows["Qdrant"]["detail"]
    # A second process reuses the same servers instead of starting its own.
    second = json.loads(run_cli("services", "start", "--json", env=env).stdout)
    assert {r["name"]: r["pid"] for r in second} == {r["name"]: r["pid"] for r in rows.values()}
    stopped = run_cli("services", "stop", env=env)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == "stopped: Redis, PostgreSQL, local model 0.5b"
    after = {r["name"]: r for r in json.loads(run_cli("services", "status", "--json", env=env).stdout)}
    assert set(after) == set(before) and not any(r["running"] for r in after.values()), after
    assert "no embedded service" in run_cli("services", "stop", env=env).stdout


def test_embedded_redis_keeps_data_across_restart(data_dir: Path) -> None:
    import redis

    server = EmbeddedRedis(data_dir)
    client = redis.Redis.from_url(server.ensure())
    client.set("k", "v")
    client.close()
    assert server.stop()
    client = redis.Redis.from_url(server.ensure())
    assert client.get("k") == b"v"
    client.close()


HOLD_QDRANT = textwrap.dedent("""
    import sys, time
    from memory.embedded import LocalQdrant
    client = LocalQdrant(sys.argv[1]).open()
    print("held", flush=True)
    time.sleep(60)
""")


def test_second_process_gets_a_clear_message_naming_the_qdrant_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_QDRANT, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StorageLockedError) as info:
            LocalQdrant(tmp_path).open(wait_s=0.3)
        message = str(info.value)
        assert f"process {holder.pid}" in message and "PALACE_QDRANT_URL" in message and "\n" not in message
    finally:
        holder.kill()
        holder.wait()
    LocalQdrant(tmp_path).open(wait_s=2).close()  # free again once the holder is gone


@pytest.mark.parametrize(
    ("var", "url", "service"),
    [("PALACE_REDIS_URL", "redis://127.0.0.1:1/0", "Redis"),
     ("PALACE_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/x", "PostgreSQL"),
     ("PALACE_QDRANT_URL", "http://127.0.0.1:1", "Qdrant")],
)
def test_unreachable_service_is_one_line_exit_3(var: str, url: str, service: str, data_dir: Path) -> None:
    # data_dir: the embedded services the other stores start meanwhile are stopped afterwards
    env = {"PALACE_DATA_DIR": str(data_dir), var: url, "PALACE_SERVICE_TIMEOUT_S": "1"}
    if service != "Qdrant":
        proc = run_cli("services", "start", env=env)
        assert proc.returncode == 3
        assert proc.stderr.startswith(f"palace: error: {service} unavailable at {url}")
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    status = run_cli("services", "status", env=env)
    assert status.returncode == 3 and "Traceback" not in status.stderr
    assert any(line.startswith(service) and "not running" in line for line in status.stdout.splitlines())


def test_invalid_setting_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PALACE_STM_TTL_S", "soon")
    assert main(["--data-dir", str(tmp_path), "services", "status"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("palace: error: invalid setting PALACE_STM_TTL_S") and err.count("\n") == 1


@pytest.mark.parametrize(("value", "says"), [("notjson", "not valid JSON"), ('{"m": "a"}', "PALACE_PRICES_M")])
def test_a_json_setting_that_does_not_parse_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, value: str, says: str) -> None:
    monkeypatch.setenv("PALACE_PRICES", value)  # was a traceback and exit 1 (a helper's trial)
    assert main(["--data-dir", str(tmp_path), "usage"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("palace: error: invalid setting PALACE_PRICES") and says in err and err.count("\n") == 1


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "services" in capsys.readouterr().out
