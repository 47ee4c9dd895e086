"""Typed errors. Each carries a one-line message meant for people; the CLI prints it as is."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


class PalaceError(Exception):
    """Base class of every error Memory Palace raises on purpose."""

    exit_code = 1


class InvalidInputError(PalaceError, ValueError):
    """The caller passed something the product refuses (empty message, bad id, oversized text...)."""

    exit_code = 2


class ConfigurationError(PalaceError):
    """A setting is missing or contradicts another (no chat model configured, say)."""

    exit_code = 2


class NotFoundError(PalaceError, LookupError):
    """The thing asked for does not exist for this user."""

    exit_code = 4


class ServiceUnavailableError(PalaceError):
    """A backing service (Redis, PostgreSQL, Qdrant, a model server) cannot be reached or started."""

    exit_code = 3

    def __init__(self, service: str, url: str, reason: str, *, fix: str | None = None) -> None:
        self.service = service
        self.url = redact_url(url)
        self.reason = one_line(reason)
        self.fix = fix
        message = f"{service} unavailable at {self.url}: {self.reason}"
        if fix:
            message += f" ({fix})"
        super().__init__(message)


class StorageLockedError(ServiceUnavailableError):
    """Qdrant's local mode admits one process per path and another process holds it."""


def one_line(text: object, limit: int = 300) -> str:
    """Collapse an exception message (often multi-line) to one short line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def redact_url(url: str) -> str:
    """Hide the password of a URL so that errors and status output never leak it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
