"""A real Celery worker process runs our tasks: over Redis, and over the run mode's filesystem
broker. Bounded timeouts everywhere; the worker is always stopped."""

import os
import signal
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery

from saboteur_site.celery import _filesystem_broker_options
from tests.redis_space import forget_queue, own_queue, redis_url

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def celery_worker(log_path: Path, queue: str = "celery", **env_overrides):
    env = {**os.environ, "DJANGO_ENV": "development", **env_overrides}
    env = {k: v for k, v in env.items() if v is not None}
    name = f"pytest-{uuid.uuid4().hex[:8]}@%h"
    with log_path.open("w") as log:
        worker = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "saboteur_site", "worker"),
                *("--pool=solo", "--loglevel=info", "-n", name, "-Q", queue),
                *("--without-gossip", "--without-mingle", "--without-heartbeat"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield worker
        finally:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)  # warm shutdown
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait(timeout=10)


def wait_for_log(log_path: Path, text: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = log_path.read_text()
        if text in content:
            return content
        time.sleep(0.2)
    pytest.fail(f"{text!r} not in the worker log within {timeout}s:\n{log_path.read_text()}")


def test_worker_process_runs_ping_over_redis(tmp_path):
    # The test run's Redis database and a queue of our own (tests/redis_space.py): no stale
    # messages, and no clash with another test run or a site using the same database.
    url, queue = redis_url(), own_queue()
    log_path = tmp_path / "worker.log"
    try:
        with celery_worker(log_path, queue=queue, REDIS_URL=url) as worker:
            # Not the current app: shared tasks (the site's) must keep sending through the site's
            # app, to this run's queue, after this test.
            client = Celery("pytest-client", broker=url, backend=url, set_as_current=False)
            result = client.send_task("games.tasks.ping", queue=queue)
            assert result.get(timeout=60) == "pong"
            log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
            assert "redis://" in log
            result.forget()
            client.close()
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=30) == 0
    finally:
        forget_queue(url, queue)


def test_worker_process_runs_ping_over_the_filesystem_broker(tmp_path):
    """What `make run` uses: no Redis at all."""
    broker_dir = tmp_path / "broker"
    log_path = tmp_path / "worker.log"
    with celery_worker(
        log_path,
        REDIS_URL=None,
        CELERY_BROKER_URL=None,
        CELERY_RESULT_BACKEND=None,
        CELERY_BROKER_DIR=str(broker_dir),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    ) as worker:
        client = Celery(
            "pytest-client",
            set_as_current=False,
            broker="filesystem://",
            broker_transport_options=_filesystem_broker_options(broker_dir),
        )
        result = client.send_task("games.tasks.ping")
        log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
        assert "filesystem://" in log
        assert "'pong'" in log
        client.close()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
