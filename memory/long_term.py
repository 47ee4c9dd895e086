"""Long-term semantic memory in Qdrant (DESIGN.md "Long-term memory").

Every read and write is scoped to one ``user_id``: searches filter on it, and point-level operations check it,
so one user can never see or change another's memories. Point ids are deterministic (uuid5 of the user and a
caller-chosen key), so a retried write lands on the same point instead of adding a duplicate.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import qdrant_edge as qe
from pydantic import BaseModel, Field

from memory import qdrant_models
from memory.edge import EdgeClient
from memory.errors import InvalidInputError, NotFoundError, ServiceUnavailableError
from memory.validation import check_id, check_text

Status = Literal["active", "superseded", "disputed"]
STATUSES: tuple[Status, ...] = ("active", "superseded", "disputed")
DENSE = "dense"  # the embedder's vector
SPARSE = "bm25"  # BM25 term weights; Qdrant applies the IDF (Modifier.IDF) over the collection
if TYPE_CHECKING:  # qdrant_client loads only for a Qdrant server or local mode (about 1-2 s to import)
    from qdrant_client import QdrantClient
Client: TypeAlias = "QdrantClient | EdgeClient"
_NAMESPACE = uuid.UUID("5b0c7c52-4f8e-4d3e-9c55-6d656d6f7279")
_INDEXES: dict[str, str] = {  # payload field -> PayloadSchemaType member
    "timestamp": "INTEGER",
    "event_time": "INTEGER",
    "status": "KEYWORD",
    "session_id": "KEYWORD",
    "source": "KEYWORD",
    "origin": "KEYWORD",
}


def models_for(client: Client) -> ModuleType:
    """The request models for ``client``: plain copies for Qdrant Edge, ``qdrant_client.models`` otherwise."""
    if isinstance(client, EdgeClient):
        return qdrant_models
    from qdrant_client import models

    return models


def memory_id(user_id: str, key: str) -> str:
    """The deterministic point id of the memory ``key`` of ``user_id``."""
    return str(uuid.uuid5(_NAMESPACE, f"{user_id}\x1f{key}"))


class Memory(BaseModel):
    """One long-term memory: the point payload of DESIGN.md plus its id."""

    id: str
    text: str
    detail: str = ""
    user_id: str
    session_id: str
    timestamp: int = Field(description="ms since epoch, when recorded")
    event_time: int | None = Field(default=None, description="ms since epoch, when it happened")
    decay_weight: float = 1.0
    ref_count: int = 0
    last_accessed: int | None = None
    status: Status = "active"
    invalid_at: int | None = None
    superseded_by: str | None = None
    conflicts_with: str | None = Field(default=None, description="a disputed memory: the one it contradicts")
    source: list[str] = Field(default_factory=list)
    follows: list[str] = Field(default_factory=list, description="older memories about the same subject")
    follows_named: list[str] = Field(default_factory=list, description="those of follows it shares an entity with")
    replaces: list[str] = Field(default_factory=list, description="the memory it superseded when it was written")
    followed_by: list[str] = Field(default_factory=list, description="newer memories about the same subject")
    origin: str = Field(default="", description='what wrote it, e.g. "archive:<first entry id>" or "turn:<id>"')

    def payload(self) -> dict[str, Any]:
        return self.model_dump(exclude={"id"})


@dataclass(frozen=True)
class TimeWindow:
    """A half-open window [start_ms, end_ms) in ms since the epoch."""

    start_ms: int
    end_ms: int

    def __post_init__(self) -> None:
        if self.end_ms <= self.start_ms:
            raise InvalidInputError(f"time window ends ({self.end_ms}) before it starts ({self.start_ms})")

    @classmethod
    def between(cls, start: datetime, end: datetime) -> TimeWindow:
        """The window from ``start`` to ``end`` (timezone-aware; a parsed time phrase's window) in ms."""
        return cls(int(start.timestamp() * 1000), int(end.timestamp() * 1000))


@dataclass(frozen=True)
class Hit:
    memory: Memory
    cosine: float


@dataclass(frozen=True)
class HybridHit:
    """A candidate of a hybrid search: its cosine and BM25 scores, None where that search did not return it."""

    memory: Memory
    cosine: float | None
    lexical: float | None


def bm25_model() -> qe.Bm25:
    """BM25 term weights for English and Chinese: Qdrant's multilingual tokenizer (it segments Chinese words),
    English stemming and stopwords. Qdrant Edge's encoder, so it needs no model download and runs anywhere."""
    return qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Multilingual, language="english"))


