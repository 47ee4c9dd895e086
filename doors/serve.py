"""``palace serve``: the LangGraph API server (what ``langgraph dev`` runs) with the project's ``langgraph.json``,
offline (no analytics, no version check, no tracing, no browser), the single owner of the data directory's stores
while it runs. It publishes its URL in ``<data_dir>/server.json`` (``graph.endpoint``) once it answers, and
removes the file when it stops, so ``palace`` commands in other processes go through it.
"""

from __future__ import annotations

import gc
import os
import re
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO, cast

from graph import endpoint
from graph.settings import Settings, get_settings
from memory.embedded import ServiceStatus
from memory.errors import ConfigurationError, one_line

ROOT = Path(__file__).resolve().parent.parent
# The project's langgraph.json with the paths made absolute (tests/unit checks the two agree).
PROJECT_CONFIG: dict[str, Any] = {
    "graphs": {"palace": "./graph/server.py:graph"},
    "checkpointer": {"path": "./graph/checkpointer.py:checkpointer"},
    "store": {"path": "./graph/server.py:store"},
    "http": {"app": "./doors/http_api.py:app"},
}
OFFLINE_ENV = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}
STUDIO = "https://smith.langchain.com/studio/?baseUrl="
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def coloured(stream: TextIO | None) -> bool:
    """Whether colour codes belong on ``stream``: a terminal, and no ``NO_COLOR`` (https://no-color.org)."""
    return stream is not None and stream.isatty() and not os.environ.get("NO_COLOR")


class Uncoloured:
    """A text stream that drops ANSI escape sequences from what is written to it: the server's log in a file or a
    pipe (the LangGraph banner has its colours written into the text, so a renderer setting alone does not do)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(_ANSI.sub("", text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def banner(data_dir: Path, url: str) -> str:
    """What ``palace serve`` prints once it answers: its local URLs and how to point LangGraph Studio at it."""
    return (f"palace: serving {data_dir} at {url}\n"
            f"  API        {url}/palace/api\n"
            f"  inspector  {url}/palace/ui/\n"
            f"  MCP        {url}/palace/mcp?user_id=USER (or on stdio: palace mcp --user USER)\n"
            f"  Studio     {STUDIO}{url} (LangGraph Studio in the browser, connected to this server; the graph is "
            "'palace', the user is user_id in the assistant's context)")


def _absolute(ref: str) -> str:
    return str(ROOT / ref.removeprefix("./")) if ref.startswith("./") else ref


def server_config(config: dict[str, Any] | None = None) -> dict[str, Any]:
    """``config`` (default: the project's) with every ``./path`` made absolute, so the server runs from anywhere."""
    c = config or PROJECT_CONFIG
    out: dict[str, Any] = {"graphs": {k: _absolute(v) for k, v in c["graphs"].items()}}
    if "checkpointer" in c:
        out["checkpointer"] = {**c["checkpointer"], "path": _absolute(c["checkpointer"]["path"])}
    if "store" in c:
        out["store"] = {**c["store"], "path": _absolute(c["store"]["path"])}
    if "http" in c:
        out["http"] = {**c["http"], "app": _absolute(c["http"]["app"])}
    return out


def serve(data_dir: Path, *, host: str = "127.0.0.1", port: int = 2024, config: dict[str, Any] | None = None,
          log_level: str = "WARNING") -> int:
    """Run the server until it is stopped (Ctrl-C, SIGTERM). Another live server on ``data_dir``: exit 2."""
    data_dir = endpoint.data_dir(data_dir)
    running = endpoint.live(data_dir)
    if running is not None:
        raise ConfigurationError(f"a palace server already runs for {data_dir} at {running.url} (pid {running.pid})")
    if not coloured(sys.stdout):  # the log goes to stdout; langgraph_api reads this when it is imported
        os.environ["LOG_COLOR"] = "false"
    streams = sys.stdout, sys.stderr  # wrapped before any log handler takes hold of them
    sys.stdout, sys.stderr = (s if coloured(s) else cast(TextIO, Uncoloured(s)) for s in streams)
    try:
        return _serve(data_dir, host, port, config, log_level)
    finally:
        sys.stdout, sys.stderr = streams


def _serve(data_dir: Path, host: str, port: int, config: dict[str, Any] | None, log_level: str) -> int:
    try:
        from langgraph_api.cli import run_server  # the server stack loads only here
    except ImportError as exc:
        raise ConfigurationError("palace serve needs the LangGraph API server: pip install "
                                 "'memory-palace[serve]'") from exc

    os.environ.update(OFFLINE_ENV)
    os.environ["PALACE_DATA_DIR"] = str(data_dir)  # the server's settings name the same stores
    work = data_dir / "langgraph"  # the in-memory runtime keeps its run queue and threads under the cwd
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    stop = threading.Event()

    c = server_config(config)
    graphs = list(c["graphs"])

    def publish() -> None:
        while not stop.is_set():
            if endpoint.healthy(url, timeout_s=1):
                if len(graphs) == 1:  # before the endpoint is published: the CLI finds every thread there
                    try:
                        n = restore_thread_rows(url, graphs[0], checkpoint_threads(get_settings()))
                    except Exception as exc:  # the server runs on; a client can still make its thread again
                        print(f"palace: thread rows not restored: {one_line(exc)}", file=sys.stderr, flush=True)
                    else:
                        if n:
                            print(f"palace: {n} thread rows made again from their checkpoints (lost in a crash)",
                                  flush=True)
                freeze_heap()
                endpoint.write(data_dir, url)
                print(banner(data_dir, url), flush=True)
                return
            time.sleep(0.2)

    threading.Thread(target=publish, name="palace-endpoint", daemon=True).start()
    # uvicorn restores the handlers it found and raises the signal it caught again once it has shut down: with
    # the default SIGTERM action the process would die there, before the endpoint file is removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        run_server(host, port, False, c["graphs"], open_browser=False, store=c.get("store"), http=c.get("http"),
                   checkpointer=c.get("checkpointer"), server_level=log_level,
                   n_jobs_per_worker=get_settings().serve_turns)  # runs at once: PALACE_SERVE_TURNS (doors.lanes)
    finally:
        stop.set()
        endpoint.remove(data_dir)
    return 0


