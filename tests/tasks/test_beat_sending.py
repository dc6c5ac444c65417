"""What beat writes when Redis goes away in the middle of a tick (issue 48's restart, met on a
busy machine): the outage's one warning, as a tick that finds Redis away at its start writes it,
never RedBeat's "Message Error" with a traceback; any other error is still that error line.

A tick sends each due entry in two steps, both through Redis: it reserves the entry (writes its
next run to the schedule) and then sends the task through the broker. Here the site's scheduler
(``saboteur_site.beat.RedBeatScheduler``) runs real ticks on a Celery app of the test's own, its
schedule and its broker on redis-servers of the test's own. A tick meets its fault just after it
has read what is due: the schedule's server killed (Redis away at the reserving), or the
broker's (away at the sending, the entry reserved). tests/tasks/test_beat_redis_restart.py
restarts a real Redis under real beats, where these moments come by chance.
"""

from __future__ import annotations

import logging

import pytest
from celery import Celery

from saboteur_site.beat import RedBeatScheduler
from tests.redis_server import REDIS_SERVER, RedisServer

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")

TASK = "games.tasks.sweep"


@pytest.fixture
def schedule_redis(tmp_path):
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def broker_redis(tmp_path):
    with RedisServer(tmp_path / "broker") as server:
        yield server


class Scheduler(RedBeatScheduler):
    """The site's scheduler, whose next tick meets ``fault`` just after it read which entries
    are due, before it sends them: the moment the restart test meets by chance."""

    fault = None

    @property
    def schedule(self):
        entries = super().schedule
        if self.fault is not None:
            self.fault(entries)
            self.fault = None
        return entries


def scheduler_on(schedule_url: str, broker_url: str) -> Scheduler:
    """The site's scheduler with its lock taken, its one entry (the sweep, never run) due."""
    app = Celery("beat-sending-test", set_as_current=False)
    app.conf.update(
        broker_url=broker_url,
        redbeat_redis_url=schedule_url,
        redbeat_redis_options={},
        redbeat_key_prefix="beat-sending-test:",
        redbeat_lock_timeout=30,
        beat_max_loop_interval=6,
        beat_schedule={"sweep": {"task": TASK, "schedule": 60.0}},
    )
    scheduler = Scheduler(app)
    assert scheduler._take_lock()  # as the first tick does; writes the schedule, the sweep due
    assert scheduler.producer  # connected to the broker, as by a beat's first tick
    return scheduler


def problems(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def warnings(caplog) -> list[str]:
    return [r.getMessage().split(" (")[0] for r in caplog.records if r.levelno == logging.WARNING]


def sent(caplog) -> int:
    return caplog.text.count("Scheduler: Sending due task sweep (games.tasks.sweep)")


def the_sweep_is_due(scheduler: Scheduler) -> bool:
    return any(entry.is_due()[0] for entry in scheduler.schedule.values())


def test_redis_going_away_before_the_entry_is_reserved_is_the_outages_one_warning(
    schedule_redis, caplog
):
    caplog.set_level(logging.INFO)
    scheduler = scheduler_on(schedule_redis.url(), schedule_redis.url())
    scheduler.fault = lambda entries: schedule_redis.kill()

    assert scheduler.tick() == scheduler.REDIS_RETRY_SECONDS  # tried again in a few seconds
    assert scheduler.tick() == scheduler.REDIS_RETRY_SECONDS  # still away: nothing more said
    assert warnings(caplog) == ["beat: Redis does not answer"]
    assert not problems(caplog)

    schedule_redis.start()  # back, empty: the lock and the schedule are gone
    assert scheduler.tick() == 0  # lost its lock: takes it again at once
    scheduler.tick()  # takes it, writes the schedule again: the sweep due at once, sent
    assert sent(caplog) == 2  # the one that met the outage, then the one after it
    assert not the_sweep_is_due(scheduler)
    assert warnings(caplog) == ["beat: Redis does not answer", "beat: lost its lock"]
    assert "beat: Redis answers again" in caplog.text
    assert not problems(caplog)


def test_redis_going_away_while_the_task_is_sent_is_the_outages_one_warning(
    schedule_redis, broker_redis, caplog
):
    caplog.set_level(logging.INFO)
    scheduler = scheduler_on(schedule_redis.url(), broker_redis.url())
    scheduler.fault = lambda entries: broker_redis.kill()  # the entry is reserved, not sent

    assert scheduler.tick() == scheduler.REDIS_RETRY_SECONDS

    assert sent(caplog) == 1
    assert warnings(caplog) == ["beat: Redis does not answer"]
    assert not problems(caplog)


def test_another_error_while_sending_is_still_the_message_error_line(schedule_redis, caplog):
    scheduler = scheduler_on(schedule_redis.url(), schedule_redis.url())

    def cannot_be_encoded(entries):
        for entry in entries.values():
            entry.kwargs = {"not JSON": object()}

    scheduler.fault = cannot_be_encoded

    assert scheduler.tick() > scheduler.REDIS_RETRY_SECONDS  # the loop's interval, as ever

    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "celery.beat" and record.exc_info is not None
    assert "Message Error: Couldn't apply scheduled task sweep" in record.getMessage()
    assert scheduler._redis_away_since is None


def test_a_sent_task_is_logged_as_redbeat_logs_it(schedule_redis, caplog):
    caplog.set_level(logging.DEBUG, logger="celery.beat")
    scheduler = scheduler_on(schedule_redis.url(), schedule_redis.url())

    assert scheduler.tick() > scheduler.REDIS_RETRY_SECONDS

    lines = [(r.name, r.getMessage()) for r in caplog.records]
    assert ("celery.beat", "Scheduler: Sending due task sweep (games.tasks.sweep)") in lines
    assert any(m.startswith("Scheduler: games.tasks.sweep sent. id->") for _, m in lines), lines
    assert not problems(caplog)
    assert not the_sweep_is_due(scheduler)  # reserved: its next run is a minute away
