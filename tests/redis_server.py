"""A redis-server of a test's own, to break: killed and started again without touching anyone's.

The machine's shared Redis (``REDIS_URL``, port 6379) is never stopped: other people's test runs
use it. A test (or ``bench/faults.py``) that needs Redis to go away starts this one instead, on a
free loopback port and without persistence, so that a restart starts empty (the worst case: the
queue, the tasks being worked on, the cache and RedBeat's schedule and lock are all gone).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(port: int) -> bool:
    """Whether a Redis on ``port`` answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """``redis-server`` on ``port`` (a free one by default), its files and log in ``folder``.

    ``start()`` waits until it answers; ``kill()`` is a crash (SIGKILL: whatever it held is lost);
    ``start()`` again brings it back, empty, on the same port. Also a context manager (started on
    entry, killed on exit).
    """

    def __init__(self, folder: Path, port: int | None = None):
        if REDIS_SERVER is None:
            raise RuntimeError("redis-server is not installed")
        self.folder = Path(folder)
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 20) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own redis-server
                [
                    REDIS_SERVER,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.folder),
                ],  # fmt: skip
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a signal to the caller's group never reaches it
            )
        deadline = time.monotonic() + timeout
        while not answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                log_text = (self.folder / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{log_text}")
            time.sleep(0.05)
        return self

    def kill(self) -> None:
        """A crash: SIGKILL, so whatever it held in memory is gone."""
        if self.running():
            self.process.kill()
        if self.process is not None:
            self.process.wait(timeout=10)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.kill()
