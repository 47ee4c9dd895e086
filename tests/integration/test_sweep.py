"""`palace sweep` on real Redis / PostgreSQL / Qdrant: idle sessions are archived in full, exactly once, before
their TTL; busy sessions are left alone; batches a crash left pending are finished."""

from __future__ import annotations

import pytest

from graph.sweep import sweep
from memory.errors import PalaceError
from tests.integration.agent_harness import Agent

pytestmark = [pytest.mark.redis_cluster, pytest.mark.pgbouncer]  # and on a Redis Cluster, and through PgBouncer


def _age(agent: Agent, user: str, session: str, idle_s: int) -> None:
    """Make a session look idle for ``idle_s``: its TTL is what is left of PALACE_STM_TTL_S."""
    s = agent.settings
    key = agent.deps.short_term().keys(user, session)[0]
    agent.deps.resources.redis.pexpire(key, (s.stm_ttl_s - idle_s) * 1000)


def test_idle_sessions_are_archived_once_and_busy_ones_left(agent: Agent) -> None:
    for i in range(3):
        agent.turn("u", "idle", f"Note {i}: the gate code is {100 + i}.")
        agent.turn("u", "busy", f"Plan {i}: call the plumber.")
    stm = agent.deps.short_term()
    # two messages no turn processed (an interrupted process): only the archive can keep them
    for i in range(2):
        stm.push("u", "idle", "user", f"I parked on level {i + 3}.")
    _age(agent, "u", "idle", agent.settings.sweep_idle_s + 60)
    entries = [e.id for e in stm.window("u", "idle").entries]
    assert len(entries) == 8
    done = sweep(agent.deps)
    assert done.sessions == 1 and done.entries == 8 and not done.errors
    assert stm.length("u", "idle") == 0 and stm.length("u", "busy") == 6
    archived = [m for m in agent.deps.long_term().scroll("u") if m.origin.startswith("archive:")]
    # the turns' notes were stored by their turns: the archive adds only what no turn stored, once
    assert sorted(m.text for m in archived) == ["I parked on level 3", "I parked on level 4"]
    assert {src for m in archived for src in m.source} <= set(entries)
    texts = [m.text for m in agent.deps.long_term().scroll("u")]
    assert len(texts) == len(set(texts))
    again = sweep(agent.deps)
    assert again.sessions == 0 and again.entries == 0
    assert len([m for m in agent.deps.long_term().scroll("u") if m.origin.startswith("archive:")]) == len(archived)


def test_a_batch_left_pending_by_a_crash_is_finished(agent: Agent) -> None:
    for i in range(2):
        agent.turn("u", "crashed", f"Fact {i}: the wifi password is fish{i}.")
    stm = agent.deps.short_term()
    batch = stm.claim("u", "crashed", drain=True)  # a process claimed it and died before acknowledging
    assert batch is not None
    agent.deps.resources.redis.delete(stm.keys("u", "crashed")[2])  # its lease expired
    done = sweep(agent.deps)
    assert done.entries == len(batch.entries) and stm.length("u", "crashed") == 0


def test_idle_time_must_be_below_the_ttl(agent: Agent) -> None:
    with pytest.raises(PalaceError, match="below the short-term TTL"):
        sweep(agent.deps, idle_s=agent.settings.stm_ttl_s)
