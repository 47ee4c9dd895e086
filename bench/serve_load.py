"""The server under load: many users on one ``palace serve`` at once, SIGKILLs and restarts, nothing lost or leaked.

``python -m bench serve-load [--json] [--scripted] [--clients N] [--ops N] [--kills N]`` starts ``palace serve``
on a fresh data directory (the embedded default; the real services with ``PALACE_REDIS_URL`` /
``PALACE_DATABASE_URL`` set; Qdrant is the embedded Edge either way) with the bundled model, or with
``--scripted`` the scripted model of ``graph.testing`` in the server process (to measure the server itself). Then:

1. *alone*: one user adds a few memories, then a probe process of its own (``_probe``: not the clients' event loop)
   runs ``--alone`` searches of that user's memories one at a time, ``--probe-ms`` apart, on the idle server (the
   baseline);
2. *load*: ``--clients`` clients at once, each a distinct user (``auth0|…``, ``google-oauth2|…``, e-mail addresses),
   each ``--ops`` operations with ``--think-ms`` (mean, exponential) between them: chat turns through the LangGraph
   API (``runs.stream``, ``messages-tuple``), memory adds (with ``at``, so a retried add is the same memory) and
   searches through the HTTP API, ``add_memory`` (with ``at`` too) and ``search_memories`` MCP tool calls, while
   the probe runs the baseline's searches again, ``--probe-ms`` apart, until the clients are done
   (``search_under_load``). Latency and throughput come from this phase;
3. *kills* (``--kills`` > 0): the same clients again, while the server is SIGKILLed (its process group, no
   shutdown) at random moments (3-10 s after it is up) and started again; a client retries what failed (a
   connection error, a 5xx, a run that ended in an error) until it is answered. Every retry is the same operation:
   an add (HTTP or MCP) has its ``at``, a chat turn its message id (a turn answered by an attempt the client lost
   is found in the thread).

Then every user's memories (all statuses) are checked against what that user said: ``lost`` counts the statements
of answered turns and the returned adds that are not among the user's memories, plus answered turns missing from
their thread's state; ``turns_repeated`` the user messages in a thread more than once (a retried turn run twice);
``duplicated`` the returned adds stored more than once; ``leaked`` memories (in a list or a search result) of another
user; ``outbox_left`` the outbox entries still waiting; ``client_lag`` how late the clients' own event loop woke during
the load phase (inside every latency the clients measure: they share the machine with the server; the probe's
searches, in a process of their own, are not behind that loop). ``search_p95_ratio`` is the probe's p95 under load
over its p95 alone. With ``--rounds N`` the alone and load phases alternate N times on the same server (each
baseline measured beside the load it is compared with, the machine's noise shared): the search figures pool the
rounds' samples, and ``round_ratios`` gives each round's own ratio.
``lost_after_kill`` is ``lost`` for what was answered in the kill phase. ``failed``: operations that got a 4xx, or no
answer within ``--op-timeout``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.stats import percentile
from graph import endpoint
from memory.errors import ConfigurationError, ServiceUnavailableError

KINDS = ("chat", "api_add", "api_search", "mcp_add", "mcp_search")
MIX = (0.3, 0.2, 0.25, 0.1, 0.15)  # of the operations, by kind
NOUNS = ("locker", "badge", "bike lock", "gate", "safe", "mailbox", "garage", "wifi", "alarm", "office door")
TURNS_PER_THREAD = 8  # a thread's state keeps PALACE_STATE_MESSAGES_KEEP (40) messages: every turn stays checkable
TAG = re.compile(r"\bz(\d+)x(\d+)\b")


class OpError(Exception):
    """An operation the server refused (4xx): not retried."""


class Retry(Exception):
    """An operation that got no answer (connection error, 5xx, a run that ended in an error): retried."""


@dataclass
class Server:
    """One ``palace serve`` on ``data_dir``, started and killed as a process group."""

    data_dir: Path
    port: int
    scripted: bool
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    starts_s: list[float] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        if self.scripted:
            return [sys.executable, "-m", "bench.serve_load", "--child", str(self.data_dir), str(self.port)]
        palace = shutil.which("palace", path=str(Path(sys.executable).parent)) or "palace"
        return [palace, "serve", "--port", str(self.port)]

    def start(self, timeout_s: float = 300.0) -> None:
        t0 = time.monotonic()
        log = self.data_dir / "serve.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(self.command(), env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        while True:
            found = endpoint.read(self.data_dir)
            if found is not None and found.pid == self.proc.pid:
                break
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout_s:
                self.kill()
                raise ServiceUnavailableError("palace serve", self.url, "did not start",
                                              fix=f"see {log}: {log.read_text(errors='replace')[-600:]}")
            time.sleep(0.1)
        self.starts_s.append(time.monotonic() - t0)

    def kill(self) -> None:
        """SIGKILL, no shutdown: the endpoint file stays behind (stale), as after a crash."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Said:
    """What one user was answered for: statements (memories expected) and the thread turns."""

    statements: dict[str, str] = field(default_factory=dict)  # text -> phase ("load" / "kills")
    adds: dict[str, str] = field(default_factory=dict)  # returned adds: text -> phase (must be there once)
    turns: list[tuple[str, str, str]] = field(default_factory=list)  # (thread id, message, phase)


