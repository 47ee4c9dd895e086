"""What a person meets beside a running ``palace serve``: its log in a file (plain text, the URLs to use it by,
LangGraph Studio included), ``palace mcp`` on stdio (no request log on its stderr) and ``palace doctor`` (it checks
the server's stores through the server, which holds them). The server runs on the external Redis and a fresh
PostgreSQL database, with the embedded Qdrant Edge in its data directory (the store only one process may open);
the chat model is bench's OpenAI-compatible server (the model boundary)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from bench.model_server import FixedLatencyModel
from tests.conftest import external_stack
from tests.e2e.serving import palace, palace_serve

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.external]


@dataclass
class Server:
    data_dir: Path
    url: str
    log: Path
    env: dict[str, str]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([palace(), *args], env=self.env, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("beside")
    with FixedLatencyModel(0) as model, external_stack("beside") as (redis_url, database_url, prefix):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PALACE_", "LANGGRAPH_", "LANGSMITH_",
                                                                          "NO_COLOR", "LOG_"))}
        env |= {"PALACE_DATA_DIR": str(data_dir), "PALACE_REDIS_URL": redis_url, "PALACE_DATABASE_URL": database_url,
                "PALACE_KEY_PREFIX": prefix, "PALACE_SWEEP_INTERVAL_S": "0", "PALACE_CHAT_MODEL": "fixed",
                "PALACE_CHAT_BASE_URL": model.url, "PALACE_CHAT_API_KEY": "unused", "PALACE_MODEL_MAX_RETRIES": "0"}
        with palace_serve(data_dir, env) as (url, _):
            yield Server(data_dir, url, data_dir / "serve.log", env)


def test_the_log_in_a_file_is_plain_text_and_names_the_urls(server: Server) -> None:
    deadline = time.monotonic() + 10
    while "Studio" not in (text := server.log.read_text(encoding="utf-8")):  # printed just after server.json
        assert time.monotonic() < deadline, text[-3000:]
        time.sleep(0.2)
    assert "\x1b" not in text, [line for line in text.splitlines() if "\x1b" in line][:3]
    url = server.url
    assert f"palace: serving {server.data_dir} at {url}\n" in text
    for door, where in (("API", f"{url}/palace/api"), ("inspector", f"{url}/palace/ui/"),
                        ("MCP", f"{url}/palace/mcp?user_id=USER"),
                        ("Studio", f"https://smith.langchain.com/studio/?baseUrl={url}")):
        assert f"\n  {door:<10} {where} " in text or f"\n  {door:<10} {where}\n" in text, door


async def test_mcp_on_stdio_writes_no_request_log(server: Server, tmp_path: Path) -> None:
    added = json.loads(server.cli("memories", "add", "My dog is called Rex", "--user", "mcp-user", "--json").stdout)
    errors = tmp_path / "mcp.stderr"
    params = StdioServerParameters(command=palace(), args=["mcp", "--user", "mcp-user"], env=server.env)
    with open(errors, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as mcp:  # through the server: it holds Qdrant
            listed = json.loads((await mcp.call_tool("list_memories", {})).content[0].text)
            hits = json.loads((await mcp.call_tool("search_memories", {"query": "my dog"})).content[0].text)
            refused = await mcp.call_tool("list_memories", {"status": "nope"})
    assert [m["id"] for m in listed] == [added["id"]] and hits[0]["id"] == added["id"] and refused.is_error
    assert errors.read_text() == ""  # no "HTTP Request: GET ..." nor "Processing request of type ..." lines


def test_doctor_beside_the_server_checks_through_it(server: Server) -> None:
    """The server holds the embedded Qdrant (one process may open it): doctor asks the server, and passes."""
    done = server.cli("doctor")
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:6]] == [["ok", name] for name in (
        "chat", "verifier", "embeddings", "Redis", "PostgreSQL", "Qdrant")], lines
    assert f"Qdrant Edge in {server.data_dir / 'qdrant-edge'}: collections: " in lines[5]
    assert lines[6:] == [f"(checked by the palace server at {server.url}, on the stores and models it has open)"]
    as_json = json.loads(server.cli("doctor", "--json").stdout)
    assert [c["name"] for c in as_json if c["ok"]] == ["chat", "verifier", "embeddings", "Redis", "PostgreSQL",
                                                        "Qdrant"]
    # the server still serves after the checks (nothing of its own was closed)
    assert server.cli("memories", "list", "--user", "doctor-user").returncode == 0


def test_doctor_without_a_server_on_a_held_store_names_the_holder(server: Server, tmp_path: Path) -> None:
    """What doctor said beside a server before (and still says when the holder is not a palace server): the lock,
    with the holding process, exit 3."""
    endpoint = server.data_dir / "server.json"
    saved = endpoint.read_text()
    endpoint.write_text(json.dumps({**json.loads(saved), "url": "http://127.0.0.1:9"}))  # a server that is gone
    try:
        done = server.cli("doctor", "--json")
    finally:
        endpoint.write_text(saved)
    assert done.returncode == 3, done.stdout + done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert not checks["Qdrant"]["ok"] and "held by process" in checks["Qdrant"]["detail"], checks["Qdrant"]
    assert server.cli("doctor").returncode == 0  # the server's endpoint again: through it
