"""The plain-Redis checkpointer, proven by LangGraph's own conformance suite on real Redis (external and embedded)."""

from __future__ import annotations

import asyncio
import operator
import time
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

import pytest
import redis
import redis.asyncio as aioredis
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.graph import END, START, StateGraph
from redis.crc import key_slot
from typing_extensions import TypedDict

from memory.checkpoint import AsyncRedisSaver, RedisSaver, SaverConfig
from memory.errors import InvalidInputError

pytestmark = pytest.mark.redis_cluster  # and on a Redis Cluster (tests/conftest.py)


class SyncAsAsync(BaseCheckpointSaver[str]):
    """Runs the suite (which calls only async methods) through RedisSaver's sync methods, in a thread."""

    def __init__(self, inner: RedisSaver) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner

    async def aget_tuple(self, config: RunnableConfig) -> Any:
        return await asyncio.to_thread(self.inner.get_tuple, config)

    async def alist(self, config: RunnableConfig | None, **kw: Any) -> AsyncIterator[Any]:
        for item in await asyncio.to_thread(lambda: list(self.inner.list(config, **kw))):
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return await asyncio.to_thread(self.inner.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await asyncio.to_thread(self.inner.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.inner.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.inner.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.inner.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.inner.prune, thread_ids, strategy=strategy)


@pytest.fixture
def cp_prefix(key_prefix: str) -> str:
    """The per-test key prefix of conftest (removed afterwards), under the checkpointer's own namespace."""
    return f"{key_prefix}:cp"


async def test_async_saver_passes_the_full_conformance_suite(
    redis_server_url: str, cp_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @checkpointer_test(name=f"AsyncRedisSaver ({redis_server_url})")
    async def saver() -> AsyncIterator[AsyncRedisSaver]:
        async with AsyncRedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix) as s:
            yield s

    report = await validate(saver)
    with capsys.disabled():
        report.print_report()
    caps = report.to_dict()
    assert report.passed_all(), caps
    assert {"delete_for_runs", "copy_thread", "prune"} <= set(caps["results"])


async def test_sync_saver_passes_the_full_suite_through_an_adapter(
    redis_server_url: str, cp_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @checkpointer_test(name=f"RedisSaver via thread adapter ({redis_server_url})")
    async def saver() -> AsyncIterator[SyncAsAsync]:
        with RedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix) as s:
            yield SyncAsAsync(s)

    report = await validate(saver)
    with capsys.disabled():
        report.print_report()
    assert report.passed_all_base() and report.passed_all(), report.to_dict()


async def test_ttl_expires_every_key_of_a_thread_including_pending_writes(
    redis_server_url: str, redis_client: redis.Redis, cp_prefix: str
) -> None:
    async with AsyncRedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix, ttl_s=1.0) as saver:
        graph = _counter_graph().compile(checkpointer=saver)
        config: RunnableConfig = {"configurable": {"thread_id": "t-1"}}
        await graph.ainvoke({"total": 1}, config)
        tup = await saver.aget_tuple(config)
        assert tup is not None
        await saver.aput_writes(tup.config, [("total", 5)], task_id="pending-task")
        keys = [k for k in redis_client.scan_iter(match=f"{cp_prefix}:{{t-1}}:*")]
        assert any(b":w:" in k for k in keys) and any(b":b:" in k for k in keys) and any(b":c:" in k for k in keys)
        assert all(0 < redis_client.pttl(k) <= 1000 for k in keys), {k: redis_client.pttl(k) for k in keys}
        time.sleep(1.3)
        assert list(redis_client.scan_iter(match=f"{cp_prefix}:{{t-1}}:*")) == []
        assert await saver.aget_tuple(config) is None


def test_keys_of_a_thread_share_one_cluster_slot(redis_server_url: str, redis_client: redis.Redis,
                                                 cp_prefix: str) -> None:
    with RedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix) as saver:
        graph = _counter_graph().compile(checkpointer=saver)
        for tid in ("plain", "with{braces}", "a:b/c d"):
            graph.invoke({"total": 1}, {"configurable": {"thread_id": tid}})
            state = graph.get_state({"configurable": {"thread_id": tid}})
            assert state.values["total"] == 2
        thread_keys = [k for k in redis_client.scan_iter(match=f"{cp_prefix}:*")
                       if b":threads" not in k and b":run:" not in k]
        slots: dict[int, set[bytes]] = {}
        for k in thread_keys:
            slots.setdefault(key_slot(k), set()).add(k)
        assert len(slots) == 3, slots


def _counter_graph() -> StateGraph[Any]:
    class State(TypedDict):
        total: Annotated[int, operator.add]

    builder: StateGraph[Any] = StateGraph(State)
    builder.add_node("add", lambda s: {"total": 1})
    builder.add_edge(START, "add")
    builder.add_edge("add", END)
    return builder


async def test_a_graph_resumes_from_redis_after_reopening(redis_server_url: str, cp_prefix: str) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "resume"}}
    async with AsyncRedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix) as saver:
        await _counter_graph().compile(checkpointer=saver).ainvoke({"total": 10}, config)
    async with AsyncRedisSaver.from_conn_string(redis_server_url, prefix=cp_prefix) as saver:
        graph = _counter_graph().compile(checkpointer=saver)
        result = await graph.ainvoke({"total": 100}, config)
        assert result["total"] == 10 + 1 + 100 + 1
        history = [s async for s in graph.aget_state_history(config)]
        assert len(history) >= 4


async def test_bad_configuration_is_refused(redis_server_url: str) -> None:
    with pytest.raises(InvalidInputError):
        SaverConfig(prefix="a{b")
    with pytest.raises(InvalidInputError):
        SaverConfig(ttl_s=0)
    async with AsyncRedisSaver.from_conn_string(redis_server_url) as saver:
        with pytest.raises(InvalidInputError, match="thread_id"):
            await saver.aget_tuple({"configurable": {}})
        with pytest.raises(ValueError, match="unknown prune strategy"):
            await saver.aprune(["x"], strategy="everything")


async def test_unreachable_redis_is_a_clear_error() -> None:
    from memory.errors import ServiceUnavailableError

    with pytest.raises(ServiceUnavailableError, match=r"^Redis unavailable at redis://127\.0\.0\.1:1/0"):
        async with AsyncRedisSaver.from_conn_string("redis://127.0.0.1:1/0"):
            pass
    client = aioredis.Redis.from_url("redis://127.0.0.1:1/0")
    saver = AsyncRedisSaver(client)
    with pytest.raises(ServiceUnavailableError):
        await saver.aget_tuple({"configurable": {"thread_id": "x"}})
    await client.aclose()