@dataclass
class Run:
    server: Server
    think_s: float
    op_timeout_s: float
    rng: random.Random
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> ms (load phase)
    done: int = 0
    failed: int = 0
    retries: int = 0
    leaked: int = 0
    errors: list[str] = field(default_factory=list)
    retried: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # why, by the reason's first words
    said: dict[str, Said] = field(default_factory=lambda: defaultdict(Said))
    phase: str = "load"


def user_id(i: int, run_tag: str) -> str:
    return (f"auth0|{run_tag}{i}", f"u{i}.{run_tag}@example.com", f"google-oauth2|{run_tag}{i}",
            f"{run_tag}-user{i}")[i % 4]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _statement(i: int, k: int, rng: random.Random) -> str:
    return f"My {rng.choice(NOUNS)} code z{i}x{k} is {rng.randrange(1000, 9999)}"


def _check_owner(run: Run, i: int, user: str, items: list[dict[str, Any]]) -> None:
    """Count memories of another user in what ``user`` got back."""
    for m in items:
        tag = TAG.search(str(m.get("text", "")))
        if m.get("user_id", user) != user or (tag is not None and int(tag.group(1)) != i):
            run.leaked += 1
            run.errors.append(f"{user} got {m.get('user_id')}'s memory {m.get('text')!r}")


