"""Where a running ``palace serve`` can be reached: ``<data_dir>/server.json`` (pid and URL).

``palace serve`` writes it once the server answers and removes it when it stops; a file left by a killed server
is stale: its pid is gone (the file is removed) or its URL does not answer (ignored). Standard library and httpx
only: the CLI's client mode reads it without importing the agent stack (STYLE.md rule 16).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from memory.embedded import _pid_alive as pid_alive  # standard library only: light for the CLI

FILE = "server.json"
HEALTH = "/palace/api/health"


def default_data_dir() -> Path:
    """The data directory when neither ``--data-dir`` nor ``PALACE_DATA_DIR`` names one."""
    return Path.home() / ".memory-palace"


def data_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """``given``, else ``$PALACE_DATA_DIR``, else the default; resolved like the embedded stores resolve it."""
    raw = given or os.environ.get("PALACE_DATA_DIR") or default_data_dir()
    return Path(raw).expanduser().resolve()


@dataclass(frozen=True)
class Endpoint:
    url: str
    pid: int
    started_at: float


def read(directory: Path) -> Endpoint | None:
    """The endpoint file as written, or None (absent or unreadable)."""
    try:
        raw = json.loads((directory / FILE).read_text())
        return Endpoint(url=str(raw["url"]).rstrip("/"), pid=int(raw["pid"]), started_at=float(raw["started_at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(directory: Path, url: str, pid: int | None = None) -> Endpoint:
    """Publish ``url`` as this data directory's server (atomically: a reader never sees half a file)."""
    directory.mkdir(parents=True, exist_ok=True)
    endpoint = Endpoint(url=url.rstrip("/"), pid=pid or os.getpid(), started_at=time.time())
    tmp = directory / f".{FILE}.{os.getpid()}"
    tmp.write_text(json.dumps({"url": endpoint.url, "pid": endpoint.pid, "started_at": endpoint.started_at}))
    tmp.replace(directory / FILE)
    return endpoint


def remove(directory: Path, pid: int | None = None) -> None:
    """Remove the endpoint file if it is ``pid``'s (default: this process's); another server's stays."""
    found = read(directory)
    if found is not None and found.pid == (pid or os.getpid()):
        (directory / FILE).unlink(missing_ok=True)


def healthy(url: str, *, timeout_s: float = 2.0) -> bool:
    try:
        return httpx.get(url + HEALTH, timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


def live(directory: Path, *, timeout_s: float = 2.0) -> Endpoint | None:
    """The running server of ``directory``, or None. A file whose process is gone is removed (stale); one whose
    process lives but does not answer is ignored (starting, or the pid was reused)."""
    found = read(directory)
    if found is None:
        return None
    if not pid_alive(found.pid):
        (directory / FILE).unlink(missing_ok=True)
        return None
    return found if healthy(found.url, timeout_s=timeout_s) else None
