"""Task state and token ledger against real PostgreSQL (external 127.0.0.1 and embedded), a fresh DB per test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from memory import pg_base, postgres
from memory.errors import InvalidInputError, NotFoundError, ServiceUnavailableError
from memory.postgres import TaskStore, UsageLedger

pytestmark = pytest.mark.pgbouncer  # and through PgBouncer in transaction mode (tests/conftest.py)


@pytest.fixture
def pool(pg_url: str) -> Iterator[ConnectionPool[Any]]:
    p = postgres.open_pool(pg_url, max_size=4)
    postgres.setup(p)
    yield p
    p.close()


def test_migrations_are_recorded_and_setup_is_idempotent(pool: ConnectionPool[Any]) -> None:
    assert postgres.setup(pool) == len(pg_base.MIGRATIONS) - 1
    with pool.connection() as conn:
        versions = [r[0] for r in conn.execute("SELECT v FROM palace_migrations ORDER BY v").fetchall()]
    assert versions == list(range(len(pg_base.MIGRATIONS)))


def test_concurrent_setup_from_two_pools(pg_url: str) -> None:
    pools = [postgres.open_pool(pg_url, max_size=1) for _ in range(2)]
    errors: list[BaseException] = []

    def run(p: ConnectionPool[Any]) -> None:
        try:
            postgres.setup(p)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(p,)) for p in pools]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in pools:
        p.close()
    assert errors == []


def test_task_lifecycle_with_history(pool: ConnectionPool[Any]) -> None:
    tasks = TaskStore(pool)
    task = tasks.create("u1", "s1", "Expense approval", ["submit", "manager", "finance", "paid"])
    assert task.current_step == 0 and task.status == "active"
    assert task.progress == "step 1 of 4: submit"
    task = tasks.advance("u1", task.id, note="sent the form")
    assert task.progress == "step 2 of 4: manager"
    with pytest.raises(InvalidInputError, match="at step 1, not 0"):
        tasks.advance("u1", task.id, expected_step=0)  # a retried advance does not skip a step
    tasks.advance("u1", task.id, expected_step=1)
    tasks.advance("u1", task.id)
    done = tasks.advance("u1", task.id)
    assert done.status == "completed" and done.current_step == 4
    with pytest.raises(InvalidInputError, match="completed"):
        tasks.advance("u1", task.id)
    full = tasks.get("u1", task.id, history=True)
    assert [e.event for e in full.history] == ["created", "advanced", "advanced", "advanced", "advanced"]
    assert [(e.from_step, e.to_step) for e in full.history[1:]] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert full.history[1].note == "sent the form"


def test_list_complete_cancel_and_isolation(pool: ConnectionPool[Any]) -> None:
    tasks = TaskStore(pool)
    a = tasks.create("alice", "s1", "A", ["one", "two"])
    b = tasks.create("alice", "s2", "B", ["one"])
    c = tasks.create("bob", "s1", "C", ["one"])
    assert {t.id for t in tasks.list_tasks("alice")} == {a.id, b.id}
    assert [t.id for t in tasks.list_tasks("alice", session_id="s2")] == [b.id]
    assert tasks.complete("alice", a.id).status == "completed"
    assert tasks.cancel("alice", b.id).status == "cancelled"
    assert tasks.list_tasks("alice", status="active") == []
    for call in (lambda: tasks.get("bob", a.id), lambda: tasks.advance("bob", a.id),
                 lambda: tasks.cancel("bob", a.id), lambda: tasks.get("alice", "not-a-uuid")):
        with pytest.raises(NotFoundError):
            call()
    assert tasks.delete_user("alice") == 2
    assert [t.id for t in tasks.list_tasks("bob")] == [c.id]


def test_concurrent_advances_never_skip_or_repeat(pool: ConnectionPool[Any]) -> None:
    tasks = TaskStore(pool)
    task = tasks.create("u", "s", "Race", [f"step {i}" for i in range(20)])
    barrier = threading.Barrier(4)

    def worker() -> None:
        barrier.wait()
        for _ in range(5):
            tasks.advance("u", task.id)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    full = tasks.get("u", task.id, history=True)
    assert full.current_step == 20 and full.status == "completed"
    assert [(e.from_step, e.to_step) for e in full.history[1:]] == [(i, i + 1) for i in range(20)]


def test_bad_task_input(pool: ConnectionPool[Any]) -> None:
    tasks = TaskStore(pool)
    with pytest.raises(InvalidInputError, match="at least one step"):
        tasks.create("u", "s", "t", [])
    with pytest.raises(InvalidInputError, match="task title is empty"):
        tasks.create("u", "s", " ", ["a"])
    with pytest.raises(InvalidInputError, match="user id"):
        tasks.create("u{x}", "s", "t", ["a"])
    assert tasks.list_tasks("u") == []


def test_usage_summary_by_day_session_node_model(pool: ConnectionPool[Any]) -> None:
    ledger = UsageLedger(pool)
    ledger.record("u", "s1", "respond", "gpt-4o-mini", 1000, 200, 0.0005)
    ledger.record("u", "s1", "fact_check", "qwen3-8b", 300, 50, 0)
    ledger.record("u", "s2", "respond", "gpt-4o-mini", 500, 100, Decimal("0.00025"))
    ledger.record("v", "s9", "respond", "gpt-4o-mini", 7, 7, 0)
    by_node = {r.key: r for r in ledger.summary("node", user_id="u")}
    assert by_node["respond"].prompt_tokens == 1500 and by_node["respond"].calls == 2
    assert by_node["respond"].cost_usd == Decimal("0.00075")
    assert {r.key for r in ledger.summary("session", user_id="u")} == {"s1", "s2"}
    assert [r.calls for r in ledger.summary("day")] == [4]
    assert {r.key for r in ledger.summary("model")} == {"gpt-4o-mini", "qwen3-8b"}
    with pytest.raises(InvalidInputError):
        ledger.record("u", "s", "respond", "m", -1, 0)
    with pytest.raises(InvalidInputError):
        ledger.record("u", "s", "respond", "m", 1, 0, float("nan"))
    with pytest.raises(InvalidInputError):
        ledger.summary("week")  # type: ignore[arg-type]
    assert ledger.delete_user("u") == 3


def test_every_row_is_priced_by_the_ledger_with_its_baseline(pool: ConnectionPool[Any]) -> None:
    ledger = UsageLedger(pool, prices={"gpt-4o-mini": (0.15, 0.6), "*": (1.0, 2.0)})
    ledger.record("p", "s", "archive", "gpt-4o-mini", 1_000_000, 100_000)  # a summary: same price as an answer
    ledger.record("p", "s", "respond", "local", 1_000, 500, baseline_prompt_tokens=10_000)
    by_node = {r.key: r for r in ledger.summary("node", user_id="p")}
    assert by_node["archive"].cost_usd == Decimal("0.21")  # 0.15 + 0.1 x 0.6
    assert by_node["archive"].baseline_cost_usd == 0
    assert by_node["respond"].cost_usd == Decimal("0.002")  # "*": (1000 x 1 + 500 x 2) / 1e6
    assert by_node["respond"].baseline_cost_usd == Decimal("0.011")  # (10000 x 1 + 500 x 2) / 1e6
    ledger.record("p", "s", "respond", "local", 1, 1, cost_usd=Decimal("5"))  # an explicit cost wins
    assert sum(r.cost_usd for r in ledger.summary("node", user_id="p")) == Decimal("5.212")  # 0.21 + 0.002 + 5
    assert ledger.delete_user("p") == 3


def test_unreachable_postgres_is_a_clear_error() -> None:
    url = "postgresql://postgres:hunter2@127.0.0.1:1/nope"
    with pytest.raises(ServiceUnavailableError) as info:
        postgres.open_pool(url, timeout_s=1)
    message = str(info.value)
    assert message.startswith("PostgreSQL unavailable at postgresql://postgres:***@127.0.0.1:1/nope: ")
    assert "hunter2" not in message and "\n" not in message


def test_failed_transaction_leaves_stored_tasks_intact(pool: ConnectionPool[Any]) -> None:
    tasks = TaskStore(pool)
    task = tasks.create("u", "s", "t", ["a", "b"])
    with pytest.raises(psycopg.errors.CheckViolation), pool.connection() as conn, conn.transaction():
        conn.execute("UPDATE palace_tasks SET current_step = 99 WHERE id = %s", (task.id,))
    assert tasks.get("u", task.id).current_step == 0


def test_repeated_queries_on_concurrent_connections(pool: ConnectionPool[Any]) -> None:
    """psycopg prepares a query on its sixth run (its default prepare_threshold, 5, runs it unprepared first); behind
    PgBouncer in transaction mode the next transaction may get another server connection, where that statement is
    missing or already exists. Never preparing avoids both."""
    tasks = TaskStore(pool)
    task = tasks.create("u", "s", "T", ["a", "b"])
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(25):
                assert [t.id for t in tasks.list_tasks("u")] == [task.id]
                assert tasks.get("u", task.id).title == "T"
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
