"""Remembering what a player has seen ("since you were here"), and taking an absent seat back
(from the site's safe moves or a stand-in bot) when its player returns."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.models import Game, Seat
from games.outbox import schedule
from games.read.clock import decision_deadline
from games.read.vacations import current

from .locking import lock_game, touch

SEEN_EVERY = timedelta(minutes=1)

VISIT_GAP = timedelta(minutes=30)  # a longer pause starts a new visit


def stale(seen_at, now=None) -> bool:
    """Whether a seat last seen at ``seen_at`` is to be marked seen again (``SEEN_EVERY``)."""
    return seen_at is None or (now or timezone.now()) - seen_at >= SEEN_EVERY


def seat_seen(*, game: Game, user, now=None) -> None:
    """Remember that the player looked at the game (at most one write a minute, and one when the
    game's version changed), and when a new visit begins, what the previous visit had seen.

    ``game.seats`` is usually prefetched: a seat seen a moment ago costs no query at all.
    """
    now = now or timezone.now()
    mine = [s for s in game.seats.all() if user.is_authenticated and s.user_id == user.pk]
    back = _returning(mine, user, now)
    if back:
        _take_back(game, back, now)
        for seat in back:
            seat.stand_in, seat.state, seat.timeouts_in_a_row = False, Seat.State.ACTIVE, 0
    for seat in mine:
        changes = _seen_changes(seat, game, now)
        if changes:
            Seat.objects.filter(pk=seat.pk).update(**changes)
            for name in ("since_version", "since_at", "seen_version"):
                if name in changes:  # the page being rendered reads these ("since you were here")
                    setattr(seat, name, changes[name])


def _returning(mine: list[Seat], user, now) -> list[Seat]:
    """The player's seats that a look at the game takes back: absent ones, and those a bot
    stands in for, unless the player is on vacation."""
    back = [s for s in mine if s.state == Seat.State.ABSENT or s.stand_in]
    if back and any(s.state == Seat.State.ACTIVE for s in back) and current(user.pk, now):
        # A bot stands in while the player is on vacation: a look at the game is no return
        # (coming back is "I am back" on the vacation page, or a move).
        back = [s for s in back if s.state == Seat.State.ABSENT]
    return back


def _seen_changes(seat: Seat, game: Game, now) -> dict[str, Any]:
    """What a look at the game changes in the seat's row (nothing when seen a moment ago)."""
    changes: dict[str, Any] = {}
    if seat.last_seen_at is None or now - seat.last_seen_at >= VISIT_GAP:
        # A new visit: what the previous visit saw is what "since you were here" starts from.
        changes.update(since_version=seat.seen_version, since_at=seat.last_seen_at)
    if seat.seen_version != game.version:
        changes["seen_version"] = game.version
    if seat.last_seen_at is None or now - seat.last_seen_at >= SEEN_EVERY:
        changes["last_seen_at"] = now
    return changes


def _take_back(game: Game, seats: list[Seat], now) -> None:
    """The player is back: the site (or their stand-in bot) stops deciding for them. When it is
    their decision now, they get the time the turn gives (its deadline had been brought forward,
    ``moves.decide_for_absent_now``) and its reminders.

    A writer of a seat's state: the game row first (the lock order), and only seats still
    absent or standing in.
    """
    with transaction.atomic():
        locked = lock_game(game.pk)
        taken = (
            Seat.objects.filter(pk__in=[s.pk for s in seats])
            .filter(Q(state=Seat.State.ABSENT) | Q(stand_in=True))
            .exclude(state=Seat.State.REPLACED)
            .update(stand_in=False, state=Seat.State.ACTIVE, timeouts_in_a_row=0)
        )
        if taken:
            touch(locked)  # open pages drop the "absent" and "bot stands in" badges at once
        deciding = locked.status == Game.Status.RUNNING and any(
            s.position == locked.to_move for s in seats
        )
        if not taken or not deciding or locked.decision_since is None:
            return
        seat = next(s for s in seats if s.position == locked.to_move)
        full = decision_deadline(locked, seat, locked.decision_since).final
        if locked.deadline is None or locked.deadline < full:
            locked.deadline = game.deadline = full
            locked.save(update_fields=["deadline"])
        schedule.reminders_placed(game=locked, now=now)
