"""Deleting an account: what it does to the player's games.

Their running and paused games go on for the others (issue 53): the seat is marked absent as a
banned player's is, so the site (or, where the creator chose them, a bot) makes its decisions,
and the table is told; once the account is gone the seat shows "deleted player". Finished games
keep the seat and its moves without the person (``Seat.user`` becomes NULL) and without their
private notes and marks. The lobbies they created go, and they leave the ones they joined. The
page is ``games.web.players.account_delete`` (``/accounts/delete/``); ``accounts`` knows nothing
of games, so this lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import AccountError
from games.models import ChatMessage, Game, Notice, Seat
from games.outbox import schedule, sending

from .bot_turns import bot_turn_after_commit
from .moves import decide_for_absent_now


@dataclass(frozen=True)
class DeletionCheck:
    """What stands in the way of deleting an account, and what deleting would do."""

    running: list[Game]  # running games with a live seat: it is left absent, the game goes on
    lobbies_created: list[Game]  # would be deleted
    lobbies_joined: list[Game]  # the seat would be removed

    @property
    def allowed(self) -> bool:
        return True  # since issue 53 a running game no longer stands in the way


# Games a player may not walk away from: a paused game resumes with the same seats.
UNDERWAY = (Game.Status.RUNNING, Game.Status.PAUSED)


def account_deletion_check(user) -> DeletionCheck:
    live = Seat.objects.filter(user=user).live()
    running = Game.objects.filter(status__in=UNDERWAY, seats__in=live).distinct()
    lobbies = Game.objects.filter(status=Game.Status.LOBBY, seats__in=live).distinct()
    created = Game.objects.filter(status=Game.Status.LOBBY, creator=user)
    return DeletionCheck(
        running=list(running.order_by("pk")),
        lobbies_created=list(created.order_by("pk")),
        lobbies_joined=list(lobbies.exclude(creator=user).order_by("pk")),
    )


def account_delete(*, user, password: str, now=None) -> None:
    """Delete the account of ``user`` after checking the password.

    Their live seats in running and paused games are left absent (``_leave_running``); finished
    games keep the user's seats (``Seat.user`` becomes NULL, shown as "deleted player"), without
    their notes and marks. Lobbies the user created are deleted; seats in other lobbies are
    removed, with the chat lines written from them.
    """
    if not password or not user.check_password(password):
        raise AccountError(_("The password is not correct."), code="password")
    now = now or timezone.now()
    User = get_user_model()
    with transaction.atomic():
        # Game rows first (the site's lock order), in a fixed order, so that none of the lobbies
        # starts meanwhile and no running game moves on under us.
        unfinished = list(
            Game.objects.select_for_update()
            .filter(status__in=(Game.Status.LOBBY, *UNDERWAY))
            .filter(
                Q(pk__in=Seat.objects.filter(user=user).values("game_id"))
                | Q(status=Game.Status.LOBBY, creator=user)
            )
            .order_by("pk")
        )
        lobby_ids = [g.pk for g in unfinished if g.status == Game.Status.LOBBY]
        created_ids = [g.pk for g in unfinished if g.pk in lobby_ids and g.creator_id == user.pk]
        User.objects.select_for_update().get(pk=user.pk)
        for game in unfinished:
            if game.status in UNDERWAY:
                _leave_running(game, user, now)
        # Chat lines protect their seats from deletion: they go first.
        ChatMessage.objects.filter(game_id__in=created_ids).delete()
        Game.objects.filter(pk__in=created_ids).delete()
        joined = [pk for pk in lobby_ids if pk not in created_ids]
        if joined:
            seats = Seat.objects.filter(user=user, game_id__in=joined)
            ChatMessage.objects.filter(seat__in=seats).delete()
            seats.delete()
            for game in Game.objects.filter(pk__in=joined):
                game.revision += 1  # open lobby pages show the seat gone
                game.save(update_fields=["revision"])
        # What was the person's own at the tables that stay: their private notes and guesses.
        Seat.objects.filter(user=user).update(note="", marks={})
        User.objects.filter(pk=user.pk).delete()


def _leave_running(game: Game, user, now) -> None:
    """The player's live seat at a running or paused game (locked) is left absent, as a banned
    player's is: the site decides for it at once and at every turn of it (a bot, where the
    creator chose stand-ins), and the table is told."""
    seat = game.seats.live().filter(user=user).first()
    if seat is None:
        return
    if seat.state != Seat.State.ABSENT or seat.stand_in != game.bot_stand_ins:
        seat.state = Seat.State.ABSENT
        seat.stand_in = game.bot_stand_ins
        seat.save(update_fields=["state", "stand_in"])
        sending.enqueue_after_commit(schedule.notice_absent(game=game, absent=seat, now=now))
    Notice.objects.filter(user=user, game=game, status=Notice.Status.PENDING).update(
        status=Notice.Status.SKIPPED, reason="account deleted"
    )
    decide_for_absent_now(game, now)
    game.revision += 1
    game.save(update_fields=["revision", "deadline", "paused_remaining"])
    bot_turn_after_commit(game)