class Client:
    """One user's doors: the HTTP API, MCP and the LangGraph API."""

    def __init__(self, run: Run, i: int, user: str) -> None:
        self.run, self.i, self.user = run, i, user
        self.http = httpx.AsyncClient(base_url=run.server.url, timeout=httpx.Timeout(120.0, connect=5.0))
        from langgraph_sdk import get_client

        # one SDK client per user, made now: making one costs ~21 ms of CPU (its SSL context), and one per turn
        # blocked the clients' event loop inside the latencies measured
        self.langgraph = get_client(url=run.server.url, timeout=120.0)
        import httpx2  # the MCP SDK's HTTP client: one per user too (the SDK's default for a URL, made per call)

        self.mcp_http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=300.0))
        self.api = "/palace/api/users/" + quote(user, safe="")
        self.k = 0  # statements made
        self.turns = 0

    async def close(self) -> None:
        await self.http.aclose()
        await self.langgraph.aclose()
        await self.mcp_http.aclose()

    def _answer(self, r: httpx.Response) -> Any:
        if r.status_code >= 500 or (r.status_code in (404, 409) and "/threads/" in str(r.request.url)):
            raise Retry(f"{r.status_code} {r.text[:200]}")
        if r.status_code >= 400:
            raise OpError(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text[:300]}")
        return r.json()

    async def api_add(self, text: str, at: str) -> None:
        try:
            r = await self.http.post(self.api + "/memories", json={"text": text, "at": at})
        except httpx.HTTPError as exc:
            raise Retry(str(exc) or type(exc).__name__) from exc
        out = self._answer(r)
        _check_owner(self.run, self.i, self.user, [out])

    async def api_search(self, query: str) -> None:
        try:
            r = await self.http.get(self.api + "/memories/search", params={"q": query, "limit": 5})
        except httpx.HTTPError as exc:
            raise Retry(str(exc) or type(exc).__name__) from exc
        _check_owner(self.run, self.i, self.user, self._answer(r))

    async def memories(self) -> list[dict[str, Any]]:
        try:
            r = await self.http.get(self.api + "/memories", params={"status": "all"})
        except httpx.HTTPError as exc:
            raise Retry(str(exc) or type(exc).__name__) from exc
        out: list[dict[str, Any]] = self._answer(r)
        return out

    async def mcp(self, tool: str, args: dict[str, Any]) -> Any:
        from mcp import Client as MCPClient
        from mcp.client.streamable_http import streamable_http_client

        url = f"{self.run.server.url}/palace/mcp?user_id={quote(self.user, safe='')}"
        try:
            async with MCPClient(streamable_http_client(url, http_client=self.mcp_http)) as session:
                result = await session.call_tool(tool, args)
        except Exception as exc:  # the SDK wraps transport failures in several types (and exception groups)
            raise Retry(f"MCP {tool}: {type(exc).__name__}: {exc}") from exc
        # the SDK types a result's content as any block (text, image, audio, resource); palace's tools return text
        text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
        if result.is_error:
            if any(w in text for w in ("did not answer within", "cannot be reached", "unavailable", "retry")):
                raise Retry(f"MCP {tool}: {text[:200]}")
            raise OpError(f"MCP {tool}: {text[:300]}")
        return json.loads(text)

    async def mcp_add(self, text: str, at: str) -> None:
        out = await self.mcp("add_memory", {"text": text, "at": at})  # with ``at``: a retry is the same memory
        _check_owner(self.run, self.i, self.user, [out])

    async def mcp_search(self, query: str) -> None:
        _check_owner(self.run, self.i, self.user, await self.mcp("search_memories", {"query": query, "limit": 5}))

    def thread(self) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.user}/{self.turns // TURNS_PER_THREAD}"))

    async def chat(self, message: str, thread_id: str) -> None:
        """One turn; its message id is the same on every attempt, so a retry (or the server's own re-run of a run
        a kill cut off) of a turn that was answered changes nothing and is found answered in the thread."""
        client = self.langgraph
        message_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread_id}/{message}"))
        try:
            warnings.filterwarnings("ignore", message="Reconnecting without a Last-Event-ID")  # a kill: retried
            # the in-memory runtime may have lost the thread's row in a kill (its checkpoints are in Redis): a row
            # made again without its graph reads as an empty thread, so it is made with it
            await client.threads.create(thread_id=thread_id, if_exists="do_nothing", graph_id="palace")
            answered, error = False, None
            async for part in client.runs.stream(
                    thread_id, "palace", input={"messages": [{"role": "user", "content": message, "id": message_id}]},
                    context={"user_id": self.user, "session_id": thread_id}, stream_mode="messages-tuple",
                    # langgraph-sdk's stream overloads (by version=) match no call that passes multitask_strategy
                    # under mypy: it reads both literals as str; the call is the SDK's documented one
                    multitask_strategy="enqueue"):  # type: ignore[call-overload]
                if part.event == "error":
                    error = part.data
                elif part.event == "messages" and isinstance(part.data, list) and len(part.data) == 2:
                    msg, meta = part.data
                    answered = answered or (meta.get("langgraph_node") == "respond" and bool(msg.get("content")))
            if error is None and not answered:  # a repeat: the turn was answered by an attempt the client lost
                values: Any = (await client.threads.get_state(thread_id))["values"] or {}
                messages = values.get("messages", [])
                at = next((k for k, m in enumerate(messages) if m.get("id") == message_id), None)
                answered = at is not None and any(m.get("type") == "ai" and m.get("content")
                                                  for m in messages[at + 1:])
        except httpx.HTTPStatusError as exc:
            code = exc.response.status_code
            if code >= 500 or code in (404, 409):
                raise Retry(f"chat: {code}") from exc
            raise OpError(f"chat: {code} {exc.response.text[:300]}") from exc
        except httpx.HTTPError as exc:
            raise Retry(f"chat: {type(exc).__name__}: {exc}") from exc
        if error is not None or not answered:
            raise Retry(f"chat: the run ended without an answer: {error}")

    async def one(self, kind: str) -> None:
        """One operation of ``kind``, retried until answered (or ``op_timeout_s``)."""
        run, said = self.run, self.run.said[self.user]
        text = query = thread = ""
        if kind in ("chat", "api_add", "mcp_add"):
            text = _statement(self.i, self.k, run.rng)
            self.k += 1
        else:
            query = f"what is my {run.rng.choice(NOUNS)} code?"
        if kind == "chat":
            thread = self.thread()
            self.turns += 1
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        t0 = time.perf_counter()
        attempt = 0
        while True:
            try:
                if kind == "chat":
                    await self.chat(text + ".", thread)
                elif kind == "api_add":
                    await self.api_add(text, at)
                elif kind == "mcp_add":
                    await self.mcp_add(text, at)
                elif kind == "api_search":
                    await self.api_search(query)
                else:
                    await self.mcp_search(query)
                break
            except OpError as exc:
                run.failed += 1
                run.errors.append(f"{self.user} {kind}: {exc}")
                return
            except Retry as exc:
                attempt += 1
                run.retries += 1
                run.retried[f"{run.phase} {kind}: {' '.join(str(exc).split()[:4])[:60]}"] += 1
                if time.perf_counter() - t0 > run.op_timeout_s:
                    run.failed += 1
                    run.errors.append(f"{self.user} {kind}: no answer in {run.op_timeout_s:.0f} s: {exc}")
                    return
                await asyncio.sleep(min(2.0, 0.25 * attempt))
        ms = (time.perf_counter() - t0) * 1000
        run.done += 1
        if run.phase == "load" and attempt == 0:
            run.latencies[kind].append(ms)
        if kind == "chat":
            said.statements[text] = run.phase
            said.turns.append((thread, text + ".", run.phase))
        elif kind in ("api_add", "mcp_add"):
            said.statements[text] = run.phase
            said.adds[text] = run.phase