def describe_qdrant(client: Client) -> str:
    if isinstance(client, EdgeClient):
        return f"edge:{client.location}"
    inner = getattr(client, "_client", None)
    location = getattr(inner, "location", None)
    if location:
        return f"local:{location}"
    rest = getattr(inner, "rest_uri", None)
    return str(rest or "qdrant")


def is_local(client: Client) -> bool:
    """In process (local mode or Edge): calls must be serialised by the caller."""
    if isinstance(client, EdgeClient):
        return True
    return type(getattr(client, "_client", None)).__name__ == "QdrantLocal"


@contextmanager
def qdrant_unavailable(client: Client) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        unreachable: tuple[type[BaseException], ...] = (ConnectionError, OSError)
        if not isinstance(client, EdgeClient):  # a server or local mode: qdrant_client is loaded already
            from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

            if isinstance(exc, UnexpectedResponse):
                raise ServiceUnavailableError("Qdrant", describe_qdrant(client),
                                              f"HTTP {exc.status_code}: {exc.content!r}") from exc
            unreachable += (ResponseHandlingException,)
        if isinstance(exc, unreachable):
            raise ServiceUnavailableError("Qdrant", describe_qdrant(client), str(exc) or type(exc).__name__,
                                          fix="start Qdrant or check PALACE_QDRANT_URL") from exc
        raise


