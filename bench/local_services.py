"""Throwaway deployments of the engines users scale to, on loopback ports under a temporary directory: a
3-master / 3-replica Redis Cluster (the machine's ``redis-server`` and ``redis-cli --cluster create``) and a
PgBouncer in transaction mode in front of a PostgreSQL. Used by the tests and ``python -m bench failover``.

Every process is started here and stopped here, by its pid; nothing else is touched.
"""

from __future__ import annotations

import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis
from psycopg.conninfo import conninfo_to_dict

from memory.redis_cluster import command


class LocalServiceError(RuntimeError):
    """A local test deployment could not start (the message says which binary and why)."""


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int, *, with_bus: bool = False) -> list[int]:
    """``count`` consecutive free loopback ports (and their cluster-bus ports, +10000, when ``with_bus``)."""
    for _ in range(200):
        base = random.randrange(20_000, 45_000 - count)
        ports = list(range(base, base + count))
        needed = ports + ([p + 10_000 for p in ports] if with_bus else [])
        if all(_port_free(p) for p in needed):
            return ports
    raise LocalServiceError(f"no {count} free consecutive loopback ports")


def _need(binary: str, package: str) -> str:
    path = shutil.which(binary) or shutil.which(binary, path="/usr/sbin:/usr/bin")
    if not path:
        raise LocalServiceError(f"{binary} not found: install Debian's {package} package (apt-get install {package})")
    return path


@dataclass
class RedisNode:
    port: int
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def client(self, timeout_s: float = 2.0) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=timeout_s,
                           socket_timeout=timeout_s)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def answers(self) -> bool:
        """Whether the server answers PING (a connection error while it starts is raised)."""
        client = self.client()
        try:
            return bool(client.ping())
        finally:
            client.close()


