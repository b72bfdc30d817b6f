"""A throwaway Redis Cluster on loopback: 3 masters and 3 replicas.

Used by the tests (``tests/python/conftest.py``), the Rust tests
(``crates/roving-store/tests/cluster.rs`` runs this file as a script) and the
``cluster`` bench experiment. Standard library only, so that it runs as a
plain script too::

    python3 python/roving/bench/redis_cluster.py serve   # prints one JSON
    # line {"nodes": ["redis://127.0.0.1:P", ...], "dir": ...}, then keeps
    # the cluster up until its standard input closes or it gets SIGTERM.

It needs ``redis-server`` and ``redis-cli`` (Debian's package
``redis-server``); a cluster that cannot start raises :class:`ClusterError`
(tests that need it fail, they are not skipped).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Masters and replicas (one replica per master).
MASTERS = 3
REPLICAS = 3
#: How long a master may be silent before its replica takes over (ms).
NODE_TIMEOUT_MS = 1000


class ClusterError(RuntimeError):
    """The cluster could not be started (or a node could not be restarted)."""


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(n: int) -> list[int]:
    """``n`` consecutive free ports whose cluster bus ports (+10000) are free too."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 30000 - n)
        ports = list(range(base, base + n))
        if all(_port_free(p) and _port_free(p + 10000) for p in ports):
            return ports
    raise ClusterError("no free loopback ports for a Redis Cluster")


def _binary(name: str) -> str:
    path = shutil.which(name) or (
        f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None
    )
    if path is None:
        raise ClusterError(
            f"{name} is not installed: install Debian's package redis-server "
            "(apt-get install -y redis-server; `make test` does it)"
        )
    return path


