"""How fast ``palace`` answers: whole processes, timed from exec to exit, against ``python -c pass`` in the same run.

A private data directory gets the embedded Redis and PostgreSQL running and a user with a few hundred memories in
Qdrant Edge (so "warm, embedded stores running": what a user's second command meets). Then each command runs
``--runs`` times (after a warm-up), interleaved round-robin so a busy machine slows them all alike, and the median
of each is reported:

- ``floor``: ``python -c pass`` (the interpreter's own start-up, the least any command can cost);
- ``help``: ``palace --help``;
- ``search``: ``palace memories search "where do I live" --user bench`` (settings, Qdrant Edge, the e5 embedder);
- ``list``: ``palace memories list --user bench``;
- ``bad_input``: ``palace chat hello --user "a b"`` (an invalid user id: one line, exit 2).

Goals (issue 14): help <= floor + 300 ms; search and list <= 1,000 ms; bad input <= 500 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory.errors import ServiceUnavailableError

MEMORIES = 300
TEXTS = ("I live in Hangzhou, near the West Lake.", "My sister Lina moved to Lisbon last spring.",
         "I drink green tea every morning.", "The gym code is 4512.", "我端午节在海底捞请客户王总吃饭。",
         "My passport expires in March 2028.", "I am learning the cello on Thursdays.")


def _palace() -> list[str]:
    script = Path(sys.executable).parent / "palace"  # the console script a user runs
    return [str(script)] if script.is_file() else [sys.executable, "-m", "doors.cli"]


def commands() -> dict[str, list[str]]:
    palace = _palace()
    return {
        "floor": [sys.executable, "-c", "pass"],
        "help": [*palace, "--help"],
        "search": [*palace, "memories", "search", "where do I live", "--user", "bench"],
        "list": [*palace, "memories", "list", "--user", "bench"],
        "bad_input": [*palace, "chat", "hello", "--user", "a b"],
    }


EXPECTED_EXIT = {"floor": 0, "help": 0, "search": 0, "list": 0, "bad_input": 2}


def _environment(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PALACE_")}
    return {**env, "PALACE_DATA_DIR": str(data_dir), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}


def _prepare(data_dir: Path, env: dict[str, str]) -> None:
    """Embedded Redis and PostgreSQL running, ``MEMORIES`` memories of user ``bench`` in Qdrant Edge."""
    lines = "\n".join(json.dumps({"id": f"00000000-0000-4000-8000-{i:012d}", "user_id": "bench",
                                  "text": f"{TEXTS[i % len(TEXTS)]} ({i})", "session_id": "bench",
                                  "timestamp": 1_780_000_000_000 + i * 60_000}) for i in range(MEMORIES))
    done = subprocess.run([*_palace(), "memories", "import", "-"], input=lines, text=True, capture_output=True,
                          env=env, timeout=600)
    if done.returncode != 0:
        raise ServiceUnavailableError("palace", str(data_dir), f"import failed: {done.stderr.strip()[-300:]}")
    from memory.embedded import EmbeddedPostgres, EmbeddedRedis

    EmbeddedRedis(data_dir).ensure()
    EmbeddedPostgres(data_dir).ensure()


# CPU time (user + system) of the same runs: on a machine shared with other work the wall time stretches with the
# load, the CPU time much less; it is what a command would take on an idle core. Reported beside the wall times.
LAST_CPU_MS: dict[str, float] = {}
CPU_FILE = Path(__file__).resolve().parent / "results" / "cli_cpu.json"
LAST_LOAD: list[float] = []


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(cmd: list[str], env: dict[str, str], expected: int) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), _cpu_s()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=300)
    ms = (time.perf_counter() - t0) * 1000
    cpu_ms = (_cpu_s() - c0) * 1000
    if done.returncode != expected:
        raise ServiceUnavailableError("palace", " ".join(cmd[-4:]), f"exit {done.returncode}, expected {expected}: "
                                      f"{done.stderr.decode(errors='replace').strip()[-300:]}")
    return ms, cpu_ms


def run(runs: int = 10, warmup: int = 2) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="palace-bench-cli-"))
    env = _environment(data_dir)
    cmds = commands()
    samples: dict[str, list[float]] = {name: [] for name in cmds}
    cpu: dict[str, list[float]] = {name: [] for name in cmds}
    try:
        _prepare(data_dir, env)
        LAST_LOAD[:] = [os.getloadavg()[0]]
        for i in range(warmup + runs):
            for name, cmd in cmds.items():
                ms, cpu_ms = _time(cmd, env, EXPECTED_EXIT[name])
                if i >= warmup:
                    samples[name].append(ms)
                    cpu[name].append(cpu_ms)
        LAST_LOAD.append(os.getloadavg()[0])
    finally:
        from memory.embedded import EmbeddedPostgres, EmbeddedRedis

        EmbeddedRedis(data_dir).stop()
        EmbeddedPostgres(data_dir).stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    LAST_CPU_MS.clear()
    LAST_CPU_MS.update({name: round(statistics.median(values), 1) for name, values in cpu.items()})
    # beside the result (whose JSON line holds the wall times only), for bench/REPORT.md
    CPU_FILE.parent.mkdir(exist_ok=True)
    CPU_FILE.write_text(json.dumps({"cpu_ms": LAST_CPU_MS, "load_avg": LAST_LOAD, "cpus": os.cpu_count()}) + "\n")
    return {f"{name}_ms": round(statistics.median(values), 1) for name, values in samples.items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each command (default 10)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(runs=max(1, args.runs))


def goals(r: dict[str, Any]) -> dict[str, bool]:
    return {"help": r["help_ms"] <= r["floor_ms"] + 300, "search": r["search_ms"] <= 1000,
            "list": r["list_ms"] <= 1000, "bad_input": r["bad_input_ms"] <= 500}


def report(r: dict[str, Any]) -> str:
    met = goals(r)
    cpu = ("; CPU time (user + system, median): " + ", ".join(f"{k} {v} ms" for k, v in LAST_CPU_MS.items())
           + f"; load average {LAST_LOAD[0]:.1f} at the start, {LAST_LOAD[-1]:.1f} at the end on "
             f"{os.cpu_count()} CPUs" if LAST_CPU_MS and LAST_LOAD else "")
    return (f"palace, median of whole processes: floor (python -c pass) {r['floor_ms']} ms; --help {r['help_ms']} ms "
            f"(goal floor + 300: {'met' if met['help'] else 'missed'}); memories search {r['search_ms']} ms, "
            f"memories list {r['list_ms']} ms (goal 1,000: {'met' if met['search'] and met['list'] else 'missed'}); "
            f"bad input {r['bad_input_ms']} ms (goal 500: {'met' if met['bad_input'] else 'missed'}){cpu}")
