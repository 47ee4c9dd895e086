"""The agent end to end on real Redis, PostgreSQL and Qdrant; the scripted model is the only fake."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.types import Command

from graph.api import compiled, search_memories, thread_id
from graph.context import Context
from graph.testing import ScriptedBrain, tool_call
from memory.errors import InvalidInputError, ServiceUnavailableError
from tests.integration.agent_harness import Agent, make_agent

TZ = ZoneInfo("Asia/Shanghai")


def iso(dt: datetime) -> str:
    return dt.isoformat()


def texts(result: Any) -> list[str]:
    return [r["text"] for r in result.state["recalled"]]


@pytest.mark.redis_cluster
@pytest.mark.pgbouncer
def test_fact_from_session_a_is_recalled_in_session_b_and_never_for_another_user(agent: Agent) -> None:
    first = agent.turn("alice", "a", "I live in Hangzhou. My daughter is called Mei.")
    assert {v["decision"] for v in first.state["verdicts"]} == {"add"}
    later = agent.turn("alice", "b", "Where do I live?")
    assert "I live in Hangzhou" in texts(later)
    assert "I live in Hangzhou" in later.answer  # the memory reached the model's prompt
    other = agent.turn("bob", "a", "Where do I live?")  # same session name, another user
    assert other.state["recalled"] == []
    assert "Hangzhou" not in other.answer
    bob_prompt = agent.calls("create_task")[-1]["messages"]  # the respond call of bob's turn
    assert "Hangzhou" not in " ".join(m.text for m in bob_prompt)
    # and the stores agree: bob owns nothing
    assert agent.deps.long_term().count("bob") == 0


@pytest.mark.redis_cluster
@pytest.mark.pgbouncer
def test_the_turn_is_in_short_term_memory_with_its_answer(agent: Agent) -> None:
    agent.turn("u", "s", "I like jasmine tea.")
    window = agent.deps.short_term().window("u", "s")
    assert [(e.role, e.content) for e in window.entries] == [
        ("user", "I like jasmine tea."), ("assistant", "I do not remember anything about that.")]


def _conflict_on_city(new: str, existing: list[str]) -> tuple[str, int]:
    for i, text in enumerate(existing, 1):
        if "live in" in new and "live in" in text and new != text:
            return "conflict", i
    return "add", 0


@pytest.fixture
def conflict_agent(redis_server_url: str, pg_url: str, tmp_path: Path, e5: Any) -> Any:
    yield from make_agent(redis_server_url, pg_url, tmp_path, e5, brain=ScriptedBrain(_conflict_on_city))


@pytest.mark.redis_cluster
@pytest.mark.pgbouncer
def test_conflicting_fact_is_disputed_not_recalled_and_applied_after_confirmation(conflict_agent: Agent) -> None:
    agent = conflict_agent
    agent.turn("u", "s1", "I live in Beijing.")
    told = agent.turn("u", "s2", "I live in Shanghai.")
    verdict = told.state["verdicts"][0]
    assert verdict["decision"] == "conflict" and verdict["target_text"] == "I live in Beijing"
    [pending] = told.interrupts
    assert pending["kind"] == "confirm_memory" and "I live in Shanghai" in pending["question"]
    assert "I live in Beijing" in pending["question"]
    ltm = agent.deps.long_term()
    [disputed] = ltm.get("u", [verdict["memory_id"]])
    assert disputed.status == "disputed" and disputed.conflicts_with == verdict["target"]
    asked = agent.turn("u", "s3", "Where do I live?")  # a new turn elsewhere: the disputed one is not recalled
    assert texts(asked) == ["I live in Beijing"]

    done = agent.resume("u", "s2", "yes")
    assert done.interrupts == []
    assert done.state["confirmations"][0]["outcome"] == "accepted"
    [new] = ltm.get("u", [verdict["memory_id"]])
    [old] = ltm.get("u", [verdict["target"]])
    assert new.status == "active"
    assert old.status == "superseded" and old.superseded_by == new.id and old.invalid_at is not None
    # the retired one reaches the answer only below its successor, marked as what held earlier
    after = agent.turn("u", "s4", "Where do I live?").state["recalled"]
    assert [(m["text"], m.get("chain")) for m in after] == [("I live in Shanghai", "now"),
                                                           ("I live in Beijing", "earlier")]


def test_rejected_conflict_is_deleted_and_the_old_memory_stays(conflict_agent: Agent) -> None:
    agent = conflict_agent
    agent.turn("u", "s1", "I live in Beijing.")
    told = agent.turn("u", "s2", "I live in Shanghai.")
    new_id = told.state["verdicts"][0]["memory_id"]
    done = agent.resume("u", "s2", "否")
    assert done.state["confirmations"][0]["outcome"] == "rejected"
    ltm = agent.deps.long_term()
    assert ltm.get("u", [new_id]) == []
    assert [m.status for m in ltm.scroll("u")] == ["active"]


def test_resume_without_pending_confirmation_is_a_clear_error(agent: Agent) -> None:
    agent.turn("u", "s", "I live in Beijing.")
    with pytest.raises(InvalidInputError, match="nothing to confirm"):
        agent.resume("u", "s", "yes")


def _garbage_verdict(brain: ScriptedBrain) -> Any:
    def respond(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
        if "VerifierVerdicts" in tools:
            return tool_call("VerifierVerdicts", {"verdicts": [{"decision": "maybe?", "existing": "x"}]})
        return brain(messages, tools)
    return respond


def test_unparseable_verifier_output_keeps_the_fact_active_and_says_so(redis_server_url: str, pg_url: str,
                                                                      tmp_path: Path, e5: Any) -> None:
    brain = ScriptedBrain()
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=_garbage_verdict(brain)):  # type: ignore[arg-type]
        agent.turn("u", "s", "I live in Beijing.")
        told = agent.turn("u", "s", "I live in Shanghai.")  # the same slot: the verifier is asked
        [verdict] = told.state["verdicts"]
        assert verdict["decision"] == "add"  # a broken verifier never hides what the user said
        assert "could not be parsed" in verdict["reason"]
        assert told.answer and not told.interrupts
        [m] = agent.deps.long_term().get("u", [verdict["memory_id"]])
        assert m.status == "active"
        event, linked = agent.deps.events().history("u", m.id)
        assert event.event == "created" and "stored unchecked" in event.reason
        assert linked.event == "follows" and linked.related_id == m.follows[0]  # the same subject as Beijing


def test_a_time_phrase_in_a_statement_dates_it_and_does_not_filter_recall(agent: Agent) -> None:
    agent.turn("u", "s", "I live in Hangzhou.", at="2026-03-01T10:00:00+08:00")
    moved = agent.turn("u", "s", "I moved to Shanghai last week.", at="2026-12-03T10:00:00+08:00")
    assert moved.state["time_window"] is None  # the answer sees where the user lived before
    assert "I live in Hangzhou" in [m["text"] for m in moved.state["recalled"]]
    asked = agent.turn("u", "s", "What did I do last week?", at="2026-12-03T11:00:00+08:00")
    assert asked.state["time_window"] is not None and asked.state["time_window"]["phrase"] == "last week"


def test_no_verifier_call_when_no_verdict_could_change_anything(agent: Agent) -> None:
    agent.turn("u", "s", "I live in Beijing.")
    told = agent.turn("u", "s", "I play the violin.")  # nothing stored is about the same thing
    [verdict] = told.state["verdicts"]
    assert verdict["decision"] == "add" and verdict["reason"].startswith("not asked")
    assert [u["node"] for u in told.state["usage"] if u["node"].startswith("fact_check")] == ["fact_check.extract"]
    assert not agent.calls("VerifierVerdicts")


def test_verifier_naming_a_memory_it_was_not_shown_changes_nothing(redis_server_url: str, pg_url: str,
                                                                   tmp_path: Path, e5: Any) -> None:
    brain = ScriptedBrain(lambda new, existing: ("update", 99))
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=brain):
        agent.turn("u", "s", "I live in Beijing.")
        told = agent.turn("u", "s", "I live in Shanghai.")
        [verdict] = told.state["verdicts"]
        assert verdict["decision"] == "add" and verdict.get("said") == "update"
        assert sorted(m.text for m in agent.deps.long_term().scroll("u", statuses=("active",))) == [
            "I live in Beijing", "I live in Shanghai"]


def test_update_supersedes_and_duplicate_bumps(redis_server_url: str, pg_url: str, tmp_path: Path, e5: Any) -> None:
    def rule(new: str, existing: list[str]) -> tuple[str, int]:
        for i, text in enumerate(existing, 1):
            if text == new:
                return "duplicate", i
            if "work at" in new and "work at" in text:
                return "update", i
        return "add", 0

    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=ScriptedBrain(rule)):
        ltm = agent.deps.long_term()
        agent.turn("u", "s", "I work at Alibaba.")
        dup = agent.turn("u", "s", "I work at Alibaba.")
        assert dup.state["verdicts"][0]["decision"] == "duplicate"
        [m] = list(ltm.scroll("u", statuses=("active",)))
        assert m.ref_count >= 1
        # the duplicate is kept as merged into the memory it repeats: restorable, never recalled
        [merged] = list(ltm.scroll("u", statuses=("superseded",)))
        assert merged.superseded_by == m.id and merged.id == dup.state["verdicts"][0]["memory_id"]
        assert [e.event for e in agent.deps.events().history("u", merged.id)] == ["created", "merged"] or [
            e.event for e in agent.deps.events().history("u", merged.id)][-1] == "merged"
        upd = agent.turn("u", "s", "I work at Tencent now.")
        v = upd.state["verdicts"][0]
        assert v["decision"] == "update"
        [old] = ltm.get("u", [v["target"]])
        assert old.status == "superseded" and old.superseded_by == v["memory_id"]
        assert texts(agent.turn("u", "t", "Where do I work?"))[0] == "I work at Tencent now"
        assert "superseded" in [e.event for e in agent.deps.events().history("u", old.id)]


def test_important_memory_outranks_an_otherwise_equal_one(agent: Agent) -> None:
    start = datetime(2026, 3, 1, 10, 0, tzinfo=TZ)
    agent.turn("u", "s", "My locker code is 4512.", at=iso(start))
    agent.turn("u", "s", "My bike lock code is 7781.", at=iso(start), important=True)
    found = search_memories(agent.deps, "u", "what is my code", now=iso(start + timedelta(days=12)))
    assert [r.memory.text for r in found[:2]] == ["My bike lock code is 7781", "My locker code is 4512"]
    assert found[0].breakdown.weight == 2.0 and found[1].breakdown.weight == 1.0


def test_importance_never_lifts_a_memory_above_one_that_follows_it(agent: Agent) -> None:
    """The same locker, a new code ten days later: the newer memory follows the important one and holds now."""
    start = datetime(2026, 3, 1, 10, 0, tzinfo=TZ)
    agent.turn("u", "s", "My locker code is 4512.", at=iso(start), important=True)
    agent.turn("u", "s", "My locker code is 7781.", at=iso(start + timedelta(days=10)))
    found = search_memories(agent.deps, "u", "what is my locker code", now=iso(start + timedelta(days=12)))
    assert [(r.memory.text, r.chain) for r in found[:2]] == [("My locker code is 7781", "now"),
                                                             ("My locker code is 4512", "earlier")]
    assert found[0].breakdown.weight == 1.0 and found[1].breakdown.weight == 2.0
    # "记住" in the message marks it important too
    told = agent.turn("u", "s", "记住：我的护照号码尾号是42。", at=iso(start))
    assert told.state["verdicts"][0]["candidate"]["important"] is True


def test_dragon_boat_question_in_july_finds_the_festival_dinner_not_the_newest(agent: Agent) -> None:
    year = 2026
    dinners = [
        (datetime(year, 1, 20, 19, tzinfo=TZ), "我在鼎泰丰请客户李总吃了晚饭。"),
        (datetime(year, 3, 8, 19, tzinfo=TZ), "我在外婆家请客户张总吃了午饭。"),
        (datetime(year, 6, 19, 19, tzinfo=TZ), "我在海底捞请客户王总吃了饭。"),  # 端午节 2026 is June 19
        (datetime(year, 7, 2, 19, tzinfo=TZ), "我在新荣记请客户赵总吃了饭。"),
        (datetime(year, 7, 12, 19, tzinfo=TZ), "我在西贝请客户周总吃了饭。"),
    ]
    for when, text in dinners:
        agent.turn("boss", "log", text, at=iso(when))
    asked = agent.turn("boss", "q", "我端午节在哪家餐厅请的客户？", at=iso(datetime(year, 7, 15, 10, tzinfo=TZ)))
    assert asked.state["time_window"]["start"].startswith("2026-06-19")
    assert texts(asked)[0] == "我在海底捞请客户王总吃了饭"
    assert asked.state["recalled"][0]["decay"] == 1.0
    present = agent.turn("boss", "q2", "我最近在哪家餐厅请的客户？", at=iso(datetime(year, 7, 15, 10, tzinfo=TZ)))
    assert texts(present)[0] == "我在西贝请客户周总吃了饭"  # no time window: the newest wins


def test_relative_dates_become_an_absolute_event_time(agent: Agent) -> None:
    at = datetime(2026, 5, 20, 9, 30, tzinfo=TZ)
    told = agent.turn("u", "s", "Yesterday I signed the lease for the new flat.", at=iso(at))
    cand = told.state["verdicts"][0]["candidate"]
    assert cand["event_time"] == int(datetime(2026, 5, 19, tzinfo=TZ).timestamp() * 1000)
    [m] = list(agent.deps.long_term().scroll("u"))
    assert m.timestamp == int(at.timestamp() * 1000) and m.event_time == cand["event_time"]
    assert m.detail == "Yesterday I signed the lease for the new flat."
    asked = agent.turn("u", "s2", "what did I do on May 19?", at=iso(at + timedelta(days=30)))
    assert texts(asked) == ["Yesterday I signed the lease for the new flat"]


def test_sixty_turns_archive_each_entry_exactly_once_in_batches_of_twenty(agent: Agent) -> None:
    start = datetime(2026, 4, 1, 9, tzinfo=TZ)
    batches = []
    for i in range(60):
        r = agent.turn("u", "long", f"Note {i}: the meeting room code is {1000 + i}.",
                       at=iso(start + timedelta(seconds=30 * i)))
        if r.state.get("archive"):
            batches.append(r.state["archive"])
    stm = agent.deps.short_term()
    # 2 entries a turn (user, assistant): archives at 51+ entries, 20 each, after the answer
    assert [b["entries"] for b in batches] == [20, 20, 20, 20]
    assert all(b["recovered"] == 0 for b in batches)
    remaining = stm.window("u", "long", 500).entries
    assert len(remaining) == 120 - 80
    # each turn already stored its note: the archive summaries repeat them word for word, so none is stored
    # twice (the archive never writes a text the user already has)
    memories = list(agent.deps.long_term().scroll("u"))
    stored = [m.text for m in memories]
    assert len(stored) == len(set(stored)) == 60
    assert not [m for m in memories if m.origin.startswith("archive:")]
    # the summariser received each batch once
    assert len(agent.calls("Summary")) == 4


def test_sixty_messages_archive_exactly_one_batch_of_twenty(agent: Agent) -> None:
    stm = agent.deps.short_term()
    for i in range(58):  # 58 entries straight into short-term memory, then one turn adds 2 more
        stm.push("u", "s", "user" if i % 2 == 0 else "assistant", f"message {i}")
    r = agent.turn("u", "s", "I parked on level 3.")
    assert r.state["archive"] == {"batches": 1, "entries": 20, "memories": 10, "recovered": 0}
    assert stm.length("u", "s") == 40
    again = agent.turn("u", "s", "I parked on level 4.")
    assert again.state.get("archive") is None


@pytest.mark.redis_cluster
@pytest.mark.pgbouncer
def test_task_tools_write_postgres_with_the_runtime_identity(agent: Agent) -> None:
    r = agent.turn("alice", "s", "TASK: expense approval | submit receipt, manager, finance, paid")
    [task] = agent.deps.tasks().list_tasks("alice")
    assert task.title == "expense approval" and task.steps == ["submit receipt", "manager", "finance", "paid"]
    assert task.session_id == "s"
    assert agent.deps.tasks().list_tasks("bob") == []
    assert r.answer  # the model answered after the tool result
    # the open task is in the next prompt, for the same user only
    later = agent.turn("alice", "s2", "what are my tasks?")
    assert later.state["tasks"][0]["id"] == task.id
    assert agent.turn("bob", "s2", "what are my tasks?").state["tasks"] == []


def test_a_tool_call_on_another_users_task_is_refused(redis_server_url: str, pg_url: str, tmp_path: Path,
                                                      e5: Any) -> None:
    holder: dict[str, str] = {}
    brain = ScriptedBrain()

    def respond(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
        if "advance_task" in tools and messages[-1].text.startswith("ADVANCE"):
            return tool_call("advance_task", {"task_id": holder["task"]})
        return brain(messages, tools)

    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=respond):  # type: ignore[arg-type]
        task = agent.deps.tasks().create("alice", "s", "visa", ["form", "photo"])
        holder["task"] = task.id
        r = agent.turn("mallory", "s", "ADVANCE it")
        tool_messages = [m for m in r.state["messages"] if m.type == "tool"]
        assert tool_messages and "error" in tool_messages[0].text
        assert agent.deps.tasks().get("alice", task.id).current_step == 0


def test_model_failure_is_one_error_and_keeps_the_message_in_short_term(redis_server_url: str, pg_url: str,
                                                                        tmp_path: Path, e5: Any) -> None:
    def down(messages: list[BaseMessage], tools: list[str]) -> str:
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))

    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=down):  # type: ignore[arg-type]
        with pytest.raises(ServiceUnavailableError, match="cannot connect"):
            agent.turn("u", "s", "Remember that my flight is on Friday.")
        window = agent.deps.short_term().window("u", "s")
        assert [e.content for e in window.entries] == ["Remember that my flight is on Friday."]


def test_prompt_stays_within_budget_by_trimming_the_window_first(redis_server_url: str, pg_url: str,
                                                                 tmp_path: Path, e5: Any) -> None:
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, prompt_token_budget=900):
        for i in range(20):
            agent.turn("u", "s", f"Item {i}: " + "the quarterly report covers revenue, costs and hiring plans. " * 4)
        last = agent.turn("u", "s", "What did the report cover?")
        assert last.state["prompt_tokens"] <= 900
        prompt = agent.calls("create_task")[-1]["messages"]
        assert prompt[0].type == "system" and len(last.state["recalled"]) == 5
        said = [m.text for m in prompt[1:-1] if m.type == "human"]
        assert said and not any(t.startswith("Item 0:") for t in said)  # the oldest window entries went first
        assert said[-1].startswith("Item 19:")  # the newest stayed
        assert len(prompt) < 2 + 2 * 20


def test_prompt_override_from_the_context(agent: Agent) -> None:
    from graph.api import compiled
    from graph.context import Context

    graph = compiled(agent.deps)
    graph.invoke({"messages": [("user", "hello")]}, {"configurable": {"thread_id": "t"}},
                 context=Context(user_id="u", prompts={"respond_system": "Be terse. Memories: ${memories}"}))
    system = agent.calls("create_task")[-1]["messages"][0].text
    assert system == "Be terse. Memories: (none)"
    with pytest.raises(InvalidInputError, match="unknown placeholders"):
        graph.invoke({"messages": [("user", "hello")]}, {"configurable": {"thread_id": "t"}},
                     context=Context(user_id="u", prompts={"respond_system": "${secrets}"}))


def test_bad_input_is_refused_before_anything_is_stored(agent: Agent) -> None:
    for bad in ("", "   ", "x" * 20_001):
        with pytest.raises(InvalidInputError):
            agent.turn("u", "s", bad)
    with pytest.raises(InvalidInputError, match="ISO 8601"):
        agent.turn("u", "s", "hello", at="last tuesday")
    with pytest.raises(InvalidInputError, match="user id"):
        agent.turn("u/../x", "s", "hello")
    assert agent.deps.short_term().length("u", "s") == 0


@pytest.mark.redis_cluster
@pytest.mark.pgbouncer
def test_usage_is_recorded_per_node(agent: Agent) -> None:
    agent.turn("u", "s", "I like oolong tea.")
    rows = agent.deps.ledger().summary("node", user_id="u")
    nodes = {r.key for r in rows}
    assert {"respond", "fact_check.extract"} <= nodes
    assert all(r.prompt_tokens > 0 for r in rows)


def test_thread_state_keeps_only_recent_messages(redis_server_url: str, pg_url: str, tmp_path: Path,
                                                 e5: Any) -> None:
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, state_messages_keep=6):
        for i in range(8):
            r = agent.turn("u", "s", f"fact number {i} is true.")
        assert len(r.state["messages"]) <= 6 + 2
        assert agent.deps.short_term().length("u", "s") == 16  # the session itself is all in short-term memory



def test_unclear_answer_leaves_it_disputed_and_a_vanished_memory_is_reported(conflict_agent: Agent) -> None:
    agent = conflict_agent
    agent.turn("u", "s1", "I live in Beijing.")
    told = agent.turn("u", "s2", "I live in Shanghai.")
    new_id = told.state["verdicts"][0]["memory_id"]
    with pytest.raises(InvalidInputError, match="yes, no or both"):
        agent.resume("u", "s2", "maybe")
    [m] = agent.deps.long_term().get("u", [new_id])
    assert m.status == "disputed"
    # the question is still pending: the graph itself asks again for an answer it does not understand
    config: Any = {"configurable": {"thread_id": thread_id("u", "s2")}}
    graph = compiled(agent.deps)
    graph.invoke(Command(resume="maybe"), config, context=Context(user_id="u", session_id="s2"))
    [pending] = graph.get_state(config).interrupts
    assert "Please answer yes, no or both" in pending.value["question"]
    both = agent.resume("u", "s2", "both")
    assert both.state["confirmations"][0]["outcome"] == "kept both"
    assert sorted(x.text for x in agent.deps.long_term().scroll("u", statuses=("active",))) == [
        "I live in Beijing", "I live in Shanghai"]
    assert [e.event for e in agent.deps.events().history("u", new_id)][-1] == "kept_both"
    again = agent.turn("u", "s3", "I live in Shenzhen.")
    agent.deps.long_term().delete_ids("u", [again.state["verdicts"][0]["memory_id"]])
    assert agent.resume("u", "s3", "yes").state["confirmations"][0]["outcome"] == "gone"
    assert [x.status for x in agent.deps.long_term().scroll("u") if x.text == "I live in Beijing"] == ["active"]


def _timing_out(brain: ScriptedBrain, tool: str) -> Any:
    def respond(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
        if tool in tools:
            raise openai.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))
        return brain(messages, tools)
    return respond


@pytest.mark.parametrize("tool", ["VerifierVerdicts", "Extraction"])
def test_a_model_that_times_out_in_fact_check_costs_no_fact(redis_server_url: str, pg_url: str, tmp_path: Path,
                                                            e5: Any, tool: str) -> None:
    """Found by a new user: a verifier timeout ended the turn with exit 3 and the fact was never stored."""
    brain = ScriptedBrain()
    for agent in make_agent(redis_server_url, pg_url, tmp_path, e5, brain=_timing_out(brain, tool)):  # type: ignore[arg-type]
        if tool == "VerifierVerdicts":  # something similar is stored, so the verifier is asked
            agent.turn("u", "s", "My passport number is E00000001.")
        told = agent.turn("u", "s", "My passport number is E12345678.")
        assert told.answer
        texts = [m.text for m in agent.deps.long_term().scroll("u", statuses=("active",))]
        assert any("E12345678" in t for t in texts), texts


def test_a_retried_turn_with_the_same_message_id_is_in_the_thread_once(agent: Agent) -> None:
    """A client's retry, or the server's own re-run of a run a crash cut off, sends the same message (same id):
    answered, it changes nothing; cut off before its answer was written, it runs again in its place. Either way the
    thread holds the turn once, so retries never push answered turns out of the thread's window."""
    from langchain_core.messages import HumanMessage

    graph = compiled(agent.deps)
    config: Any = {"configurable": {"thread_id": thread_id("rt", "s")}}
    ctx = Context(user_id="rt", session_id="s")

    def human() -> list[str]:
        return [m.text for m in graph.get_state(config).values["messages"] if m.type == "human"]

    graph.invoke({"messages": [HumanMessage("My locker code is 4411.", id="m1")]}, config, context=ctx)
    calls = len(agent.models.model.calls)
    graph.invoke({"messages": [HumanMessage("My locker code is 4411.", id="m1")]}, config, context=ctx)
    values = graph.get_state(config).values
    assert human() == ["My locker code is 4411."] and values["repeat"] is True
    assert [m.type for m in values["messages"]] == ["human", "ai"]
    assert len(agent.models.model.calls) == calls  # no model call for a repeat
    # cut off after the answer, before it was written: the same message runs the turn again, in its place
    graph.invoke({"messages": [HumanMessage("My gate code is 9120.", id="m2")]}, config, context=ctx,
                 interrupt_after=["respond"])
    graph.invoke({"messages": [HumanMessage("My gate code is 9120.", id="m2")]}, config, context=ctx)
    values = graph.get_state(config).values
    assert human() == ["My locker code is 4411.", "My gate code is 9120."]
    assert [m.type for m in values["messages"]] == ["human", "ai", "human", "ai"]
    assert values["answered"] == "m2" and values["repeat"] is False
    # a new message id is a new turn, even with the same words
    graph.invoke({"messages": [HumanMessage("My gate code is 9120.", id="m3")]}, config, context=ctx)
    assert human() == ["My locker code is 4411.", "My gate code is 9120.", "My gate code is 9120."]
