"""Archiving: the oldest short-term entries become long-term memories, exactly once.

``claim`` (atomic move into a pending batch) -> summarise -> replace whatever an earlier, interrupted attempt
wrote for the same entries -> upsert under deterministic ids -> ``ack``. A crash anywhere leaves the batch
pending; the next call recovers it and the result is the same as if nothing had happened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory.embeddings import Embedder
from memory.errors import InvalidInputError
from memory.language.junk import normalized
from memory.long_term import STATUSES, LongTermMemory, Memory, memory_id
from memory.short_term import ArchiveBatch, Entry, ShortTermMemory


@dataclass(frozen=True)
class MemoryDraft:
    """What a summariser makes of a batch: a short text (<= ~50 tokens), the detail, when it happened."""

    text: str
    detail: str = ""
    event_time: int | None = None
    decay_weight: float = 1.0


Summarizer = Callable[[Sequence[Entry]], Sequence[MemoryDraft]]


def batch_memories(batch: ArchiveBatch, drafts: Sequence[MemoryDraft]) -> list[Memory]:
    """The long-term memories of a batch: ids derived from the batch, lineage to its entries."""
    if not batch.entries:
        raise InvalidInputError("an archive batch cannot be empty")
    sources = [e.id for e in batch.entries]
    recorded = max(e.ts for e in batch.entries)
    origin = batch_origin(batch)
    return [
        Memory(id=memory_id(batch.user_id, f"{origin}:{i}"), text=d.text, detail=d.detail or d.text,
               user_id=batch.user_id, session_id=batch.session_id, timestamp=recorded, event_time=d.event_time,
               decay_weight=d.decay_weight, source=sources, origin=origin)
        for i, d in enumerate(drafts)
    ]


def batch_origin(batch: ArchiveBatch) -> str:
    return f"archive:{batch.entries[0].id}"


@dataclass(frozen=True)
class ArchiveResult:
    batches: int
    entries: int
    memories: int
    recovered: int  # batches a crashed or failed earlier attempt had left pending


def archive_session(stm: ShortTermMemory, ltm: LongTermMemory, embeddings: Embedder, summarize: Summarizer,
                    user_id: str, session_id: str, *, max_batches: int = 10, drain: bool = False,
                    on_written: Callable[[Sequence[Memory]], None] | None = None) -> ArchiveResult:
    """Archive while the session is over the threshold (or a batch is pending), at most ``max_batches``;
    ``drain`` archives every entry (an idle session whose TTL would otherwise drop them). ``on_written`` gets
    each batch's memories once they are stored (the history records them)."""
    batches = entries = memories = recovered = 0
    for _ in range(max_batches):
        batch = stm.claim(user_id, session_id, drain=drain)
        if batch is None:
            break
        try:
            written = _archive_batch(ltm, embeddings, summarize, batch)
        except BaseException:
            stm.release(batch)  # stays pending: the next access retries it
            raise
        stm.ack(batch)
        if on_written is not None and written:
            on_written(written)
        batches += 1
        entries += len(batch.entries)
        memories += len(written)
        recovered += batch.recovered
    return ArchiveResult(batches, entries, memories, recovered)


def _archive_batch(ltm: LongTermMemory, embeddings: Embedder, summarize: Summarizer,
                   batch: ArchiveBatch) -> list[Memory]:
    drafts = list(summarize(batch.entries))
    mems = batch_memories(batch, drafts)
    vectors = embeddings.embed_documents([m.text for m in mems]) if mems else []
    kept = [(m, v) for m, v in zip(mems, vectors, strict=True) if not _already_stored(ltm, m, v)]
    # An interrupted earlier attempt may have written a different number of memories for these entries.
    ltm.delete_by_origin(batch.user_id, batch_origin(batch))
    ltm.upsert([m for m, _ in kept], [v for _, v in kept])
    return [m for m, _ in kept]


def _already_stored(ltm: LongTermMemory, memory: Memory, vector: Sequence[float]) -> bool:
    """The user already has this text (as a memory's text or the message it came from), written by something
    else than this batch: the turn that heard it, or an earlier archive."""
    text = normalized(memory.text)
    for hit in ltm.search(memory.user_id, vector, limit=3, statuses=STATUSES):
        other = hit.memory
        if other.origin != memory.origin and text in (normalized(other.text), normalized(other.detail)):
            return True
    return False
