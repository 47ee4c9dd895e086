"""Qdrant Edge (``qdrant-edge-py``) behind the subset of the ``QdrantClient`` API that :class:`LongTermMemory` uses.

Qdrant's local mode (``QdrantClient(path=...)``) is plain Python: it scores and filters every point in Python
(about 170 ms per filtered query at 10K points on these machines, and it warns past 20K). Qdrant Edge is
Qdrant's own engine in process: the same segments, payload indexes, sparse vectors with IDF and filters as the
server, exact search in well under a millisecond at these sizes. One directory per collection under ``root``;
the engine's write-ahead log makes every acknowledged update durable and admits one process at a time.

The adapter translates objects shaped like ``qdrant_client.models`` (the real ones, or the plain copies of
``memory.qdrant_models`` that spare a command on Edge the import of ``qdrant_client``), so LongTermMemory has a
single code path for a Qdrant server, local mode and Edge. Only what LongTermMemory sends is supported; anything
else raises ``TypeError``.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar

import qdrant_edge as qe

# by enum value: qdrant_client's enums and memory.qdrant_models' copies share them
_DISTANCES = {"Cosine": qe.Distance.Cosine, "Dot": qe.Distance.Dot, "Euclid": qe.Distance.Euclid,
              "Manhattan": qe.Distance.Manhattan}
_SCHEMAS = {"keyword": qe.PayloadSchemaType.Keyword, "integer": qe.PayloadSchemaType.Integer,
            "float": qe.PayloadSchemaType.Float, "bool": qe.PayloadSchemaType.Bool}


def _is(value: Any, kind: str) -> bool:
    """Whether ``value`` is the model ``kind`` (of qdrant_client.models or memory.qdrant_models)."""
    return type(value).__name__ == kind


def _value(member: Any) -> Any:
    return getattr(member, "value", member)


OPTIMIZE_AFTER = 1_000  # points written by a process before closing it optimizes the shard


@dataclass(frozen=True)
class Layout:
    """The vectors a collection stores: dense name -> size, and the sparse vector names."""

    dense: dict[str, int]
    sparse: tuple[str, ...]


@dataclass
class _Scored:
    id: str
    score: float
    payload: dict[str, Any] | None


@dataclass
class _Response:
    points: list[_Scored] = field(default_factory=list)


@dataclass
class _Count:
    count: int


@dataclass
class _Record:
    id: str
    payload: dict[str, Any] | None
    vector: Any = None  # name -> vector, when asked for


class EdgeClient:
    """A handful of ``QdrantClient`` methods on Qdrant Edge shards stored under ``root``."""

    _open: ClassVar[dict[Path, EdgeClient]] = {}
    _open_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def shared(cls, root: Path | str) -> EdgeClient:
        """The process's one client for ``root``: the LangGraph server loads the graph and the store as two
        modules, each with its own stores; the storage admits one opener, so they share it (closed with the
        last ``close()``)."""
        path = Path(root).expanduser().resolve()
        with cls._open_lock:
            client = cls._open.get(path)
            if client is None or client._lock_file is None:
                client = cls(path)
                cls._open[path] = client
            client._refs += 1
            return client

    def __init__(self, root: Path | str) -> None:
        """Open (creating) the storage under ``root``; ``BlockingIOError`` if another process holds it."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.location = str(self.root)
        self._shards: dict[str, qe.EdgeShard] = {}
        self.unoptimized = 0  # points written since the segments were last optimized (indexed)
        self.lock = threading.RLock()  # every user of this client serialises on it (shared clients too)
        self._refs = 0
        self._lock_file: IO[bytes] | None = open(self.root / ".lock", "a+b")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            raise BlockingIOError(f"{self.root} is held by another process") from None

    # --- collections -------------------------------------------------------------------------------
    def _dir(self, name: str) -> Path:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"bad collection name {name!r}")
        return self.root / name

    def _shard(self, name: str) -> qe.EdgeShard:
        shard = self._shards.get(name)
        if shard is None:
            if not self.collection_exists(name):
                raise ValueError(f"collection {name!r} does not exist")
            shard = qe.EdgeShard.load(str(self._dir(name)))
            self._shards[name] = shard
        return shard

    def collection_exists(self, name: str) -> bool:
        return (self._dir(name) / "edge_config.json").is_file()

    def create_collection(self, name: str, *, vectors_config: dict[str, Any],
                          sparse_vectors_config: dict[str, Any] | None = None) -> None:
        dense = {n: qe.EdgeVectorParams(size=p.size, distance=_DISTANCES[_value(p.distance)])
                 for n, p in vectors_config.items()}
        sparse = {n: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf if _value(p.modifier) == "idf"
                                               else None)
                  for n, p in (sparse_vectors_config or {}).items()}
        self._shards[name] = qe.EdgeShard.create(str(self._dir(name)),
                                                 qe.EdgeConfig(vectors=dense, sparse_vectors=sparse or None))

    def delete_collection(self, name: str) -> None:
        shard = self._shards.pop(name, None)
        if shard is not None:
            shard.close()
        shutil.rmtree(self._dir(name), ignore_errors=True)

    def layout(self, name: str) -> Layout:
        if not self.collection_exists(name):
            raise ValueError(f"collection {name!r} does not exist")
        return _read_config(self._dir(name))

    def create_payload_index(self, name: str, field_name: str, field_schema: Any) -> None:
        if _is(field_schema, "KeywordIndexParams"):
            schema: Any = qe.KeywordIndexParams(is_tenant=bool(field_schema.is_tenant))
        else:
            schema = _SCHEMAS[_value(field_schema)]
        self._shard(name).update(qe.UpdateOperation.create_field_index(field_name, schema))

    # --- writes ------------------------------------------------------------------------------------
    def upsert(self, name: str, points: Sequence[Any], wait: bool = True) -> None:
        del wait  # every update is applied (and in the WAL) when update() returns
        converted = [qe.Point(id=str(p.id), vector=_vector(p.vector), payload=p.payload) for p in points]
        self._shard(name).update(qe.UpdateOperation.upsert_points(converted))
        self.unoptimized += len(converted)

    def set_payload(self, name: str, payload: dict[str, Any], points: Sequence[Any], wait: bool = True) -> None:
        del wait
        self._shard(name).update(qe.UpdateOperation.set_payload([str(p) for p in points], payload))

    def batch_update_points(self, name: str, update_operations: Sequence[Any], wait: bool = True) -> None:
        del wait
        for op in update_operations:
            if not _is(op, "SetPayloadOperation") or op.set_payload.points is None:
                raise TypeError(f"unsupported batch operation {type(op).__name__}")
            self.set_payload(name, op.set_payload.payload, op.set_payload.points)

    def delete(self, name: str, points_selector: Any, wait: bool = True) -> None:
        del wait
        if _is(points_selector, "PointIdsList"):
            op = qe.UpdateOperation.delete_points([str(p) for p in points_selector.points])
        elif _is(points_selector, "FilterSelector"):
            flt = _filter(points_selector.filter)
            if flt is None:
                raise TypeError("deleting by filter needs a filter")
            op = qe.UpdateOperation.delete_points_by_filter(flt)
        else:
            raise TypeError(f"unsupported points selector {type(points_selector).__name__}")
        self._shard(name).update(op)

    # --- reads -------------------------------------------------------------------------------------
    def count(self, name: str, count_filter: Any = None, exact: bool = True) -> _Count:
        return _Count(self._shard(name).count(qe.CountRequest(exact=exact, filter=_filter(count_filter))))

    def query_points(self, name: str, query: Any, *, using: str | None = None,
                     query_filter: Any = None, limit: int = 10,
                     with_payload: bool = True) -> _Response:
        vector = _named(query)
        request = qe.QueryRequest(limit=limit, query=qe.Query.Nearest(vector, using=using),
                                  filter=_filter(query_filter), with_payload=with_payload)
        found = self._shard(name).query(request)
        return _Response([_Scored(str(p.id), float(p.score), p.payload) for p in found])

    def query_batch_points(self, name: str, requests: Sequence[Any]) -> list[_Response]:
        return [self.query_points(name, r.query, using=r.using, query_filter=r.filter, limit=r.limit or 10,
                                  with_payload=bool(r.with_payload)) for r in requests]

    def retrieve(self, name: str, ids: Sequence[Any], with_payload: bool = True,
                 with_vectors: bool | Sequence[str] = False) -> list[_Record]:
        records = self._shard(name).retrieve([str(i) for i in ids], with_payload, bool(with_vectors))
        return [_Record(str(r.id), r.payload, r.vector if with_vectors else None) for r in records]

    def scroll(self, name: str, *, scroll_filter: Any = None, limit: int = 10,
               offset: Any = None, with_payload: bool = True) -> tuple[list[_Record], Any]:
        records, next_offset = self._shard(name).scroll(qe.ScrollRequest(
            offset=str(offset) if offset is not None else None, limit=limit, filter=_filter(scroll_filter),
            with_payload=with_payload))
        return [_Record(str(r.id), r.payload) for r in records], (str(next_offset) if next_offset else None)

    # --- lifecycle ---------------------------------------------------------------------------------
    def optimize(self) -> bool:
        """Build the segments' indexes (HNSW, payload) now. New points land in an appendable segment that is
        scanned in full: below ~6K points per segment that is as fast, at 50K memories per user an optimized
        shard answers a filtered query ~1.6x faster (``bench/REPORT.md``). It blocks the whole interpreter (the
        binding keeps the GIL): ~1 minute for 100K points on 2 cores. Run by ``palace sweep`` and when a process
        closes a shard it wrote ``OPTIMIZE_AFTER`` points to. Returns whether anything changed."""
        changed = False
        for shard in self._shards.values():
            changed = shard.optimize() or changed
        self.unoptimized = 0
        return changed

    def flush(self) -> None:
        for shard in self._shards.values():
            shard.flush()

    def close(self) -> None:
        with self._open_lock:
            if self._refs > 1:
                self._refs -= 1
                return
            self._refs = 0
            if self._open.get(self.root) is self:
                del self._open[self.root]
        if self.unoptimized >= OPTIMIZE_AFTER:
            self.optimize()
        shards, self._shards = list(self._shards.values()), {}
        for shard in shards:
            shard.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None

    def collections(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / "edge_config.json").is_file())


