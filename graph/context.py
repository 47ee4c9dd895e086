"""The per-run context (LangGraph ``context_schema``): who is talking, on which clock, with which models.

Identity travels here, never through the model: nodes and task tools read ``user_id`` from the runtime.
Unset fields fall back to the settings (``PALACE_TIMEZONE``, ``PALACE_CHAT_MODEL``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Context:
    user_id: str = field(default="default", metadata={"description": "Whose memories this run reads and writes."})
    session_id: str | None = field(default=None, metadata={
        "description": "The short-term memory session; unset: the thread id."})
    timezone: str | None = field(default=None, metadata={
        "description": "IANA timezone of the user's clock; unset: PALACE_TIMEZONE."})
    chat_model: str | None = field(default=None, metadata={"description": "Unset: PALACE_CHAT_MODEL."})
    verifier_model: str | None = field(default=None, metadata={"description": "Unset: PALACE_VERIFIER_MODEL."})
    prompts: dict[str, str] = field(default_factory=dict, metadata={
        "description": "Prompt overrides by name (see prompts/README.md)."})
