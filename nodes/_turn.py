"""Small helpers every node shares: the run's context, the user's clock, the turn's messages."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from typing import Generic, TypeVar
from zoneinfo import ZoneInfo

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.state import State, Turn, Usage
from memory.errors import InvalidInputError

T = TypeVar("T")


def context_of(runtime: Runtime[Context]) -> Context:
    ctx = runtime.context
    if ctx is None:
        return Context()
    if isinstance(ctx, dict):  # a caller that bypassed the schema coercion
        return Context(**ctx)
    return ctx


def turn_of(state: State) -> Turn:
    turn = state.get("turn")
    if turn is None:
        raise InvalidInputError("the turn has not been ingested (the graph starts at 'ingest')")
    return turn


def clock(turn: Turn) -> datetime:
    """The moment of the user's message on the user's clock."""
    return datetime.fromtimestamp(turn["now_ms"] / 1000, ZoneInfo(turn["timezone"]))


def this_turn(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The messages of the current turn: the last human message and what followed it (tool calls, results)."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return messages[i:]
    return []


def final_answer(messages: list[AnyMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, AIMessage) and not message.tool_calls:
            return message.text
    return ""


def add_usage(state: State, node: str, model: str, prompt_tokens: int, completion_tokens: int, *,
              baseline: int = 0) -> list[Usage]:
    """The row to append to the turn's ``usage`` (the state's reducer adds it to the others)."""
    return [Usage(node=node, model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                  baseline_prompt_tokens=baseline)]


class Prefetch(Generic[T]):
    """Work a turn needs later, started early so it runs beside what comes first: ingest starts the query
    embedding and the extraction call (both need only the message), recall and fact_check take them by turn id.
    A turn whose work is missing (resumed, replayed, served by another process) does it inline. Bounded: results
    nobody took (a turn that failed in between) are dropped, oldest first."""

    KEEP = 64

    def __init__(self, name: str, workers: int, on_thread: Callable[[], None] | None = None) -> None:
        # as many workers as turns a server runs at once: a small pool would queue one user's work behind another's
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._on_thread = on_thread  # before each piece of work (palace serve: a turn's thread lowers its priority)
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, Future[T]] = OrderedDict()

    def start(self, key: str, work: Callable[[], T]) -> None:
        future = self._pool.submit(self._run, work)
        with self._lock:
            self._pending[key] = future
            while len(self._pending) > self.KEEP:
                self._pending.popitem(last=False)

    def _run(self, work: Callable[[], T]) -> T:
        if self._on_thread is not None:
            self._on_thread()
        return work()

    def take(self, key: str) -> Future[T] | None:
        with self._lock:
            return self._pending.pop(key, None)
