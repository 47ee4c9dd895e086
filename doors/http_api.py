"""The server's own routes (``langgraph.json`` → ``"http": {"app": "./doors/http_api.py:app"}``), beside the
graph, the threads and the store that LangGraph serves:

- ``/palace/api/...``: the memory HTTP API (below), one user per path (``/palace/api/users/<user_id>/...``);
- ``/palace/mcp?user_id=U``: the MCP memory tools over Streamable HTTP (``doors.mcp_server``);
- ``/palace/ui/``: the web memory inspector (static files in ``doors/web``; no CDN).

Every route calls the operation the CLI calls (``doors.door`` over ``graph.api`` / ``graph.manage``), in a worker
thread: memory operations (and MCP tool calls) on the memory pool, chat turns one at a time (``PALACE_SERVE_TURNS``)
on threads of lower priority (``doors.lanes``). Errors are JSON ``{"detail": ...}``: bad input 400 (a body that
is not the JSON asked for: 422), not found 404 (another user's memory is not found), a store that cannot be reached
503 with ``Retry-After``, and so is a request not answered within ``PALACE_REQUEST_TIMEOUT_S`` (``doors.overload``:
the server is overloaded; a chat turn still waiting for its turn then keeps its place). With
``PALACE_API_TOKEN`` set, the API and MCP need ``Authorization: Bearer <token>`` (401 otherwise);
``/palace/api/health`` stays open. ``GET /palace/api/doctor``: ``palace doctor``'s checks, run by the server on
the stores it holds (every check's outcome is in the body: 200 whether or not they pass).

On start the app opens the stores (so the server is their single owner while it runs, and a store held by another
process stops the start with its message): the process's one set (``graph.deps.process_deps``), which the graph and
the store use too.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from doors import door
from doors.lanes import Lanes
from doors.mcp_server import build_mcp, user_from_query
from doors.overload import GuardLangGraphRoutes, Overloaded, within
from graph import priority
from graph.deps import Deps, process_deps
from memory.errors import (
    ConfigurationError,
    InvalidInputError,
    NotFoundError,
    PalaceError,
    ServiceUnavailableError,
    one_line,
)

log = logging.getLogger(__name__)
WEB = Path(__file__).resolve().parent / "web"
Handler = Callable[[Request], Awaitable[Response]]
_TURNS: set[asyncio.Future[None]] = set()
KEEPALIVE_S = 15.0  # a comment line on a quiet stream (recall, the memory work), so no proxy or client times out


def _status(exc: PalaceError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, InvalidInputError | ConfigurationError):
        return 400
    if isinstance(exc, ServiceUnavailableError | Overloaded):
        return 503
    return 500


def _authorized(deps: Deps, headers: Any) -> bool:
    token = deps.settings.api_token
    if token is None:
        return True
    given = str(headers.get("authorization", ""))
    return hmac.compare_digest(given.encode(), f"Bearer {token.get_secret_value()}".encode())


def _unauthorized() -> JSONResponse:
    return JSONResponse({"detail": "missing or wrong bearer token (PALACE_API_TOKEN)"}, status_code=401,
                        headers={"WWW-Authenticate": "Bearer"})


class BadBody(Exception):
    """A request body that is not the JSON object a route asks for (422)."""


async def _body(request: Request) -> dict[str, Any]:
    try:
        raw = await request.json()
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadBody(f"the body is not JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise BadBody("the body must be a JSON object")
    return raw


def _field(body: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None,
           required: bool = False) -> Any:
    if name not in body or body[name] is None:
        if required:
            raise BadBody(f"{name!r} is required")
        return default
    value = body[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadBody(f"{name!r} has the wrong type ({type(value).__name__})")
    return value


def _ids(body: dict[str, Any], name: str) -> list[str]:
    value = _field(body, name, list, default=[])
    if not all(isinstance(i, str) for i in value):
        raise BadBody(f"{name!r} must be a list of memory ids (strings)")
    return list(value)


def _int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise InvalidInputError(f"{name} must be a whole number, got {raw!r}") from None


def create_app(deps: Deps) -> Starlette:
    """The routes on ``deps`` (the server's stores; tests pass theirs with a scripted model)."""
    priority.install(deps)  # a turn's threads lower their priority (PALACE_TURN_NICE)

    def lanes_() -> Lanes:  # made on first use: importing the app reads no setting
        return Lanes.of(deps)

    def in_memory_lane(fn: Callable[[str], Any], user_id: str) -> Awaitable[Any]:
        return lanes_().memory(fn, user_id)

    mcp = build_mcp(door.LocalDoor(deps), user_from_query,
                    limits=lambda: (deps.settings.request_timeout_s, deps.settings.retry_after_s),
                    run_in=in_memory_lane)
    # Stateless JSON responses: every tool call stands alone (the user comes with each request's URL). The Host
    # check is off because the server binds where ``palace serve --host`` says; PALACE_API_TOKEN guards the door.
    mcp.streamable_http_app(stateless_http=True, json_response=True,
                            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    manager: StreamableHTTPSessionManager = mcp.session_manager

    def api(fn: Callable[[Request], Awaitable[Any]]) -> Handler:
        async def endpoint(request: Request) -> Response:
            if not _authorized(deps, request.headers):
                return _unauthorized()
            s = deps.settings
            try:
                result = await within(fn(request), s.request_timeout_s, s.retry_after_s)
            except PalaceError as exc:
                status = _status(exc)
                return JSONResponse({"detail": str(exc)}, status_code=status,
                                    headers={"Retry-After": str(s.retry_after_s)} if status == 503 else None)
            except BadBody as exc:
                return JSONResponse({"detail": str(exc)}, status_code=422)
            return result if isinstance(result, Response) else JSONResponse(result)
        return endpoint

    def sync(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Awaitable[Any]:
        return lanes_().memory(fn, deps, *args, **kwargs)

    def user(request: Request) -> str:
        return str(request.path_params["user_id"])

    async def health(request: Request) -> Response:
        return JSONResponse(door.health(deps))

    async def memories(request: Request) -> Any:
        return await sync(door.list_, user(request), request.query_params.get("status", "active"))

    async def search(request: Request) -> Any:
        return await sync(door.search, user(request), request.query_params.get("q", ""),
                          now=request.query_params.get("now") or None, limit=_int(request, "limit"))

    async def add(request: Request) -> Any:
        body = await _body(request)
        return await sync(door.add, user(request), _field(body, "text", str, required=True),
                          at=_field(body, "at", str), important=_field(body, "important", bool, default=False))

    async def show(request: Request) -> Any:
        return await sync(door.show, user(request), request.path_params["memory_id"])

    async def pin(request: Request) -> Any:
        return await sync(door.pin, user(request), request.path_params["memory_id"])

    async def unpin(request: Request) -> Any:
        return await sync(door.unpin, user(request), request.path_params["memory_id"])

    async def forget_one(request: Request) -> Any:
        return await sync(door.forget, user(request), [request.path_params["memory_id"]])

    async def forget(request: Request) -> Any:
        return await sync(door.forget, user(request), _ids(await _body(request), "ids"))

    async def forget_all(request: Request) -> Any:
        return await sync(door.forget_all, user(request))

    async def chat(request: Request) -> Any:
        body = await _body(request)
        return await lanes_().turn(door.chat, deps, user(request), _field(body, "session", str, default="default"),
                                   _field(body, "message", str), at=_field(body, "at", str),
                                   important=_field(body, "important", bool, default=False),
                                   resume=_field(body, "resume", str))

    async def chat_stream(request: Request) -> Any:
        body = await _body(request)
        kwargs = {"at": _field(body, "at", str), "important": _field(body, "important", bool, default=False),
                  "resume": _field(body, "resume", str)}
        return await stream_turn(deps, user(request), _field(body, "session", str, default="default"),
                                 _field(body, "message", str), **kwargs)

    async def disputed(request: Request) -> Any:
        return await sync(door.disputed, user(request))

    async def review(request: Request) -> Any:
        body = await _body(request)
        return await sync(door.review, user(request), accept=_ids(body, "accept"), reject=_ids(body, "reject"),
                          both=_ids(body, "both"))

    async def history(request: Request) -> Any:
        return await sync(door.history, user(request), request.path_params["memory_id"])

    async def restore(request: Request) -> Any:
        return await sync(door.restore, user(request), request.path_params["memory_id"])

    async def export(request: Request) -> Any:
        text = await sync(door.export, user(request))
        return PlainTextResponse(text, media_type="application/x-ndjson")

    async def import_(request: Request) -> Any:
        try:
            text = (await request.body()).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadBody("the body is not UTF-8 JSON lines") from exc
        return await sync(door.import_, user(request), text)

    async def tasks(request: Request) -> Any:
        q = request.query_params
        return await sync(door.tasks, user(request), session_id=q.get("session") or None,
                          status=q.get("status") or None)

    async def task(request: Request) -> Any:
        return await sync(door.task, user(request), request.path_params["task_id"])

    async def usage(request: Request) -> Any:
        return await sync(door.usage, user(request), request.query_params.get("by", "day"))

    async def doctor(request: Request) -> Any:
        return await run_in_threadpool(door.doctor, deps)

    async def unknown(request: Request) -> Response:
        return JSONResponse({"detail": f"no route {request.method} {request.url.path}"}, status_code=404)

    u = "/users/{user_id}"
    routes = [
        Route("/health", health),
        Route("/doctor", api(doctor), methods=["GET"]),
        Route(u + "/memories", api(memories), methods=["GET"]),
        Route(u + "/memories", api(add), methods=["POST"]),
        Route(u + "/memories/search", api(search), methods=["GET"]),
        Route(u + "/memories/forget", api(forget), methods=["POST"]),
        Route(u + "/memories/export", api(export), methods=["GET"]),
        Route(u + "/memories/import", api(import_), methods=["POST"]),
        Route(u + "/memories/{memory_id}", api(show), methods=["GET"]),
        Route(u + "/memories/{memory_id}", api(forget_one), methods=["DELETE"]),
        Route(u + "/memories/{memory_id}/pin", api(pin), methods=["POST"]),
        Route(u + "/memories/{memory_id}/pin", api(unpin), methods=["DELETE"]),
        Route(u + "/memories/{memory_id}/history", api(history), methods=["GET"]),
        Route(u + "/memories/{memory_id}/restore", api(restore), methods=["POST"]),
        Route(u + "/forget-all", api(forget_all), methods=["POST"]),
        Route(u + "/chat", api(chat), methods=["POST"]),
        Route(u + "/chat/stream", api(chat_stream), methods=["POST"]),
        Route(u + "/review", api(disputed), methods=["GET"]),
        Route(u + "/review", api(review), methods=["POST"]),
        Route(u + "/tasks", api(tasks), methods=["GET"]),
        Route(u + "/tasks/{task_id}", api(task), methods=["GET"]),
        Route(u + "/usage", api(usage), methods=["GET"]),
        Route("/{rest:path}", unknown, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ]

    class GuardedMCP:
        """The MCP transport behind the bearer token."""

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            from starlette.datastructures import Headers

            if scope["type"] == "http" and not _authorized(deps, Headers(scope=scope)):
                await _unauthorized()(scope, receive, send)
                return
            await manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(_open_stores, deps)
        async with manager.run():
            yield

    mcp_app: ASGIApp = GuardedMCP()
    app = Starlette(routes=[
        Mount("/palace/api", routes=routes),
        Route("/palace/mcp", mcp_app, methods=["GET", "POST", "DELETE"]),
        Route("/palace/ui", lambda request: RedirectResponse("/palace/ui/")),
        Mount("/palace/ui", StaticFiles(directory=WEB, html=True)),
    ], lifespan=lifespan, middleware=[
        # the server applies this app's middleware to every route: LangGraph's /threads and /runs answer in time too
        Middleware(GuardLangGraphRoutes, limits=lambda: (deps.settings.request_timeout_s, deps.settings.retry_after_s)),
    ])
    app.state.deps = deps  # the stores it serves (one per process in the server: graph.deps.process_deps)
    return app


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


async def stream_turn(deps: Deps, user_id: str, session_id: str, message: str | None, **kwargs: Any) -> Response:
    """One turn as server-sent events: ``token`` ``{"text"}`` for each piece of the answer as the respond node
    generates it (the internal model calls never stream), ``answered`` once the answer is complete (the memory
    work goes on), then ``result`` (what ``POST .../chat`` answers) or ``error`` ``{"detail", "status"}``.

    The turn runs in a turn thread once the turn gate lets it in (``doors.lanes``). Until its first event the
    answer is not committed: an error before any token (bad input, nothing to confirm, a model that cannot be
    reached) is a plain JSON 4xx/5xx like every route's. A client that goes away does not stop the turn: what the
    user said is still remembered."""
    loop = asyncio.get_running_loop()
    events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def emit(event: str, data: Any) -> None:
        loop.call_soon_threadsafe(events.put_nowait, (event, data))

    def work() -> None:
        try:
            out = door.chat(deps, user_id, session_id, message, on_token=lambda text: emit("token", {"text": text}),
                            on_answer=lambda: emit("answered", {}), **kwargs)
        except PalaceError as exc:
            emit("error", {"detail": str(exc), "status": _status(exc)})
        except Exception as exc:  # not a user's mistake: the stream still ends with one line, the log has the rest
            log.exception("palace: chat turn of %r failed", user_id)
            emit("error", {"detail": f"internal error: {one_line(exc)}", "status": 500})
        else:
            emit("result", out)

    worker = asyncio.ensure_future(Lanes.of(deps).turn(work))  # its place in the turn gate, then a turn thread
    _TURNS.add(worker)  # the turn finishes even if its client goes away
    worker.add_done_callback(_TURNS.discard)
    event, data = await events.get()
    if event == "error":
        await worker
        return JSONResponse({"detail": data["detail"]}, status_code=data["status"])

    async def stream() -> AsyncIterator[bytes]:
        item = (event, data)
        getter: asyncio.Future[tuple[str, Any]] | None = None
        try:
            while True:
                yield _sse(*item)
                if item[0] in ("result", "error"):
                    return
                getter = asyncio.ensure_future(events.get())
                while not (await asyncio.wait({getter}, timeout=KEEPALIVE_S))[0]:
                    yield b": keepalive\n\n"
                item = getter.result()
        finally:  # the client went away: stop waiting (the turn itself goes on)
            if getter is not None:
                getter.cancel()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _open_stores(deps: Deps) -> None:
    """Open every store now: the server owns the embedded ones from its start, and fails to start naming the
    store that cannot be opened."""
    deps.long_term()
    deps.short_term().client.ping()
    deps.tasks()
    log.info("palace: stores open (%s)", json.dumps(door.health(deps)))


app = create_app(process_deps())  # the graph's and the store's Deps: one set of stores and one embedder
