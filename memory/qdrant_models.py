"""Plain copies of the few ``qdrant_client.models`` that :class:`~memory.long_term.LongTermMemory` sends to Qdrant
Edge, with the same names, fields and enum values.

Importing ``qdrant_client`` costs one to two seconds (hundreds of pydantic models and both client stacks); the
embedded default, Qdrant Edge, needs none of it, so a CLI command on Edge never loads it. A Qdrant server or
local mode gets the real models (``qdrant_client`` is loaded then anyway). :class:`~memory.edge.EdgeClient`
reads either kind by shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Distance(StrEnum):
    COSINE = "Cosine"
    EUCLID = "Euclid"
    DOT = "Dot"
    MANHATTAN = "Manhattan"


class Modifier(StrEnum):
    NONE = "none"
    IDF = "idf"


class PayloadSchemaType(StrEnum):
    KEYWORD = "keyword"
    INTEGER = "integer"
    FLOAT = "float"
    BOOL = "bool"


class KeywordIndexType(StrEnum):
    KEYWORD = "keyword"


@dataclass
class VectorParams:
    size: int
    distance: Distance


@dataclass
class SparseVectorParams:
    modifier: Modifier | None = None


@dataclass
class KeywordIndexParams:
    type: KeywordIndexType
    is_tenant: bool | None = None


@dataclass
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass
class PointStruct:
    id: str
    vector: Any
    payload: dict[str, Any] | None = None


@dataclass
class MatchValue:
    value: Any


@dataclass
class MatchAny:
    any: list[Any]


@dataclass
class Range:
    gte: float | None = None
    gt: float | None = None
    lte: float | None = None
    lt: float | None = None


@dataclass
class FieldCondition:
    key: str
    match: MatchValue | MatchAny | None = None
    range: Range | None = None


@dataclass
class Filter:
    must: list[Any] | None = None
    should: list[Any] | None = None
    must_not: list[Any] | None = None


@dataclass
class HasIdCondition:
    has_id: list[Any]


@dataclass
class QueryRequest:
    query: Any
    using: str | None = None
    filter: Filter | None = None
    limit: int | None = None
    with_payload: bool | None = None


@dataclass
class PointIdsList:
    points: list[Any]


@dataclass
class FilterSelector:
    filter: Filter


@dataclass
class SetPayload:
    payload: dict[str, Any]
    points: list[Any] | None = None


@dataclass
class SetPayloadOperation:
    set_payload: SetPayload
