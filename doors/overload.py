"""Overload is an answer, not a hang: the server answers every memory API request and MCP tool call within
``PALACE_REQUEST_TIMEOUT_S`` (``doors.http_api``, ``doors.mcp_server``), and LangGraph's own ``/threads`` and
``/runs`` routes too (:class:`GuardLangGraphRoutes`, a middleware the server applies to every route).

A request still waiting then (the model saturated, a store slow or down, every worker thread busy) is answered with
:class:`Overloaded`: HTTP 503 with ``Retry-After``, an MCP tool error, the CLI's exit 3. Its work is not cancelled
(a thread cannot be stopped safely, and a turn half done would lose what the user said): it goes on and stores what
it stores, so nothing already stored is lost and a retried add with the same ``at`` is the same memory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


LANGGRAPH_ROUTES = ("/threads", "/runs")


def _substantive(body: bytes) -> bool:
    """Whether a response chunk carries more than keep-alives (whitespace, SSE comments) and a run stream's
    ``metadata`` event (sent as soon as the run is created, before any of its work)."""
    for block in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        lines = [line for line in block.split(b"\n") if line.strip() and not line.startswith(b":")]
        if lines and next((line[6:].strip() for line in lines if line.startswith(b"event:")), None) != b"metadata":
            return True
    return False


class GuardLangGraphRoutes:
    """ASGI middleware: a LangGraph ``/threads`` or ``/runs`` request not answered within the timeout gets HTTP 503
    with ``Retry-After`` and a JSON ``detail`` (:class:`Overloaded`), while its work goes on (a run it created runs;
    a client's retry of a turn with the same message id is the same turn, ``nodes.ingest``).

    Answered means: for a GET (a read, a join of a run's stream), once the response starts; for a POST (a run, a
    wait for its result), once it carries more than keep-alives and the run's metadata, i.e. the first event the
    client asked for (a run stream's first token). Holding the headers until then never delays that first event:
    it goes out as soon as it exists."""

    def __init__(self, app: ASGIApp, limits: Callable[[], tuple[float, int]],
                 prefixes: tuple[str, ...] = LANGGRAPH_ROUTES) -> None:
        self.app, self.limits, self.prefixes = app, limits, prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "")) if scope["type"] == "http" else ""
        if not any(path == p or path.startswith(p + "/") for p in self.prefixes):
            await self.app(scope, receive, send)
            return
        timeout_s, retry_after_s = self.limits()
        read = scope.get("method") in ("GET", "HEAD")
        held: list[Message] = []
        released = asyncio.Event()
        state = {"releasing": False, "gave_up": False}

        async def hold(message: Message) -> None:
            if state["gave_up"]:
                return  # the client was answered with a 503: the rest of this response goes nowhere
            if state["releasing"]:
                await send(message)
                return
            held.append(message)
            if (read and message["type"] == "http.response.start") or (
                    message["type"] == "http.response.body"
                    and (not message.get("more_body") or _substantive(message.get("body", b"")))):
                state["releasing"] = True
                while held:
                    await send(held.pop(0))
                released.set()

        task = asyncio.ensure_future(self.app(scope, receive, hold))
        waiter = asyncio.ensure_future(released.wait())
        try:
            await asyncio.wait({task, waiter}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if state["releasing"] or task.done():
            await task
            return
        state["gave_up"] = True
        _LEFT.add(task)
        task.add_done_callback(_consume)
        body = json.dumps({"detail": str(Overloaded(timeout_s, retry_after_s))}).encode()
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"retry-after", str(retry_after_s).encode())]})
        await send({"type": "http.response.body", "body": body})