async def _clients(run: Run, clients: list[Client], ops: int, until: asyncio.Event | None = None) -> None:
    """Every client runs ``ops`` operations (and, with ``until``, goes on until it is set)."""

    async def one_client(c: Client) -> None:
        n = 0
        while n < ops or (until is not None and not until.is_set()):
            await asyncio.sleep(run.rng.expovariate(1 / run.think_s) if run.think_s > 0 else 0)
            await c.one(run.rng.choices(KINDS, MIX)[0])
            n += 1

    await asyncio.gather(*(one_client(c) for c in clients))


async def _killer(run: Run, kills: int, done: asyncio.Event, progress: Any) -> None:
    server = run.server
    try:
        for k in range(kills):
            # up long enough for queued turns to move (the server runs one at a time), short enough to hit them
            await asyncio.sleep(run.rng.uniform(3.0, 10.0))
            server.kill()
            await asyncio.sleep(run.rng.uniform(0.0, 0.5))
            await asyncio.to_thread(server.start)
            progress(f"serve-load: kill {k + 1}/{kills}, up again in {server.starts_s[-1]:.1f} s")
    finally:
        done.set()


_VALUES = re.compile(r"\bz\d+x\d+\b|\b\d{4}\b")  # what a statement says: its code's name and its number


def _kept(statement: str, texts: list[str]) -> bool:
    """Is what ``statement`` (a chat turn's "My X code zIxK is NNNN") says in one of ``texts``: as said (the scripted
    model stores the user's words), or reworded with its code's name and its number (a real model's extraction:
    "The user's locker code z0x1 is 6340")?"""
    values = [v.lower() for v in _VALUES.findall(statement)]
    plain = [re.sub(r"(?<=\d)[,\s](?=\d{3}\b)", "", t).lower() for t in texts]  # "5,430" is 5430
    return statement in texts or (bool(values) and any(all(v in t for v in values) for t in plain))


