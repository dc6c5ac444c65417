"""A Celery worker outlives a Redis restart: it reconnects and goes on consuming.

With celery 5.7 and kombu 5.7 a worker holding a task it had not acknowledged (one with an ETA,
or any task in progress under acks_late) crashed on the lost connection ("Unrecoverable error:
AttributeError: 'NoneType' object has no attribute 'hostname'") and exited, so that a Redis
restart stopped every worker (bench/faults.py found it). ``saboteur_site.celery.Consumer`` keeps
it alive. The test starts a redis-server of its own on a free port and kills only that one.
"""

import shutil
import signal
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager

import pytest
from celery import Celery

from tests.tasks.test_worker import celery_worker, wait_for_log

REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def private_redis(port: int, folder):
    """redis-server on ``port`` without persistence (a restart starts empty)."""
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", str(folder)]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while not answers(port):
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
        yield server
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)


def test_a_worker_holding_an_unacknowledged_task_survives_a_redis_restart(tmp_path):
    port, queue = free_port(), f"pytest-{uuid.uuid4().hex}"
    url = f"redis://127.0.0.1:{port}/0"
    log_path = tmp_path / "worker.log"
    with private_redis(port, tmp_path) as redis_server:
        with celery_worker(log_path, queue=queue, REDIS_URL=url) as worker:
            wait_for_log(log_path, " ready.")
            sender = Celery("pytest-sender", broker=url, set_as_current=False)
            # A task due in five minutes: the worker holds it, unacknowledged (acks_late).
            held = sender.send_task("games.tasks.ping", queue=queue, countdown=300)
            sender.close()
            wait_for_log(log_path, f"Task games.tasks.ping[{held.id}] received")

            redis_server.send_signal(signal.SIGKILL)  # a crash: everything in it is gone
            redis_server.wait(timeout=10)
            wait_for_log(log_path, "Connection to broker lost")
            time.sleep(1)
            with private_redis(port, tmp_path):
                client = Celery("pytest-client", broker=url, backend=url, set_as_current=False)
                result = client.send_task("games.tasks.ping", queue=queue)
                log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
                assert result.get(timeout=30) == "pong"
                assert worker.poll() is None, log
                assert "Unrecoverable error" not in log
                client.close()
