"""The agent behind ``langgraph dev``, driven with ``langgraph_sdk`` the way Studio drives it: schemas, a thread,
a streamed turn, the state, a confirmation interrupt and its resume. Real Redis (checkpointer and short-term),
PostgreSQL and Qdrant local mode; the scripted model at the model boundary."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
import redis
from langgraph_sdk import get_client

from tests.e2e.test_langgraph_server import ROOT, DevServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def server(tmp_path: Path, redis_server_url: str, pg_url: str) -> object:
    project = json.loads((ROOT / "langgraph.json").read_text())
    config = {
        "dependencies": [str(ROOT)],
        "graphs": {
            # the project's own entry: Studio must get its schemas without any model configured
            "palace": str(ROOT / project["graphs"]["palace"].removeprefix("./")),
            "scripted": str(ROOT / "tests" / "e2e" / "scripted_palace_app.py") + ":graph",
        },
        "checkpointer": {"path": str(ROOT / project["checkpointer"]["path"].removeprefix("./"))},
        # the store API on the scripted graph's own stores (the embedded Qdrant is one per process)
        "store": {"path": str(ROOT / "tests" / "e2e" / "scripted_palace_app.py") + ":store"},
    }
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    prefix = f"e2e{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PALACE_REDIS_URL": redis_server_url, "PALACE_DATABASE_URL": pg_url,
           "PALACE_KEY_PREFIX": prefix, "PALACE_DATA_DIR": str(tmp_path / "data"), "PALACE_TIMEZONE": "Asia/Shanghai",
           "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}
    env.pop("PALACE_CHAT_MODEL", None)
    dev = DevServer(tmp_path, env)
    dev.start()
    yield dev
    dev.stop()
    r = redis.Redis.from_url(redis_server_url)
    keys = list(r.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        r.delete(*keys)


async def test_studio_calls_turn_state_interrupt_and_resume(server: DevServer) -> None:
    client = get_client(url=server.url)
    assistants = {a["graph_id"]: a for a in await client.assistants.search()}
    assert {"palace", "scripted"} <= set(assistants)
    schemas = await client.assistants.get_schemas(assistants["palace"]["assistant_id"])
    assert "messages" in schemas["input_schema"]["properties"]
    assert "user_id" in schemas["context_schema"]["properties"]

    ctx = {"user_id": "alice", "timezone": "Asia/Shanghai"}
    first = await client.threads.create()
    chunks = [c async for c in client.runs.stream(
        first["thread_id"], "scripted", input={"messages": [{"role": "user", "content": "I live in Beijing."}]},
        context=ctx, stream_mode=["values", "messages-tuple", "updates"])]
    events = {c.event for c in chunks}
    assert {"values", "messages", "updates"} <= events, events
    # only the answer reaches the messages stream: the extractor's and verifier's calls never do
    streamed = [c.data for c in chunks if c.event == "messages"]
    assert streamed and all(meta.get("langgraph_node") == "respond" for _, meta in streamed), streamed
    assert not any("memories" in str(message.get("content", "")) for message, _ in streamed)
    state = await client.threads.get_state(first["thread_id"])
    assert state["values"]["verdicts"][0]["decision"] == "add"
    assert {u["node"] for u in state["values"]["usage"]} >= {"respond", "fact_check.extract"}
    assert state["values"]["messages"][-1]["type"] == "ai"

    second = await client.threads.create()
    tid = second["thread_id"]
    await client.runs.wait(tid, "scripted", input={"messages": [{"role": "user", "content": "I live in Shanghai."}]},
                           context=ctx)
    state = await client.threads.get_state(tid)
    interrupts = [i for t in state["tasks"] for i in t.get("interrupts", [])]
    assert interrupts and interrupts[0]["value"]["kind"] == "confirm_memory"
    assert "I live in Beijing" in interrupts[0]["value"]["question"]
    assert state["next"] == ["confirm"]

    resumed = [c async for c in client.runs.stream(tid, "scripted", command={"resume": "yes"}, context=ctx,
                                                   stream_mode="values")]
    assert resumed
    state = await client.threads.get_state(tid)
    assert state["next"] == []
    assert state["values"]["confirmations"][0]["outcome"] == "accepted"

    third = await client.threads.create()
    await client.runs.wait(third["thread_id"], "scripted",
                           input={"messages": [{"role": "user", "content": "Where do I live?"}]}, context=ctx)
    recalled = (await client.threads.get_state(third["thread_id"]))["values"]["recalled"]
    assert recalled[0]["text"] == "I live in Shanghai"
    other = await client.threads.create()
    await client.runs.wait(other["thread_id"], "scripted",
                           input={"messages": [{"role": "user", "content": "Where do I live?"}]},
                           context={"user_id": "bob"})
    assert (await client.threads.get_state(other["thread_id"]))["values"]["recalled"] == []


async def test_store_api_sees_what_a_chat_turn_wrote(server: DevServer) -> None:
    client = get_client(url=server.url)
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "scripted", context={"user_id": "carol"},
                           input={"messages": [{"role": "user", "content": "My locker code is 4512."}]})
    ns = ["memories", "carol"]
    found = (await client.store.search_items(ns, query="What is my locker code?"))["items"]
    assert found and found[0]["value"]["text"] == "My locker code is 4512"
    key = found[0]["key"]
    assert (await client.store.get_item(ns, key))["value"]["user_id"] == "carol"
    await client.store.put_item(ns, "badge", {"text": "My badge number is 7781"})
    listed = (await client.store.search_items(ns))["items"]
    assert {i["value"]["text"] for i in listed} == {"My locker code is 4512", "My badge number is 7781"}
    await client.store.delete_item(ns, key)
    after = (await client.store.search_items(ns))["items"]
    assert [i["value"]["text"] for i in after] == ["My badge number is 7781"]
    assert (await client.store.search_items(["memories", "dave"], query="locker"))["items"] == []
    # the agent recalls what the store API wrote
    again = await client.threads.create()
    await client.runs.wait(again["thread_id"], "scripted", context={"user_id": "carol"},
                           input={"messages": [{"role": "user", "content": "What is my badge number?"}]})
    recalled = (await client.threads.get_state(again["thread_id"]))["values"]["recalled"]
    assert recalled and recalled[0]["text"] == "My badge number is 7781"