async def _verify(run: Run, clients: list[Client]) -> dict[str, Any]:
    from langgraph_sdk import get_client

    lg = get_client(url=run.server.url, timeout=120.0)
    lost: dict[str, int] = {"load": 0, "kills": 0}
    duplicated = history_missing = repeated = 0
    for c in clients:
        said = run.said[c.user]
        stored = await c.memories()
        _check_owner(run, c.i, c.user, stored)
        texts = [m["text"] for m in stored]
        for text, phase in said.statements.items():
            if not _kept(text, texts):
                lost[phase] += 1
                near = [t for t in texts if any(v.lower() in t.lower() for v in _VALUES.findall(text))]
                run.errors.append(f"{c.user}: lost {text!r} ({phase}); the memories naming its code or number: "
                                  f"{near}")
        duplicated += sum(1 for text in said.adds if texts.count(text) > 1)
        threads: dict[str, list[str]] = {}
        for thread, message, phase in said.turns:
            if thread not in threads:
                await lg.threads.create(thread_id=thread, if_exists="do_nothing", graph_id="palace")
                state = await lg.threads.get_state(thread)
                values: Any = state["values"] or {}
                threads[thread] = [str(m.get("content")) for m in values.get("messages", [])
                                   if m.get("type") == "human"]
                repeated += len(threads[thread]) - len(set(threads[thread]))
            if message not in threads[thread]:
                history_missing += 1
                lost[phase] += 1
                held = [tag.group(0) if (tag := TAG.search(m)) else m[:20] for m in threads[thread]]
                run.errors.append(f"{c.user}: turn {message!r} missing from thread {thread} ({phase}); it holds "
                                  f"{held}")
    return {"lost": lost["load"] + lost["kills"], "lost_after_kill": lost["kills"], "duplicated": duplicated,
            "history_missing": history_missing, "turns_repeated": repeated}


def _outbox_left(env: dict[str, str], users: list[str]) -> int:
    """Outbox entries still waiting for the run's users (read after the server stopped)."""
    from graph.resources import Resources
    from graph.settings import Settings

    settings = Settings.model_validate({k.removeprefix("PALACE_").lower(): v for k, v in env.items()
                                        if k.startswith("PALACE_") and k.removeprefix("PALACE_").lower()
                                        in Settings.model_fields})
    resources = Resources(settings)
    try:
        outbox = resources.outbox()
        return sum(outbox.pending(u) for u in users)
    finally:
        resources.close()