class LongTermMemory:
    """Qdrant adapter for one collection. Takes an injected client and never closes it."""

    def __init__(self, client: Client, collection: str = "memories", *, max_id_length: int = 128,
                 max_text_chars: int = 20_000) -> None:
        self.client = client
        self._m = models_for(client)
        self.collection = collection
        self.max_id_length = max_id_length
        self.max_text_chars = max_text_chars
        # Qdrant's local mode is plain Python without locks; the LangGraph server runs sync nodes in threads.
        # (one lock per Edge client, however many stores share it)
        self._lock = client.lock if isinstance(client, EdgeClient) else threading.RLock() if is_local(client) else None
        self._bm25 = bm25_model()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold this store's lock (in-process engines) for maintenance on the client, e.g. optimizing."""
        with self._io():
            yield

    @contextmanager
    def _io(self) -> Iterator[None]:
        with qdrant_unavailable(self.client):
            if self._lock is None:
                yield
                return
            with self._lock:
                yield

    # --- setup ---------------------------------------------------------------------------------------
    def setup(self, vector_size: int) -> None:
        """Create the collection (dense cosine ``vector_size`` + sparse BM25) and its payload indexes if missing;
        check that an existing one has the same layout."""
        with self._io():
            if not self.client.collection_exists(self.collection):
                self.client.create_collection(
                    self.collection,
                    vectors_config={DENSE: self._m.VectorParams(size=vector_size, distance=self._m.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: self._m.SparseVectorParams(modifier=self._m.Modifier.IDF)},
                )
                self._create_indexes()
            dense, sparse = self._layout()
        if SPARSE not in sparse or DENSE not in dense:
            raise InvalidInputError(
                f"collection {self.collection!r} has the old single-vector layout (no {DENSE!r} + {SPARSE!r} "
                "vectors), which hybrid search needs; it is left untouched: set PALACE_QDRANT_COLLECTION to a new name"
            )
        if dense[DENSE] != vector_size:
            raise InvalidInputError(
                f"collection {self.collection!r} holds {dense[DENSE]}-dimensional vectors but the embedder gives "
                f"{vector_size}: use another PALACE_QDRANT_COLLECTION or the embedder it was built with"
            )

    def _layout(self) -> tuple[dict[str, int], tuple[str, ...]]:
        if isinstance(self.client, EdgeClient):
            layout = self.client.layout(self.collection)
            return layout.dense, layout.sparse
        params = self.client.get_collection(self.collection).config.params
        vectors = params.vectors
        dense = ({n: v.size for n, v in vectors.items()} if isinstance(vectors, dict)
                 else {"": vectors.size} if isinstance(vectors, self._m.VectorParams) else {})
        return dense, tuple(params.sparse_vectors or {})

    def _create_indexes(self) -> None:
        if is_local(self.client) and not isinstance(self.client, EdgeClient):
            return  # local mode ignores payload indexes (and warns about each); its filters run in Python
        self.client.create_payload_index(
            self.collection, "user_id",
            field_schema=self._m.KeywordIndexParams(type=self._m.KeywordIndexType.KEYWORD, is_tenant=True),
        )
        for name, schema in _INDEXES.items():
            self.client.create_payload_index(self.collection, name,
                                             field_schema=getattr(self._m.PayloadSchemaType, schema))

    # --- writes --------------------------------------------------------------------------------------
    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]]) -> None:
        """Insert or replace memories (same id: same point). Waits until Qdrant has applied the write."""
        if len(memories) != len(vectors):
            raise InvalidInputError(f"{len(memories)} memories but {len(vectors)} vectors")
        for m in memories:
            self._check_memory(m)
        points = [self._m.PointStruct(id=m.id, vector={DENSE: list(v), SPARSE: self._sparse_document(m.text)},
                                     payload=m.payload())
                  for m, v in zip(memories, vectors, strict=True)]
        if points:
            with self._io():
                self.client.upsert(self.collection, points=points, wait=True)

    def _sparse_document(self, text: str) -> Any:
        v = self._bm25.embed_document(text)
        return self._m.SparseVector(indices=list(v.indices), values=list(v.values))

    def _sparse_query(self, text: str) -> Any:
        v = self._bm25.embed_query(text)
        return self._m.SparseVector(indices=list(v.indices), values=list(v.values))

    def _check_memory(self, m: Memory) -> None:
        check_id("user id", m.user_id, max_length=self.max_id_length)
        check_id("session id", m.session_id, max_length=self.max_id_length)
        check_text("memory text", m.text, max_chars=self.max_text_chars)
        try:
            uuid.UUID(m.id)
        except ValueError as exc:
            raise InvalidInputError(f"memory id {m.id!r} is not a UUID") from exc

    def bump_refs(self, user_id: str, ids: Sequence[str], now_ms: int) -> int:
        """Count one more use of each memory of ``user_id`` in ``ids``; returns how many were updated."""
        owned = self.get(user_id, ids)
        if owned:
            operations: list[Any] = [
                self._m.SetPayloadOperation(set_payload=self._m.SetPayload(
                    payload={"ref_count": m.ref_count + 1, "last_accessed": now_ms}, points=[m.id]))
                for m in owned
            ]
            with self._io():  # one request for all of them
                self.client.batch_update_points(self.collection, update_operations=operations, wait=True)
        return len(owned)

    def set_status(self, user_id: str, memory_id_: str, status: Status, now_ms: int) -> Memory:
        """Change the status of one memory of ``user_id`` (e.g. confirm a disputed one)."""
        if status not in STATUSES:
            raise InvalidInputError(f"status {status!r} is not one of {', '.join(STATUSES)}")
        memory = self._get_one(user_id, memory_id_)
        changes: dict[str, Any] = {"status": status}
        changes["invalid_at"] = now_ms if status == "superseded" else None
        with self._io():
            self.client.set_payload(self.collection, changes, points=[memory.id], wait=True)
        return memory.model_copy(update=changes)

    def supersede(self, user_id: str, old_id: str, new_id: str | None, now_ms: int) -> Memory:
        """Mark a memory as replaced (kept, with ``invalid_at``), optionally naming its successor."""
        memory = self._get_one(user_id, old_id)
        changes: dict[str, Any] = {"status": "superseded", "invalid_at": now_ms, "superseded_by": new_id}
        with self._io():
            self.client.set_payload(self.collection, changes, points=[memory.id], wait=True)
        return memory.model_copy(update=changes)

    def reactivate(self, user_id: str, memory_id_: str) -> Memory:
        """Make a superseded, merged or disputed memory active again (``palace memories restore``)."""
        memory = self._get_one(user_id, memory_id_)
        changes: dict[str, Any] = {"status": "active", "invalid_at": None, "superseded_by": None,
                                   "conflicts_with": None}
        with self._io():
            self.client.set_payload(self.collection, changes, points=[memory.id], wait=True)
        return memory.model_copy(update=changes)

    def add_followers(self, user_id: str, memory_id_: str, followers: Sequence[str]) -> Memory:
        """Record that ``followers`` (newer memories about the same subject) follow one memory of ``user_id``."""
        memory = self._get_one(user_id, memory_id_)
        merged = list(dict.fromkeys([*memory.followed_by, *followers]))
        if merged != memory.followed_by:
            with self._io():
                self.client.set_payload(self.collection, {"followed_by": merged}, points=[memory.id], wait=True)
        return memory.model_copy(update={"followed_by": merged})

    def set_weight(self, user_id: str, memory_id_: str, weight: float) -> Memory:
        """Set the decay weight (2.0: the user marked it important)."""
        if not weight > 0:
            raise InvalidInputError(f"decay weight must be > 0, got {weight}")
        memory = self._get_one(user_id, memory_id_)
        with self._io():
            self.client.set_payload(self.collection, {"decay_weight": weight}, points=[memory.id], wait=True)
        return memory.model_copy(update={"decay_weight": weight})

    def delete_ids(self, user_id: str, ids: Sequence[str]) -> int:
        """Delete memories of ``user_id`` by id; ids of other users are ignored. Returns how many went."""
        owned: list[Any] = [m.id for m in self.get(user_id, ids)]
        if owned:
            with self._io():
                self.client.delete(self.collection, points_selector=self._m.PointIdsList(points=owned), wait=True)
        return len(owned)

    def delete_user(self, user_id: str) -> int:
        """Delete every memory of ``user_id``. Returns how many went."""
        return self._delete_where(self._user_filter(user_id))

    def delete_by_source(self, user_id: str, sources: Sequence[str]) -> int:
        """Delete the memories of ``user_id`` derived from any of ``sources`` (short-term entry or turn ids)."""
        if not sources:
            return 0
        flt = self._user_filter(user_id, self._m.FieldCondition(key="source",
                                                                match=self._m.MatchAny(any=list(sources))))
        return self._delete_where(flt)

    def delete_by_origin(self, user_id: str, origin: str) -> int:
        """Delete the memories of ``user_id`` written by one origin (one archive batch, one turn)."""
        if not origin:
            raise InvalidInputError("origin is empty")
        return self._delete_where(self._user_filter(
            user_id, self._m.FieldCondition(key="origin", match=self._m.MatchValue(value=origin))))

    def _delete_where(self, flt: Any) -> int:
        with self._io():
            count = self.client.count(self.collection, count_filter=flt, exact=True).count
            if count:
                self.client.delete(self.collection, points_selector=self._m.FilterSelector(filter=flt), wait=True)
        return count

    # --- reads ---------------------------------------------------------------------------------------
    def search(
        self,
        user_id: str,
        vector: Sequence[float],
        *,
        limit: int = 20,
        window: TimeWindow | None = None,
        statuses: Sequence[Status] = ("active",),
        recorded_before: int | None = None,
    ) -> list[Hit]:
        """The ``limit`` memories of ``user_id`` nearest to ``vector`` (cosine), optionally inside ``window``.

        A memory is inside the window if its ``event_time`` (when it happened) or its ``timestamp`` (when it was
        said) is: "what did I tell you on May 2nd" asks about the second, "what did I do in June" the first.
        ``recorded_before`` (ms) leaves out memories recorded at or after it: as of a time, later ones do not exist.
        """
        if limit <= 0:
            raise InvalidInputError(f"search limit must be > 0, got {limit}")
        flt = self._search_filter(user_id, window, statuses, recorded_before)
        with self._io():
            response = self.client.query_points(self.collection, query=list(vector), using=DENSE, query_filter=flt,
                                                limit=limit, with_payload=True)
        return [Hit(memory=self._to_memory(p.id, p.payload), cosine=float(p.score)) for p in response.points]

    def hybrid_search(
        self,
        user_id: str,
        vector: Sequence[float],
        text: str,
        *,
        limit: int = 20,
        window: TimeWindow | None = None,
        statuses: Sequence[Status] = ("active",),
        recorded_before: int | None = None,
        exact_cosine: bool = True,
    ) -> list[HybridHit]:
        """The union of the ``limit`` nearest memories by cosine and the ``limit`` best by BM25 for ``text``
        (one batched request), each with both scores: what one search missed is scored by a follow-up request on
        its ids (a memory sharing no term with ``text`` keeps BM25 None; ``exact_cosine=False``: no follow-up, None
        where a search missed it). Same filters as :meth:`search`."""
        if limit <= 0:
            raise InvalidInputError(f"search limit must be > 0, got {limit}")
        flt = self._search_filter(user_id, window, statuses, recorded_before)
        requests = [self._m.QueryRequest(query=list(vector), using=DENSE, filter=flt, limit=limit, with_payload=True)]
        sparse = self._sparse_query(text)
        if sparse.indices:  # a query of stopwords only has no terms
            requests.append(self._m.QueryRequest(query=sparse, using=SPARSE, filter=flt, limit=limit,
                                                with_payload=True))
        with self._io():
            responses: Sequence[Any] = self.client.query_batch_points(self.collection, requests=requests)
        memories: dict[str, Memory] = {}
        cosine: dict[str, float] = {}
        lexical: dict[str, float] = {}
        for response, scores in zip(responses, (cosine, lexical), strict=False):
            for p in response.points:
                key = str(p.id)
                memories.setdefault(key, self._to_memory(p.id, p.payload))
                scores[key] = float(p.score)
        no_cosine = [k for k in lexical if k not in cosine] if exact_cosine else []
        # BM25 scores of what only the dense search found, when BM25 may have cut them off (a full list)
        no_lexical = [k for k in cosine if k not in lexical] if exact_cosine and len(lexical) >= limit else []
        follow_up = []
        if no_cosine:  # each candidate's own cosine, so the rerank need not guess it
            follow_up.append((cosine, self._m.QueryRequest(
                query=list(vector), using=DENSE, limit=len(no_cosine), with_payload=False,
                filter=self._m.Filter(must=[flt, self._m.HasIdCondition(has_id=no_cosine)]))))
        if no_lexical:
            follow_up.append((lexical, self._m.QueryRequest(
                query=sparse, using=SPARSE, limit=len(no_lexical), with_payload=False,
                filter=self._m.Filter(must=[flt, self._m.HasIdCondition(has_id=no_lexical)]))))
        if follow_up:
            with self._io():
                more: Sequence[Any] = self.client.query_batch_points(self.collection,
                                                                     requests=[r for _, r in follow_up])
            for (scores, _), response in zip(follow_up, more, strict=True):
                scores.update((str(p.id), float(p.score)) for p in response.points)
        return [HybridHit(memory=m, cosine=cosine.get(k), lexical=lexical.get(k)) for k, m in memories.items()]

    def get(self, user_id: str, ids: Sequence[str]) -> list[Memory]:
        """The memories of ``user_id`` among ``ids`` (unknown ids and other users' ids are left out)."""
        check_id("user id", user_id, max_length=self.max_id_length)
        valid = [i for i in dict.fromkeys(ids) if _is_uuid(i)]
        if not valid:
            return []
        with self._io():
            records = self.client.retrieve(self.collection, ids=valid, with_payload=True)
        memories = [self._to_memory(r.id, r.payload) for r in records]
        return [m for m in memories if m.user_id == user_id]

    def vectors(self, user_id: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored (unit) vectors of the memories of ``user_id`` among ``ids``, by id (one request; unknown
        ids and other users' are left out)."""
        check_id("user id", user_id, max_length=self.max_id_length)
        valid = [i for i in dict.fromkeys(ids) if _is_uuid(i)]
        if not valid:
            return {}
        with self._io():
            records = self.client.retrieve(self.collection, ids=valid, with_payload=True, with_vectors=[DENSE])
        out: dict[str, list[float]] = {}
        for r in records:
            vector: Any = r.vector.get(DENSE) if isinstance(r.vector, dict) else r.vector
            if (r.payload or {}).get("user_id") == user_id and isinstance(vector, list):
                out[str(r.id)] = [float(x) for x in vector]
        return out

    def scored(self, user_id: str, ids: Sequence[str], vector: Sequence[float], *,
               statuses: Sequence[Status] = ("active",), recorded_before: int | None = None) -> list[Hit]:
        """The memories of ``user_id`` among ``ids`` with their cosine to ``vector`` (one request; unknown ids,
        other users' and other statuses are left out)."""
        valid = [i for i in dict.fromkeys(ids) if _is_uuid(i)]
        if not valid:
            return []
        flt = self._m.Filter(must=[self._search_filter(user_id, None, statuses, recorded_before),
                                   self._m.HasIdCondition(has_id=valid)])
        with self._io():
            response = self.client.query_points(self.collection, query=list(vector), using=DENSE, query_filter=flt,
                                                limit=len(valid), with_payload=True)
        return [Hit(memory=self._to_memory(p.id, p.payload), cosine=float(p.score)) for p in response.points]

    def _get_one(self, user_id: str, memory_id_: str) -> Memory:
        found = self.get(user_id, [memory_id_])
        if not found:
            raise NotFoundError(f"no memory {memory_id_!r} for user {user_id!r}")
        return found[0]

    def scroll(self, user_id: str, *, statuses: Sequence[Status] = STATUSES, batch: int = 256) -> Iterator[Memory]:
        """Every memory of ``user_id`` (in id order), for listing and export."""
        flt = self._search_filter(user_id, None, statuses)
        offset: Any = None
        while True:
            with self._io():
                records, offset = self.client.scroll(self.collection, scroll_filter=flt, limit=batch, offset=offset,
                                                     with_payload=True)
            for r in records:
                yield self._to_memory(r.id, r.payload)
            if offset is None:
                return

    def count(self, user_id: str, *, statuses: Sequence[Status] = STATUSES) -> int:
        with self._io():
            return self.client.count(self.collection, count_filter=self._search_filter(user_id, None, statuses),
                                     exact=True).count

    # --- filters -------------------------------------------------------------------------------------
    def _user_filter(self, user_id: str, *extra: Any) -> Any:
        check_id("user id", user_id, max_length=self.max_id_length)
        return self._m.Filter(must=[self._m.FieldCondition(key="user_id", match=self._m.MatchValue(value=user_id)),
                                   *extra])

    def _search_filter(self, user_id: str, window: TimeWindow | None, statuses: Sequence[Status],
                       recorded_before: int | None = None) -> Any:
        bad = [s for s in statuses if s not in STATUSES]
        if bad or not statuses:
            raise InvalidInputError(f"statuses must be a non-empty subset of {', '.join(STATUSES)}, got {statuses!r}")
        conditions: list[Any] = [
            self._m.FieldCondition(key="status", match=self._m.MatchAny(any=[str(s) for s in statuses]))
        ]
        if window is not None:
            span = self._m.Range(gte=window.start_ms, lt=window.end_ms)
            conditions.append(self._m.Filter(should=[
                self._m.FieldCondition(key="event_time", range=span),
                self._m.FieldCondition(key="timestamp", range=span),
            ]))
        if recorded_before is not None:
            conditions.append(self._m.FieldCondition(key="timestamp", range=self._m.Range(lt=recorded_before)))
        return self._user_filter(user_id, *conditions)

    @staticmethod
    def _to_memory(point_id: Any, payload: dict[str, Any] | None) -> Memory:
        return Memory(id=str(point_id), **(payload or {}))


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True
