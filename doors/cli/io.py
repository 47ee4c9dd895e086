"""What every ``palace`` command shares at the process edge: Ctrl-C, a reader that goes away, JSON output.

Standard library only: ``doors.cli.main`` imports this before anything heavy, so the signal handling covers start-up.

- Ctrl-C (SIGINT): the first one raises ``KeyboardInterrupt`` where the command is, so ``with`` blocks close what
  they opened (a PostgreSQL transaction rolls back, a Redis script is atomic, Qdrant's write-ahead log keeps
  what was acknowledged); ``main`` prints one line, ``palace: interrupted``, and the process exits with 130. A
  second Ctrl-C while that unwinds exits at once, with the same status.
- A closed pipe (``palace memories list --json | head``): the command stops quietly with status 141 (128 +
  SIGPIPE, what a shell reports for a tool killed by SIGPIPE), no traceback.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

INTERRUPTED = 130  # 128 + SIGINT
BROKEN_PIPE = 141  # 128 + SIGPIPE

_interrupted = False


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _interrupted
    if _interrupted:  # a second Ctrl-C while the first one unwinds
        os._exit(INTERRUPTED)
    _interrupted = True
    raise KeyboardInterrupt


def install_signal_handlers() -> None:
    """Ctrl-C as described above (only from the main thread, where Python delivers signals)."""
    global _interrupted
    _interrupted = False
    signal.signal(signal.SIGINT, _on_sigint)


def silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (e.g. captured in tests)
        pass


def dumps(value: Any) -> str:
    """JSON with every number in plain notation (``0.00000001``, never ``1e-08`` or ``"0E-8"``): decimals and
    floats are numbers, datetimes ISO 8601 strings, anything else its ``str``. Non-ASCII text is kept as is."""
    return "".join(_encode(value))


def _encode(value: Any) -> Any:
    if value is None or (isinstance(value, bool | int | str) and not isinstance(value, Enum)):
        yield json.dumps(value, ensure_ascii=False)
    elif isinstance(value, float | Decimal):
        yield plain_number(value)
    elif isinstance(value, Mapping):
        yield "{"
        for i, (k, v) in enumerate(value.items()):
            yield (", " if i else "") + json.dumps(str(k), ensure_ascii=False) + ": "
            yield from _encode(v)
        yield "}"
    elif isinstance(value, list | tuple | set | frozenset):
        yield "["
        for i, v in enumerate(value):
            if i:
                yield ", "
            yield from _encode(v)
        yield "]"
    elif isinstance(value, datetime | date):
        yield json.dumps(value.isoformat())
    elif isinstance(value, Enum):
        yield from _encode(value.value)
    else:
        yield json.dumps(str(value), ensure_ascii=False)


def plain_number(value: float | Decimal) -> str:
    """A float or Decimal as a JSON number without an exponent; NaN and infinities (not JSON) become null."""
    d = value if isinstance(value, Decimal) else None
    if d is None:
        if not math.isfinite(value):
            return "null"
        d = Decimal(repr(value))  # the shortest text that reads back as the same float
    if not d.is_finite():
        return "null"
    text = format(d.normalize(), "f")
    if "." not in text:
        text += ".0"  # stays a float for readers that tell 0 from 0.0
    return text


def run_interruptible(work: Callable[[], T], *, critical: Callable[[], bool] = lambda: False,
                      grace_s: float = 15.0) -> T:
    """Run ``work`` in a worker thread so that Ctrl-C answers at once: LangGraph waits for a turn's parallel
    nodes (a model call may take a minute) before an exception can leave the main thread. On Ctrl-C: if
    ``critical()`` (the turn is writing), wait up to ``grace_s`` for it to finish; then print one line and exit 130.
    Nothing is half-written: a turn writes nothing before its write node (the message is already in short-term
    memory), and that node is waited for."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the main thread as is
            box["error"] = exc

    worker = threading.Thread(target=run, name="palace-turn", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        deadline = time.monotonic() + grace_s
        while worker.is_alive() and critical() and time.monotonic() < deadline:
            worker.join(0.1)
        print("palace: interrupted", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(INTERRUPTED)
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value
