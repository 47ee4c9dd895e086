"""Crashes and concurrency with real processes on real stores (external Redis and PostgreSQL, Qdrant Edge).

- SIGKILL at random points of turns and archive batches, many times: afterwards every short-term entry is still
  in short-term memory or archived exactly once, and every stored memory is whole.
- Two processes run 50 turns each on the same session at once, on the external Redis and on the session's 3-master /
  3-replica Redis Cluster: no short-term entry lost, every archive batch archived exactly once, the task's steps
  advanced exactly once per turn, none skipped or repeated.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.deps import Deps
from graph.resources import Resources
from graph.settings import get_settings
from graph.sweep import sweep
from graph.testing import ScriptedBrain, ScriptedModels
from memory.edge import EdgeClient
from memory.long_term import LongTermMemory
from tests.conftest import EXTERNAL_REDIS, external_stack

ROOT = Path(__file__).resolve().parents[2]
TRIALS = 100


@pytest.fixture
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The processes' environment: the external Redis, or (parametrised ``cluster``) the session's 3-master /
    3-replica Redis Cluster; a fresh database on the external PostgreSQL."""
    redis_url = EXTERNAL_REDIS
    if getattr(request, "param", "external") == "cluster":
        redis_url = request.getfixturevalue("redis_cluster").url
    with external_stack("crash", redis_url) as (redis_url, pg_url, prefix):
        yield {"PALACE_REDIS_URL": redis_url, "PALACE_DATABASE_URL": pg_url, "PALACE_KEY_PREFIX": prefix,
               "PALACE_DATA_DIR": str(tmp_path / "data"), "PALACE_TIMEZONE": "Asia/Shanghai",
               "PALACE_QDRANT_LOCK_WAIT_S": "10",
               # archive often: past 8 entries, the oldest 4 (a turn pushes 2)
               "PALACE_STM_ARCHIVE_THRESHOLD": "8", "PALACE_STM_ARCHIVE_BATCH": "4",
               "PALACE_STM_ARCHIVE_LEASE_S": "1"}


