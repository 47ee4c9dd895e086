"""Isolation on real stores: whatever users store, search, delete or ask tools to change, nobody else's data is
returned or changed; `forget --all` removes everything of one user in Qdrant, Redis and PostgreSQL, nothing else."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph.api import add_memory, forget_memories, forget_user, search_memories
from memory.errors import NotFoundError
from tests.integration.agent_harness import Agent

WORDS = ["tea", "car", "sister", "Hangzhou", "badge", "dentist", "花园", "龙井", "会议", "passport", "violin"]
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(lambda ws: "I like " + " and ".join(ws))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.tuples(st.integers(0, 3), texts), min_size=2, max_size=8),
       queries=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(WORDS)), min_size=1, max_size=4),
       victim=st.integers(0, 3))
def test_no_operation_reaches_another_users_data(agent: Agent, plan: list[tuple[int, str]],
                                                 queries: list[tuple[int, str]], victim: int) -> None:
    deps = agent.deps
    users = [f"iso{uuid.uuid4().hex[:8]}" for _ in range(4)]
    owned: dict[str, set[str]] = {u: set() for u in users}
    for who, text in plan:
        owned[users[who]].add(add_memory(deps, users[who], text).id)
    everyone = set().union(*owned.values())
    for who, word in queries:
        found = {r.memory.id for r in search_memories(deps, users[who], word, limit=50)}
        assert found <= owned[users[who]]
        tasks = deps.tasks()
        task = tasks.create(users[who], "s", f"task {word}", ["a", "b"])
        for other in users:
            if other != users[who]:
                with pytest.raises(NotFoundError):
                    tasks.advance(other, str(task.id))  # a task id of someone else is not found, not changed
        assert tasks.get(users[who], str(task.id)).current_step == 0
    # deleting with another user's ids changes nothing of theirs
    attacker, target = users[victim], users[(victim + 1) % 4]
    if owned[target]:
        assert forget_memories(deps, attacker, sorted(owned[target])).named == 0
    for u in users:
        assert {m.id for m in deps.long_term().scroll(u)} == owned[u]
    assert everyone == set().union(*({m.id for m in deps.long_term().scroll(u)} for u in users))


def _populate(agent: Agent, user: str) -> None:
    agent.turn(user, "s1", "My locker code is 4512.")
    agent.turn(user, "s2", "I moved to Hangzhou last week.")
    add_memory(agent.deps, user, "My passport expires in 2031")
    agent.deps.tasks().create(user, "s1", "expense approval", ["submit", "manager", "finance"])
    agent.deps.outbox().enqueue(user, "s1", [])  # a waiting outbox row


def _footprint(agent: Agent, user: str) -> dict[str, Any]:
    deps = agent.deps
    r = deps.resources.redis
    prefix = deps.settings.key_prefix
    return {
        "stm": sorted(r.scan_iter(match=f"{prefix}:{{{user}/*}}:stm*", count=1000)),
        "memories": deps.long_term().count(user),
        "tasks": len(deps.tasks().list_tasks(user)),
        "usage": sum(row.calls for row in deps.ledger().summary("session", user_id=user)),
        "outbox": deps.outbox().pending(user),
        "threads": sorted(t for t in map(bytes.decode, r.smembers(f"{prefix}:cp:threads"))
                          if t.startswith(f"cli:{user}:")),
    }


def test_forget_all_removes_everything_of_one_user_and_nothing_of_anyone_else(agent: Agent) -> None:
    for user in ("ann", "annie", "bob"):  # "annie" shares a prefix with "ann": must survive
        _populate(agent, user)
    before = {u: _footprint(agent, u) for u in ("annie", "bob")}
    ann = _footprint(agent, "ann")
    assert ann["stm"] and ann["memories"] >= 3 and ann["tasks"] and ann["usage"] and ann["outbox"] and ann["threads"]
    gone = forget_user(agent.deps, "ann")
    assert gone.memories == ann["memories"] and gone.tasks == 1 and gone.threads == 2 and gone.outbox_rows == 1
    after = _footprint(agent, "ann")
    assert after == {"stm": [], "memories": 0, "tasks": 0, "usage": 0, "outbox": 0, "threads": []}
    assert {u: _footprint(agent, u) for u in ("annie", "bob")} == before
    again = forget_user(agent.deps, "ann")  # idempotent
    assert again.total() == 0
    # a new turn after forgetting starts from nothing
    fresh = agent.turn("ann", "s1", "What is my locker code?")
    assert fresh.state["recalled"] == []
