"""``langgraph dev`` with the project's Redis checkpointer: a thread survives a server restart."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
import redis
from langgraph_sdk import get_client

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DevServer:
    def __init__(self, app: Path, env: dict[str, str]) -> None:
        self.app, self.env, self.port = app, env, _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = app / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        exe = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or "langgraph"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [exe, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(self.port),
                 "--config", str(self.app / "langgraph.json")],
                cwd=self.app, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"langgraph dev exited: {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/ok", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"langgraph dev did not start: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@pytest.fixture
def app(tmp_path: Path) -> Path:
    config = {
        "dependencies": [str(ROOT)],
        "graphs": {"counter": str(ROOT / "tests" / "e2e" / "counter_app.py") + ":graph"},
        "checkpointer": {"path": str(ROOT / "graph" / "checkpointer.py") + ":checkpointer"},
    }
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    return tmp_path


async def test_thread_state_survives_a_server_restart(app: Path, redis_server_url: str) -> None:
    prefix = f"e2e{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PALACE_REDIS_URL": redis_server_url, "PALACE_KEY_PREFIX": prefix,
           "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}
    server = DevServer(app, env)
    server.start()
    try:
        client = get_client(url=server.url)
        thread = await client.threads.create()
        tid = thread["thread_id"]
        await client.runs.wait(tid, "counter", input={"total": 40, "notes": []})
        chunks = [c async for c in client.runs.stream(tid, "counter", input={"total": 0, "notes": []},
                                                      stream_mode="values")]
        assert any(c.event == "values" for c in chunks)
        before = (await client.threads.get_state(tid))["values"]
        assert before["total"] == 42 and before["notes"] == ["seen 40", "seen 41"]
    finally:
        server.stop()
    keys = redis.Redis.from_url(redis_server_url).keys(f"{prefix}:cp:{{{tid}}}:*")
    assert keys, "the checkpoints should be in Redis"
    assert "Using custom checkpointer: AsyncRedisSaver" in server.log.read_text()

    server = DevServer(app, env)
    server.start()
    try:
        client = get_client(url=server.url)
        after = (await client.threads.get_state(tid))["values"]
        assert after == before
        history = await client.threads.get_history(tid, limit=20)
        assert len(history) >= 4
    finally:
        server.stop()
    r = redis.Redis.from_url(redis_server_url)
    leftover = list(r.scan_iter(match=f"{prefix}:*"))
    if leftover:
        r.delete(*leftover)
