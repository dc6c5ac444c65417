"""The minute sweep that beat starts: carry out vacations that began or ended, enforce
deadlines, play overdue bots' moves, start play now's tables whose time has come (or tell their
players why not), expire unanswered challenges, write the day's digests and send whatever the
outbox holds that is due.

Each part runs on its own: one that fails is logged and the others still run (a digest that
cannot be written must not keep a reminder or a deadline waiting).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.utils import timezone

from games.models import Game
from games.outbox import digests, sending

from . import ratings
from .bot_turns import bot_games_due
from .challenges import challenges_expire
from .matchmaking import forming_due
from .moves import bot_move, turn_timeout
from .vacations import vacations_due

log = logging.getLogger(__name__)

# An absent seat's decision is the site's at once; the next seat may be absent too. At most
# this many decisions of one game per sweep (more than any table has seats).
CHAIN = 12


def sweep() -> dict:
    """One sweep; returns what this process did (timeouts, notices it sent, notices handed over
    to the workers) and the parts that failed, if any."""
    started, now = time.monotonic(), timezone.now()
    report: dict[str, Any] = {"timeouts": 0, "sent": 0, "handed over": 0}
    failed: list[str] = []

    def part(name, run, *args, **kwargs):
        try:
            return run(*args, **kwargs)
        except Exception:  # one part's failure must not stop the others
            log.exception("the sweep's %s failed; its other parts ran", name)
            failed.append(name)
            return None

    part("vacations", vacations_due, now)
    report["timeouts"] = part("deadlines", enforce_deadlines, now) or 0
    part("bots", play_overdue_bots, now)
    # Play now's tables whose start time has come: started, or told why not (before sending).
    report["tables"] = part("forming tables", forming_due, now) or 0
    part("challenges", challenges_expire, now)
    part("digests", digests.digests_due, now)
    sent = part("sending", sending.send_due, now, until=started + sending.SWEEP_SENDS_FOR)
    report.update(sent or {})
    report["pushed again"] = part("pushes", sending.retry_pushes, now) or 0
    # Should the ratings rebuild an abort asked for have been lost, ask again.
    part("ratings", ratings.withdraw_aborted)
    if failed:
        report["failed"] = failed
    return report


def enforce_deadlines(now) -> int:
    """The site's decision for every seat whose deadline has passed; returns how many."""
    timeouts = 0
    overdue = Game.objects.filter(status=Game.Status.RUNNING, deadline__lte=now)
    for game_id in overdue.values_list("pk", flat=True):
        try:
            for _ in range(CHAIN):
                # The clock read afresh: an absent seat's next decision is due at once.
                if turn_timeout(game_id=game_id) is None:
                    break
                timeouts += 1
        except Exception:  # one broken game must not stop the deadlines of all the others
            log.exception("the deadline of game %s could not be enforced", game_id)
    return timeouts


def play_overdue_bots(now) -> None:
    """Bots' moves whose task was lost (the broker was down)."""
    for game_id, version in bot_games_due(now):
        try:
            bot_move(game_id=game_id, version=version)
        except Exception:  # one broken game must not stop the others
            log.exception("the bot of game %s could not move", game_id)
