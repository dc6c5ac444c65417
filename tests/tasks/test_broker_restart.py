"""A Celery worker outlives a Redis restart: it reconnects and goes on consuming.

With celery 5.7 and kombu 5.7 a worker holding a task it had not acknowledged (one with an ETA,
or any task in progress under acks_late) crashed on the lost connection ("Unrecoverable error:
AttributeError: 'NoneType' object has no attribute 'hostname'") and exited, so that a Redis
restart stopped every worker (bench/faults.py found it). ``saboteur_site.celery.Consumer`` keeps
it alive. So does a task that finishes after the connection was lost: its acknowledgement, on
the lost channel, raised the same error in the worker's loop, and the worker exited too (issue
48, bench/faults.py); ``Consumer.call_soon_ack`` drops it. Each test starts a redis-server of its
own on a free port and kills only that one (tests/redis_server.py).
"""

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager

import pytest
from aiosmtpd.controller import Controller
from celery import Celery
from django.contrib.auth import get_user_model

from games.models import Notice
from games.play.lobby import game_start
from games.tasks import send_notice
from saboteur_site.celery import app as celery_app
from tests.redis_server import REDIS_SERVER, RedisServer, free_port
from tests.tasks.test_email_integration import celery_app_on, lobby, worker_env
from tests.tasks.test_worker import ROOT, celery_worker, wait_for_log

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


class HoldingInbox:
    """An SMTP handler that keeps each message's end of data unanswered until ``release()``: the
    sending task stays at work in the worker's pool meanwhile."""

    def __init__(self):
        self.holding = threading.Event()
        self._release = threading.Event()
        self.accepted: list[str] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        self.holding.set()
        await asyncio.get_running_loop().run_in_executor(None, self._release.wait, 60)
        self.accepted.append(envelope.content.decode("utf-8", "replace"))
        return "250 Message accepted for delivery"

    def release(self):
        self._release.set()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_task_that_finishes_while_redis_is_away_does_not_stop_the_worker(tmp_path):
    """The task ends after the worker lost its connection (and Redis is back, empty); its
    acknowledgement, on the lost channel, used to stop the worker ("Unrecoverable error"); the
    worker now drops it, reconnects and goes on consuming (the email went out once)."""
    game = game_start(game_id=lobby().pk, user=get_user_model().objects.get(username="ann"))
    notice = Notice.objects.filter(game=game, kind=Notice.Kind.STARTED).first()
    queue = f"pytest-{uuid.uuid4().hex}"
    redis_server = RedisServer(tmp_path / "redis")
    url = redis_server.url()
    inbox = HoldingInbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port(), ready_timeout=10)
    smtp.start()
    log_path = tmp_path / "worker.log"
    try:
        with redis_server, celery_app_on(url, queue):
            env = {**worker_env(url, smtp.port), "CELERY_QUEUE": queue}
            with prefork_worker(log_path, queue, env) as worker:
                wait_for_log(log_path, " ready.")
                send_notice.apply_async((notice.pk,), ignore_result=True)  # no result to wait on
                assert inbox.holding.wait(60), log_path.read_text()  # the task is at work

                redis_server.kill()
                wait_for_log(log_path, "Connection to broker lost")
                redis_server.start()  # empty: the task's result can be stored again
                inbox.release()  # the task ends; its message came on the connection that is gone
                wait_for_log(log_path, "came on a lost broker connection")
                result = celery_app.send_task("games.tasks.ping", queue=queue)
                log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
                assert worker.poll() is None, log
                assert "Unrecoverable error" not in log, log
    finally:
        smtp.stop()
    assert len(inbox.accepted) == 1
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT


@contextmanager
def prefork_worker(log_path, queue, env):
    """A worker as the README runs it (a pool process, gossip, mingle and heartbeats), so that a
    task is at work while the worker's main process sees the connection go."""
    env = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    with log_path.open("w") as log:
        worker = subprocess.Popen(  # noqa: S603 - our own command
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "saboteur_site",
                "worker",
                "--loglevel=info",
                "--concurrency=2",
                "-n",
                f"pytest-{uuid.uuid4().hex[:8]}@%h",
                "-Q",
                queue,
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
                worker.send_signal(signal.SIGTERM)
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait(timeout=10)
