"""What beat writes when Redis goes away at the moment it sends a due task (issue 48's restart,
met mid-send on a busy machine): the outage's one warning, as a tick that finds Redis away writes
it, never Celery's "Message Error" with a traceback; any other error is still Celery's error line.

The scheduler is the site's own (``saboteur_site.beat.RedBeatScheduler``), made without its
start (no Redis needed); Celery's ``apply_async`` is replaced by one that fails as Celery's does
when the broker's connection breaks: a SchedulingError raised while handling the broker's error.
tests/tasks/test_beat_redis_restart.py restarts a real Redis under real beats."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
import redis.exceptions
from celery.beat import SchedulingError

from saboteur_site.beat import RedBeatScheduler
from saboteur_site.celery import app

SWEEP = SimpleNamespace(name="sweep", task="games.tasks.sweep")


def scheduler_sending_with(error: Exception | None) -> RedBeatScheduler:
    scheduler = RedBeatScheduler.__new__(RedBeatScheduler)  # without connecting to Redis
    scheduler.app = app
    scheduler._redis_away_since = None

    def apply_async(entry, producer=None, advance=True, **kwargs):
        if error is None:
            return SimpleNamespace(id="task-id")
        try:
            raise error
        except Exception as broker_error:  # as celery.beat.Scheduler.apply_async wraps it
            message = f"Couldn't apply scheduled task {entry.name}: {broker_error}"
            raise SchedulingError(message) from broker_error

    scheduler.apply_async = apply_async
    return scheduler


@pytest.mark.parametrize(
    "error",
    [redis.exceptions.ConnectionError("Connection reset by peer"), redis.exceptions.TimeoutError()],
)
def test_redis_going_away_while_a_task_is_sent_is_the_outages_one_warning(error, caplog):
    caplog.set_level(logging.DEBUG)
    scheduler = scheduler_sending_with(error)
    scheduler.apply_entry(SWEEP)
    scheduler.apply_entry(SWEEP)  # the next tick's try, Redis still away: nothing more said
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage().split(" (")[0] for r in warnings] == ["beat: Redis does not answer"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert scheduler._redis_away_since is not None  # the next tick that works says it is back


def test_another_error_while_sending_is_still_celerys_error_line(caplog):
    scheduler = scheduler_sending_with(ValueError("no such task"))
    scheduler.apply_entry(SWEEP)
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "celery.beat" and record.exc_info is not None
    assert "Message Error: Couldn't apply scheduled task sweep: no such task" in record.getMessage()
    assert scheduler._redis_away_since is None


def test_a_sent_task_is_logged_as_celery_logs_it(caplog):
    caplog.set_level(logging.DEBUG, logger="celery.beat")
    scheduler_sending_with(None).apply_entry(SWEEP)
    lines = [(r.name, r.getMessage()) for r in caplog.records]
    assert ("celery.beat", "Scheduler: Sending due task sweep (games.tasks.sweep)") in lines
    assert ("celery.beat", "games.tasks.sweep sent. id->task-id") in lines
