"""One ``palace serve`` on the embedded default (Redis, PostgreSQL and Qdrant Edge under one data directory), and
every door from other processes on the same memories: the CLI (a thin client of the server), the HTTP API, the
official MCP client, langgraph_sdk's store API and a real browser (Debian's chromium driven by selenium). Each
checks isolation between users. Ids from identity providers (``auth0|...``, ``google-oauth2|...``, e-mail
addresses) are used throughout. The chat model is bench's fixed-latency OpenAI-compatible server (the model
boundary): its answer streams one word at a time and can be held after the first word, so a test sees the CLI
print the answer as it is generated."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import httpx
import pytest
from langgraph_sdk import get_client
from mcp import Client

from bench.model_server import ANSWER, FixedLatencyModel
from doors.client import sse_events
from memory.embedded import EmbeddedPostgres, EmbeddedRedis
from memory.postgres import TaskStore, open_pool
from memory.validation import id_to_label
from tests.e2e.serving import palace, palace_serve

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("PALACE_TEST_ARTIFACTS", ROOT / "test-artifacts"))
ALICE, BOB, CAROL, DAVE, EVE = "auth0|a1", "google-oauth2|b2", "carol.k@example.com", "auth0|d4", "auth0|e5"
BREAK = "please-break-the-stream"  # a prompt with it makes the model server die after two words


@dataclass
class Served:
    data_dir: Path
    url: str
    proc: subprocess.Popen[bytes]
    env: dict[str, str]
    model: FixedLatencyModel

    def api(self, method: str, user: str, path: str, **kwargs: object) -> object:
        r = httpx.request(method, self.url + "/palace/api" + _user(user) + path, timeout=60, **kwargs)  # type: ignore[arg-type]
        r.raise_for_status()
        return r.json() if r.headers["content-type"].startswith("application/json") else r.text

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([palace(), *args], env=self.env, capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"palace {' '.join(args)}: exit {done.returncode}: {done.stderr}")
        return done


@pytest.fixture(scope="module")
def model() -> Iterator[FixedLatencyModel]:
    with FixedLatencyModel(0, word_ms=20, break_marker=BREAK) as m:
        yield m


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, model: FixedLatencyModel) -> Iterator[Served]:
    data_dir = tmp_path_factory.mktemp("served")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PALACE_", "LANGGRAPH_", "LANGSMITH_"))}
    env |= {"PALACE_DATA_DIR": str(data_dir), "PALACE_SWEEP_INTERVAL_S": "0", "PALACE_CHAT_MODEL": "fixed",
            "PALACE_CHAT_BASE_URL": model.url, "PALACE_CHAT_API_KEY": "unused", "PALACE_MODEL_MAX_RETRIES": "0",
            "PALACE_INSPECTOR_TIMEZONE": "Asia/Shanghai"}
    try:
        with palace_serve(data_dir, env) as (url, proc):
            assert json.loads((data_dir / "server.json").read_text()) == {
                "url": url, "pid": proc.pid, "started_at": pytest.approx(time.time(), abs=200)}
            yield Served(data_dir, url, proc, env, model)
    finally:
        EmbeddedRedis(data_dir).stop()
        EmbeddedPostgres(data_dir).stop()


def test_cli_goes_through_the_server_and_stays_scoped(served: Served) -> None:
    status = served.cli("services", "status", "--json")
    server = next(r for r in json.loads(status.stdout) if r["name"] == "Server")
    assert server["running"] and server["where"] == served.url and server["pid"] == served.proc.pid

    mid = served.cli("memories", "add", "I live in Hangzhou", "--user", ALICE).stdout.strip()
    found = json.loads(served.cli("memories", "search", "where do I live", "--user", ALICE, "--json").stdout)
    assert found[0]["id"] == mid and {"score", "relevance", "cosine", "lexical", "decay", "weight", "boost"} <= set(
        found[0])
    other = served.cli("memories", "show", mid, "--user", BOB, check=False)
    assert other.returncode == 4 and "no memory" in other.stderr
    assert served.api("GET", BOB, "/memories") == []


def _user(user: str) -> str:
    return "/users/" + quote(user, safe="")


def test_http_api_errors_are_json_4xx(served: Served) -> None:
    api = served.url + "/palace/api"
    assert httpx.get(api + "/health").json()["ok"] is True
    u = _user(ALICE)
    assert u == "/users/auth0%7Ca1"
    assert httpx.get(api + u + "/memories", params={"status": "bogus"}).status_code == 400
    assert httpx.post(api + u + "/memories", content=b"not json").status_code == 422
    assert httpx.post(api + u + "/memories", json={"text": 5}).status_code == 422
    assert httpx.get(api + u + "/memories/search", params={"q": ""}).status_code == 400
    assert httpx.get(api + u + "/memories/search", params={"q": "x", "limit": "many"}).status_code == 400
    assert httpx.get(api + "/users/a%20b/memories").status_code == 400
    missing = httpx.get(api + u + "/memories/" + str(uuid.uuid4()))
    assert missing.status_code == 404 and "no memory" in missing.json()["detail"]
    assert httpx.get(api + u + "/usage", params={"by": "year"}).status_code == 400
    assert httpx.get(api + "/nothing/here").status_code == 404
    mid = served.api("GET", ALICE, "/memories")[0]["id"]  # type: ignore[index]
    assert httpx.get(api + _user(BOB) + "/memories/" + mid).status_code == 404
    assert httpx.post(api + _user(BOB) + "/memories/" + mid + "/pin").status_code == 404
    assert served.api("POST", ALICE, "/memories/" + mid + "/pin")["decay_weight"] == 2.0  # type: ignore[index]


async def test_sdk_store_sees_the_same_memories(served: Served) -> None:
    client = get_client(url=served.url)
    alice = ["memories", id_to_label(ALICE)]
    found = (await client.store.search_items(alice, query="where do I live"))["items"]
    assert found and found[0]["value"]["text"] == "I live in Hangzhou"
    carol = ["memories", id_to_label(CAROL)]  # carol.k@example.com -> carol%2Ek@example%2Ecom
    await client.store.put_item(carol, "badge", {"text": "My badge number is 7781"})
    assert (await client.store.get_item(carol, "badge"))["value"]["user_id"] == CAROL
    assert (await client.store.search_items(["memories", id_to_label(BOB)], query="badge"))["items"] == []
    for call, words in ((client.store.list_namespaces(), "enumerate users"),
                        (client.store.put_item(carol, "k", {"text": "x"}, ttl=5), "TTLs are not served"),
                        (client.store.search_items(carol, filter={"session_id": "x"}), "is not served")):
        with pytest.raises(httpx.HTTPStatusError) as caught:
            await call
        assert caught.value.response.status_code == 400 and words in str(caught.value)
    # the server still answers after the refusals (a bare 500 used to drop the connection)
    listed = served.api("GET", CAROL, "/memories")
    assert [m["text"] for m in listed] == ["My badge number is 7781"]  # type: ignore[union-attr,index]


async def test_mcp_tools_act_for_the_connection_user(served: Served) -> None:
    async with Client(served.url + "/palace/mcp?user_id=" + "google-oauth2%7Cb2") as bob:
        names = {t.name for t in (await bob.list_tools()).tools}
        assert names == {"add_memory", "search_memories", "list_memories", "forget_memory", "review_memories"}
        added = json.loads((await bob.call_tool("add_memory", {"text": "My dog is called Rex"})).content[0].text)
        assert added["user_id"] == BOB
        hits = json.loads((await bob.call_tool("search_memories", {"query": "what is my dog called"})).content[0].text)
        assert hits[0]["text"] == "My dog is called Rex" and "decay" in hits[0]
        texts = [m["text"] for m in json.loads((await bob.call_tool("list_memories", {})).content[0].text)]
        assert texts == ["My dog is called Rex"]  # not alice's
        alice_id = served.api("GET", ALICE, "/memories")[0]["id"]  # type: ignore[index]
        refused = await bob.call_tool("forget_memory", {"ids": [alice_id]})
        assert refused.is_error and "is not a memory of" in refused.content[0].text
        bad = await bob.call_tool("list_memories", {"status": "nope"})
        assert bad.is_error
        assert (await bob.call_tool("add_memory", {"text": "  "})).is_error
        gone = await bob.call_tool("forget_memory", {"ids": [added["id"]]})
        assert not gone.is_error and json.loads(gone.content[0].text)["memories"] == 1
    async with Client(served.url + "/palace/mcp") as nobody:
        assert (await nobody.call_tool("list_memories", {})).is_error
    assert served.api("GET", ALICE, "/memories")[0]["id"] == alice_id  # type: ignore[index]
    # palace mcp on stdio goes through the running server (it owns the embedded Qdrant)
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=palace(), args=["mcp", "--user", ALICE], env=served.env)
    async with Client(params) as stdio:
        listed = json.loads((await stdio.call_tool("list_memories", {})).content[0].text)
        assert alice_id in {m["id"] for m in listed} and all(m["user_id"] == ALICE for m in listed)


@contextmanager
def _model_holds_after_the_first_word(served: Served) -> Iterator[threading.Event]:
    """While inside, a streamed answer stops after its first word until the event is set."""
    hold = threading.Event()
    served.model.hold_after_first_word = hold
    try:
        yield hold
    finally:
        hold.set()
        served.model.hold_after_first_word = None


def test_chat_through_the_server_streams_the_answer_as_it_is_generated(served: Served) -> None:
    sent = len(served.model.words_sent)
    with _model_holds_after_the_first_word(served) as hold:
        proc = subprocess.Popen([palace(), "chat", "I keep my bike in the garage.", "--user", DAVE, "--session",
                                 "s1"], env=served.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None
        # the first word is on the user's screen while the model has not generated the second one yet
        first = os.read(proc.stdout.fileno(), 4096).decode()
        assert first == ANSWER.split()[0] + " ", first
        hold.set()
        rest = proc.stdout.read().decode()
    assert proc.wait(120) == 0, proc.stderr.read().decode() if proc.stderr else ""
    assert first + rest == ANSWER + "\n"  # the whole answer, printed once
    # one streamed model call, the answer: extraction and verification never stream
    assert "".join(w for _, w in served.model.words_sent[sent:]) == ANSWER

    # the SSE stream itself: only the respond node's tokens, which add up to the final answer
    events: list[tuple[str, object]] = []
    with httpx.stream("POST", served.url + "/palace/api" + _user(DAVE) + "/chat/stream", timeout=120,
                      json={"message": "Where is my bike?", "session": "s2"}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = list(sse_events(r.iter_lines()))
    kinds = [k for k, _ in events]
    assert kinds[-2:] == ["answered", "result"] and set(kinds[:-2]) == {"token"}, kinds
    tokens = "".join(d["text"] for k, d in events if k == "token")  # type: ignore[index]
    result = events[-1][1]
    assert tokens == result["answer"] == ANSWER  # type: ignore[index]
    assert result["user_id"] == DAVE and result["verdicts"] is not None  # type: ignore[index]

    as_json = json.loads(served.cli("chat", "My bike is red.", "--user", DAVE, "--session", "s3", "--json").stdout)
    assert as_json["answer"] == ANSWER and as_json["session_id"] == "s3"
    texts = {m["text"] for m in served.api("GET", DAVE, "/memories")}  # type: ignore[union-attr]
    assert any("garage" in t for t in texts) and any("red" in t for t in texts), texts  # the turns were remembered
    assert all("bike" not in m["text"] for m in served.api("GET", ALICE, "/memories"))  # type: ignore[union-attr]


def test_chat_through_the_server_under_ctrl_c_and_a_closed_pipe(served: Served) -> None:
    """Ctrl-C while the answer streams: the one line and 130, and the server still finishes the turn (what the user
    said is remembered). A reader gone before the answer: 141, quietly."""
    with _model_holds_after_the_first_word(served):
        proc = subprocess.Popen([palace(), "chat", "My locker code is 5521.", "--user", DAVE, "--session", "s4"],
                                env=served.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        assert os.read(proc.stdout.fileno(), 4096)  # the answer has begun, and is held there
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.decode().splitlines() == ["palace: interrupted"], err
    deadline = time.monotonic() + 60
    while not any("locker" in m["text"] for m in served.api("GET", DAVE, "/memories")):  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the interrupted turn was not finished by the server"
        time.sleep(0.3)

    piped = subprocess.Popen([palace(), "chat", "My gym is on Elm Street.", "--user", DAVE, "--session", "s5"],
                             env=served.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert piped.stdout is not None and piped.stderr is not None
    piped.stdout.close()  # `palace chat ... | head -0`
    err = piped.stderr.read()
    assert piped.wait(60) == 141 and err == b"", err


def test_chat_errors_through_the_server_are_one_line_with_the_exit_code(served: Served) -> None:
    broken = served.cli("chat", f"Tell me something, {BREAK}", "--user", DAVE, "--session", "broken", check=False)
    assert broken.returncode == 3, broken.stderr
    assert broken.stdout == "Noted. You \n"  # the two words it got, then the line ends
    assert broken.stderr.count("\n") == 1 and broken.stderr.startswith("palace: error: chat model 'fixed'"), \
        broken.stderr
    nothing = served.cli("chat", "--resume", "yes", "--user", DAVE, "--session", "calm", check=False)
    assert (nothing.returncode, nothing.stdout) == (2, "") and "nothing to confirm" in nothing.stderr
    assert nothing.stderr.count("\n") == 1
    api = served.url + "/palace/api" + _user(DAVE) + "/chat/stream"
    assert httpx.post(api, json={"message": 5}).status_code == 422
    empty = httpx.post(api, json={"message": "  "})
    assert empty.status_code == 400 and empty.headers["content-type"] == "application/json"
    assert httpx.post(served.url + "/palace/api/users/a%20b/chat/stream", json={"message": "hi"}).status_code == 400


def _dispute(served: Served, user: str, text: str, against: str | None = None) -> str:
    """Import, through the API, a disputed memory contradicting the user's memory ``against`` (default: the last
    one exported), as fact-check stores it."""
    api = served.url + "/palace/api" + _user(user)
    exported = [json.loads(line) for line in httpx.get(api + "/memories/export").text.splitlines()]
    first = next(m for m in exported if m["id"] == against) if against else exported[-1]
    disputed = {**first, "id": str(uuid.uuid4()), "text": text, "detail": text, "status": "disputed",
                "conflicts_with": first["id"], "timestamp": first["timestamp"] + 1000}
    report = httpx.post(api + "/memories/import", content=json.dumps(disputed).encode()).json()
    assert report["imported"] == 1, report
    return str(disputed["id"])


def _browser() -> object:
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        if os.environ.get("CI"):
            raise AssertionError("CI needs Debian's chromium and chromium-driver (installed by .ci/run)")
        pytest.skip("chromium / chromedriver not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1100"):
        options.add_argument(flag)
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or ""))


def test_web_inspector_in_a_real_browser(served: Served) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    new_id = _dispute(served, ALICE, "I live in Shanghai")
    served.api("POST", ALICE, "/memories", json={"text": "My passport ends in 42"})
    oolong = served.api("POST", ALICE, "/memories", json={"text": "I like oolong tea"})["id"]  # type: ignore[index]
    jasmine = _dispute(served, ALICE, "I like jasmine tea", against=oolong)
    pg = EmbeddedPostgres(served.data_dir).ensure()
    with open_pool(pg, min_size=1, max_size=1, timeout_s=5) as pool:
        task = TaskStore(pool).create(ALICE, "web", "Renew the passport", ["book", "photo", "submit"])
        TaskStore(pool).advance(ALICE, task.id, note="booked")
    driver = _browser()
    # the page redraws its tables after every action: an element found just before a redraw goes stale, and the
    # waits look again instead of failing
    wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))  # type: ignore[arg-type]
    try:
        driver.get(served.url + "/palace/ui/?user=" + "auth0%7Ca1")  # type: ignore[attr-defined]
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1")
        rows = driver.find_elements(By.CSS_SELECTOR, "#memories tbody tr")  # type: ignore[attr-defined]
        texts = {r.find_element(By.CSS_SELECTOR, "td .text").text for r in rows}
        assert texts >= {"I live in Hangzhou", "I live in Shanghai", "My passport ends in 42"}
        # times in the inspector's zone (PALACE_INSPECTOR_TIMEZONE), written as the CLI writes them
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-zone") == "Asia/Shanghai"  # type: ignore[attr-defined]
        passport = next(m for m in served.api("GET", ALICE, "/memories") if m["text"] == "My passport ends in 42")  # type: ignore[union-attr,index]
        row = next(r for r in rows if r.find_element(By.CSS_SELECTOR, "td .text").text == "My passport ends in 42")
        from doors.present import when as cli_when

        recorded = row.find_elements(By.CSS_SELECTOR, "td.when")[1]  # after the score cell: recorded, event
        assert recorded.text == cli_when(passport["timestamp"], ZoneInfo("Asia/Shanghai"))
        assert "Renew the passport" in driver.find_element(By.ID, "tasks").text  # type: ignore[attr-defined]
        box = driver.find_element(By.ID, "query")  # type: ignore[attr-defined]
        box.send_keys("passport number")
        driver.find_element(By.CSS_SELECTOR, "#search button").click()  # type: ignore[attr-defined]

        def ranked_passport(d: Any) -> bool:  # the search's table, drawn with each score's parts
            rows = d.find_elements(By.CSS_SELECTOR, "#memories tbody tr")
            return any(r.find_element(By.CSS_SELECTOR, "td .text").text == "My passport ends in 42"
                       and r.find_elements(By.CSS_SELECTOR, ".bars i.relevance") and "decay" in r.text for r in rows)

        wait.until(ranked_passport)
        disputed = f'#disputed li[data-id="{new_id}"]'
        wait.until(lambda d: "contradicts" in (t := d.find_element(By.CSS_SELECTOR, disputed).text)
                   and "I live in Hangzhou" in t)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "inspector-before-accept.png"))  # type: ignore[attr-defined]
        driver.find_element(By.CSS_SELECTOR, disputed + " button.accept").click()  # type: ignore[attr-defined]
        wait.until(lambda d: "accepted" in d.find_element(By.ID, "status").text)
        driver.save_screenshot(str(ARTIFACTS / "inspector.png"))  # type: ignore[attr-defined]
        tea = f'#disputed li[data-id="{jasmine}"]'  # the list was drawn again after the accept
        wait.until(lambda d: "I like oolong tea" in d.find_element(By.CSS_SELECTOR, tea).text)
        driver.find_element(By.CSS_SELECTOR, tea + " button.both").click()  # type: ignore[attr-defined]
        wait.until(lambda d: "kept both" in d.find_element(By.ID, "status").text)
        assert not driver.find_elements(By.CSS_SELECTOR, tea)  # type: ignore[attr-defined]
        active = {m["id"]: m["text"] for m in served.api("GET", ALICE, "/memories")}  # type: ignore[union-attr]
        assert active[oolong] == "I like oolong tea" and active[jasmine] == "I like jasmine tea"
        assert jasmine not in {d["id"] for d in served.api("GET", ALICE, "/review")}  # type: ignore[union-attr]
        box.clear()  # every memory again, then the accepted one's history
        driver.find_element(By.CSS_SELECTOR, "#search button").click()  # type: ignore[attr-defined]
        # the search's table is drawn when the status says how many memories it shows (the status said "kept
        # both" before): a row found in the table before it would go stale under the click (seen under load)
        wait.until(lambda d: d.find_element(By.ID, "status").text.endswith(" memories"))
        row = f'#memories tr[data-id="{new_id}"]'
        wait.until(lambda d: "active" in d.find_element(By.CSS_SELECTOR, row).text)
        driver.find_element(By.CSS_SELECTOR, row + " a.history-link").click()  # type: ignore[attr-defined]
        wait.until(lambda d: "accepted" in d.find_element(By.CSS_SELECTOR, f'tr[data-id="{new_id}"] ul.history').text)
        # bob sees nothing of alice's
        driver.get(served.url + "/palace/ui/?user=" + "google-oauth2%7Cb2")  # type: ignore[attr-defined]
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1")
        assert "Hangzhou" not in driver.find_element(By.ID, "memories").text  # type: ignore[attr-defined]
    finally:
        driver.quit()  # type: ignore[attr-defined]
    # the store changed: the accepted memory is active, the one it contradicted is superseded
    by_id = {m["id"]: m for m in json.loads(served.cli("memories", "list", "--user", ALICE, "--status", "all",
                                                       "--json").stdout)}
    assert by_id[new_id]["status"] == "active"
    assert [m["status"] for m in by_id.values() if m["text"] == "I live in Hangzhou"] == ["superseded"]


def _memories(served: Served, user: str) -> dict[str, dict[str, Any]]:
    """Every memory of ``user`` by id, as the store holds it now (through the HTTP API)."""
    return {m["id"]: m for m in served.api("GET", user, "/memories?status=all")}  # type: ignore[union-attr]


def test_web_inspector_changes_memory_and_shows_the_chain(served: Served) -> None:
    """In the browser: the chain of linked memories in the detail view (the CLI's words, the inspector's zone),
    forget behind a confirmation (cancel keeps it), restore, pin and unpin, accept / reject / keep both, and an
    error from the API as one line; each change checked in the store through the API afterwards."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from doors.present import memory_lines

    # two turns, the second a stated change of the first: the write path links them (memory/language/links.py)
    for session, message, at in (("home1", "I live in Suzhou.", "2026-11-02T09:00"),
                                 ("home2", "I moved to Hangzhou.", "2026-11-20T18:30")):
        served.api("POST", EVE, "/chat", json={"session": session, "message": message, "at": at})
    texts = {m["text"]: m for m in _memories(served, EVE).values()}
    suzhou = next(m for t, m in texts.items() if "Suzhou" in t)
    hangzhou = next(m for t, m in texts.items() if "Hangzhou" in t)
    shown = served.api("GET", EVE, "/memories/" + hangzhou["id"])
    assert [(o["relation"], o["id"]) for o in shown["chain"]] == [("earlier", suzhou["id"])], shown  # type: ignore[index]
    passport = served.api("POST", EVE, "/memories", json={"text": "My passport ends in 42"})["id"]  # type: ignore[index]
    cat = served.api("POST", EVE, "/memories", json={"text": "I have a cat named Tofu"})["id"]  # type: ignore[index]
    red = served.api("POST", EVE, "/memories", json={"text": "My car is red"})["id"]  # type: ignore[index]
    oolong = served.api("POST", EVE, "/memories", json={"text": "I like oolong tea"})["id"]  # type: ignore[index]
    chess = served.api("POST", EVE, "/memories", json={"text": "I play chess on Sundays"})["id"]  # type: ignore[index]
    blue = _dispute(served, EVE, "My car is blue", against=red)
    jasmine = _dispute(served, EVE, "I like jasmine tea", against=oolong)
    tennis = _dispute(served, EVE, "I play tennis on Sundays", against=chess)

    driver = _browser()
    wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))  # type: ignore[arg-type]
    find = driver.find_element  # type: ignore[attr-defined]

    def status() -> str:
        return str(find(By.ID, "status").text)

    def details(memory_id: str) -> None:
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'#memories tr[data-id="{memory_id}"] a.detail-link'))
        find(By.CSS_SELECTOR, f'#memories tr[data-id="{memory_id}"] a.detail-link').click()
        wait.until(lambda d: d.find_element(By.ID, "detail").get_attribute("data-id") == memory_id
                   and d.find_element(By.ID, "detail").is_displayed())

    try:
        driver.get(served.url + "/palace/ui/?user=" + quote(EVE, safe=""))  # type: ignore[attr-defined]
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1")

        # the chain, from both ends, line for line what `palace memories show` prints (in the inspector's zone)
        zone = ZoneInfo("Asia/Shanghai")
        for memory_id in (hangzhou["id"], suzhou["id"]):
            details(memory_id)
            cli = memory_lines(served.api("GET", EVE, "/memories/" + memory_id), zone)  # type: ignore[arg-type]
            expected = [" ".join(line.split()) for line in cli[cli.index(next(x for x in cli if "same subject" in x)):]]
            page = [" ".join(e.text.split()) for e in driver.find_elements(By.CSS_SELECTOR, "#chain > div")]  # type: ignore[attr-defined]
            assert page == expected, (page, expected)
        assert find(By.CSS_SELECTOR, "#chain .chain-line").get_attribute("data-relation") == "later"
        assert hangzhou["id"][:8] in find(By.ID, "chain").text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "inspector-chain.png"))  # type: ignore[attr-defined]
        find(By.CSS_SELECTOR, "#chain .chain-line a").click()  # along the chain to the newer memory
        wait.until(lambda d: d.find_element(By.ID, "detail").get_attribute("data-id") == hangzhou["id"])

        # pin, then unpin: the button says which
        details(passport)
        assert find(By.CSS_SELECTOR, "#detail .pin").text == "Pin"
        find(By.CSS_SELECTOR, "#detail .pin").click()
        wait.until(lambda d: status().startswith("pinned " + passport))
        assert _memories(served, EVE)[passport]["decay_weight"] == 2.0
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#detail .pin").text == "Unpin")
        find(By.CSS_SELECTOR, "#detail .pin").click()
        wait.until(lambda d: status().startswith("unpinned " + passport))
        assert _memories(served, EVE)[passport]["decay_weight"] == 1.0
        events = [e["event"] for e in served.api("GET", EVE, f"/memories/{passport}/history")]  # type: ignore[union-attr,index]
        assert events[-2:] == ["pinned", "unpinned"], events

        # forget asks first: cancel keeps the memory, confirm forgets it
        details(cat)
        confirm = find(By.ID, "confirm-forget")
        assert not confirm.is_displayed()
        find(By.CSS_SELECTOR, "#detail .forget").click()
        wait.until(lambda d: d.find_element(By.ID, "confirm-forget").is_displayed())
        assert "I have a cat named Tofu" in confirm.text and "cannot be undone" in confirm.text
        assert cat in _memories(served, EVE)  # asking forgot nothing
        find(By.CSS_SELECTOR, "#confirm-forget .cancel").click()
        wait.until(lambda d: not d.find_element(By.ID, "confirm-forget").is_displayed())
        assert status() == f"kept {cat[:8]}" and cat in _memories(served, EVE)
        find(By.CSS_SELECTOR, "#detail .forget").click()
        wait.until(lambda d: d.find_element(By.ID, "confirm-forget").is_displayed())
        find(By.CSS_SELECTOR, "#confirm-forget .confirm").click()
        wait.until(lambda d: status().startswith("forgot 1 of 1 memory of " + EVE))
        assert cat not in _memories(served, EVE)
        assert not driver.find_elements(By.CSS_SELECTOR, f'#memories tr[data-id="{cat}"]')  # type: ignore[attr-defined]
        assert [e["event"] for e in served.api("GET", EVE, f"/memories/{cat}/history")] == ["forgotten"]  # type: ignore[union-attr,index]

        # the disputes: accept (the red car is superseded), reject (jasmine is gone), keep both
        for memory_id, button, said in ((blue, "accept", "accepted"), (jasmine, "reject", "rejected"),
                                        (tennis, "both", "kept both")):
            item, done = f'#disputed li[data-id="{memory_id}"]', f"{memory_id[:8]}: {said}"
            press = item + " button." + button
            wait.until(lambda d, css=press: d.find_element(By.CSS_SELECTOR, css))  # type: ignore[misc]
            find(By.CSS_SELECTOR, press).click()
            wait.until(lambda d, line=done: status() == line)  # type: ignore[misc]
            assert not driver.find_elements(By.CSS_SELECTOR, item)  # type: ignore[attr-defined]
        now = _memories(served, EVE)
        assert (now[blue]["status"], now[red]["status"]) == ("active", "superseded")
        assert jasmine not in now and now[oolong]["status"] == "active"
        assert (now[tennis]["status"], now[chess]["status"]) == ("active", "active")
        assert served.api("GET", EVE, "/review") == []

        # restore the superseded one from its detail view (only a superseded memory offers it)
        details(red)
        find(By.CSS_SELECTOR, "#detail .restore").click()
        wait.until(lambda d: status() == f"restored {red[:8]} (was superseded): My car is red")
        assert _memories(served, EVE)[red]["status"] == "active"
        wait.until(lambda d: not d.find_element(By.CSS_SELECTOR, "#detail .restore").is_displayed())

        # an error from the API is one line in the status, and the page stays
        details(passport)
        served.api("DELETE", EVE, "/memories/" + passport)  # forgotten behind the page's back
        find(By.CSS_SELECTOR, "#detail .pin").click()
        wait.until(lambda d: "error" in (d.find_element(By.ID, "status").get_attribute("class") or ""))
        assert "no memory" in status() and "\n" not in status(), status()
        assert find(By.ID, "memories").is_displayed() and "My car is red" in find(By.ID, "memories").text
        driver.save_screenshot(str(ARTIFACTS / "inspector-error.png"))  # type: ignore[attr-defined]
    finally:
        driver.quit()  # type: ignore[attr-defined]
    final = _memories(served, EVE)
    assert {final[i]["status"] for i in (red, blue, oolong, chess, tennis)} == {"active"}
    assert passport not in final and cat not in final and jasmine not in final
    assert final[hangzhou["id"]]["follows"] == [suzhou["id"]]


def test_stopping_the_server_removes_its_endpoint_and_the_cli_opens_the_stores(served: Served) -> None:
    os.killpg(served.proc.pid, signal.SIGTERM)
    served.proc.wait(30)
    assert not (served.data_dir / "server.json").exists()
    # local mode now; every status, so this holds whether or not the browser test (which settles the dispute) ran
    listed = json.loads(served.cli("memories", "list", "--user", ALICE, "--status", "all", "--json").stdout)
    assert {"I live in Hangzhou", "I live in Shanghai"} <= {m["text"] for m in listed}