class Probe:
    """The search probe: a process of its own (``python -m bench.serve_load --probe URL USER PAUSE_MS``) that runs
    one user's searches one at a time, ``pause_ms`` apart, so the latency measured is the server's and the
    network's, not the wait of 16 clients' event loop. Told on stdin: ``go N`` (N searches, or until ``stop`` when
    N is 0); answers one JSON line of milliseconds per ``go``."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, url: str, user: str, pause_ms: float) -> Probe:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.serve_load", "--probe", url, user, str(pause_ms),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        return cls(proc)

    async def _say(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def searches(self, n: int) -> list[float]:
        """``n`` searches, one after another; their milliseconds."""
        await self._say(f"go {n}")
        return await self._read()

    async def begin(self) -> None:
        await self._say("go 0")

    async def end(self) -> list[float]:
        await self._say("stop")
        return await self._read()

    async def _read(self) -> list[float]:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise ServiceUnavailableError("the search probe", "bench.serve_load --probe", "ended early",
                                          fix="run `python -m bench.serve_load --probe URL USER 100` to see why")
        out: list[float] = json.loads(line)
        return out

    async def close(self) -> None:
        if self.proc.returncode is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


def _probe(url: str, user: str, pause_ms: str) -> int:
    """The probe process (:class:`Probe`): searches ``user``'s memories at ``url`` while told to."""
    import threading

    pause_s, stop = float(pause_ms) / 1000, threading.Event()
    path = "/palace/api/users/" + quote(user, safe="") + "/memories/search"
    queries = [f"what is my {noun} code?" for noun in NOUNS]
    commands: list[str] = []
    said = threading.Condition()

    def read_stdin() -> None:
        for line in sys.stdin:
            with said:  # in the order told: a stop read before its go is taken still ends that go
                if line.strip() == "stop":
                    stop.set()
                else:
                    stop.clear()
                    commands.append(line.strip())
                said.notify()
        with said:
            commands.append("eof")
            stop.set()
            said.notify()

    threading.Thread(target=read_stdin, daemon=True).start()
    with httpx.Client(base_url=url, timeout=httpx.Timeout(120.0, connect=5.0)) as http:
        k = 0
        while True:
            with said:
                said.wait_for(lambda: bool(commands))
                command = commands.pop(0)
            if command == "eof":
                return 0
            n = int(command.split()[1])
            ms: list[float] = []
            while (len(ms) < n) if n else not stop.is_set():
                t0 = time.perf_counter()
                r = http.get(path, params={"q": queries[k % len(queries)], "limit": 5})
                elapsed = (time.perf_counter() - t0) * 1000
                k += 1
                if r.status_code == 200:
                    ms.append(elapsed)
                stop.wait(pause_s)
            print(json.dumps([round(x, 2) for x in ms]), flush=True)


def _ms(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(percentile(values, 50), 1) if values else 0.0,
            "p95_ms": round(percentile(values, 95), 1) if values else 0.0}


async def _loop_lag(lags: list[float], every_s: float = 0.02) -> None:
    """How late this process's event loop wakes (ms), every ``every_s``: the clients' own delay, which is inside
    every latency they measure (16 clients in one process on the server's 2 cores)."""
    while True:
        t0 = time.perf_counter()
        await asyncio.sleep(every_s)
        lags.append((time.perf_counter() - t0 - every_s) * 1000)


