"""Beat on two machines (issue 35): two real beat processes share one Redis, one ticks at a time.

RedBeat keeps beat's schedule in Redis under a lock that one beat holds and renews at each tick;
the other waits. Here two beats run against a real worker for an hour of beat's minute sweeps
(the sweep every ``TICK`` seconds instead of every minute), while outbox rows fall due all along.
Halfway the beat that ticks is killed (SIGKILL: a machine lost, its lock left to expire) and the
other takes over. Each sweep is sent by one beat only (never both: the waiting beat sends nothing
before it holds the lock), the sweeps number one beat's worth, and each row is emailed once.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Notice
from games.play.lobby import game_start
from tests.redis_space import RUN_PREFIX
from tests.tasks.test_email_integration import (  # noqa: F401 - the channel fixture
    TIMEOUT,
    celery_app_on,
    channel,
    lobby,
    queue_drained,
    running_workers,
    smtp_server,
    worker_env,
)
from tests.tasks.test_worker import ROOT, wait_for_log

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TICK = 0.5  # seconds: beat's "minute" in this test
SWEEPS = 60  # an hour of minute sweeps
LOCK = 2  # seconds: BEAT_LOCK_SECONDS, how long a lost beat's lock outlives it


def beat_env(url: str, smtp_port: int, queue: str, prefix: str) -> dict:
    """The environment of the test's workers and beats: the test database, Redis at ``url``, the
    SMTP server, the test's queue, RedBeat's schedule and lock under ``prefix``, beat's minute
    ``TICK`` seconds long and its lock ``LOCK``."""
    env = {
        **os.environ,
        **worker_env(url, smtp_port),
        "CELERY_QUEUE": queue,
        "CACHE_KEY_PREFIX": prefix,
        "SWEEP_SECONDS": str(TICK),
        "BEAT_LOCK_SECONDS": str(LOCK),
    }
    return {k: v for k, v in env.items() if v is not None}


def start_beat(log_path, env):
    log = log_path.open("w")
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "saboteur_site", "beat", "--loglevel=debug"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return beat, log


def stop(process, signal_number=signal.SIGTERM):
    if process.poll() is None:
        process.send_signal(signal_number)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


SENT = "Scheduler: Sending due task sweep"


def sends(log_path) -> int:
    return log_path.read_text().count(SENT)


@pytest.mark.slow  # 40 s, mostly waiting on beat's ticks: started first, beside the others' work
def test_two_beats_send_each_sweep_once_and_the_second_takes_over(channel, tmp_path):  # noqa: F811
    url, queue = channel
    game = game_start(game_id=lobby().pk, user=lobby_creator())
    # Outbox rows falling due all through the hour (copies of the start's, each its own row).
    now = timezone.now()
    model = Notice.objects.filter(game=game, kind=Notice.Kind.STARTED).first()
    staged = [
        Notice.objects.create(
            key=f"staged:{i}",
            kind=model.kind,
            user=model.user,
            game=game,
            seat=model.seat,
            due_at=now + timedelta(seconds=i * TICK * SWEEPS / 40),
        )  # fmt: skip
        for i in range(40)
    ]
    prefix = f"{RUN_PREFIX}-beats-{uuid.uuid4().hex[:6]}"
    with smtp_server() as (inbox, port), celery_app_on(url, queue):
        env = beat_env(url, port, queue, prefix)
        with running_workers(tmp_path, queue, env) as worker_logs:
            logs = [tmp_path / "beat-a.log", tmp_path / "beat-b.log"]
            beats = [start_beat(log, env) for log in logs]
            try:
                started = time.monotonic()
                deadline = started + TIMEOUT
                while not any("Acquired lock" in log.read_text() for log in logs):
                    assert time.monotonic() < deadline, [log.read_text() for log in logs]
                    time.sleep(0.1)
                first = next(i for i, log in enumerate(logs) if "Acquired lock" in log.read_text())
                second = 1 - first
                # Half the hour on the first beat, then its machine is lost.
                while sends(logs[first]) < SWEEPS // 2:
                    assert time.monotonic() < deadline, logs[first].read_text()
                    time.sleep(0.1)
                assert "Acquired lock" not in logs[second].read_text()
                assert sends(logs[second]) == 0  # it waited, sending nothing
                stop(beats[first][0], signal.SIGKILL)
                killed = time.monotonic()
                wait_for_log(logs[second], "Acquired lock", timeout=TIMEOUT)
                while sends(logs[first]) + sends(logs[second]) < SWEEPS:
                    assert time.monotonic() < killed + TIMEOUT, logs[second].read_text()
                    time.sleep(0.1)
                elapsed = time.monotonic() - started
            finally:
                for process, log in beats:
                    stop(process)
                    log.close()
            # Every row sent and every sweep sent carried out (the last may still be at work).
            wait_until_sent(staged)
            queue_drained(url, queue)
            sent = sends(logs[0]) + sends(logs[1])
            worker_text = "\n".join(log.read_text() for log in worker_logs)
    # One beat's worth of sweeps, not two: at most one per TICK over the time both ran, each
    # carried out (but one the killed beat may have logged and not sent).
    assert sent <= elapsed / TICK + 2, (sent, elapsed)
    ran = len(re.findall(r"task games\.tasks\.sweep SUCCESS", worker_text))
    assert sent - 1 <= ran <= sent, (ran, sent)
    # Each row emailed once (one Message-ID per row).
    ids = Counter(
        int(m.group(1))
        for _rcpt, message in inbox.messages
        if (m := re.match(r"<notice\.(\d+)\.", str(message["Message-ID"])))
    )
    assert {notice.pk: ids[notice.pk] for notice in staged} == {n.pk: 1 for n in staged}
    assert set(ids.values()) == {1}


def lobby_creator():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="ann")


def wait_until_sent(notices, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    pks = [notice.pk for notice in notices]
    while Notice.objects.filter(pk__in=pks).exclude(status=Notice.Status.SENT).exists():
        assert time.monotonic() < deadline, list(
            Notice.objects.filter(pk__in=pks).values_list("status", "last_error")
        )
        time.sleep(0.2)