@dataclass
class LocalRedisCluster:
    """``masters`` masters with ``replicas`` replicas each. ``node_timeout_ms`` is cluster-node-timeout: how long a
    master may be silent before its replica takes over."""

    root: Path
    masters: int = 3
    replicas: int = 1
    node_timeout_ms: int = 1000
    nodes: list[RedisNode] = field(default_factory=list)

    @property
    def url(self) -> str:
        """Any node: a cluster client discovers the others."""
        return self.nodes[0].url

    def start(self, timeout_s: float = 30.0) -> LocalRedisCluster:
        server, cli = _need("redis-server", "redis-server"), _need("redis-cli", "redis-tools")
        ports = free_ports(self.masters * (1 + self.replicas), with_bus=True)
        self.nodes = [RedisNode(p) for p in ports]
        for node in self.nodes:
            self._spawn(server, node)
        for node in self.nodes:
            _wait(node.answers, timeout_s, f"redis-server on port {node.port}")
        create = subprocess.run(
            [cli, "--cluster", "create", *[f"127.0.0.1:{n.port}" for n in self.nodes],
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            capture_output=True, text=True, timeout=timeout_s)
        if create.returncode != 0:
            self.stop()
            raise LocalServiceError(f"redis-cli --cluster create failed: {(create.stdout + create.stderr)[-800:]}")
        self.wait_healthy(timeout_s)
        return self

    def _spawn(self, server: str, node: RedisNode) -> None:
        work = self.root / str(node.port)
        work.mkdir(parents=True, exist_ok=True)
        node.proc = subprocess.Popen(
            [server, "--port", str(node.port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
             "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", str(self.node_timeout_ms),
             "--appendonly", "no", "--save", "", "--dir", str(work), "--logfile", str(work / "redis.log"),
             "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait_healthy(self, timeout_s: float = 30.0) -> float:
        """Wait until every live node says cluster_state:ok and every master has its replicas linked; returns
        the seconds waited."""
        t0 = time.monotonic()
        _wait(self.healthy, timeout_s, "the Redis Cluster to be healthy")
        return time.monotonic() - t0

    def healthy(self) -> bool:
        live = [n for n in self.nodes if n.alive()]
        try:
            for node in live:
                client = node.client()
                try:
                    info = command(client, "CLUSTER", "INFO")
                    if b"cluster_state:ok" not in info:
                        return False
                    role = command(client, "ROLE")
                    if role[0] == b"master" and len(role[2]) < self.replicas and len(live) == len(self.nodes):
                        return False
                    if role[0] == b"slave" and role[3] != b"connected":
                        return False
                finally:
                    client.close()
        except redis.RedisError:
            return False
        return True

    def masters_now(self) -> list[RedisNode]:
        out = []
        for node in self.nodes:
            if not node.alive():
                continue
            client = node.client()
            try:
                if command(client, "ROLE")[0] == b"master":
                    out.append(node)
            except redis.RedisError:
                continue
            finally:
                client.close()
        return out

    def kill(self, node: RedisNode) -> None:
        """SIGKILL, by pid: no shutdown, no last replication."""
        if node.proc is not None and node.proc.poll() is None:
            os.kill(node.proc.pid, signal.SIGKILL)
            node.proc.wait()

    def restart(self, node: RedisNode) -> None:
        """Start a killed node again on its port and config: it rejoins as a replica of its promoted replica."""
        self._spawn(_need("redis-server", "redis-server"), node)
        _wait(node.answers, 10.0, f"redis-server on port {node.port}")

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.proc.terminate()
        for node in self.nodes:
            if node.proc is not None:
                try:
                    node.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    node.proc.wait()

    def __enter__(self) -> LocalRedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class LocalPgBouncer:
    """Debian's pgbouncer in ``pool_mode = transaction`` in front of ``server_url`` (TCP), trust auth, on a free
    loopback port. pgbouncer refuses to run as root, so as root it runs as the ``postgres`` user."""

    root: Path
    server_url: str
    pool_size: int = 20
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    _owned_root: bool = False

    def url(self, dbname: str | None = None) -> str:
        """``server_url`` (or its ``dbname``), through the bouncer."""
        server = conninfo_to_dict(self.server_url)
        user = server.get("user") or "postgres"
        return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname or server.get('dbname') or 'postgres'}"

    def start(self, timeout_s: float = 15.0) -> LocalPgBouncer:
        binary = _need("pgbouncer", "pgbouncer")
        server = conninfo_to_dict(self.server_url)
        user = str(server.get("user") or "postgres")
        args = [binary]
        if os.geteuid() == 0:
            # pgbouncer refuses root; the postgres user cannot enter pytest's 0700 temporary directories, so the
            # files go to a directory of its own under the system's temporary directory (removed by stop()).
            account = pwd.getpwnam("postgres")
            self.root = Path(tempfile.mkdtemp(prefix="palace-pgbouncer-"))
            self._owned_root = True
            os.chown(self.root, account.pw_uid, account.pw_gid)
            args += ["-u", "postgres"]
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_ports(1)[0]
        (self.root / "userlist.txt").write_text(f'"{user}" ""\n')
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={server.get('host') or '127.0.0.1'} port={server.get('port') or 5432}\n\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.root / 'userlist.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {self.pool_size}\nmax_client_conn = 500\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n"
            f"admin_users = {user}\n")
        self.proc = subprocess.Popen([*args, str(self.root / "pgbouncer.ini")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def up() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                log = self.root / "pgbouncer.log"
                detail = log.read_text()[-500:] if log.exists() else ""
                if self.proc.stderr is not None:
                    detail += self.proc.stderr.read().decode(errors="replace")[-500:]
                raise LocalServiceError(f"pgbouncer exited with {self.proc.returncode}: {detail}")
            psycopg.connect(self.url(), connect_timeout=2).close()
            return True

        _wait(up, timeout_s, f"pgbouncer on port {self.port}")
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._owned_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPgBouncer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except LocalServiceError:
            raise
        except Exception as exc:  # not up yet
            last = exc
        time.sleep(0.05)
    raise LocalServiceError(f"timed out after {timeout_s:.0f} s waiting for {what}" + (f": {last}" if last else ""))
