"""Celery beat's schedulers for the site (``CELERY_BEAT_SCHEDULER``, chosen in settings).

- ``Scheduler`` (one machine, no Redis: ``make run``): Celery's own, except that its schedule
  file (``CELERY_BEAT_SCHEDULE_FILENAME``, under the run folder by default) may live in a folder
  that does not exist yet: beat makes it rather than failing to start. The file used to be
  ``celerybeat-schedule`` in whatever folder beat was started from, the repository itself for
  the README's command.
- ``RedBeatScheduler`` (with Redis, in production): RedBeat's, which keeps the schedule in Redis
  under a lock so that beat may run on several machines, made to live through Redis going away
  and coming back (issue 48).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import redis.exceptions
from celery.beat import PersistentScheduler
from celery.signals import beat_init
from redbeat import schedulers as redbeat  # type: ignore[import-untyped]  # ships no types
from redis.lock import Lock

log = logging.getLogger(__name__)
celery_log = logging.getLogger("celery.beat")  # the lines Celery's own scheduler writes


class Scheduler(PersistentScheduler):
    def setup_schedule(self):
        Path(self.schedule_filename).parent.mkdir(parents=True, exist_ok=True)
        return super().setup_schedule()


# Redis did not answer, or answered that it cannot serve yet (loading, a replica's failover).
REDIS_AWAY = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


class RedBeatScheduler(redbeat.RedBeatScheduler):
    """RedBeat's scheduler, which keeps ticking through a Redis restart and a Redis outage.

    RedBeat takes its lock once, when beat starts, waiting for it as long as another beat holds
    it; then every tick renews it before sending what is due. A tick that could not (Redis away:
    ``ConnectionError``; Redis restarted empty, or this beat paused for longer than the lock
    lasts, so the lock is gone or another's: ``LockNotOwnedError``) raised, and beat logged
    "beat raised exception" and exited. Nothing started it again, and no sweep ran: reminders,
    deadlines, bots' moves and held emails all stopped (bench/faults.py; upstream
    sibson/redbeat#218 and #230, open). Here the lock is a condition of each tick instead:

    - A tick that does not hold the lock tries to take it (``SET NX``, without waiting) and,
      when another beat holds it, sends nothing and tries again at the next tick, at most
      ``beat_max_loop_interval`` later. This is also how a beat waits at its start (RedBeat's
      own wait, in ``beat_init``, is not used), so two beats never both send: only the holder
      ticks, whichever of them takes the lock first after a restart.
    - A tick whose renewal finds the lock lost logs it and takes the lock again (or waits for
      the beat that took it).
    - On taking the lock, the schedule is written to Redis again (``setup_schedule``, which keeps
      each entry's last run when Redis still has it): a Redis restarted empty forgot it, and
      the entries are then due at once, so the sweep runs at the first tick after the restart.
    - While Redis does not answer, a tick logs a warning (once per outage) and is tried again
      every few seconds; beat never exits for it.
    """

    #: Seconds between tries while Redis does not answer (at most beat's loop interval).
    REDIS_RETRY_SECONDS = 5.0
    #: RedBeat's lock while this beat holds it, else None.
    lock: Lock | None

    def __init__(self, app, *args, **kwargs) -> None:
        _show_redbeat_its_settings(app)
        self._redis_away_since: str | None = None
        super().__init__(app, *args, **kwargs)

    def setup_schedule(self):
        """Write the schedule's entries to Redis (at start, and whenever the lock is taken).

        An entry Redis did not have (a restart emptied it, or the site starts for the first time)
        is due at once: when it last ran is not known, and a sweep too many costs nothing, where
        RedBeat would wait a whole interval from now (a minute more of every deadline late).
        """
        try:
            client = redbeat.get_redis(self.app)
            keys = [self.Entry.generate_key(self.app, name) for name in self.app.conf.beat_schedule]
            forgotten = [key for key in keys if not client.exists(key)]
            super().setup_schedule()
            for key in forgotten:
                self.Entry.from_key(key, app=self.app).reschedule(last_run_at=LONG_AGO)
        except REDIS_AWAY as error:  # at start: written when Redis answers and the lock is taken
            self._redis_is_away(error)

    def tick(self, min=min, **kwargs):
        try:
            if self.lock is None and not self._take_lock():
                return self.max_interval  # another beat holds the lock: it ticks, this one waits
            try:
                interval = super().tick(min=min, **kwargs)  # renews the lock, sends what is due
            except redis.exceptions.LockNotOwnedError:
                log.warning(
                    "beat: lost its lock (Redis restarted empty, or the lock expired); "
                    "taking it again once it is free"
                )
                self.lock = None
                interval = 0  # the next tick at once: it takes the lock or waits for its holder
        except Exception as error:  # Redis away: as itself, or under Celery's SchedulingError
            if not _caused_by(error, REDIS_AWAY):
                raise
            self._redis_is_away(error)
            return min(self.REDIS_RETRY_SECONDS, self.max_interval)
        if self._redis_away_since is not None:
            log.info("beat: Redis answers again (away since %s)", self._redis_away_since)
            self._redis_away_since = None
        return interval

    def maybe_due(self, entry, **kwargs):
        """Send ``entry`` if it is due, as RedBeat's tick does, except when Redis goes away in
        the middle (a restart at that moment, met on a busy machine).

        RedBeat first reserves the entry (writes its next run to Redis), then sends it through
        the broker (Redis too), and logs an error of either step as "Message Error" with a
        traceback. Redis away at either step is instead the outage ``tick`` reports: one
        warning, no traceback, the tick tried again a few seconds later. An entry Redis did not
        reserve is then still due; one it reserved but could not send is due at its next run,
        or at once when the restart emptied Redis (``setup_schedule``). Any other error is still
        RedBeat's error line, and the tick goes on to the next entry."""
        is_due, next_time_to_run = entry.is_due()
        if not is_due:
            return next_time_to_run
        celery_log.info("Scheduler: Sending due task %s (%s)", entry.name, entry.task)
        try:
            result = self.apply_async(entry, **kwargs)  # reserves, then sends
        except Exception as error:  # RedBeat's own catches every error here, too
            if _caused_by(error, REDIS_AWAY):
                raise  # the outage, which tick reports
            celery_log.exception("Scheduler: Message Error: %s", error)
        else:
            celery_log.debug("Scheduler: %s sent. id->%s", entry.task, getattr(result, "id", None))
        return next_time_to_run

    def _take_lock(self) -> bool:
        """Take the lock if no beat holds it (RedBeat's lock, as it makes it at start)."""
        client = redbeat.get_redis(self.app)
        lock = client.lock(self.lock_key, timeout=self.lock_timeout, sleep=self.max_interval)
        # RedBeat's renewal sets the lock's time to live rather than adding to it.
        lock.lua_extend = client.register_script(redbeat.LUA_EXTEND_TO_SCRIPT)
        if not lock.acquire(blocking=False):
            return False
        self.lock = lock
        log.info("beat: Acquired lock")
        self.setup_schedule()
        return True

    def _redis_is_away(self, error: Exception) -> None:
        if self._redis_away_since is None:
            self._redis_away_since = self.app.now().isoformat(timespec="seconds")
            log.warning("beat: Redis does not answer (%s); trying again, sending nothing", error)

    def close(self):
        """Let the lock go at the end (the next beat need not wait for it to expire); with Redis
        away it cannot be, and expires after ``lock_timeout``."""
        try:
            super().close()
        except (*REDIS_AWAY, redis.exceptions.LockError) as error:
            log.warning("beat: could not release its lock (%s); it expires by itself", error)
            self.lock = None


def _caused_by(error: BaseException, kinds: tuple[type[BaseException], ...]) -> bool:
    """Whether ``error`` or an error it was raised from or while handling is one of ``kinds``
    (Celery wraps the broker's error in its SchedulingError)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kinds):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _show_redbeat_its_settings(app) -> None:
    """RedBeat asks whether a setting was given by looking for its bare name among the
    configuration's keys (``redbeat_redis_url``); Django's settings give it as
    ``CELERY_REDBEAT_REDIS_URL`` (the ``CELERY`` namespace), which it then does not see, and it
    warns at every start that it falls back to ``broker_url``. Each ``CELERY_REDBEAT_*`` setting
    is copied under its bare name (the same value: Celery finds either)."""
    app.conf.update(
        {
            key.removeprefix("CELERY_").lower(): value
            for key, value in app.conf.items()
            if key.startswith("CELERY_REDBEAT_")
        }
    )


# RedBeat's own wait for the lock at start, replaced by the ticks' (above).
beat_init.disconnect(redbeat.acquire_distributed_beat_lock)
