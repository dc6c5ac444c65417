"""A player's profile changed in what the games show or plan by it.

- Their clock (quiet hours or time zone): their held emails and the reminders of their turns
  are placed again by it, and a turn of theirs under way still leaves them an hour outside
  their quiet hours (``player_clock_changed``).
- Their display name: every game they sit at gets a new revision (``player_renamed``), so open
  pages (live or polling) and every part kept per revision show the new name at once.

``accounts`` imports nothing of games: its services send ``accounts.signals.clock_changed`` and
``renamed`` (for the profile page and the admin), and the receivers below, connected by
``GamesConfig.ready``, call these functions synchronously, inside the sender's transaction.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.dispatch import receiver
from django.utils import timezone

from accounts import signals
from games.models import Game, Seat
from games.outbox import schedule, sending
from games.read import clock as clocks
from games.read.seats import LIVE_SEAT

from .locking import lock_game, touch


def player_clock_changed(*, user, now=None) -> None:
    """Place the player's held emails and their running turns' reminders again by their new
    quiet hours and time zone (call after saving them). The games whose decision is theirs are
    locked first, in order (the lock order), while their reminders move."""
    now = now or timezone.now()
    deciding = Game.objects.filter(
        status=Game.Status.RUNNING,
        seats__user=user,
        seats__state__in=LIVE_SEAT,
        seats__position=F("to_move"),
    )
    with transaction.atomic():
        games = [lock_game(pk) for pk in deciding.order_by("pk").values_list("pk", flat=True)]
        # Still theirs under the lock (someone may have moved meanwhile).
        games = [game for game in games if game.status == Game.Status.RUNNING]
        for game in games:
            _deadline_kept_awake(game, user)
        due = schedule.clock_changed(user=user, games=games, now=now)
        sending.enqueue_after_commit(due)


def _deadline_kept_awake(game: Game, user) -> None:
    """The player's decision under way in ``game`` leaves them an hour outside their new quiet
    hours (``clock.AWAKE_MINIMUM``, counted from its start), its deadline moved later if it
    did not; never earlier: a turn's time is the player's once given (the lock is held)."""
    seat = clocks.deciding_seat(game)
    if seat is None or seat.user_id != user.pk or game.deadline is None:
        return
    if seat.state != Seat.State.ACTIVE or seat.bot_plays or game.decision_since is None:
        return  # the site or a bot decides for this seat: nobody waits for the player
    seat.user = user  # their new quiet hours and time zone
    fresh = clocks.decision_deadline(game, seat, game.decision_since).final
    if fresh > game.deadline:
        game.deadline = fresh
        game.save(update_fields=["deadline"])
        touch(game)


def player_renamed(*, user) -> None:
    """Call after saving a new display name: each game the player sits or sat at is locked, in
    order (the lock order), and touched."""
    ids = Game.objects.filter(seats__user=user).order_by("pk").values_list("pk", flat=True)
    with transaction.atomic():
        for pk in dict.fromkeys(ids):  # a replaced seat and a new one: one game
            touch(lock_game(pk))


@receiver(signals.clock_changed, dispatch_uid="games.play.profiles.clock_changed")
def _clock_changed(sender, *, user, **kwargs) -> None:
    player_clock_changed(user=user)


@receiver(signals.renamed, dispatch_uid="games.play.profiles.renamed")
def _renamed(sender, *, user, **kwargs) -> None:
    player_renamed(user=user)
