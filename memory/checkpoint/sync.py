"""``RedisSaver``: LangGraph's checkpointer on plain Redis, sync (redis-py).

Generated from ``aio.py`` by ``tools/gen_sync_saver.py``: edit ``aio.py``, then regenerate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from redis.cluster import RedisCluster

from memory.checkpoint.base import (
    DELETE_THREAD_LUA,
    LOAD_LUA,
    PUT_LUA,
    TOUCH_LUA,
    RedisSaverBase,
    SaverConfig,
    decode_typed,
    text,
    texts,
)
from memory.redis_cluster import RedisClient, eval_durably, open_redis
from memory.redis_errors import redis_unavailable


class RedisSaver(RedisSaverBase, BaseCheckpointSaver[str]):
    """Checkpoints, channel values and pending writes in plain Redis. Closes only a client it opened."""

    def __init__(self, client: RedisClient, *, config: SaverConfig | None = None,
                 serde: SerializerProtocol | None = None, owns_client: bool = False) -> None:
        BaseCheckpointSaver.__init__(self, serde=serde)
        self.client = client
        self.config = config or SaverConfig()
        self._owns_client = owns_client
        self._cluster = isinstance(client, RedisCluster)
        self._put = client.register_script(PUT_LUA)
        self._touch = client.register_script(TOUCH_LUA)
        self._delete = client.register_script(DELETE_THREAD_LUA)
        self._load = client.register_script(LOAD_LUA)

    @classmethod
    @contextmanager
    def from_conn_string(cls, url: str, *, ttl_s: float | None = None, refresh_on_read: bool = True,
                               prefix: str = "palace:cp", serde: SerializerProtocol | None = None,
                               cluster: bool | None = None, wait_replicas: int = 0, wait_timeout_ms: int = 100,
                               failover_wait_s: float = 10.0) -> Iterator[RedisSaver]:
        """Open a client for ``url`` (a Redis Cluster client on a cluster node: ``cluster=None`` asks the server),
        run :meth:`setup`, yield the saver, close the client. On a cluster, ``wait_replicas`` > 0 makes every
        checkpoint wait (``WAIT``, at most ``wait_timeout_ms``) until that many replicas hold it."""
        client = open_redis(url, cluster=cluster, failover_wait_s=failover_wait_s)
        saver = cls(client, config=SaverConfig(prefix=prefix, ttl_s=ttl_s, refresh_on_read=refresh_on_read,
                                               wait_replicas=wait_replicas, wait_timeout_ms=wait_timeout_ms),
                    serde=serde, owns_client=True)
        try:
            saver.setup()
            yield saver
        finally:
            saver.close()

    def setup(self) -> None:
        """Check that the server is reachable and recent enough (plain Redis needs no schema)."""
        with redis_unavailable(self.client):
            self.check_version(self.client.info("server"))

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    # --- writes ------------------------------------------------------------------------------------------
    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        tid, ns, parent = self.parse_config(config)
        cid = checkpoint["id"]
        md = get_checkpoint_metadata(config, metadata)
        fields, values = self.checkpoint_fields(checkpoint, md, parent)
        blobs = self.blob_fields(values, new_versions)
        run_id = md.get("run_id")
        keys, args = self.put_request(tid, ns, cid, fields, blobs, run_id, single_node=not self._cluster)
        with redis_unavailable(self.client):
            if isinstance(self.client, RedisCluster) and self.config.wait_replicas:
                eval_durably(self.client, self._put, keys, args, replicas=self.config.wait_replicas,
                                    timeout_ms=self.config.wait_timeout_ms)
            else:
                self._put(keys=keys, args=args)
            if self._cluster:  # the cross-thread indexes live in other slots
                self._index(tid, run_id, self.run_member(tid, ns, cid))
        return self.make_config(tid, ns, cid)

    def _index(self, tid: str, run_id: Any, member: str) -> None:
        pipe = self.client.pipeline(transaction=False)  # other slots than the thread's: no MULTI
        pipe.sadd(self.threads_key(), tid)
        if run_id:
            pipe.sadd(self.run_key(run_id), member)
            if self.config.ttl_ms:
                pipe.pexpire(self.run_key(run_id), self.config.ttl_ms)
        pipe.execute()

    def _queue_touch(self, pipe: Any, tid: str) -> None:
        if self.config.ttl_ms and not self._cluster:
            self._touch(keys=[self.registry_key(tid)], args=[self.config.ttl_ms], client=pipe)

    def _touch_after(self, tid: str) -> None:
        """On a cluster the TTL refresh follows the pipeline: redis-py sends a script inside a cluster pipeline as
        a bare EVALSHA, which a master that never saw the script (a new or promoted one) refuses."""
        if self.config.ttl_ms and self._cluster:
            self._touch(keys=[self.registry_key(tid)], args=[self.config.ttl_ms])

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        tid, ns, cid = self.parse_config(config)
        if cid is None:
            raise ValueError("put_writes needs config['configurable']['checkpoint_id']")
        key = self.writes_prefix(tid, ns) + cid
        pipe = self.client.pipeline(transaction=True)
        for field, value, overwrite in self.write_fields(writes, task_id, task_path):
            (pipe.hset if overwrite else pipe.hsetnx)(key, field, value)
        pipe.sadd(self.registry_key(tid), key)
        self._queue_touch(pipe, tid)
        with redis_unavailable(self.client):
            pipe.execute()
            self._touch_after(tid)

    # --- reads -------------------------------------------------------------------------------------------
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        tid, ns, cid = self.parse_config(config)
        with redis_unavailable(self.client):
            reply = self._load(keys=[self.index_key(tid, ns), self.blobs_key(tid, ns)],
                                     args=[self.checkpoint_prefix(tid, ns), self.writes_prefix(tid, ns), cid or ""])
            if not reply:
                return None
            cp_fields = _pairs(reply[1])
            checkpoint, metadata, parent = self.decode_checkpoint(cp_fields)
            names = self.blob_field_names(checkpoint)
            raws = reply[3]
            if b"cv" not in cp_fields and names:  # written before channel lists were stored with checkpoints
                raws = self.client.hmget(self.blobs_key(tid, ns), names)
            if self.config.ttl_ms and self.config.refresh_on_read:
                self._touch(keys=[self.registry_key(tid)], args=[self.config.ttl_ms])
        return self.assemble(tid, ns, text(reply[0]), checkpoint, metadata, parent, self.decode_values(names, raws),
                             self.decode_writes(_pairs(reply[2])))

    def list(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None
                    ) -> Iterator[CheckpointTuple]:
        remaining = limit
        with redis_unavailable(self.client):
            if config is not None:
                tid, ns_opt, cid = self.parse_config(config)
                ns_given = "checkpoint_ns" in (config.get("configurable") or {})
                threads = [tid]
            else:
                ns_given, cid = False, None
                threads = sorted(texts(self.client.smembers(self.threads_key())))
            for tid in threads:
                namespaces = [ns_opt] if ns_given else sorted(texts(self.client.smembers(self.ns_key(tid))))
                if not namespaces and config is None:
                    self.client.srem(self.threads_key(), tid)  # the thread expired or was deleted
                for ns in namespaces:
                    if cid is not None:
                        ids = [cid]
                    else:
                        ids = texts(self.client.zrevrangebylex(
                            self.index_key(tid, ns), self.before_bound(before), "-"))
                    for tup in self._load_many(tid, ns, ids, filter):
                        if remaining is not None and remaining <= 0:
                            return
                        yield tup
                        if remaining is not None:
                            remaining -= 1

    def _load_many(self, tid: str, ns: str, ids: Sequence[str], flt: dict[str, Any] | None
                         ) -> Iterator[CheckpointTuple]:
        prefix, wprefix, bkey = self.checkpoint_prefix(tid, ns), self.writes_prefix(tid, ns), self.blobs_key(tid, ns)
        for start in range(0, len(ids), 100):
            chunk = ids[start:start + 100]
            pipe = self.client.pipeline(transaction=False)
            for cid in chunk:
                pipe.hgetall(prefix + cid)
            rows = pipe.execute()
            selected = []
            for cid, fields in zip(chunk, rows, strict=True):
                if not fields:
                    continue
                checkpoint, metadata, parent = self.decode_checkpoint(fields)
                if self.matches(metadata, flt):
                    selected.append((cid, checkpoint, metadata, parent, self.blob_field_names(checkpoint)))
            if not selected:
                continue
            pipe = self.client.pipeline(transaction=False)
            for cid, _, _, _, names in selected:
                pipe.hgetall(wprefix + cid)
                if names:
                    pipe.hmget(bkey, names)
                else:
                    pipe.exists(bkey)  # keeps two replies per checkpoint
            extra = pipe.execute()
            for i, (cid, checkpoint, metadata, parent, names) in enumerate(selected):
                writes, raws = extra[2 * i], extra[2 * i + 1] if names else []
                yield self.assemble(tid, ns, cid, checkpoint, metadata, parent, self.decode_values(names, raws),
                                    self.decode_writes(writes))

    # --- deletion, copy, prune --------------------------------------------------------------------------
    def delete_thread(self, thread_id: str) -> None:
        tid = str(thread_id)
        with redis_unavailable(self.client):
            self._delete(keys=[self.registry_key(tid), self.ns_key(tid)])
            self.client.srem(self.threads_key(), tid)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        with redis_unavailable(self.client):
            for run_id in run_ids:
                run_key = self.run_key(run_id)
                members = self.client.smembers(run_key)
                for member in members:
                    tid, ns, cid = self.parse_run_member(member)
                    self._drop_checkpoints(tid, ns, [cid])
                self.client.delete(run_key)

    def _drop_checkpoints(self, tid: str, ns: str, ids: Sequence[str]) -> None:
        if not ids:
            return
        keys = [self.checkpoint_prefix(tid, ns) + c for c in ids] + [self.writes_prefix(tid, ns) + c for c in ids]
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(*keys)
        pipe.zrem(self.index_key(tid, ns), *ids)
        pipe.srem(self.registry_key(tid), *keys)
        pipe.execute()

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        src, dst = str(source_thread_id), str(target_thread_id)
        with redis_unavailable(self.client):
            for ns in sorted(texts(self.client.smembers(self.ns_key(src)))):
                ids = texts(self.client.zrange(self.index_key(src, ns), 0, -1))
                pipe = self.client.pipeline(transaction=False)
                for cid in ids:
                    pipe.hgetall(self.checkpoint_prefix(src, ns) + cid)
                    pipe.hgetall(self.writes_prefix(src, ns) + cid)
                pipe.hgetall(self.blobs_key(src, ns))
                rows = pipe.execute()
                out = self.client.pipeline(transaction=True)
                new_keys = [self.index_key(dst, ns), self.blobs_key(dst, ns), self.ns_key(dst)]
                runs: list[tuple[Any, str]] = []
                for i, cid in enumerate(ids):
                    cp_fields, w_fields = rows[2 * i], rows[2 * i + 1]
                    if not cp_fields:
                        continue
                    ck = self.checkpoint_prefix(dst, ns) + cid
                    out.hset(ck, mapping=cp_fields)
                    new_keys.append(ck)
                    if w_fields:
                        wk = self.writes_prefix(dst, ns) + cid
                        out.hset(wk, mapping=w_fields)
                        new_keys.append(wk)
                    out.zadd(self.index_key(dst, ns), {cid: 0})
                    runs.append((self.decode_checkpoint(cp_fields)[1].get("run_id"), cid))
                if rows[-1]:
                    out.hset(self.blobs_key(dst, ns), mapping=rows[-1])
                out.sadd(self.ns_key(dst), ns)
                out.sadd(self.registry_key(dst), *new_keys)
                self._queue_touch(out, dst)
                out.execute()
                self._touch_after(dst)
                for run_id, cid in runs:
                    self._index(dst, run_id, self.run_member(dst, ns, cid))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"unknown prune strategy {strategy!r}: use 'keep_latest' or 'delete'")
        for thread_id in thread_ids:
            tid = str(thread_id)
            if strategy == "delete":
                self.delete_thread(tid)
                continue
            with redis_unavailable(self.client):
                for ns in texts(self.client.smembers(self.ns_key(tid))):
                    ids = texts(self.client.zrange(self.index_key(tid, ns), 0, -1))
                    if len(ids) <= 1:
                        continue
                    latest = self.client.hget(self.checkpoint_prefix(tid, ns) + ids[-1], "ck")
                    self._drop_checkpoints(tid, ns, ids[:-1])
                    if latest is not None:
                        keep = set(self.blob_field_names(self.serde.loads_typed(decode_typed(latest))))
                        stale = [f for f in texts(self.client.hkeys(self.blobs_key(tid, ns)))
                                 if f not in keep]
                        if stale:
                            self.client.hdel(self.blobs_key(tid, ns), *stale)


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}
