"""``doors.lanes``: the turn gate (one turn at a time, in order of arrival; a turn that waits past the request
timeout is a 503 and keeps its place), the memory pool (a memory operation never waits behind a turn) and the turn
threads' lower priority."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from typing import Any

import pytest

from doors.lanes import Lanes, TurnGate
from doors.overload import Overloaded, within
from graph.deps import Deps
from graph.priority import install, lower_this_thread
from graph.settings import Settings, get_settings

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def _in_thread(fn: Any) -> Any:
    """``fn()`` in a fresh thread (a lowered thread stays low: never the test's own)."""
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def _lanes(**kw: int) -> Lanes:
    return Lanes(**({"memory_workers": 2, "serve_turns": 1, "turn_nice": 10} | kw))


# --- the gate --------------------------------------------------------------------------------------------------


async def test_the_gate_lets_in_size_turns_and_the_others_in_order_of_arrival() -> None:
    gate = TurnGate(2)
    await gate.acquire()
    await gate.acquire()
    order: list[int] = []

    async def turn(i: int) -> None:
        async with gate:
            order.append(i)

    waiters = [asyncio.ensure_future(turn(i)) for i in range(5)]
    await asyncio.sleep(0.01)
    assert order == [] and gate.waiting == 5 and gate.held == 2
    gate.release()
    await asyncio.sleep(0.01)
    assert order == [0, 1, 2, 3, 4]  # each hands its place to the next as it leaves
    gate.release()
    await asyncio.gather(*waiters)
    assert gate.held == 0 and gate.waiting == 0


async def test_a_cancelled_waiter_leaves_the_line_and_the_next_one_gets_the_place() -> None:
    gate = TurnGate(1)
    await gate.acquire()
    first = asyncio.ensure_future(gate.acquire())
    second = asyncio.ensure_future(gate.acquire())
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    assert gate.waiting == 1
    gate.release()
    await asyncio.wait_for(second, 1)
    assert gate.held == 1
    gate.release()
    assert gate.held == 0


def test_a_gate_needs_room() -> None:
    with pytest.raises(ValueError):
        TurnGate(0)


# --- the timeout: a 503, and the turn keeps its place ----------------------------------------------------------


async def test_a_turn_waiting_past_the_timeout_is_overloaded_and_keeps_its_place() -> None:
    lanes = _lanes(serve_turns=1)
    release = threading.Event()
    ran: list[str] = []

    def turn(name: str, hold: bool = False) -> str:
        if hold:
            release.wait(10)
        ran.append(name)
        return name

    try:
        running = asyncio.ensure_future(lanes.turn(turn, "first", hold=True))
        await asyncio.sleep(0.05)
        t0 = time.monotonic()
        with pytest.raises(Overloaded) as caught:
            await within(lanes.turn(turn, "second"), 0.2, 7)
        assert 0.2 <= time.monotonic() - t0 < 1.0 and caught.value.retry_after_s == 7
        third = asyncio.ensure_future(lanes.turn(turn, "third"))  # came after the one that got the 503
        await asyncio.sleep(0.05)
        assert ran == [] and lanes.gate.waiting == 2  # the 503'd turn still waits, ahead of the third
        release.set()
        assert await running == "first" and await asyncio.wait_for(third, 5) == "third"
        assert ran == ["first", "second", "third"]  # it ran in its place: nothing it was asked to do is lost
    finally:
        release.set()
        lanes.close()


async def test_a_turn_let_in_within_the_timeout_is_answered() -> None:
    lanes = _lanes(serve_turns=2)
    release = threading.Event()
    try:
        busy = asyncio.ensure_future(lanes.turn(release.wait, 10))
        assert await within(lanes.turn(lambda: "answered"), 2.0, 5) == "answered"  # room for two turns
        release.set()
        assert await busy is True
    finally:
        release.set()
        lanes.close()


# --- the pools -------------------------------------------------------------------------------------------------


async def test_a_memory_operation_does_not_wait_behind_turns() -> None:
    lanes = _lanes(serve_turns=1, memory_workers=2)
    release = threading.Event()
    try:
        turns = [asyncio.ensure_future(lanes.turn(release.wait, 10)) for _ in range(3)]  # one runs, two wait
        await asyncio.sleep(0.05)
        t0 = time.monotonic()
        name = await asyncio.wait_for(lanes.memory(lambda: threading.current_thread().name), 2)
        assert name.startswith("palace-memory") and time.monotonic() - t0 < 1.0
        ops = await asyncio.gather(*(lanes.memory(lambda x: x * 2, i) for i in range(10)))  # more than the pool
        assert ops == [i * 2 for i in range(10)]
        release.set()
        assert await asyncio.gather(*turns) == [True, True, True]
    finally:
        release.set()
        lanes.close()


async def test_an_error_in_a_turn_frees_the_gate() -> None:
    lanes = _lanes(serve_turns=1)

    def fails() -> None:
        raise RuntimeError("model died")

    try:
        with pytest.raises(RuntimeError):
            await lanes.turn(fails)
        assert lanes.gate.held == 0
        assert await asyncio.wait_for(lanes.turn(lambda: 1), 2) == 1
    finally:
        lanes.close()


@linux
async def test_turn_threads_run_at_a_lower_priority_and_memory_threads_do_not() -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    lanes = _lanes(turn_nice=7)
    try:
        assert await lanes.turn(_nice) == min(19, base + 7)
        assert await lanes.memory(_nice) == base
    finally:
        lanes.close()


@linux
def test_lower_this_thread_is_idempotent_and_zero_does_nothing() -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert _in_thread(lambda: (lower_this_thread(0), _nice())) == (False, base)
    assert _in_thread(lambda: (lower_this_thread(5), lower_this_thread(5), _nice())) == (True, True, min(19, base + 5))
    assert _nice() == base  # the caller's thread is untouched


@linux
def test_install_makes_a_turn_thread_of_every_thread_that_enters_a_turn() -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    deps = Deps(get_settings(turn_nice=4))
    assert _in_thread(lambda: (deps.enter_turn_thread(), _nice())[1]) == base  # not installed: nothing
    install(deps)
    assert _in_thread(lambda: (deps.enter_turn_thread(), _nice())[1]) == min(19, base + 4)


def test_lanes_come_from_the_settings() -> None:
    defaults = {name: Settings.model_fields[name].default for name in ("memory_workers", "turn_nice", "serve_turns")}
    assert defaults == {"memory_workers": 8, "turn_nice": 10, "serve_turns": 1}
    deps = Deps(get_settings(memory_workers=3, serve_turns=2, turn_nice=0))
    lanes = Lanes.of(deps)
    try:
        assert Lanes.of(deps) is lanes and lanes.gate.size == 2 and lanes.turn_nice == 0
    finally:
        lanes.close()
