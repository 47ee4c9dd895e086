"""Checks applied to everything that comes from outside before it reaches a store."""

from __future__ import annotations

import re

from memory.errors import InvalidInputError

# Letters and digits of any script, plus `_ . @ -`. Excluded on purpose: `{ }` (Redis Cluster hash tags),
# `* ? [ ]` (glob patterns), `:` (our key separator), `/`, quotes, whitespace and control characters.
_ID_PATTERN = re.compile(r"[\w.@-]+")


def check_id(kind: str, value: object, *, max_length: int = 128) -> str:
    """Return ``value`` if it is a valid user / session / task id, else raise :class:`InvalidInputError`."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{kind} must be a string, got {type(value).__name__}")
    if not value:
        raise InvalidInputError(f"{kind} is empty")
    if len(value) > max_length:
        raise InvalidInputError(f"{kind} is {len(value)} characters long; the limit is {max_length}")
    if not _ID_PATTERN.fullmatch(value):
        bad = sorted({c for c in value if not _ID_PATTERN.fullmatch(c)})
        shown = " ".join(repr(c) for c in bad[:8])
        raise InvalidInputError(f"{kind} {value[:40]!r} contains characters that are not allowed: {shown}")
    return value


def check_text(kind: str, value: object, *, max_chars: int) -> str:
    """Return ``value`` if it is a non-blank string of at most ``max_chars`` characters."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{kind} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{kind} is empty")
    if len(value) > max_chars:
        raise InvalidInputError(f"{kind} is {len(value):,} characters long; the limit is {max_chars:,}")
    if "\x00" in value:
        raise InvalidInputError(f"{kind} contains a NUL character")
    return value
