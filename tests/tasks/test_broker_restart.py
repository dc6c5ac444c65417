"""A Celery worker outlives a Redis restart: it reconnects and goes on consuming.

With celery 5.7 and kombu 5.7 a worker holding a task it had not acknowledged (one with an ETA,
or any task in progress under acks_late) crashed on the lost connection ("Unrecoverable error:
AttributeError: 'NoneType' object has no attribute 'hostname'") and exited, so that a Redis
restart stopped every worker (bench/faults.py found it). ``saboteur_site.celery.Consumer`` keeps
it alive. The test starts a redis-server of its own on a free port and kills only that one
(tests/redis_server.py).
"""

import time
import uuid

import pytest
from celery import Celery

from tests.redis_server import REDIS_SERVER, RedisServer
from tests.tasks.test_worker import celery_worker, wait_for_log

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")


def test_a_worker_holding_an_unacknowledged_task_survives_a_redis_restart(tmp_path):
    queue = f"pytest-{uuid.uuid4().hex}"
    redis_server = RedisServer(tmp_path)
    url = redis_server.url()
    log_path = tmp_path / "worker.log"
    with redis_server:
        with celery_worker(log_path, queue=queue, REDIS_URL=url) as worker:
            wait_for_log(log_path, " ready.")
            sender = Celery("pytest-sender", broker=url, set_as_current=False)
            # A task due in five minutes: the worker holds it, unacknowledged (acks_late).
            held = sender.send_task("games.tasks.ping", queue=queue, countdown=300)
            sender.close()
            wait_for_log(log_path, f"Task games.tasks.ping[{held.id}] received")

            redis_server.kill()  # a crash: everything in it is gone
            wait_for_log(log_path, "Connection to broker lost")
            time.sleep(1)
            redis_server.start()  # empty, on the same port
            client = Celery("pytest-client", broker=url, backend=url, set_as_current=False)
            result = client.send_task("games.tasks.ping", queue=queue)
            log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
            assert result.get(timeout=30) == "pong"
            assert worker.poll() is None, log
            assert "Unrecoverable error" not in log
            client.close()
