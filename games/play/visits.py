"""Remembering what a player has seen ("since you were here"), and taking a seat back from its
stand-in bot when its player returns."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games.models import Game, Seat

from .locking import lock_game

SEEN_EVERY = timedelta(minutes=1)

VISIT_GAP = timedelta(minutes=30)  # a longer pause starts a new visit


def seat_seen(*, game: Game, user, now=None) -> None:
    """Remember that the player looked at the game (at most one write a minute, and one when the
    game's version changed), and when a new visit begins, what the previous visit had seen.

    ``game.seats`` is usually prefetched: a seat seen a moment ago costs no query at all.
    """
    now = now or timezone.now()
    mine = [s for s in game.seats.all() if user.is_authenticated and s.user_id == user.pk]
    back = [s for s in mine if s.stand_in and s.state != Seat.State.REPLACED]
    if back:
        # The player is back: their stand-in bot stops playing for them. A writer of a seat's
        # state: the game row first (the lock order), and only seats still standing in.
        with transaction.atomic():
            lock_game(game.pk)
            Seat.objects.filter(pk__in=[s.pk for s in back], stand_in=True).exclude(
                state=Seat.State.REPLACED
            ).update(stand_in=False, state=Seat.State.ACTIVE, timeouts_in_a_row=0)
        for seat in back:
            seat.stand_in, seat.state, seat.timeouts_in_a_row = False, Seat.State.ACTIVE, 0
    for seat in mine:
        changes = {}
        if seat.last_seen_at is None or now - seat.last_seen_at >= VISIT_GAP:
            # A new visit: what the previous visit saw is what "since you were here" starts from.
            changes.update(since_version=seat.seen_version, since_at=seat.last_seen_at)
        if seat.seen_version != game.version:
            changes["seen_version"] = game.version
        if seat.last_seen_at is None or now - seat.last_seen_at >= SEEN_EVERY:
            changes["last_seen_at"] = now
        if changes:
            Seat.objects.filter(pk=seat.pk).update(**changes)
            for name in ("since_version", "since_at", "seen_version"):
                if name in changes:  # the page being rendered reads these ("since you were here")
                    setattr(seat, name, changes[name])