async def _main(server: Server, *, clients_n: int, ops: int, kills: int, alone: int, think_s: float,
                op_timeout_s: float, seed: int, progress: Any, probe_ms: float = 100.0,
                rounds: int = 1) -> dict[str, Any]:
    run = Run(server, think_s, op_timeout_s, random.Random(seed))
    run_tag = uuid.uuid4().hex[:6]
    clients = [Client(run, i, user_id(i, run_tag)) for i in range(clients_n)]
    baseline = Client(run, clients_n, f"alone|{run_tag}")
    probe = await Probe.start(server.url, baseline.user, probe_ms)
    try:
        for _ in range(5):  # the baseline: searches one at a time on an otherwise idle server
            await baseline.one("api_add")
        await probe.searches(min(alone, 3))  # warm: the probe's first connection and the server's first search
        lags: list[float] = []
        run.latencies.clear()
        alone_ms: list[float] = []
        search_load: list[float] = []
        round_ratios: list[float] = []
        wall = 0.0
        for n in range(rounds):  # alone, then under load, again: each baseline beside the load it is compared with
            alone_now = await probe.searches(alone)
            progress(f"serve-load: round {n + 1}/{rounds} alone, search p50 {percentile(alone_now, 50):.0f} ms; "
                     f"{clients_n} clients x {ops} ops")
            t0 = time.perf_counter()
            lagging = asyncio.ensure_future(_loop_lag(lags))
            await probe.begin()
            try:
                await _clients(run, clients, ops)
            finally:
                lagging.cancel()
                load_now = await probe.end()
            wall += time.perf_counter() - t0
            alone_ms += alone_now
            search_load += load_now
            if alone_now and load_now:
                round_ratios.append(round(percentile(load_now, 95) / percentile(alone_now, 95), 2))
        load_ops = run.done - 5
        progress(f"serve-load: {load_ops} operations in {wall:.1f} s, {run.failed} failed")
        killed = 0
        if kills > 0:
            run.phase = "kills"
            done = asyncio.Event()
            killer = asyncio.ensure_future(_killer(run, kills, done, progress))
            await asyncio.gather(_clients(run, clients, max(1, ops // 2), until=done), killer)
            killed = kills
        checks = await _verify(run, [*clients, baseline])
    finally:
        await probe.close()
        for c in (*clients, baseline):
            await c.close()
    every = [ms for kind in KINDS for ms in run.latencies[kind]]
    alone_p95 = percentile(alone_ms, 95) if alone_ms else 0.0
    load_p95 = percentile(search_load, 95) if search_load else 0.0
    return {"clients": clients_n, "operations": run.done, "failed": run.failed, "lost": checks["lost"],
            "leaked": run.leaked, "p50_ms": round(percentile(every, 50), 1) if every else 0.0,
            "p95_ms": round(percentile(every, 95), 1) if every else 0.0,
            "throughput_ops_s": round(load_ops / wall, 2) if wall else 0.0,
            "kills": killed, "lost_after_kill": checks["lost_after_kill"], "duplicated": checks["duplicated"],
            "history_missing": checks["history_missing"], "turns_repeated": checks["turns_repeated"],
            "retries": run.retries,
            "search_alone": _ms(alone_ms), "search_under_load": _ms(search_load), "client_lag": _ms(lags),
            "search_p95_ratio": round(load_p95 / alone_p95, 2) if alone_p95 else 0.0,
            "rounds": rounds, "round_ratios": round_ratios,
            "by_kind": {kind: _ms(run.latencies[kind]) for kind in KINDS},
            "ops_per_client": ops, "think_ms": round(think_s * 1000), "load_seconds": round(wall, 1),
            "restart_s": _ms([s * 1000 for s in server.starts_s[1:]]),
            "retried": dict(sorted(run.retried.items(), key=lambda kv: -kv[1])[:8]), "errors": run.errors[:20],
            "_users": [c.user for c in (*clients, baseline)]}


def run(*, scripted: bool, clients: int = 16, ops: int = 12, kills: int = 0, alone: int = 60, think_ms: float = 300,
        op_timeout_s: float = 300.0, seed: int = 7, data_dir: Path | None = None, probe_ms: float = 100.0,
        rounds: int = 1, progress: Any = lambda msg: None) -> dict[str, Any]:
    """One run on a fresh data directory (or ``data_dir``); returns the figures (see the module docstring)."""
    if clients < 1 or ops < 1 or kills < 0 or rounds < 1:
        raise ConfigurationError("--clients, --ops and --rounds must be at least 1, --kills at least 0")
    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="serve-load-")
        data_dir = Path(tmp.name)
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGGRAPH_", "LANGSMITH_"))}
    env |= {"PALACE_DATA_DIR": str(data_dir), "PALACE_SWEEP_INTERVAL_S": "0",
            "PALACE_KEY_PREFIX": env.get("PALACE_KEY_PREFIX", f"load{uuid.uuid4().hex[:8]}")}
    if scripted:
        env.pop("PALACE_CHAT_MODEL", None)
    server = Server(data_dir, _free_port(), scripted, env)
    services = "real services" if env.get("PALACE_REDIS_URL") or env.get("PALACE_DATABASE_URL") else "embedded"
    progress(f"serve-load: starting palace serve ({'scripted' if scripted else 'bundled'} model, {services})")
    server.start()
    try:
        out = asyncio.run(_main(server, clients_n=clients, ops=ops, kills=kills, alone=alone,
                                think_s=think_ms / 1000, op_timeout_s=op_timeout_s, seed=seed, progress=progress,
                                probe_ms=probe_ms, rounds=rounds))
        users: list[str] = out.pop("_users")
    finally:
        server.stop()
    out["outbox_left"] = _outbox_left(env, users) if users else 0
    out["model"] = "scripted" if scripted else "bundled"
    out["services"] = services
    out["first_start_s"] = round(server.starts_s[0], 1)
    from memory.embedded import EmbeddedPostgres, EmbeddedRedis

    EmbeddedRedis(data_dir).stop()  # the ones the server started in data_dir (none on the real services)
    EmbeddedPostgres(data_dir).stop()
    if tmp is not None:
        tmp.cleanup()
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scripted", action="store_true", help="the scripted model in the server (default: the "
                        "bundled local model)")
    parser.add_argument("--clients", type=int, default=16, help="users at once (default 16)")
    parser.add_argument("--ops", type=int, default=12, help="operations per client in the load phase (default 12)")
    parser.add_argument("--kills", type=int, default=0, help="SIGKILLs of the server in the kill phase (default 0)")
    parser.add_argument("--think-ms", type=float, default=300, help="mean pause between a client's operations")
    parser.add_argument("--alone", type=int, default=60, help="the probe's searches on the idle server, the "
                        "baseline (default 60)")
    parser.add_argument("--probe-ms", type=float, default=100, help="pause between the probe's searches, alone "
                        "and under load (default 100)")
    parser.add_argument("--rounds", type=int, default=1, help="alone and load phases, alternated this many times "
                        "on the same server; the search figures pool them (default 1)")
    parser.add_argument("--op-timeout", type=float, default=300, help="seconds an operation may take, retries "
                        "included, before it counts as failed (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", type=Path, default=None, help="run on (and keep) this data directory, to read "
                        "what the server stored afterwards (default: a temporary one, removed at the end)")
    parser.add_argument("--save", action="store_true", help="write bench/results/serve-load.json (--scripted) or "
                        "serve-load-bundled.json for the report")


def main(args: argparse.Namespace) -> dict[str, Any]:
    from bench.report import save

    t0, load = time.perf_counter(), os.getloadavg()[0]
    if args.alone < 1 or args.probe_ms < 0:
        raise ConfigurationError("--alone must be at least 1 and --probe-ms at least 0")
    result = run(scripted=args.scripted, clients=args.clients, ops=args.ops, kills=args.kills, alone=args.alone,
                 probe_ms=args.probe_ms, rounds=args.rounds,
                 think_ms=args.think_ms, op_timeout_s=args.op_timeout, seed=args.seed, data_dir=args.data_dir,
                 progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    if args.save:  # the full runs take minutes (every kill is a restart): saved by hand, not by `bench all`
        save("serve-load" if args.scripted else "serve-load-bundled", result, t0, load)
    return result


def report(r: dict[str, Any]) -> str:
    s = r["search_alone"], r["search_under_load"]
    return (f"{r['clients']} users at once on one palace serve ({r['model']} model, {r['services']}): "
            f"{r['operations']} operations, {r['failed']} failed, {r['lost']} lost, {r['leaked']} leaked, "
            f"{r['duplicated']} duplicated; p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
            f"{r['throughput_ops_s']} ops/s. Search p95 alone {s[0]['p95_ms']} ms, under load {s[1]['p95_ms']} ms "
            f"({r['search_p95_ratio']}x{_lag(r)}). {r['kills']} SIGKILLs "
            f"(restart p50 {r['restart_s']['p50_ms'] / 1000:.1f} s):"
            f" {r['lost_after_kill']} lost after a kill, {r.get('turns_repeated', 0)} turns repeated, "
            f"{r['outbox_left']} outbox entries left")


def _lag(r: dict[str, Any]) -> str:
    lag = r.get("client_lag")
    return f"; the clients' own event loop woke late by p50 {lag['p50_ms']} / p95 {lag['p95_ms']} ms" if lag else ""


def _child(data_dir: str, port: str) -> int:
    """The server process of ``--scripted``: ``palace serve`` with the scripted model as the process's models."""
    from doors.serve import serve
    from graph import deps
    from graph.testing import ScriptedBrain, ScriptedModels

    deps._ProcessDeps.deps = deps.Deps(models=ScriptedModels(ScriptedBrain()))
    return serve(Path(data_dir), port=int(port))


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    sys.exit(_child(sys.argv[2], sys.argv[3]))
if __name__ == "__main__" and sys.argv[1:2] == ["--probe"]:
    sys.exit(_probe(sys.argv[2], sys.argv[3], sys.argv[4]))
