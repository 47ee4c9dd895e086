"""Whether a turn will start the local model server: only when no chat model is configured and none runs."""

from __future__ import annotations

from pathlib import Path

from graph.models import OpenAIModels
from graph.settings import Settings


def test_a_configured_chat_model_starts_nothing_local(tmp_path: Path) -> None:
    assert not OpenAIModels(Settings(chat_model="gpt-4o-mini", data_dir=tmp_path)).local_starting()


def test_the_zero_config_model_starts_when_none_runs(tmp_path: Path) -> None:
    assert OpenAIModels(Settings(chat_model=None, data_dir=tmp_path)).local_starting()


def test_no_model_to_start_announces_nothing(tmp_path: Path) -> None:
    """A missing model file: the turn fails with one line saying why, and no 'starting' line before it."""
    settings = Settings(chat_model=None, data_dir=tmp_path, local_model_path=tmp_path / "missing.gguf")
    assert not OpenAIModels(settings).local_starting()
