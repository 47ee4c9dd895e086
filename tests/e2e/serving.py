"""Starting and stopping a real ``palace serve`` for the end-to-end tests (one helper for every module that needs
one: ``test_palace_serve.py``, ``test_serve_beside.py``)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def palace() -> str:
    """The ``palace`` command of the interpreter running the tests."""
    return shutil.which("palace", path=str(Path(sys.executable).parent)) or "palace"


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process started in its own session, with its children: SIGTERM, then SIGKILL after 30 s."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def palace_serve(data_dir: Path, env: dict[str, str], *,
                 start_timeout_s: float = 150) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``palace serve`` on a free port of 127.0.0.1, its log in ``data_dir/serve.log`` (a file: not a terminal).
    Yields its URL and process once it has written its endpoint (``server.json``); stops it on the way out."""
    port = free_port()
    log = data_dir / "serve.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen([palace(), "serve", "--port", str(port)], env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + start_timeout_s
        while not (data_dir / "server.json").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"palace serve did not start: {log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop_group(proc)
