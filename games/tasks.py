"""Celery tasks: thin wrappers that take ids, re-read the world and are idempotent.

No countdowns of hours: what is due later waits as an outbox row, and beat's minute sweep
sends it when its time has come.
"""

import logging
import smtplib
import time

from celery import shared_task
from django.utils import timezone

from . import notifications, services
from .models import Game

log = logging.getLogger(__name__)


@shared_task
def ping() -> str:
    """Answer "pong": proves a worker is consuming the queue (used by tests and ops)."""
    return "pong"


@shared_task(
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, ConnectionError, TimeoutError),
    retry_backoff=30,
    retry_backoff_max=1800,
    retry_jitter=True,
    max_retries=8,
)
def send_notice(notice_id: int) -> str:
    """Send one outbox row (once, whatever the number of deliveries)."""
    return notifications.send(notice_id)


@shared_task(acks_late=True)
def send_notices(notice_ids: list[int]) -> int:
    """Send a chunk of due outbox rows the sweep had no time for (each once; see send_notice)."""
    return notifications.send_each(notice_ids)


@shared_task(acks_late=True)
def bot_play(game_id: int, version: int) -> int | None:
    """A bot's move, a few seconds after its decision began (idempotent: the version must match)."""
    record = services.bot_move(game_id=game_id, version=version)
    return record.sequence if record else None


@shared_task(acks_late=True)
def sweep() -> dict:
    """Every minute (beat): enforce deadlines, write digests, send whatever is due."""
    started, now = time.monotonic(), timezone.now()
    timeouts = 0
    overdue = Game.objects.filter(status=Game.Status.RUNNING, deadline__lte=now)
    for game_id in overdue.values_list("pk", flat=True):
        try:
            if services.turn_timeout(game_id=game_id, now=now):
                timeouts += 1
        except Exception:  # one broken game must not stop the deadlines of all the others
            log.exception("the deadline of game %s could not be enforced", game_id)
    for game_id, version in services.bot_games_due(now):
        try:
            services.bot_move(game_id=game_id, version=version)
        except Exception:  # one broken game must not stop the others
            log.exception("the bot of game %s could not move", game_id)
    notifications.digests_due(now)
    sending = notifications.send_due(now, until=started + notifications.SWEEP_SENDS_FOR)
    return {"timeouts": timeouts, **sending}
