"""Beat ticks on through a Redis restart, alone or with a second beat (issue 48).

RedBeat keeps beat's schedule and lock in Redis. When Redis was killed and started again empty,
beat's next tick could not renew its lock ("Cannot extend a lock that's no longer owned") and beat
exited, as it did as soon as Redis refused a connection: no sweep ran again, so every reminder,
deadline, bot's move and held email stopped (saboteur_site.beat.RedBeatScheduler now lives
through both). Here one beat, then two, run against a real worker on a redis-server of the
test's own (never the shared one), with beat's minute shortened to ``TICK``. Redis is killed
while they tick; each beat sees it gone and stays up; an email falls due meanwhile; Redis starts
again, empty. Then the sweep runs again and sends that email, once; the beats are all still
running, and only one of them ever sent at a time (the sweeps number one beat's worth).
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from datetime import datetime

import pytest
import redis
from django.utils import timezone

from games.models import Notice
from games.play.lobby import game_start
from tests.redis_server import REDIS_SERVER, RedisServer
from tests.tasks.test_email_integration import (
    TIMEOUT,
    celery_app_on,
    lobby,
    running_workers,
    smtp_server,
)
from tests.tasks.test_two_beats import (
    SENT,
    TICK,
    beat_env,
    lobby_creator,
    sends,
    start_beat,
    stop,
    wait_until_sent,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed"),
]


def wait_for(condition, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.1)


def sent_at(log_path) -> list[datetime]:
    """When the beat of ``log_path`` sent the sweep (its log lines' times)."""
    return [
        datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
        for line in log_path.read_text().splitlines()
        if SENT in line
    ]


SENT_ID = re.compile(r"games\.tasks\.sweep sent\. id->([0-9a-f-]+)")


def beat_reads_no_results(url: str, beat_logs, worker_logs) -> None:
    """The sweeps beat sent ran in the worker, which stored no result of theirs, and beat
    listens for none: a result asked for made beat subscribe to its channel, and the result's
    finalizer unsubscribe, talking to Redis, where a SIGTERM was once swallowed (beat then took
    its lock again and failed to send at every tick: settings.CELERY_BEAT_SCHEDULE)."""
    sent = {i for log in beat_logs for i in SENT_ID.findall(log.read_text())}
    worked = "".join(log.read_text() for log in worker_logs)
    ran = {i for i in sent if f"games.tasks.sweep[{i}] succeeded" in worked}
    assert ran, (sent, worked[-2000:])
    client = redis.Redis.from_url(url)
    try:
        assert not [i for i in ran if client.exists(f"celery-task-meta-{i}")]
        channels = [f"celery-task-meta-{i}" for i in sent]
        assert [n for _, n in client.pubsub_numsub(*channels) if n] == []
    finally:
        client.close()


@pytest.mark.parametrize("count", [1, 2], ids=["one beat", "two beats"])
def test_beat_ticks_on_through_a_redis_restart_and_the_sweep_runs_again(count, tmp_path):
    game = game_start(game_id=lobby().pk, user=lobby_creator())
    started_notice = Notice.objects.filter(game=game, kind=Notice.Kind.STARTED).first()
    redis_server = RedisServer(tmp_path / "redis")
    queue = f"pytest-{uuid.uuid4().hex}"
    with redis_server, smtp_server() as (inbox, port):
        url = redis_server.url()
        env = beat_env(url, port, queue, prefix=f"beat-restart-{uuid.uuid4().hex[:6]}")
        with celery_app_on(url, queue), running_workers(tmp_path, queue, env) as worker_logs:
            logs = [tmp_path / f"beat-{i}.log" for i in range(count)]
            beats = [start_beat(log, env) for log in logs]
            try:
                began = time.monotonic()
                wait_for(lambda: sum(sends(log) for log in logs) >= 3, "beat's first sweeps")

                redis_server.kill()  # a crash: the queue, the schedule and the lock are gone
                wait_for(
                    lambda: all(
                        "Redis does not answer" in log.read_text() or beat.poll() is not None
                        for log, (beat, _) in zip(logs, beats, strict=True)
                    ),
                    "every beat seeing Redis away",
                )
                assert [beat.poll() for beat, _ in beats] == [None] * count, logs[0].read_text()
                # An email falls due while Redis is away: only a sweep after the restart sends it.
                due = Notice.objects.create(
                    key=f"due-in-the-outage:{uuid.uuid4().hex}",
                    kind=started_notice.kind,
                    user=started_notice.user,
                    game=game,
                    seat=started_notice.seat,
                    due_at=timezone.now(),
                )
                before = sum(sends(log) for log in logs)
                redis_server.start()  # empty

                wait_until_sent([due])
                wait_for(
                    lambda: sum(sends(log) for log in logs) >= before + 3,
                    "sweeps sent after the restart",
                )
                running = [beat.poll() is None for beat, _ in beats]
                elapsed = time.monotonic() - began
                beat_reads_no_results(redis_server.url(), logs, worker_logs)
                # The sends until now: once one beat is stopped (releasing its lock), another
                # rightly takes over.
                sent = [sent_at(log) for log in logs]
            finally:
                for process, log in beats:
                    stop(process)
                    log.close()
            texts = [log.read_text() for log in logs]
    assert running == [True] * count, texts
    for text in texts:
        assert "beat raised exception" not in text, text
        assert "Traceback" not in text, text
        assert "falling back to broker_url" not in text, text  # RedBeat's settings all given
    # The beat that held the lock lost it with Redis's restart, and ticked on (or waited).
    assert any("lost its lock" in text for text in texts), texts
    # One beat's worth of sweeps: at most one per TICK while they ran, plus the one sent at once
    # at the start and after the restart (the schedule Redis forgot is due at once).
    assert sum(map(len, sent)) <= elapsed / TICK + 3, (sent, elapsed)
    # Never two beats at once: in the time order of all sends, the sender changes at most once
    # (the waiting beat taking the lock after the restart), never back and forth.
    order = sorted((when, index) for index, times in enumerate(sent) for when in times)
    switches = sum(1 for (_, a), (_, b) in zip(order, order[1:], strict=False) if a != b)
    assert switches <= 1, order
    # The email that fell due in the outage was delivered once.
    ids = Counter(
        int(m.group(1))
        for _rcpt, message in inbox.messages
        if (m := re.match(r"<notice\.(\d+)\.", str(message["Message-ID"])))
    )
    assert ids[due.pk] == 1, ids
