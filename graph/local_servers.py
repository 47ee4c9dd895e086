"""The local model servers the settings select: the answer's and the memory work's (``PALACE_LOCAL_MODEL``,
``PALACE_LOCAL_MEMORY_MODEL``). Apart from graph/models.py so that commands with no model call (``palace services
status``) import no model client."""

from __future__ import annotations

from graph.settings import Settings
from memory.local_model import LocalModelServer


def local_server(settings: Settings, *, memory: bool = False) -> LocalModelServer:
    """The local model server for the answer (``PALACE_LOCAL_MODEL`` or ``PALACE_LOCAL_MODEL_PATH``), or with
    ``memory`` for the memory work: ``PALACE_LOCAL_MEMORY_MODEL``'s when it names another model, else the same."""
    s = settings
    if memory and s.local_memory_model is not None and (s.local_memory_model != s.local_model or s.local_model_path):
        return LocalModelServer(s.data_dir, model=s.local_memory_model, memory=True)
    return LocalModelServer(s.data_dir, s.local_model_path, model=s.local_model)


def local_servers(settings: Settings) -> list[LocalModelServer]:
    """The local model servers the settings use: the answer's, and the memory work's when it is another."""
    answer, memory = local_server(settings), local_server(settings, memory=True)
    return [answer] if memory.key == answer.key else [answer, memory]