class RedisCluster:
    """A 3-master, 3-replica Redis Cluster in a temporary directory.

    ``with RedisCluster() as c: c.urls`` (or :meth:`start` / :meth:`stop`).
    :meth:`kill` and :meth:`restart` let a test take a node down and back.
    """

    def __init__(self, node_timeout_ms: int = NODE_TIMEOUT_MS) -> None:
        self.node_timeout_ms = node_timeout_ms
        self.ports: list[int] = []
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.dir: Path | None = None
        self._own_dir = False

    @property
    def urls(self) -> list[str]:
        """``redis://127.0.0.1:P`` of every node."""
        return [f"redis://127.0.0.1:{p}" for p in self.ports]

    def cli(self, port: int, *args: str, timeout: float = 10.0, stdin: bytes | None = None) -> str:
        """``redis-cli -p port args...``: its output (raises on failure).
        ``stdin`` is its standard input (the last argument with ``-x``, which
        may hold any byte)."""
        out = subprocess.run(
            [_binary("redis-cli"), "-h", "127.0.0.1", "-p", str(port), *args],
            capture_output=True,
            timeout=timeout,
            check=False,
            input=stdin,
        )
        if out.returncode != 0:
            raise ClusterError(
                f"redis-cli -p {port} {' '.join(args)}: {out.stderr.decode(errors='replace')}"
            )
        return out.stdout.decode(errors="replace")

    def _spawn(self, port: int) -> None:
        assert self.dir is not None
        d = self.dir / str(port)
        d.mkdir(exist_ok=True)
        args = [
            _binary("redis-server"),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--protected-mode", "no",
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(d / "nodes.conf"),
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--appendonly", "yes",
            # A replica (re)joining syncs at once, not after the default
            # 5 s wait for more replicas.
            "--repl-diskless-sync-delay", "0",
            "--save", "",
            "--dir", str(d),
            "--logfile", str(d / "redis.log"),
            "--daemonize", "no",
        ]  # fmt: skip
        self.procs[port] = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )

    def _wait_answers(self, port: int, deadline: float) -> None:
        while True:
            proc = self.procs[port]
            if proc.poll() is not None:
                raise ClusterError(
                    f"redis-server on port {port} exited ({proc.returncode}); see its redis.log"
                )
            try:
                if self.cli(port, "PING", timeout=2).strip() == "PONG":
                    return
            except (ClusterError, subprocess.TimeoutExpired):
                pass
            if time.monotonic() > deadline:
                raise ClusterError(f"redis-server on port {port} did not answer PING")
            time.sleep(0.05)

    def start(self, timeout: float = 60.0) -> RedisCluster:
        """Starts the nodes, creates the cluster, waits for ``cluster_state:ok``."""
        if self.dir is None:
            self.dir = Path(tempfile.mkdtemp(prefix="roving-redis-cluster-"))
            self._own_dir = True
        deadline = time.monotonic() + timeout
        try:
            self.ports = _free_ports(MASTERS + REPLICAS)
            for p in self.ports:
                self._spawn(p)
            for p in self.ports:
                self._wait_answers(p, deadline)
            self.cli(
                self.ports[0],
                "--cluster",
                "create",
                *[f"127.0.0.1:{p}" for p in self.ports],
                "--cluster-replicas",
                str(REPLICAS // MASTERS),
                "--cluster-yes",
                timeout=max(5.0, deadline - time.monotonic()),
            )
            self.wait_ok(deadline - time.monotonic())
        except BaseException:
            self.stop()
            raise
        return self

    def _state_ok(self, port: int) -> bool:
        try:
            info = self.cli(port, "CLUSTER", "INFO", timeout=2)
        except (ClusterError, subprocess.TimeoutExpired):
            return False
        return "cluster_state:ok" in info

    def masters(self) -> list[int]:
        """Ports of the nodes that are masters now (as a live node sees it)."""
        for p in self.live_ports():
            try:
                text = self.cli(p, "CLUSTER", "NODES", timeout=2)
            except (ClusterError, subprocess.TimeoutExpired):
                continue
            out = []
            for line in text.splitlines():
                f = line.split()
                if len(f) > 2 and "master" in f[2].split(",") and "fail" not in f[2]:
                    out.append(int(f[1].split("@")[0].rsplit(":", 1)[1]))
            return sorted(out)
        raise ClusterError("no node of the cluster answers")

    def live_ports(self) -> list[int]:
        return [p for p in self.ports if p in self.procs and self.procs[p].poll() is None]

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Waits until every live node says ``cluster_state:ok``, each of the
        3 slot ranges has a master, and every master has a replica that
        is in sync (``master_link_status:up``)."""
        deadline = time.monotonic() + timeout
        while True:
            if all(self._state_ok(p) for p in self.live_ports()) and self._replicated():
                return
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"the cluster on ports {self.ports} did not reach cluster_state:ok "
                    f"with every master replicated within {timeout:.0f} s"
                )
            time.sleep(0.1)

    def _replicated(self) -> bool:
        try:
            masters = self.masters()
        except ClusterError:
            return False
        if len(masters) != MASTERS:
            return False
        for m in masters:
            try:
                info = self.cli(m, "INFO", "replication", timeout=2)
            except (ClusterError, subprocess.TimeoutExpired):
                return False
            if "connected_slaves:0" in info or "connected_slaves:" not in info:
                return False
        for p in self.live_ports():
            if p in masters:
                continue
            try:
                info = self.cli(p, "INFO", "replication", timeout=2)
            except (ClusterError, subprocess.TimeoutExpired):
                return False
            if "master_link_status:up" not in info:
                return False
        return True

    def kill(self, port: int) -> None:
        """SIGKILLs the node on ``port``."""
        proc = self.procs[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def restart(self, port: int) -> None:
        """Starts the (killed) node on ``port`` again, with its files."""
        self._spawn(port)
        self._wait_answers(port, time.monotonic() + 30)

    def stop(self) -> None:
        """Stops every node and removes the directory (if it made it)."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()
        if self._own_dir and self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> RedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve() -> int:
    """Starts a cluster, prints its nodes as one JSON line, and stops it
    when standard input closes (or on SIGTERM)."""
    cluster = RedisCluster()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        cluster.start()
        print(json.dumps({"nodes": cluster.urls, "dir": str(cluster.dir)}), flush=True)
        sys.stdin.read()
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["serve"]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(_serve())