def freeze_heap() -> None:
    """Leave what the server loaded to start out of every later garbage collection (``gc.freeze``): the
    LangGraph API, the graph, its models' code and tables, some 270,000 objects the collector would otherwise walk
    again in every full collection for as long as the server runs. Under ``python -m bench serve-load`` such a
    collection took 160-200 ms, with the GIL held, on whatever thread set it off (often a turn's, of lower CPU
    priority: ``graph.priority``), and a memory search that came in meanwhile waited for all of it; frozen, it
    walks some 6,000 objects in 5-8 ms. Frozen objects are still freed when their last reference goes; only a
    reference cycle among them is never collected, and they were made once, at start."""
    gc.collect()
    gc.freeze()


def checkpoint_threads(settings: Settings) -> list[str]:
    """The thread ids the Redis checkpointer holds checkpoints for."""
    from graph.resources import redis_url, saver_config
    from memory.checkpoint import RedisSaver
    from memory.redis_cluster import open_redis

    client = open_redis(redis_url(settings), cluster=settings.redis_cluster)
    try:
        saver = RedisSaver(client, config=saver_config(settings))
        return sorted(t.decode() if isinstance(t, bytes) else str(t) for t in client.smembers(saver.threads_key()))
    finally:
        client.close()


def restore_thread_rows(url: str, graph_id: str, thread_ids: Iterable[str], timeout_s: float = 10.0) -> int:
    """Make again the thread rows LangGraph's in-memory runtime lost in a crash (it saves them every 10 s; the
    checkpoints are in Redis): a thread without its row is not found, and a row without its graph reads as an empty
    thread. Returns how many rows were made or given their graph."""
    import httpx

    restored = 0
    with httpx.Client(base_url=url, timeout=timeout_s) as http:
        for tid in thread_ids:
            try:
                uuid.UUID(tid)
            except ValueError:
                continue  # the CLI's threads (cli:<user>:<session>) are not the server's
            r = http.get(f"/threads/{tid}")
            if r.status_code == 404:
                http.post("/threads", json={"thread_id": tid, "if_exists": "do_nothing",
                                            "metadata": {"graph_id": graph_id}}).raise_for_status()
            elif r.status_code == 200 and not (r.json().get("metadata") or {}).get("graph_id"):
                http.patch(f"/threads/{tid}", json={"metadata": {"graph_id": graph_id}}).raise_for_status()
            else:
                r.raise_for_status()
                continue
            restored += 1
    return restored


def server_status(data_dir: Path) -> ServiceStatus:
    """The ``palace serve`` of ``data_dir``, checked live (a stale endpoint file is removed)."""
    data_dir = endpoint.data_dir(data_dir)
    found = endpoint.live(data_dir)
    if found is None:
        return ServiceStatus("Server", "embedded", str(data_dir / endpoint.FILE), False,
                             detail="no palace serve runs for this data directory")
    return ServiceStatus("Server", "embedded", found.url, True, found.pid,
                         "palace serve: owns the stores; commands go through it")
