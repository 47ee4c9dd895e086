"""Task tools the model may call: create, advance, complete a multi-step task in Postgres.

Identity comes from the runtime (``ToolRuntime``): the user from the run's context, the session from the turn.
The model only supplies the task's content and id; another user's task id is simply not found.
"""

from __future__ import annotations

import json

from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolInvocationError, ToolRuntime
from pydantic import BaseModel, Field

from graph.context import Context
from graph.deps import Deps
from graph.state import State
from memory.errors import PalaceError
from memory.postgres import Task
from nodes._turn import turn_of


def _describe(task: Task) -> str:
    return json.dumps({"task_id": task.id, "title": task.title, "status": task.status, "progress": task.progress},
                      ensure_ascii=False)


# The model-facing argument schemas, declared once: deriving them from the functions' signatures (which name
# ToolRuntime[Context, State]) costs pydantic ~0.3 s per graph build, paid by every process's first turn.
class _CreateTask(BaseModel):
    title: str = Field(description="A short name for the task.")
    steps: list[str] = Field(description="The task's steps, in order.")


class _TaskNote(BaseModel):
    task_id: str = Field(description="The task's id, as shown in the user's open tasks.")
    note: str = Field(default="", description="Optional note on what was done.")


def make_task_tools(deps: Deps) -> list[BaseTool]:
    def _who(runtime: ToolRuntime[Context, State]) -> tuple[str, str]:
        turn = turn_of(runtime.state)
        return turn["user_id"], turn["session_id"]

    @tool(args_schema=_CreateTask)
    def create_task(title: str, steps: list[str], runtime: ToolRuntime[Context, State]) -> str:
        """Start tracking a multi-step task for the user, e.g. an expense approval with its steps in order."""
        user, session = _who(runtime)
        return _describe(deps.tasks().create(user, session, title, steps))

    @tool(args_schema=_TaskNote)
    def advance_task(task_id: str, runtime: ToolRuntime[Context, State], note: str = "") -> str:
        """Mark the current step of one of the user's open tasks as done and move to the next step."""
        user, _ = _who(runtime)
        return _describe(deps.tasks().advance(user, task_id, note=note or None))

    @tool(args_schema=_TaskNote)
    def complete_task(task_id: str, runtime: ToolRuntime[Context, State], note: str = "") -> str:
        """Mark one of the user's open tasks as completed."""
        user, _ = _who(runtime)
        return _describe(deps.tasks().complete(user, task_id, note=note or None))

    return [create_task, advance_task, complete_task]


def _tool_error(exc: Exception) -> str:
    # Bad arguments and refusals (unknown task, another user's task, a store that is down) go back to the model
    # as the tool's answer; anything else is a bug and propagates.
    if isinstance(exc, ToolInvocationError):
        return exc.message
    if isinstance(exc, PalaceError):
        return f"error: {exc}"
    raise exc


def make_tool_node(tools: list[BaseTool]) -> ToolNode:
    return ToolNode(tools, handle_tool_errors=_tool_error)
