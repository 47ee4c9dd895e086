"""``palace memories list|show|pin|review|export|import`` and ``palace tasks list|show``: every subcommand and its
errors, in-process, an isolated data directory per test, real Redis / PostgreSQL / Qdrant Edge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doors.cli.main import main
from memory import postgres
from memory.postgres import TaskStore


def _json(capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(capsys.readouterr().out)


def _add(cli: Any, capsys: pytest.CaptureFixture[str], text: str, user: str = "ann", *extra: str) -> str:
    assert cli("memories", "add", text, "--user", user, "--json", *extra) == 0
    return str(_json(capsys)["id"])


def test_list_show_pin(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    old = _add(cli, capsys, "My locker code is 4512", "ann", "--at", "2026-01-02T10:00")
    new = _add(cli, capsys, "I moved to Hangzhou", "ann", "--at", "2026-03-04T10:00")
    theirs = _add(cli, capsys, "My badge is 7781", "bob")
    assert cli("memories", "list", "--user", "ann", "--json") == 0
    assert [m["id"] for m in _json(capsys)] == [new, old]  # newest first, nobody else's
    assert cli("memories", "list", "--user", "ann") == 0
    table = capsys.readouterr().out
    assert "My locker code is 4512" in table and "2 memories of ann" in table and "7781" not in table
    assert cli("memories", "show", old, "--user", "ann", "--json") == 0
    assert _json(capsys)["text"] == "My locker code is 4512"
    assert cli("memories", "show", old, "--user", "ann") == 0
    assert "2026-01-02 10:00" in capsys.readouterr().out
    assert cli("memories", "pin", old, "--user", "ann", "--json") == 0
    assert _json(capsys)["decay_weight"] == 2.0
    for command in ("show", "pin"):  # another user's id, an unknown id, a malformed id: not found, exit 4
        for bad in (theirs, "00000000-0000-0000-0000-000000000000", "nope"):
            assert cli("memories", command, bad, "--user", "ann") == 4
            err = capsys.readouterr().err
            assert err.startswith("palace: error: ") and err.count("\n") == 1
    assert cli("memories", "show", theirs, "--user", "bob", "--json") == 0
    assert _json(capsys)["decay_weight"] == 1.0  # bob's memory was not pinned by ann
    assert cli("memories", "list", "--user", "ann", "--status", "nope") == 2


def test_review_accepts_and_rejects_disputed_memories(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # the cli fixture's scripted verifier calls two "live in" statements a conflict
    assert cli("chat", "I live in Beijing.", "--user", "ann", "--session", "a") == 0
    assert cli("chat", "I live in Shanghai.", "--user", "ann", "--session", "b") == 0
    assert cli("chat", "I live in Shenzhen.", "--user", "ann", "--session", "c") == 0
    capsys.readouterr()
    assert cli("memories", "review", "--user", "ann", "--json") == 0
    disputed = _json(capsys)
    assert {d["text"] for d in disputed} == {"I live in Shanghai", "I live in Shenzhen"}
    assert all(d["conflicts_with_text"] == "I live in Beijing" for d in disputed)
    assert cli("memories", "review", "--user", "ann") == 0
    assert "contradicts" in capsys.readouterr().out
    shanghai = next(d["id"] for d in disputed if "Shanghai" in d["text"])
    shenzhen = next(d["id"] for d in disputed if "Shenzhen" in d["text"])
    assert cli("memories", "review", "--user", "bob", "--accept", shanghai) == 4  # not bob's
    capsys.readouterr()
    assert cli("memories", "review", "--user", "ann", "--accept", shanghai, "--reject", shenzhen, "--json") == 0
    assert _json(capsys) == {shanghai: "accepted", shenzhen: "rejected"}
    assert cli("memories", "list", "--user", "ann", "--status", "all", "--json") == 0
    status = {m["text"]: m["status"] for m in _json(capsys)}
    assert status == {"I live in Shanghai": "active", "I live in Beijing": "superseded"}


def test_export_import_round_trip_gives_the_same_search(cli: Any, capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for at, text in [("2026-06-19T20:00", "我在海底捞请客户王总吃饭"), ("2026-07-12T20:00", "我在西贝请客户周总吃饭"),
                     ("2026-03-01T09:00", "I like Longjing tea")]:
        _add(cli, capsys, text, "boss", "--at", at)
    query = ["memories", "search", "我端午节在哪家餐厅请的客户", "--user", "boss", "--now", "2026-07-15T10:00",
             "--json"]
    assert cli(*query) == 0
    before = [(r["id"], r["text"], r["score"]) for r in _json(capsys)]
    assert cli("memories", "export", "--user", "boss") == 0
    dump = capsys.readouterr().out
    assert len(dump.splitlines()) == 3
    path = tmp_path / "boss.jsonl"
    path.write_text(dump, encoding="utf-8")
    fresh = tmp_path / "fresh"  # a new data directory: a new embedded Qdrant
    monkeypatch.setenv("PALACE_KEY_PREFIX", "fresh" + path.stem)
    assert main(["--data-dir", str(fresh), "memories", "import", str(path), "--json"]) == 0
    assert _json(capsys) == {"imported": 3, "lines": 3, "errors": []}
    assert main(["--data-dir", str(fresh), "memories", "import", str(path)]) == 0  # again: idempotent
    capsys.readouterr()
    assert main(["--data-dir", str(fresh), *query]) == 0
    after = [(r["id"], r["text"], r["score"]) for r in _json(capsys)]
    assert [a[:2] for a in after] == [b[:2] for b in before]
    assert [a[2] for a in after] == pytest.approx([b[2] for b in before], abs=1e-4)
    assert main(["--data-dir", str(fresh), "memories", "list", "--user", "boss", "--json"]) == 0
    assert len(_json(capsys)) == 3


def test_import_reports_bad_lines_by_number_and_keeps_the_rest(cli: Any, capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    good = _add(cli, capsys, "My locker code is 4512", "ann")
    assert cli("memories", "export", "--user", "ann") == 0
    line = capsys.readouterr().out.strip()
    other = json.loads(line) | {"id": "6f1c2a52-1b0e-5a8b-9d61-2a9f0d8c7e11", "text": "I like tea"}
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([line, "not json", "[1, 2]", json.dumps({"id": "x", "text": "t"}),
                               json.dumps(other | {"user_id": "a b"}), "", json.dumps(other)]) + "\n")
    assert cli("memories", "import", str(path), "--json") == 2
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["imported"] == 2 and report["lines"] == 7
    assert [e.split(":")[0] for e in report["errors"]] == ["line 2", "line 3", "line 4", "line 5"]
    assert "palace: error: 4 lines were not imported" in err and "Traceback" not in err
    assert cli("memories", "list", "--user", "ann", "--json") == 0
    assert {m["id"] for m in _json(capsys)} == {good, other["id"]}
    assert cli("memories", "import", str(tmp_path / "missing.jsonl")) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.fixture
def tasks(pg_url: str) -> Iterator[TaskStore]:
    pool = postgres.open_pool(pg_url)
    postgres.setup(pool)
    yield TaskStore(pool)
    pool.close()


def test_tasks_list_and_show(cli: Any, capsys: pytest.CaptureFixture[str], tasks: TaskStore) -> None:
    store = tasks
    task = store.create("ann", "s1", "expense approval", ["submit", "manager", "finance"])
    store.advance("ann", str(task.id), note="sent")
    store.create("bob", "s1", "bob's task", ["one"])
    assert cli("tasks", "list", "--user", "ann", "--json") == 0
    rows = _json(capsys)
    assert [r["title"] for r in rows] == ["expense approval"] and rows[0]["current_step"] == 1
    assert cli("tasks", "list", "--user", "ann") == 0
    assert "step 2 of 3: manager" in capsys.readouterr().out
    assert cli("tasks", "show", str(task.id), "--user", "ann") == 0
    shown = capsys.readouterr().out
    assert "[x] 1. submit" in shown and "[ ] 2. manager" in shown
    assert "advanced: 0 -> 1 of 3 steps done  (sent)" in shown
    assert "created: 0 of 3 steps done" in shown
    assert cli("tasks", "show", str(task.id), "--user", "bob") == 4  # not bob's
    assert cli("tasks", "show", "not-a-uuid", "--user", "ann") in (2, 4)
    # short ids, as the list prints them: 4+ leading characters name the task; another user's prefix is not found
    assert cli("tasks", "list", "--user", "ann") == 0
    assert capsys.readouterr().out.startswith(f"{str(task.id)[:8]}  expense approval")
    assert cli("tasks", "show", str(task.id)[:6], "--user", "ann", "--json") == 0
    assert _json(capsys)["id"] == str(task.id)
    assert cli("tasks", "advance", str(task.id)[:8].upper(), "--user", "ann") == 0
    assert "step 3 of 3: finance" in capsys.readouterr().out
    assert cli("tasks", "show", str(task.id)[:6], "--user", "bob") == 4
    assert cli("tasks", "show", "abc", "--user", "ann") == 2
    assert "at least 4 characters" in capsys.readouterr().err
    assert cli("tasks", "list", "--user", "ann", "--status", "done") == 2


def test_usage_prices_and_the_full_history_baseline(cli: Any, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PALACE_PRICES", '{"*": [1.0, 2.0]}')  # $1 / $2 per million prompt / completion tokens
    for i in range(6):
        assert cli("chat", f"Note {i}: the meeting room code is {1000 + i}, remember it for the audit.",
                   "--user", "ann", "--session", "s") == 0
    capsys.readouterr()
    assert cli("usage", "--user", "ann", "--by", "node", "--json") == 0
    report = _json(capsys)
    rows = {r["key"]: r for r in report["rows"]}
    respond = rows["respond"]
    assert respond["calls"] == 6 and respond["baseline_prompt_tokens"] > 0
    expected = (respond["prompt_tokens"] * 1.0 + respond["completion_tokens"] * 2.0) / 1_000_000
    assert float(respond["cost_usd"]) == pytest.approx(expected, abs=1e-8)
    assert report["prompt_tokens"] == sum(r["prompt_tokens"] for r in report["rows"])
    assert report["full_history_prompt_tokens"] == respond["baseline_prompt_tokens"]
    assert cli("usage", "--user", "ann") == 0
    table = capsys.readouterr().out
    assert "full session history" in table and "cost $" in table
    assert cli("usage", "--user", "nobody") == 0
    assert "no model calls recorded" in capsys.readouterr().out
    assert cli("usage", "--by", "week") == 2
    monkeypatch.setenv("PALACE_PRICES", '{"x": [-1, 0]}')
    assert cli("usage") == 2
    assert "PALACE_PRICES" in capsys.readouterr().err


def test_usage_prices_calls_made_before_a_price_was_set(cli: Any, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `PALACE_PRICES=... palace usage`: a helper's trial set it for the report only and got $0."""
    monkeypatch.delenv("PALACE_PRICES", raising=False)
    for i in range(3):
        assert cli("chat", f"My locker number is {40 + i}, and I keep my gym shoes in it.", "--user", "cy",
                   "--session", "s") == 0
    capsys.readouterr()
    assert cli("usage", "--user", "cy", "--by", "model", "--json") == 0
    unpriced = _json(capsys)
    assert float(unpriced["cost_usd"]) == 0 and unpriced["rows"]
    monkeypatch.setenv("PALACE_PRICES", '{"*": [1000.0, 2000.0]}')
    assert cli("usage", "--user", "cy", "--by", "model", "--json") == 0
    priced = _json(capsys)
    for row in priced["rows"]:
        assert float(row["cost_usd"]) == pytest.approx(
            (row["prompt_tokens"] * 1000.0 + row["completion_tokens"] * 2000.0) / 1_000_000, abs=1e-8)
        assert float(row["cost_usd"]) > 0
    assert float(priced["full_history_cost_usd"]) > 0  # the baseline is priced the same way
    assert [r["prompt_tokens"] for r in priced["rows"]] == [r["prompt_tokens"] for r in unpriced["rows"]]
    # a cost recorded with a call stays what it was: later prices change only what was recorded at no cost
    assert cli("chat", "My locker number is 50.", "--user", "cy", "--session", "s") == 0
    capsys.readouterr()
    monkeypatch.setenv("PALACE_PRICES", '{"*": [0.0, 0.0]}')
    assert cli("usage", "--user", "cy", "--json") == 0
    recorded = float(_json(capsys)["cost_usd"])  # the fourth turn's, priced at 1000/2000 when it ran
    assert recorded > 0
    monkeypatch.setenv("PALACE_PRICES", '{"*": [1000.0, 2000.0]}')
    assert cli("usage", "--user", "cy", "--json") == 0
    assert float(_json(capsys)["cost_usd"]) == pytest.approx(float(priced["cost_usd"]) + recorded, abs=1e-6)


def test_the_full_history_baseline_grows_with_the_session(agent: Any) -> None:
    first = agent.turn("u", "s", "My locker code is 4512.")
    second = agent.turn("u", "s", "My sister is called Mei and she lives in Hangzhou.")
    b1 = next(u for u in first.state["usage"] if u["node"] == "respond")["baseline_prompt_tokens"]
    b2 = next(u for u in second.state["usage"] if u["node"] == "respond")["baseline_prompt_tokens"]
    assert b2 > b1 > 0
    assert agent.deps.short_term().history_tokens("u", "s") > 0
