"""Short-term working memory: one Redis list per session (DESIGN.md "Short-term memory")."""

from memory.short_term.aio import AsyncShortTermMemory
from memory.short_term.base import ArchiveBatch, Entry, PushResult, STMConfig, Window
from memory.short_term.sync import ShortTermMemory

__all__ = ["ArchiveBatch", "AsyncShortTermMemory", "Entry", "PushResult", "STMConfig", "ShortTermMemory", "Window"]
