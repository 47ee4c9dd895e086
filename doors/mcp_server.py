"""Memory tools over MCP (the official ``mcp`` SDK): ``add_memory``, ``search_memories`` (with score breakdowns),
``list_memories``, ``forget_memory``, ``review_memories``.

Served two ways: over Streamable HTTP at ``/palace/mcp?user_id=U`` on the LangGraph server (``doors.http_api``),
and over stdio by ``palace mcp --user U`` (through the running server when there is one, else on the stores).
The user comes from the connection, never from a tool argument the model fills (STYLE.md rule 9). Each tool is
a thin adapter over a :class:`MemoryDoor` (the same operations as the CLI); a refused input or an unknown id is
a tool error with the message, never a crash, and so is a call not answered within the server's
``PALACE_REQUEST_TIMEOUT_S`` (``doors.overload``; the call goes on there).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from doors.overload import within
from memory.errors import PalaceError

JSON = dict[str, Any]


class MemoryDoor(Protocol):
    """The memory operations one user's tools call (``doors.door.LocalDoor`` or ``doors.client.PalaceClient``)."""

    def add(self, user_id: str, text: str, *, important: bool = False, at: str | None = None) -> JSON: ...
    def search(self, user_id: str, query: str, *, limit: int | None = None) -> list[JSON]: ...
    def memories(self, user_id: str, status: str = "active") -> list[JSON]: ...
    def forget(self, user_id: str, ids: list[str]) -> JSON: ...
    def disputed(self, user_id: str) -> list[JSON]: ...
    def review(self, user_id: str, *, accept: list[str], reject: list[str], both: list[str] | None = None,
               ) -> JSON: ...


UserOf = Callable[[Context], str]
RunIn = Callable[[Callable[[str], Any], str], Awaitable[Any]]  # runs a tool's work (a blocking call) off the loop
Limits = Callable[[], tuple[float, int]]  # (request timeout s, retry after s), read when a tool is called


def user_from_query(ctx: Context) -> str:
    """The ``user_id`` query parameter of the HTTP connection (``/palace/mcp?user_id=U``)."""
    request = ctx.request_context.request
    params = getattr(request, "query_params", None)
    user = params.get("user_id") if params is not None else None
    if not user:
        raise ToolError("this MCP connection names no user: connect to /palace/mcp?user_id=<user id>")
    return str(user)


def build_mcp(door: MemoryDoor, user_of: UserOf, *, limits: Limits | None = None,
              run_in: RunIn | None = None) -> MCPServer:
    """The MCP server with the memory tools, each acting for ``user_of(ctx)`` through ``door``, in a worker thread
    (``run_in``; unset: anyio's); with ``limits``, a call not answered within its timeout is a tool error
    (``doors.overload.Overloaded``)."""
    run: RunIn = run_in or anyio.to_thread.run_sync
    mcp: MCPServer = MCPServer("memory-palace", instructions="Long-term memory of one user: add what they state, "
                               "search before answering, settle disputed memories with them.")

    async def call(ctx: Context, fn: Callable[[str], Any]) -> str:
        user = user_of(ctx)
        try:
            work = run(fn, user)
            result = await (within(work, *limits()) if limits is not None else work)
        except PalaceError as exc:
            raise ToolError(str(exc)) from exc
        return json.dumps(result, ensure_ascii=False)

    @mcp.tool(description="Store a fact the user stated, as their memory (no fact-check: the user is the "
                          "authority). important=true makes it rank as if twice as relevant. at: when it was "
                          "said, ISO 8601 (2026-06-19T12:30+08:00; without an offset, the server's time zone), "
                          "for facts from the past; unset: now. The same text at the same time is the same "
                          "memory, so a retried add with 'at' is stored once. Returns the memory.")
    async def add_memory(text: str, ctx: Context, important: bool = False, at: str | None = None) -> str:
        return await call(ctx, lambda user: door.add(user, text, important=important, at=at))

    @mcp.tool(description="The user's memories ranked for a query (hybrid dense + BM25 relevance, time intent, "
                          "decay, importance), each with its score's parts: score = relevance x decay x weight x "
                          "boost.")
    async def search_memories(query: str, ctx: Context, limit: int = 5) -> str:
        return await call(ctx, lambda user: door.search(user, query, limit=limit))

    @mcp.tool(description="The user's memories, newest first. status: active (default), disputed, superseded or "
                          "all.")
    async def list_memories(ctx: Context, status: Literal["active", "disputed", "superseded", "all"] = "active",
                            ) -> str:
        return await call(ctx, lambda user: door.memories(user, status))

    @mcp.tool(description="Forget memories by id (from search or list), with what was derived from the same "
                          "messages.")
    async def forget_memory(ids: list[str], ctx: Context) -> str:
        return await call(ctx, lambda user: door.forget(user, ids))

    @mcp.tool(description="Disputed memories (they contradict another and are not recalled until settled). With "
                          "no ids: list them with what they contradict. accept: make them active (what they "
                          "contradicted is superseded); reject: delete them; keep_both: active, and what they "
                          "contradicted stays active. Ask the user before settling one.")
    async def review_memories(ctx: Context, accept: list[str] | None = None, reject: list[str] | None = None,
                              keep_both: list[str] | None = None) -> str:
        if not accept and not reject and not keep_both:
            return await call(ctx, door.disputed)
        return await call(ctx, lambda user: door.review(user, accept=accept or [], reject=reject or [],
                                                        both=keep_both or []))

    return mcp
