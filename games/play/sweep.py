"""The minute sweep that beat starts: enforce deadlines, play overdue bots' moves, write the
day's digests and send whatever the outbox holds that is due."""

from __future__ import annotations

import logging
import time

from django.utils import timezone

from games.models import Game
from games.outbox import digests, sending

from .bot_turns import bot_games_due
from .moves import bot_move, turn_timeout

log = logging.getLogger(__name__)


def sweep() -> dict:
    """One sweep; returns what it did (timeouts, notices sent and handed over)."""
    started, now = time.monotonic(), timezone.now()
    timeouts = 0
    overdue = Game.objects.filter(status=Game.Status.RUNNING, deadline__lte=now)
    for game_id in overdue.values_list("pk", flat=True):
        try:
            if turn_timeout(game_id=game_id, now=now):
                timeouts += 1
        except Exception:  # one broken game must not stop the deadlines of all the others
            log.exception("the deadline of game %s could not be enforced", game_id)
    for game_id, version in bot_games_due(now):
        try:
            bot_move(game_id=game_id, version=version)
        except Exception:  # one broken game must not stop the others
            log.exception("the bot of game %s could not move", game_id)
    digests.digests_due(now)
    sent = sending.send_due(now, until=started + sending.SWEEP_SENDS_FOR)
    return {"timeouts": timeouts, **sent, "pushed again": sending.retry_pushes(now)}
