"""The server's doors in process, on real Redis, PostgreSQL and Qdrant with the scripted model: the HTTP API app
(bearer token, a chat turn, review of what the verifier disputed, export / import scoped to the user), the
LangChain retriever, langchain-qdrant's QdrantVectorStore on our collection, and ``palace mcp`` over stdio with
the official MCP client."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from doors.door import LocalDoor
from doors.http_api import create_app
from graph.retriever import PalaceRetriever
from graph.testing import ScriptedBrain
from tests.conftest import external_stack
from tests.integration.agent_harness import Agent, make_agent

TOKEN = "s3cret-token"


@pytest.fixture
def served(redis_server_url: str, pg_url: str, tmp_path: Path, e5: Any) -> Iterator[tuple[Agent, TestClient]]:
    brain = ScriptedBrain(lambda new, existing: ("conflict", 1) if "live in" in new and any(
        "live in" in e for e in existing) else ("add", 0))
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain, api_token=TOKEN):
        with TestClient(create_app(agent.deps), headers={"Authorization": f"Bearer {TOKEN}"}) as client:
            yield agent, client


def test_api_token_chat_review_and_scoped_import(served: tuple[Agent, TestClient]) -> None:
    _, api = served
    base = "/palace/api/users/auth0%7Cu1"
    assert api.get("/palace/api/health", headers={"Authorization": ""}).status_code == 200
    assert api.get(base + "/memories", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert api.post("/palace/mcp", headers={"Authorization": ""}, json={}).status_code == 401

    first = api.post(base + "/chat", json={"message": "I live in Beijing.", "session": "s1"})
    assert first.status_code == 200, first.text
    assert first.json()["verdicts"][0]["decision"] == "add"
    second = api.post(base + "/chat", json={"message": "I live in Shanghai.", "session": "s2"}).json()
    assert second["interrupts"] and second["interrupts"][0]["kind"] == "confirm_memory"
    disputed = api.get(base + "/review").json()
    assert [d["text"] for d in disputed] == ["I live in Shanghai"]
    assert disputed[0]["conflicts_with_text"] == "I live in Beijing"
    assert api.post("/palace/api/users/other/review", json={"accept": [disputed[0]["id"]]}).status_code == 404
    assert api.post(base + "/review", json={"accept": [disputed[0]["id"]]}).json() == {
        disputed[0]["id"]: "accepted"}
    everything = api.get(base + "/memories", params={"status": "all"}).json()
    statuses = {m["text"]: m["status"] for m in everything}
    assert statuses == {"I live in Shanghai": "active", "I live in Beijing": "superseded"}
    events = [e["event"] for e in api.get(base + f"/memories/{disputed[0]['id'][:8]}/history").json()]
    assert "accepted" in events, events
    old = next(m["id"] for m in everything if m["text"] == "I live in Beijing")
    assert api.get(f"/palace/api/users/other/memories/{old}/history").status_code == 404
    restored = api.post(base + f"/memories/{old}/restore")
    assert restored.status_code == 200 and restored.json()["was"] == "superseded"
    assert api.post(base + f"/memories/{old}/restore").status_code == 400  # already active
    assert api.get(base + "/memories/zz/history").status_code == 404  # not an id of theirs
    assert api.get(base + "/memories/ab/history").status_code == 400  # a prefix too short to name one

    exported = api.get(base + "/memories/export").text
    assert len(exported.splitlines()) == 2
    foreign = json.loads(exported.splitlines()[0]) | {"user_id": "someone-else"}
    report = api.post(base + "/memories/import", content=(exported + json.dumps(foreign) + "\nnot json\n").encode())
    assert report.json() == {"imported": 2, "lines": 4, "errors": [
        "line 3: user_id 'someone-else' is not 'auth0|u1'", "line 4: not JSON (Expecting value at column 1)"]}
    assert api.get("/palace/api/users/someone-else/memories").json() == []
    usage = api.get(base + "/usage").json()
    assert usage["prompt_tokens"] > 0 and usage["rows"]
    assert api.post(base + "/chat", json={"session": "s3"}).status_code == 400


def test_retriever_and_langchain_qdrant_read_the_same_memories(served: tuple[Agent, TestClient]) -> None:
    agent, api = served
    for text in ("My passport ends in 42", "I love green tea"):
        assert api.post("/palace/api/users/jo.li@example.com/memories", json={"text": text}).status_code == 200
    api.post("/palace/api/users/bob/memories", json={"text": "My passport ends in 77"})
    docs = PalaceRetriever(door=LocalDoor(agent.deps), user_id="jo.li@example.com", k=2).invoke("passport number")
    assert docs[0].page_content == "My passport ends in 42"
    assert {"score", "relevance", "decay", "weight", "boost", "status"} <= set(docs[0].metadata)
    assert all("77" not in d.page_content for d in docs)

    qdrant_lc = pytest.importorskip("langchain_qdrant")
    from qdrant_client import models

    from memory.embeddings import as_langchain

    store = qdrant_lc.QdrantVectorStore(
        client=agent.deps.resources.qdrant, collection_name=agent.settings.qdrant_collection,
        embedding=as_langchain(agent.deps.embeddings), vector_name="dense", content_payload_key="text",
        retrieval_mode=qdrant_lc.RetrievalMode.DENSE)
    only_jo = models.Filter(must=[models.FieldCondition(key="user_id",
                                                        match=models.MatchValue(value="jo.li@example.com"))])
    found = store.similarity_search("passport number", k=1, filter=only_jo)
    assert found[0].page_content == "My passport ends in 42"
    # the payload is flat: LangChain's metadata (a nested "metadata" key) is empty but for the point's id
    assert set(found[0].metadata) == {"_id", "_collection_name"}


async def test_palace_mcp_over_stdio(tmp_path: Path) -> None:
    """One process on the external services (the stores part is covered above for both kinds)."""
    from mcp import Client, StdioServerParameters

    with external_stack("mcp") as (redis_url, database_url, prefix):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PALACE_")}
        env |= {"PALACE_REDIS_URL": redis_url, "PALACE_DATABASE_URL": database_url, "PALACE_DATA_DIR": str(tmp_path),
                "PALACE_KEY_PREFIX": prefix}
        exe = shutil.which("palace", path=str(Path(sys.executable).parent)) or "palace"
        params = StdioServerParameters(command=exe, args=["mcp", "--user", "samlp|acme|jo"], env=env)
        await _stdio_session(Client(params))


async def _stdio_session(client: Any) -> None:
    async with client as mcp:
        assert len((await mcp.list_tools()).tools) == 5
        added = await mcp.call_tool("add_memory", {"text": "My locker code is 4512", "important": True})
        assert json.loads(added.content[0].text)["user_id"] == "samlp|acme|jo"
        hits = json.loads((await mcp.call_tool("search_memories", {"query": "locker code"})).content[0].text)
        assert hits[0]["text"] == "My locker code is 4512" and hits[0]["weight"] == 2.0
        assert (await mcp.call_tool("search_memories", {"query": ""})).is_error
        assert json.loads((await mcp.call_tool("review_memories", {})).content[0].text) == []


def test_doctor_route_checks_the_stores_the_server_holds(served: tuple[Agent, TestClient]) -> None:
    """``GET /palace/api/doctor`` (what ``palace doctor`` asks a running server): every check on the server's open
    stores and models, 200 whether or not they pass; the stores stay open for the requests after it."""
    agent, api = served
    assert api.get("/palace/api/doctor", headers={"Authorization": ""}).status_code == 401
    r = api.get("/palace/api/doctor")
    assert r.status_code == 200, r.text
    # "local model" comes first when the bundled model serves chat (issue 25): which one, and whether it is there
    checks = {c["name"]: c for c in r.json() if c["name"] != "local model"}
    assert list(checks) == ["chat", "verifier", "embeddings", "Redis", "PostgreSQL", "Qdrant"]
    assert all(c["ok"] and set(c) == {"name", "where", "ok", "detail", "ms"} for c in checks.values()), checks
    assert checks["Redis"]["detail"].startswith("Redis ") and checks["PostgreSQL"]["detail"].startswith("PostgreSQL ")
    assert checks["embeddings"]["detail"] == "384 dimensions"

    # a chat model that cannot be reached: its checks fail with the fix, the stores' pass, nothing is closed
    from doors.door import doctor
    from graph.deps import Deps

    broken = agent.deps.settings.model_copy(update={"chat_model": "gone", "verifier_model": None,
                                                    "chat_base_url": "http://127.0.0.1:9/v1", "model_max_retries": 0})
    from graph.models import OpenAIModels

    found = {c["name"]: c for c in doctor(Deps(broken, resources=agent.deps.resources, models=OpenAIModels(broken)))}
    assert [n for n, c in found.items() if not c["ok"]] == ["chat", "verifier"]
    assert "check PALACE_CHAT_BASE_URL" in found["chat"]["detail"], found["chat"]
    assert agent.deps.resources.redis.ping() and api.get("/palace/api/users/u/memories").status_code == 200
    with agent.deps.resources.pool.connection() as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


async def test_mcp_add_memory_takes_at_like_the_http_api(served: tuple[Agent, TestClient]) -> None:
    """``at`` (ISO 8601) on the MCP tool as on the HTTP API: the memory's time, a retried add with the same ``at``
    stored once, and a bad ``at`` the same typed error (a tool error; a 400 over HTTP), never a traceback."""
    from mcp import Client

    from doors.mcp_server import build_mcp

    agent, api = served
    user = "auth0|at-1"
    async with Client(build_mcp(LocalDoor(agent.deps), lambda ctx: user)) as mcp:
        args = {"text": "My old flat was on Elm Street", "at": "2024-03-01T09:30+08:00"}
        first = json.loads((await mcp.call_tool("add_memory", args)).content[0].text)
        again = json.loads((await mcp.call_tool("add_memory", args)).content[0].text)
        assert first["timestamp"] == 1709256600000 and again["id"] == first["id"]
        listed = json.loads((await mcp.call_tool("list_memories", {})).content[0].text)
        assert [m["text"] for m in listed] == ["My old flat was on Elm Street"]
        over_http = api.post("/palace/api/users/auth0%7Cat-1/memories", json={"text": "My bike is red",
                                                                                "at": "last tuesday"})
        assert over_http.status_code == 400
        for bad in ("last tuesday", "", "2024-13-01", "3024-01-01"):
            out = await mcp.call_tool("add_memory", {"text": "My bike is red", "at": bad})
            text = out.content[0].text  # type: ignore[union-attr]
            assert out.is_error and "timestamp" in text and "Traceback" not in text, text
        out = await mcp.call_tool("add_memory", {"text": "My bike is red", "at": "last tuesday"})
        assert out.content[0].text.endswith(": " + over_http.json()["detail"])  # type: ignore[union-attr]
        wrong_type = await mcp.call_tool("add_memory", {"text": "My bike is red", "at": 20240301})
        assert wrong_type.is_error and "Traceback" not in wrong_type.content[0].text  # type: ignore[union-attr]
        assert json.loads((await mcp.call_tool("list_memories", {})).content[0].text) == listed  # nothing stored


def test_pin_toggles_through_the_api_and_is_recorded(served: tuple[Agent, TestClient]) -> None:
    """The inspector's pin button: POST .../pin marks a memory important, DELETE .../pin undoes it; both are in
    the history, and another user's memory is not found either way."""
    _, api = served
    base = "/palace/api/users/auth0%7Cu1"
    mid = api.post(base + "/memories", json={"text": "My passport ends in 42"}).json()["id"]
    assert api.post(base + f"/memories/{mid}/pin").json()["decay_weight"] == 2.0
    assert api.get(base + f"/memories/{mid}").json()["decay_weight"] == 2.0
    assert api.delete(base + f"/memories/{mid[:8]}/pin").json()["decay_weight"] == 1.0  # a short id too
    assert api.get(base + f"/memories/{mid}").json()["decay_weight"] == 1.0
    history = api.get(base + f"/memories/{mid}/history").json()
    assert [(e["event"], e["reason"]) for e in history[-2:]] == [("pinned", "decay weight 2.0"),
                                                                 ("unpinned", "decay weight 1.0")]
    other = api.delete(f"/palace/api/users/someone-else/memories/{mid}/pin")
    assert other.status_code == 404 and "no memory" in other.json()["detail"]
