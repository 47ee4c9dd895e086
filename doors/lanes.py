"""Lanes: where ``palace serve`` runs what, so a memory search does not wait behind chat turns.

Under load (``python -m bench serve-load``), py-spy showed 86 % of a search's time in its query embedding, waiting
for the CPU the chat turns held. So the server keeps them apart:

- memory operations (the memory API's routes, MCP tool calls) run on a pool of their own,
  ``PALACE_MEMORY_WORKERS`` threads (:meth:`Lanes.memory`): a search never waits for a thread behind a turn;
- a thread that runs a chat turn (a graph node, a turn's prefetch, a memory API turn) lowers its own priority by
  ``PALACE_TURN_NICE`` (:func:`graph.priority.lower_this_thread`: Linux ``setpriority`` on the thread id), so
  when the cores are short the search runs first. A lowered thread stays low (an unprivileged process cannot
  raise it again): that is why turns and memory operations never share a pool;
- at most ``PALACE_SERVE_TURNS`` memory API turns run at once (:class:`TurnGate`, first come first served;
  LangGraph's runs get as many workers, ``doors.serve``). A turn still waiting after ``PALACE_REQUEST_TIMEOUT_S``
  is answered :class:`~doors.overload.Overloaded` (503 with ``Retry-After``) by its route, and keeps its place:
  it runs when its turn comes, as the work of every overloaded request goes on.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from graph.priority import lower_this_thread

if TYPE_CHECKING:
    from graph.deps import Deps

T = TypeVar("T")


class TurnGate:
    """At most ``size`` holders at once; the others wait in the order they came. A waiter whose request was
    answered with a 503 is not cancelled (``doors.overload.within``): it keeps its place. One event loop's."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a gate needs room for at least one turn, got {size}")
        self.size = size
        self._held = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def held(self) -> int:
        return self._held

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def acquire(self) -> None:
        if self._held < self.size and not self._waiting:
            self._held += 1
            return
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(place)
        try:
            await place
        except asyncio.CancelledError:
            if place.done() and not place.cancelled():
                self.release()  # handed the gate as it was cancelled: hand it on
            elif place in self._waiting:
                self._waiting.remove(place)
            raise

    def release(self) -> None:
        """Hand the place to the first waiter, else free it."""
        while self._waiting:
            place = self._waiting.popleft()
            if not place.done():
                place.set_result(None)  # the count stays: the waiter holds it now
                return
        self._held -= 1

    async def __aenter__(self) -> TurnGate:
        await self.acquire()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.release()


class Lanes:
    """The server's memory pool, its turn pool (threads that lower their priority) and the turn gate."""

    def __init__(self, *, memory_workers: int, serve_turns: int, turn_nice: int) -> None:
        self.turn_nice = turn_nice
        self.gate = TurnGate(serve_turns)
        self._memory = ThreadPoolExecutor(memory_workers, thread_name_prefix="palace-memory")
        self._turns = ThreadPoolExecutor(serve_turns, thread_name_prefix="palace-turn",
                                         initializer=lower_this_thread, initargs=(turn_nice,))

    @classmethod
    def of(cls, deps: Deps) -> Lanes:
        """The lanes of ``deps`` (made on first use, from its settings)."""
        s = deps.settings
        return deps.memo("lanes", lambda: cls(memory_workers=s.memory_workers, serve_turns=s.serve_turns,
                                              turn_nice=s.turn_nice))

    async def memory(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the memory pool."""
        return await _run(self._memory, fn, *args, **kwargs)

    async def turn(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the turn pool once the gate lets it in (in order of arrival)."""
        async with self.gate:
            return await _run(self._turns, fn, *args, **kwargs)

    def close(self) -> None:
        self._memory.shutdown(wait=False)
        self._turns.shutdown(wait=False)


async def _run(pool: ThreadPoolExecutor, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    ctx = contextvars.copy_context()  # like asyncio.to_thread: the caller's context variables come along
    return await asyncio.get_running_loop().run_in_executor(pool, functools.partial(ctx.run, fn, *args, **kwargs))
