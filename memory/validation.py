"""Checks applied to everything that comes from outside before it reaches a store."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from memory.errors import InvalidInputError, NotFoundError

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


_FULL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ID_PREFIX = re.compile(r"[0-9a-f-]{4,36}")


def resolve_prefix(kind: str, kinds: str, given: str, owner: str, matching: Callable[[str], Iterable[str]]) -> str:
    """The full id of ``owner``'s ``kind`` (memory, task) that ``given`` names: a full id, or a prefix of at least
    4 characters (the short ids the lists print); ``matching(prefix)`` gives the owner's ids that may start with it.
    Unknown: NotFoundError (exit 4); too short, or a prefix several share: InvalidInputError (exit 2) naming them."""
    wanted = given.strip().lower()
    if not wanted:
        raise InvalidInputError(f"the {kind} id is empty: give its id or at least 4 characters of it")
    if _FULL_ID.fullmatch(wanted):
        return wanted
    if not _ID_PREFIX.fullmatch(wanted):
        if re.fullmatch(r"[0-9a-f-]{1,3}", wanted):
            raise InvalidInputError(f"{given!r} is too short to name a {kind}: give at least 4 characters of its id")
        raise NotFoundError(f"no {kind} {given!r} for user {owner!r}")
    found = sorted({i for i in matching(wanted) if i.startswith(wanted)})
    if not found:
        raise NotFoundError(f"no {kind} {given!r} for user {owner!r}")
    if len(found) > 1:
        shown = ", ".join(i[:13] for i in found[:5]) + (", ..." if len(found) > 5 else "")
        raise InvalidInputError(f"{given!r} names {len(found)} {kinds} of {owner!r} ({shown}): give more of the id")
    return found[0]