def _read_config(directory: Path) -> Layout:
    raw = json.loads((directory / "edge_config.json").read_text())
    dense = {str(n): int(p["size"]) for n, p in (raw.get("vectors") or {}).items()}
    return Layout(dense=dense, sparse=tuple(str(n) for n in (raw.get("sparse_vectors") or {})))


def _named(value: Any) -> Any:
    if _is(value, "SparseVector"):
        return qe.SparseVector(list(value.indices), [float(v) for v in value.values])
    if isinstance(value, list):
        return [float(v) for v in value]
    raise TypeError(f"unsupported query {type(value).__name__}")


def _vector(value: Any) -> Any:
    if isinstance(value, dict):
        return {n: _named(v) for n, v in value.items()}
    return _named(list(value))


def _filter(flt: Any) -> qe.Filter | None:
    if flt is None:
        return None

    def many(conditions: Any) -> list[Any] | None:
        if conditions is None:
            return None
        items = conditions if isinstance(conditions, list) else [conditions]
        return [_condition(c) for c in items]

    return qe.Filter(must=many(flt.must), should=many(flt.should), must_not=many(flt.must_not))


def _condition(c: Any) -> Any:
    if _is(c, "Filter"):
        return _filter(c)
    if _is(c, "IsEmptyCondition"):
        return qe.IsEmptyCondition(c.is_empty.key)
    if _is(c, "HasIdCondition"):
        return qe.HasIdCondition({str(i) for i in c.has_id})
    if _is(c, "FieldCondition"):
        if _is(c.match, "MatchValue"):
            return qe.FieldCondition(key=c.key, match=qe.MatchValue(c.match.value))
        if _is(c.match, "MatchAny"):
            values: Any = list(c.match.any)
            return qe.FieldCondition(key=c.key, match=qe.MatchAny(values))
        if _is(c.range, "Range"):
            r = c.range
            return qe.FieldCondition(key=c.key, range=qe.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt))
    raise TypeError(f"unsupported filter condition {c!r}")

