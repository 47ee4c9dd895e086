"""What a person sees while a turn runs: the answer streamed to stdout as it is generated, and a small spinner on
stderr while nothing else shows (recalling, then the memory work after the answer), on a terminal only."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable
from typing import TextIO


class Spinner:
    """``with Spinner("recalling") as s: ... s.say("saving memories")``; ``s.stop()`` clears it for good.
    Draws nothing unless ``stream`` is a terminal."""

    def __init__(self, label: str, stream: TextIO | None = None, interval_s: float = 0.1) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.label = label
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Spinner:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        for frame in itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"):
            if self._stop.wait(self.interval_s):
                return
            with self._lock:
                if self.label:
                    self.stream.write(f"\r{frame} {self.label}\x1b[K")
                    self.stream.flush()

    def say(self, label: str) -> None:
        with self._lock:
            self.label = label
            if self.enabled and not label:
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class AnswerPrinter:
    """Writes the answer's tokens to stdout as they come (flushed: a pipe sees them too), hiding the spinner."""

    def __init__(self, spinner: Spinner, stream: TextIO | None = None) -> None:
        self.spinner = spinner
        self.stream = stream or sys.stdout
        self.started = False

    def __call__(self, text: str) -> None:
        if not self.started:
            self.started = True
            self.spinner.say("")
        self.stream.write(text)
        self.stream.flush()

    def finish(self) -> None:
        """The answer is complete: end its line; the spinner says the memory work goes on."""
        if self.started:
            self.stream.write("\n")
            self.stream.flush()
        self.spinner.say("saving memories")


class AnswerStream:
    """A chat command's view of its running turn, local or through a server: the answer printed as it is generated
    (``stream``; else nothing until the end) and whether it is complete (after which the turn writes memory, and
    Ctrl-C waits for that)."""

    def __init__(self, spinner: Spinner, *, stream: bool) -> None:
        self.printer = AnswerPrinter(spinner) if stream else None
        self.answered = False

    @property
    def on_token(self) -> Callable[[str], None] | None:
        return self.printer

    @property
    def started(self) -> bool:
        """Some of the answer was printed."""
        return self.printer is not None and self.printer.started

    def on_answer(self) -> None:
        self.answered = True
        if self.printer is not None:
            self.printer.finish()
