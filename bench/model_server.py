"""A small OpenAI-compatible chat server on a real socket with a known, fixed latency per call, for benchmarks.

Every ``/v1/chat/completions`` request waits ``latency_ms`` before its first byte (as a model's time to first
token would), then answers: streamed as server-sent events when asked (one word per event, ``word_ms`` apart, as a
model generating them would), or as one JSON body. A streamed answer whose prompt contains ``break_marker`` stops
after two words without finishing (a model server dying mid-answer). Each streamed word's send time is logged.
Structured requests (``response_format`` json_schema) get a valid object of the schema the product asks for: the
message's sentences as memories (Extraction), "add" for every candidate (VerifierVerdicts), nothing (Summary).
Every call is logged with its start and end, so a benchmark can tell how much model time a turn waited for.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "Noted. You told me about that earlier."


@dataclass
class CallLog:
    calls: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, kind) in perf_counter s
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, start: float, end: float, kind: str) -> None:
        with self.lock:
            self.calls.append((start, end, kind))

    def between(self, start: float, end: float) -> list[tuple[float, float, str]]:
        with self.lock:
            return [c for c in self.calls if c[0] >= start and c[1] <= end]


def _between(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", text, re.DOTALL)
    return m.group(1).strip() if m else ""


def structured(schema_name: str, prompt: str) -> dict[str, Any]:
    if schema_name == "Extraction":
        said = _between(prompt, "message")
        parts = [p.strip() for p in re.split(r"(?<=[.!?。！？])\s*", said) if p.strip() and not p.strip().endswith(
            ("?", "？"))]
        return {"memories": [{"text": p.rstrip(".!。！"), "when": ""} for p in parts]}
    if schema_name == "VerifierVerdicts":
        count = len([line for line in _between(prompt, "new").splitlines() if line.strip()])
        return {"verdicts": [{"candidate": i, "decision": "add", "existing": 0, "reason": "new information"}
                             for i in range(1, count + 1)]}
    return {"memories": []}


class FixedLatencyModel:
    """``with FixedLatencyModel(120) as m: ChatOpenAI(base_url=m.url, ...)``."""

    def __init__(self, latency_ms: float, *, word_ms: float = 0, break_marker: str | None = None) -> None:
        self.latency_s = latency_ms / 1000
        self.word_s = word_ms / 1000
        self.break_marker = break_marker
        self.log = CallLog()
        self.words_sent: list[tuple[float, str]] = []  # (perf_counter s, word) of every streamed word
        self.bodies: list[dict[str, Any]] = []  # every request body, as received
        # When set, a streamed answer waits for this event after its first word: a test sees what reached the
        # user while the model is still generating, with no timing involved.
        self.hold_after_first_word: threading.Event | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:  # the call log, for a benchmark running this server in another process
                if self.path.rstrip("/").endswith("/_calls"):
                    with server.log.lock:
                        self._send(200, {"calls": server.log.calls})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                start = time.perf_counter()
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.bodies.append(body)
                prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                fmt = body.get("response_format") or {}
                schema = (fmt.get("json_schema") or {}).get("name", "") if isinstance(fmt, dict) else ""
                text = json.dumps(structured(schema, prompt)) if schema else ANSWER
                time.sleep(server.latency_s)
                usage = {"prompt_tokens": max(1, len(prompt) // 4), "completion_tokens": max(1, len(text) // 4),
                         "total_tokens": 0}
                if body.get("stream"):
                    broken = server.break_marker is not None and server.break_marker in prompt
                    self._stream(body, text, usage, broken=broken)
                else:
                    self._send(200, {"id": "cmpl", "object": "chat.completion", "created": int(time.time()),
                                     "model": body.get("model", "fixed"), "usage": usage,
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": text}}]})
                server.log.add(start, time.perf_counter(), schema or "answer")

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], text: str, usage: dict[str, int], *, broken: bool) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                words = re.findall(r"\S+\s*", text) or [text]
                base = {"id": "cmpl", "object": "chat.completion.chunk", "created": int(time.time()),
                        "model": body.get("model", "fixed")}
                events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": w},
                                                "finish_reason": None}]} for w in words]
                events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                events.append({**base, "choices": [], "usage": usage})
                for n, event in enumerate(events):
                    if n and n < len(words):
                        time.sleep(server.word_s)
                    if broken and n == 2:
                        self.close_connection = True  # dies mid-answer: no last chunk, no [DONE]
                        self.wfile.flush()
                        return
                    self._chunk(f"data: {json.dumps(event)}\n\n".encode())
                    if n < len(words):
                        server.words_sent.append((time.perf_counter(), words[n]))
                    hold = server.hold_after_first_word
                    if n == 0 and hold is not None:
                        hold.wait(60)
                self._chunk(b"data: [DONE]\n\n")
                self._chunk(b"")

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FixedLatencyModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ServerProcess:
    """:class:`FixedLatencyModel` in a process of its own, as a model server is: the benchmarked process then
    shares its interpreter (and its GIL) with nothing but itself, as it would in production. Call times are
    ``time.perf_counter`` seconds, which on Linux is the system-wide monotonic clock, so they compare with the
    parent's. ``with ServerProcess(150) as m: ... m.calls_between(t0, t1)``."""

    def __init__(self, latency_ms: float) -> None:
        self.latency_ms = latency_ms
        self.url = ""
        self._proc: subprocess.Popen[str] | None = None
        self._calls: list[tuple[float, float, str]] = []

    def __enter__(self) -> ServerProcess:
        self._proc = subprocess.Popen([sys.executable, "-m", "bench.model_server", "--latency-ms",
                                       str(self.latency_ms)], stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self._proc.kill()
            raise RuntimeError(f"the model server did not start (printed {line!r})")
        self.url = line
        return self

    def calls_between(self, start: float, end: float) -> list[tuple[float, float, str]]:
        """The calls that started and ended within [start, end] (fetched once, after the run: call
        :meth:`fetch` first)."""
        return [c for c in self._calls if c[0] >= start and c[1] <= end]

    def fetch(self) -> None:
        with urllib.request.urlopen(f"{self.url}/_calls", timeout=10) as r:
            self._calls = [(float(a), float(b), str(k)) for a, b, k in json.load(r)["calls"]]

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(10)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model_server", description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=150, help="wait before the first byte of each call")
    parser.add_argument("--word-ms", type=float, default=0, help="between two streamed words")
    args = parser.parse_args(argv)
    with FixedLatencyModel(args.latency_ms, word_ms=args.word_ms) as server:
        print(server.url, flush=True)  # the parent reads the URL from the first line
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
