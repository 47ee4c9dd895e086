"""Every prompt file uses exactly its declared placeholders, and every node's values fill them all."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from langchain_core.messages import HumanMessage

import prompts
from memory.errors import InvalidInputError
from nodes.respond import build_prompt

PROMPT_DIR = Path(prompts.__file__).parent


def test_every_prompt_file_is_declared_and_uses_exactly_its_placeholders() -> None:
    files = {p.stem for p in PROMPT_DIR.glob("*.md")} - {"README"}
    assert files == set(prompts.PLACEHOLDERS)
    for name, expected in prompts.PLACEHOLDERS.items():
        assert prompts.placeholders(prompts.load(name)) == set(expected), name


@pytest.mark.parametrize("name", sorted(prompts.PLACEHOLDERS))
def test_rendering_fills_every_placeholder(name: str) -> None:
    values = {k: f"<<{k}>>" for k in prompts.PLACEHOLDERS[name]}
    text = prompts.render(name, values)
    assert "${" not in text and "$" not in text.replace("$$", "")
    for v in values.values():
        assert v in text


def test_missing_values_and_unknown_placeholders_are_refused() -> None:
    with pytest.raises(ValueError, match="needs values"):
        prompts.render("extract", {"now": "x"})
    with pytest.raises(InvalidInputError, match="unknown placeholders"):
        prompts.render("extract", {"now": "x", "message": "y"}, override="${now} ${password}")
    with pytest.raises(InvalidInputError, match="malformed"):
        prompts.render("extract", {"now": "x", "message": "y"}, override="costs $ 5")
    with pytest.raises(InvalidInputError, match="unknown prompt"):
        prompts.load("nope")


def test_values_with_dollars_and_braces_are_inserted_verbatim() -> None:
    text = prompts.render("extract", {"now": "now", "message": "price ${x} $5 {json}"})
    assert "price ${x} $5 {json}" in text


def test_respond_prompt_from_the_node_has_no_unfilled_placeholder() -> None:
    now = datetime(2026, 7, 15, 10, tzinfo=ZoneInfo("Asia/Shanghai"))
    recalled = [{"id": "1", "text": "用户住在杭州", "timestamp": 1_780_000_000_000, "event_time": None, "score": 1.0,
                 "cosine": 1.0, "decay": 1.0, "weight": 1.0, "boost": 1.0}]
    p = build_prompt(now=now, recalled=recalled, tasks=[], window=[], turn_messages=[HumanMessage("我住哪？")],  # type: ignore[list-item]
                     time_window={"phrase": "端午节", "start": "2026-06-19", "end": "2026-06-20"}, budget=3000,
                     encoding="o200k_base")
    system = p.messages[0].text
    assert "${" not in system and "用户住在杭州" in system and "端午节" in system
    assert '<memories>\n{"text": "用户住在杭州"' in system  # memories are delimited data, one JSON per line


@pytest.mark.parametrize("compact", [True, False])
def test_a_small_model_sees_only_the_sessions_turns_in_the_messages_language(compact: bool) -> None:
    """With two English turns before it, the bundled 0.5B model answered 7 of 10 Chinese messages in English."""
    now = datetime(2026, 7, 15, 10, tzinfo=ZoneInfo("Asia/Shanghai"))
    window = [{"role": "user", "content": "I live in Shenzhen.", "ts": 0},
              {"role": "assistant", "content": "Got it, you live in Shenzhen.", "ts": 0},
              {"role": "user", "content": "我妹妹叫小梅。", "ts": 0},
              {"role": "assistant", "content": "好的，你妹妹叫小梅。", "ts": 0},
              {"role": "user", "content": "👍", "ts": 0}]  # no language: kept
    p = build_prompt(now=now, recalled=[], tasks=[], window=window, turn_messages=[HumanMessage("我现在住在哪里？")],
                     time_window=None, budget=3000, encoding="o200k_base", compact=compact)
    history = [m.text for m in p.messages[1:-1]]
    if compact:
        assert history == ["我妹妹叫小梅。", "好的，你妹妹叫小梅。", "👍"]
        assert "Reply in Chinese" in p.messages[0].text
    else:  # a capable model keeps the whole window
        assert history == [e["content"] for e in window]
    english = build_prompt(now=now, recalled=[], tasks=[], window=window, turn_messages=[HumanMessage("Where?")],
                           time_window=None, budget=3000, encoding="o200k_base", compact=compact)
    assert len(english.messages) == (5 if compact else 7)  # system, the two English turns, 👍, the message
