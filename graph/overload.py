"""Overload is an answer, not a hang: the server answers every memory API request and MCP tool call within
``PALACE_REQUEST_TIMEOUT_S`` (``graph.http_api``, ``graph.mcp_server``).

A request still waiting then (the model saturated, a store slow or down, every worker thread busy) is answered with
:class:`Overloaded`: HTTP 503 with ``Retry-After``, an MCP tool error, the CLI's exit 3. Its work is not cancelled
(a thread cannot be stopped safely, and a turn half done would lose what the user said): it goes on and stores what
it stores, so nothing already stored is lost and a retried add with the same ``at`` is the same memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from memory.errors import PalaceError

T = TypeVar("T")
_LEFT: set[asyncio.Future[Any]] = set()  # work whose request was answered with Overloaded; it runs to its end


class Overloaded(PalaceError):
    """The server did not answer within ``PALACE_REQUEST_TIMEOUT_S``."""

    exit_code = 3

    def __init__(self, timeout_s: float, retry_after_s: int) -> None:
        super().__init__(f"the server did not answer within {timeout_s:g} s (PALACE_REQUEST_TIMEOUT_S): it is "
                         f"overloaded or a store is slow; the request goes on there, retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s


def _consume(task: asyncio.Future[Any]) -> None:
    _LEFT.discard(task)
    if not task.cancelled():
        task.exception()  # an error nobody waits for any more: not "never retrieved" noise in the log


async def within(work: Awaitable[T], timeout_s: float, retry_after_s: int) -> T:
    """``await work``, or :class:`Overloaded` after ``timeout_s`` while ``work`` goes on (it is not cancelled:
    cancelling a worker thread's await would only wait for the thread)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if not done:
        _LEFT.add(task)
        task.add_done_callback(_consume)
        raise Overloaded(timeout_s, retry_after_s)
    return task.result()
