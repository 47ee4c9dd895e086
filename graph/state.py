"""The graph's state. ``typing_extensions.TypedDict``: with ``typing.TypedDict`` on Python 3.11 the LangGraph
server's schema endpoint fails and Studio gets no schema."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

Decision = Literal["add", "duplicate", "update", "conflict", "unverified"]


class InputState(TypedDict):
    """What a turn takes: the user's message, optionally when it was sent and whether it matters."""

    messages: Annotated[list[AnyMessage], add_messages]
    at: NotRequired[str | None]  # ISO 8601 time the message was sent (history import); unset: now
    important: NotRequired[bool]  # the user marks what this turn says as important (decay weight 2.0)


class Turn(TypedDict):
    id: str  # the user's short-term entry id: the source of every memory this turn writes
    user_id: str
    session_id: str
    now_ms: int
    timezone: str
    message: str


class RecalledMemory(TypedDict):
    id: str
    text: str
    timestamp: int
    event_time: int | None
    score: float
    relevance: float
    cosine: float
    lexical: float | None
    decay: float
    weight: float
    boost: float
    chain: NotRequired[str]  # "now": it follows another recalled memory; "earlier": one recalled follows it


class Candidate(TypedDict):
    text: str
    detail: str
    event_time: int | None
    important: bool


class Verdict(TypedDict):
    candidate: Candidate
    decision: Decision
    memory_id: str  # the id the new memory gets (if written)
    target: str | None  # the existing memory it duplicates, updates or conflicts with
    target_text: str | None
    reason: str  # the verifier's reason (or why no verifier was asked)
    said: NotRequired[str]  # the verifier's own decision, when the gates changed it
    note: NotRequired[str]  # why a gate turned the verifier's decision into "add"
    follows: NotRequired[list[str]]  # the older memories about the same subject it follows (memory/language/links.py)
    follows_named: NotRequired[list[str]]  # those of them it shares an entity with (the stronger evidence)
    links: NotRequired[list[str]]  # why, one per followed memory


class Usage(TypedDict):
    node: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    baseline_prompt_tokens: NotRequired[int]  # respond: the prompt with the full session history instead


class State(InputState):
    turn: NotRequired[Turn]
    window: NotRequired[list[dict[str, Any]]]  # short-term entries before this message (role, content, ts)
    tasks: NotRequired[list[dict[str, Any]]]
    recalled: NotRequired[list[RecalledMemory]]
    time_window: NotRequired[dict[str, str] | None]  # the past window the question is about, if any
    prompt_tokens: NotRequired[int]  # of the last respond call, as budgeted
    tool_rounds: NotRequired[int]
    verdicts: NotRequired[list[Verdict]]
    extraction: NotRequired[str | None]  # "parsed", "unparsed" (the fallback kept the statements) or None (skipped)
    used: NotRequired[list[str]]  # memory ids the answer used
    # what the answer check changed in the model's answer: a sentence with an invented detail cut, the user's voice
    # turned, a stuck answer generated again ("stuck: …")
    answer_changes: NotRequired[list[str]]
    # every model call of the turn; respond and fact_check run side by side, so each appends its own rows (ingest
    # starts the turn with Overwrite([]))
    usage: NotRequired[Annotated[list[Usage], operator.add]]
    needs_archive: NotRequired[bool]
    archive: NotRequired[dict[str, int] | None]
    confirmations: NotRequired[list[dict[str, Any]]]
    # Degraded service, reported rather than hidden: "recall": why memories could not be read this turn;
    # "outbox": long-term writes waiting for Qdrant; "ledger": usage rows PostgreSQL refused (retried next turn).
    degraded: NotRequired[dict[str, Any]]
    unrecorded_usage: NotRequired[list[dict[str, Any]]]  # ledger rows to retry, kept across turns
    unrecorded_events: NotRequired[list[dict[str, Any]]]  # memory events PostgreSQL refused, retried next turn
    # The id of the user's message whose turn wrote its answer and memories. A run whose message repeats that id (a
    # client's retry, a run the server runs again after a crash) is a repeat: it changes nothing (``repeat``).
    answered: NotRequired[str | None]
    repeat: NotRequired[bool]

