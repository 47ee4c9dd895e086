"""Every prompt of the agent, as a file in this package, loaded by name (STYLE.md rule 8).

Templates use ``string.Template`` placeholders (``${name}``), so JSON and braces in prompt text need no escaping.
:data:`PLACEHOLDERS` is the contract between a prompt file and the node that fills it; :func:`render` refuses a
template (a file or a per-run override from the runtime context) whose placeholders differ from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from string import Template

from memory.errors import InvalidInputError

PLACEHOLDERS: dict[str, frozenset[str]] = {
    "respond_system": frozenset({"now", "timezone", "memories", "tasks", "time_hint"}),
    "time_hint": frozenset({"phrase", "start", "end"}),
    "extract": frozenset({"now", "message"}),
    "verify": frozenset({"now", "existing", "candidates"}),
    "respond_compact": frozenset({"now", "memories", "tasks", "time_hint", "language"}),
    "summarize": frozenset({"conversation"}),
    "confirm_conflict": frozenset({"new", "old"}),
    "confirm_unchecked": frozenset({"new"}),
}


@cache
def load(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    if name not in PLACEHOLDERS:
        raise InvalidInputError(f"unknown prompt {name!r}; prompts are: {', '.join(sorted(PLACEHOLDERS))}")
    return resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8").strip()


def placeholders(text: str) -> set[str]:
    return set(Template(text).get_identifiers())


def render(name: str, values: Mapping[str, str], *, override: str | None = None) -> str:
    """Fill the prompt ``name`` (or an override of it) with ``values``; every placeholder must be filled."""
    expected = PLACEHOLDERS.get(name)
    if expected is None:
        raise InvalidInputError(f"unknown prompt {name!r}; prompts are: {', '.join(sorted(PLACEHOLDERS))}")
    text = override if override is not None else load(name)
    template = Template(text)
    if not template.is_valid():
        raise InvalidInputError(f"prompt {name!r} has a malformed placeholder (write $$ for a literal $)")
    unknown = set(template.get_identifiers()) - expected
    if unknown:
        raise InvalidInputError(f"prompt {name!r} uses unknown placeholders {sorted(unknown)}; "
                                f"it may use {sorted(expected)}")
    missing = expected - values.keys()
    if missing:
        raise ValueError(f"prompt {name!r} needs values for {sorted(missing)}")
    return template.substitute(values)
