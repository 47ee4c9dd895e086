"""graph.store.PalaceStore (LangGraph's BaseStore) on real stores: the same memories the agent recalls."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import ListNamespacesOp

from graph.store import PalaceStore, UnsupportedStoreOperation
from memory.errors import InvalidInputError
from memory.validation import id_to_label
from tests.integration.agent_harness import Agent

NS = ("memories", "alice")


def test_store_reads_and_changes_the_agents_memories(agent: Agent) -> None:
    store = PalaceStore(agent.deps)
    agent.turn("alice", "s", "I moved to Hangzhou last week.")
    found = store.search(NS, query="Where do I live?")
    assert found and found[0].value["text"] == "I moved to Hangzhou last week" and found[0].score
    key = found[0].key
    item = store.get(NS, key)
    assert item is not None and item.value["user_id"] == "alice" and item.key == key
    store.put(NS, "passport", {"text": "My passport ends in 42", "important": True})
    got = store.get(NS, "passport")
    assert got is not None and got.value["decay_weight"] == 2.0
    assert "My passport ends in 42" in [m["text"] for m in agent.turn("alice", "s", "What about my passport?")
                                        .state["recalled"]]
    store.put(NS, key, {"text": "I moved to Suzhou last week"})  # replace the text, keep the rest
    replaced = store.get(NS, key)
    assert replaced is not None and replaced.value["text"] == "I moved to Suzhou last week"
    assert replaced.value["timestamp"] == item.value["timestamp"]
    listed = store.search(NS)
    assert {i.value["text"] for i in listed} >= {"I moved to Suzhou last week", "My passport ends in 42"}
    store.delete(NS, "passport")
    assert store.get(NS, "passport") is None
    assert asyncio.run(store.aget(NS, key)) is not None  # the async API serves the same


def test_store_keeps_users_apart_and_names_what_it_does_not_serve(agent: Agent) -> None:
    store = PalaceStore(agent.deps)
    store.put(NS, "k", {"text": "alice's secret is 8841"})
    alice_key = store.search(NS)[0].key
    assert store.get(("memories", "bob"), alice_key) is None
    assert store.search(("memories", "bob"), query="secret") == []
    store.delete(("memories", "bob"), alice_key)  # another user's key deletes nothing
    assert store.get(NS, alice_key) is not None
    with pytest.raises(InvalidInputError, match="namespace must be"):
        store.search(("documents", "alice"))
    with pytest.raises(UnsupportedStoreOperation, match="enumerate users"):
        store.batch([ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0)])
    with pytest.raises(UnsupportedStoreOperation, match="filter"):
        store.search(NS, filter={"text": "x"})
    with pytest.raises(UnsupportedStoreOperation, match="TTL"):  # a ValueError: the server answers 400
        store.put(NS, "t", {"text": "x"}, ttl=5)
    email = ("memories", id_to_label("jo.li@example.com"))  # the SDK refuses periods in labels
    store.put(email, "e", {"text": "My desk is 4F-12"})
    assert store.get(email, "e").value["user_id"] == "jo.li@example.com"  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError, match=r"value\.text"):
        store.put(NS, "t", {"nope": 1})


def test_forgetting_a_memory_follows_its_lineage(agent: Agent) -> None:
    from graph.api import forget_memories

    said = agent.turn("alice", "s", "My locker code is 4512. My badge is 7781.")
    memories = list(agent.deps.long_term().scroll("alice"))
    assert len(memories) == 2 and all(m.source == [said.state["turn"]["id"]] for m in memories)
    gone = forget_memories(agent.deps, "alice", [memories[0].id])
    assert (gone.named, gone.derived, gone.short_term_entries) == (1, 1, 1)  # the other fact of that message too
    assert list(agent.deps.long_term().scroll("alice")) == []
    left = [e.content for e in agent.deps.short_term().window("alice", "s").entries if e.role == "user"]
    assert left == []  # the message itself: no archive can bring it back
