"""Checks applied to everything that comes from outside before it reaches a store."""

from __future__ import annotations

import re

from memory.errors import InvalidInputError

# Letters and digits of any script, plus `_ . @ - + | = ~ !`: the ids identity providers hand out
# (`auth0|123`, `google-oauth2|123`, `samlp|acme|jo`, `jo+tag@example.com`) pass as they are. Refused on purpose:
# `{ }` (Redis Cluster hash tags: our keys put `{user/session}` in one slot), `* ? [ ] \` (glob patterns in SCAN),
# `:` (our key and thread-id separator), `/` (the separator inside the hash tag), `%` (the escape of store
# namespace labels, below), quotes, whitespace and control characters.
_ID_PATTERN = re.compile(r"[\w.@+|=~!-]+")


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


# LangGraph's store (BaseStore, the server and langgraph_sdk) refuses periods in namespace labels, and e-mail ids
# have them: a user id goes into a label with each `.` written `%2E` (`%` never occurs in an id, so the escape is
# unambiguous), and a label comes back with `%2E` (or `%2e`) read as `.`. A label with a raw period is accepted
# too, for in-process callers that do not go through the SDK.
_LABEL_PERIOD = "%2E"


def id_to_label(user_id: str) -> str:
    """The store namespace label of a user id: ``jo.li@example.com`` -> ``jo%2Eli@example%2Ecom``."""
    return user_id.replace(".", _LABEL_PERIOD)


def label_to_id(label: str) -> str:
    """The user id a store namespace label names (the inverse of :func:`id_to_label`); check it with check_id."""
    return re.sub("%2[eE]", ".", label)


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