def _worker(env: dict[str, str], tag: str, turns: int, *extra: str, data_dir: str | None = None
            ) -> subprocess.Popen[str]:
    child_env = {**os.environ, **env, **({"PALACE_DATA_DIR": data_dir} if data_dir else {})}
    return subprocess.Popen([sys.executable, "-m", "tests.integration.turn_worker", "--tag", tag, "--turns",
                             str(turns), *extra], cwd=ROOT, env=child_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _deps(env: dict[str, str], data_dir: str | None = None) -> tuple[Deps, Resources]:
    overrides = {k.removeprefix("PALACE_").lower(): v for k, v in env.items()}
    if data_dir:
        overrides["data_dir"] = data_dir
    settings = get_settings(**overrides)
    res = Resources(settings)
    return Deps(settings, resources=res, models=ScriptedModels(ScriptedBrain())), res


def _entries(deps: Deps, ltms: list[LongTermMemory]) -> tuple[Counter[str], list[str]]:
    """(how many archive batches name each short-term entry as a source, the entry ids still in short-term
    memory). Every memory read on the way must be whole: it parses, has text, belongs to the user."""
    left = [e.id for e in deps.short_term().window("u", "s", n=10_000).entries]
    archived: Counter[str] = Counter()
    for ltm in ltms:
        batches: dict[str, list[str]] = {}
        for m in ltm.scroll("u"):
            assert m.text.strip() and m.user_id == "u" and m.source
            if m.origin.startswith("archive:"):
                batches.setdefault(m.origin, m.source)
        for sources in batches.values():
            archived.update(sources)
    return archived, left


def _calibrate(zygote: subprocess.Popen[str], turns: int = 4) -> tuple[float, float]:
    """One child that is not killed: how long its first turn takes (it loads the embedder and builds the graph)
    and the mean of the others, measured from its 'sent' and 'done' lines. Its turns count like any other's."""
    assert zygote.stdin is not None and zygote.stdout is not None
    zygote.stdin.write(f"run warm {turns}\n")
    zygote.stdin.flush()
    pid = int(zygote.stdout.readline().split()[1])
    marks: dict[str, float] = {}
    while (line := zygote.stdout.readline().strip()) != f"done warm-{turns - 1}":
        assert line, "the calibration child died"
        marks[line] = time.monotonic()
    marks[line] = time.monotonic()
    zygote.stdin.write(f"reap {pid}\n")
    zygote.stdin.flush()
    assert zygote.stdout.readline().startswith(f"exited {pid} ")
    first = marks["done warm-0"] - marks["sent warm-0"]
    rest = (marks[f"done warm-{turns - 1}"] - marks["done warm-0"]) / (turns - 1)
    return first, rest


def test_sigkill_at_random_points_loses_nothing_and_archives_once(env: dict[str, str]) -> None:
    rng = random.Random(7)
    sent = done = kills = 0
    zygote = subprocess.Popen([sys.executable, "-m", "tests.integration.turn_worker", "--zygote"], cwd=ROOT,
                              env={**os.environ, **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              bufsize=1)
    assert zygote.stdin is not None and zygote.stdout is not None
    try:
        assert zygote.stdout.readline().strip() == "ready"
        first_s, turn_s = _calibrate(zygote, turns=4)
        sent += 4
        done += 4
        for trial in range(TRIALS):
            zygote.stdin.write(f"run c{trial} 1000\n")
            zygote.stdin.flush()
            child = zygote.stdout.readline().strip()
            assert child.startswith("child "), child
            pid = int(child.split()[1])
            first = zygote.stdout.readline().strip()
            assert first == f"sent c{trial}-0", first
            sent += 1
            # Where to kill, in this machine's measured turn times (so a loaded machine kills as often after real
            # work as a quiet one): three trials in ten inside a child's first turn, the others after it, somewhere
            # in the next few turns (an archive batch, a checkpoint write, an outbox drain...).
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0.0, first_s))
            else:
                line = zygote.stdout.readline().strip()
                assert line == f"done c{trial}-0", line
                done += 1
                time.sleep(rng.uniform(0.0, 4 * turn_s))
            os.kill(pid, signal.SIGKILL)
            zygote.stdin.write(f"reap {pid}\n")
            zygote.stdin.flush()
            while True:
                line = zygote.stdout.readline().strip()
                if line.startswith("exited "):
                    kills += os.WIFSIGNALED(int(line.split()[2]))
                    break
                sent += line.startswith("sent ")
                done += line.startswith("done ")
    finally:
        zygote.kill()
        zygote.wait()
    assert kills == TRIALS and done >= TRIALS // 2, (kills, done)  # every trial was killed, most after real work
    deps, res = _deps(env)
    try:
        archived, _ = _entries(deps, [deps.long_term()])
        waiting = {e.content for e in deps.short_term().window("u", "s", n=10_000).entries if e.role == "user"}
        assert all(n == 1 for n in archived.values()), archived.most_common(3)  # never twice, even mid-batch
        time.sleep(float(env["PALACE_STM_ARCHIVE_LEASE_S"]) + 0.2)  # the last killed archiver's lease runs out
        sweep(deps, idle_s=0)  # finish what the kills interrupted: pending batches, sessions over the threshold
        archived_after, left_after = _entries(deps, [deps.long_term()])
        assert left_after == [] and all(n == 1 for n in archived_after.values())
        assert set(archived) <= set(archived_after)  # an archived batch is never redone
        # nothing dropped: every message still in short-term memory reached long-term memory (a turn that
        # finished stored its own; the archive stores only what no turn stored), and no message twice
        stored = [m.detail for m in deps.long_term().scroll("u") if m.detail.startswith("Note ")]
        assert waiting <= set(stored), sorted(waiting - set(stored))[:3]
        total = len(set(stored))
        # every completed turn's message is stored; a killed one maybe; nothing else appears
        assert done <= total <= sent, (done, sent, total)
        assert sent - done <= TRIALS
        print(f"\ncrash trials: {kills} SIGKILLs, {done} turns completed, {sent - done} cut short, "
              f"{total} messages in long-term memory, each batch archived exactly once, 0 lost")
    finally:
        res.close()


