"""Celery tasks: thin wrappers that take ids, re-read the world and are idempotent.

No countdowns of hours: what is due later waits as an outbox row, and beat's minute sweep
sends it when its time has come.
"""

import smtplib

from celery import shared_task

from .outbox import sending
from .play import moves, ratings
from .play import sweep as play_sweep


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
    return sending.send(notice_id)


@shared_task(acks_late=True)
def send_notices(notice_ids: list[int]) -> int:
    """Send a chunk of due outbox rows the sweep had no time for (each once; see send_notice)."""
    return sending.send_each(notice_ids)


@shared_task(acks_late=True)
def bot_play(game_id: int, version: int) -> int | None:
    """A bot's move, a few seconds after its decision began (idempotent: the version must match)."""
    record = moves.bot_move(game_id=game_id, version=version)
    return record.sequence if record else None


@shared_task(acks_late=True)
def ratings_rebuild() -> int:
    """Every rating again from the stored moves (after an abort took a game's rounds away)."""
    return ratings.ratings_rebuild().rounds


@shared_task(acks_late=True)
def sweep() -> dict:
    """Every minute (beat): enforce deadlines, write digests, send whatever is due."""
    return play_sweep.sweep()
