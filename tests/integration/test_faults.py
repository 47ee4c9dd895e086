"""Service faults during a turn, on real services: Qdrant or PostgreSQL unreachable (a real client pointed at a
closed port), then back. The answer always comes; nothing the user said is lost; what could not be written waits
(the outbox in PostgreSQL, usage rows in the thread state) and lands when the service is back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from psycopg_pool import ConnectionPool
from qdrant_client import QdrantClient

from memory.long_term import LongTermMemory
from tests.integration.agent_harness import Agent

DOWN_QDRANT = "http://127.0.0.1:9"  # discard port: nothing listens, connections are refused at once
DOWN_PG = "postgresql://postgres@127.0.0.1:9/postgres?connect_timeout=1"


@pytest.fixture
def qdrant_down(agent: Agent) -> Iterator[Any]:
    """Call it to take Qdrant away from the agent; the fixture puts it back at the end at the latest."""
    resources = agent.deps.resources
    real = resources.long_term()
    client = QdrantClient(url=DOWN_QDRANT, timeout=1, check_compatibility=False)

    class Switch:
        def down(self) -> None:
            resources._ltm = LongTermMemory(client, real.collection)

        def up(self) -> None:
            resources._ltm = real

    switch = Switch()
    yield switch
    switch.up()
    client.close()


def texts(agent: Agent, user: str) -> set[str]:
    return {m.text for m in agent.deps.long_term().scroll(user)}


@pytest.mark.pgbouncer  # the outbox through PgBouncer in transaction mode
def test_qdrant_down_answers_and_queues_writes_then_flushes_them_in_order(agent: Agent, qdrant_down: Any) -> None:
    agent.turn("u", "s", "My locker code is 4512.")
    qdrant_down.down()
    first = agent.turn("u", "s", "I moved to Hangzhou last week.")
    assert first.answer  # the answer still comes
    assert "Qdrant unavailable" in first.state["degraded"]["recall"]
    assert first.state["degraded"]["outbox"]["queued"] == 1
    second = agent.turn("u", "s", "My sister is called Mei.")
    assert second.answer and second.state["recalled"] == []
    assert agent.deps.outbox().pending("u") == 2
    stm = agent.deps.short_term().window("u", "s")
    assert [e.content for e in stm.entries if e.role == "user"][-2:] == ["I moved to Hangzhou last week.",
                                                                         "My sister is called Mei."]
    qdrant_down.up()
    back = agent.turn("u", "s", "Where do I live now?")
    assert agent.deps.outbox().pending("u") == 0
    assert {"I moved to Hangzhou last week", "My sister is called Mei"} <= texts(agent, "u")
    assert "I moved to Hangzhou last week" in [m["text"] for m in back.state["recalled"]]  # flushed before recall
    assert "recall" not in back.state["degraded"]


def test_queued_rows_are_flushed_per_user_and_never_applied_to_another_user(agent: Agent,
                                                                                  qdrant_down: Any) -> None:
    qdrant_down.down()
    agent.turn("alice", "s", "My badge number is 7781.")
    agent.turn("bob", "s", "My badge number is 1234.")
    assert agent.deps.outbox().pending() >= 2
    qdrant_down.up()
    agent.turn("bob", "s2", "What is my badge number?")  # flushes only bob's rows
    assert agent.deps.outbox().pending("bob") == 0 and agent.deps.outbox().pending("alice") == 1
    assert texts(agent, "bob") == {"My badge number is 1234"} and texts(agent, "alice") == set()
    assert agent.deps.outbox().flush(agent.deps.long_term()) == 1  # what `palace sweep` does for everyone
    assert texts(agent, "alice") == {"My badge number is 7781"}


def test_postgres_down_answers_and_keeps_usage_rows_until_it_is_back(agent: Agent) -> None:
    resources = agent.deps.resources
    real_pool = resources.pool
    broken: ConnectionPool[Any] = ConnectionPool(DOWN_PG, min_size=0, max_size=1, timeout=1, open=True, name="down")
    try:
        resources._pool = broken
        down = agent.turn("u", "s", "My car is a blue Volvo.")
        assert down.answer
        assert "PostgreSQL unavailable" in down.state["degraded"]["tasks"]
        kept = down.state["unrecorded_usage"]
        assert kept and down.state["degraded"]["ledger"]["unrecorded"] == len(kept)
        assert "My car is a blue Volvo" in texts(agent, "u")  # Qdrant was up: the memory went straight in
    finally:
        resources._pool = real_pool
        broken.close()
    back = agent.turn("u", "s", "What car do I drive?")
    assert back.state["unrecorded_usage"] == []
    rows = agent.deps.ledger().summary("session", user_id="u")
    assert sum(r.calls for r in rows) == len(kept) + len(back.state["usage"])


def test_redis_restarted_between_turns_next_turn_works(agent: Agent) -> None:
    agent.turn("u", "s", "My favourite tea is Longjing.")
    agent.deps.resources.redis.connection_pool.disconnect()  # what a server restart does to open connections
    again = agent.turn("u", "s", "What tea do I like?")
    assert again.answer and "My favourite tea is Longjing" in [m["text"] for m in again.state["recalled"]]


def test_a_row_qdrant_rejects_is_kept_and_does_not_block_the_others(agent: Agent) -> None:
    box = agent.deps.outbox()
    box.enqueue("u", "s", [{"op": "no-such-operation"}])
    agent.turn("u", "s", "My locker code is 4512.")  # flushes: the bad row is kept, the turn works
    for _ in range(5):
        box.flush(agent.deps.long_term(), "u")
    assert box.pending("u") == 1 and "My locker code is 4512" in texts(agent, "u")
    with agent.deps.resources.pool.connection() as conn:
        attempts, error = conn.execute("SELECT attempts, last_error FROM palace_outbox WHERE user_id = 'u'"
                                       ).fetchone()
    assert attempts == 5 and "unknown outbox operation" in error  # tried 5 times, then left for inspection