def _run_together(procs: list[subprocess.Popen[str]], timeout_s: float) -> list[tuple[str, str]]:
    """Wait until every worker (started with ``--go``) is ready, start them at once, collect their output. A worker
    still running after ``timeout_s`` fails the test with every thread's stack (SIGUSR1, see turn_worker)."""
    for p in procs:
        assert p.stdout is not None and p.stdin is not None
        line = p.stdout.readline().strip()
        assert line == "ready", (line, p.stderr.read()[-4000:] if p.stderr else "")
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    deadline = time.monotonic() + timeout_s
    try:
        return [p.communicate(timeout=max(1.0, deadline - time.monotonic())) for p in procs]
    except subprocess.TimeoutExpired:
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGUSR1)
        time.sleep(2)
        stacks = []
        for p in procs:
            p.kill()
            out, err = p.communicate()
            stacks.append(f"--- pid {p.pid}: {out.count('done ')} turns done; stderr:\n{err[-6000:]}")
        pytest.fail(f"the workers outlasted {timeout_s:.0f} s:\n" + "\n".join(stacks))


@pytest.mark.parametrize("env", ["external", "cluster"], indirect=True)
def test_two_processes_on_one_session_lose_nothing_and_step_once(env: dict[str, str], tmp_path: Path) -> None:
    env = {**env, "PALACE_STM_ARCHIVE_LEASE_S": "60"}  # both are alive: a lease never expires under them
    deps, res = _deps(env)
    try:
        task = deps.tasks().create("u", "s", "count", [f"step {i}" for i in range(200)])
    finally:
        res.close()
    # each process has its own embedded Qdrant (the embedded engine admits one process); Redis and PostgreSQL
    # are shared, which is where the session and the task live
    dirs = [str(tmp_path / "p1"), str(tmp_path / "p2")]
    procs = [_worker(env, f"p{i}", 50, "--advance", str(task.id), "--go", data_dir=d) for i, d in enumerate(dirs)]
    outputs = _run_together(procs, timeout_s=600)
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err[-4000:]
        assert out.count("done ") == 50
    messages = {f"Note p{i}-{k}: the code for p{i}-{k} is {k}." for i in range(2) for k in range(50)}
    clients = [EdgeClient(Path(d) / "qdrant-edge") for d in dirs]
    try:
        ltms = [LongTermMemory(c, "memories") for c in clients]
        deps, res = _deps(env)
        try:
            archived, left = _entries(deps, ltms)
            # entries the archive nodes took out of short-term memory: one summariser call (a ledger row) per batch
            batches = {r.key: r.calls for r in deps.ledger().summary("node", user_id="u")}.get("archive", 0)
            acked = batches * int(env["PALACE_STM_ARCHIVE_BATCH"])
            assert all(n == 1 for n in archived.values()), archived.most_common(3)  # no batch archived twice
            assert len(set(left)) == len(left)  # no push appended twice
            assert not set(left) & set(archived)  # nothing both archived and still waiting
            # nothing lost: 100 turns x (user + assistant), each still waiting or taken by an archive batch (one whose
            # messages the turns had stored already adds no memory, so batches are counted in the ledger)
            assert len(left) + acked == 200, (len(left), acked)
            assert 0 < len(archived) <= acked  # archiving did happen while both ran
            waiting = {e.content for e in deps.short_term().window("u", "s", n=10_000).entries if e.role == "user"}
            stored = {m.detail for ltm in ltms for m in ltm.scroll("u")}
            assert messages <= waiting | stored, sorted(messages - waiting - stored)[:3]  # every message kept
            final = deps.tasks().get("u", str(task.id), history=True)
            assert final.current_step == 100
            steps = [e.to_step for e in final.history if e.event == "advanced"]
            assert steps == list(range(1, 101))  # never skipped, never repeated
        finally:
            res.close()
    finally:
        for c in clients:
            c.close()
