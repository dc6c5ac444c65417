"""Deleting an account: what stands in its way, and what it does to the player's games.

A player may not walk away from a running or paused game (the other players would be left with
a seat nobody can play); the lobbies they created go, and they leave the ones they joined. The
page is ``games.web.players.account_delete`` (``/accounts/delete/``); ``accounts`` knows nothing
of games, so this lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.services import AccountError
from games.models import ChatMessage, Game, Seat


@dataclass(frozen=True)
class DeletionCheck:
    """What stands in the way of deleting an account, and what deleting would do."""

    running: list[Game]  # running games with a live seat: deletion waits until they end
    lobbies_created: list[Game]  # would be deleted
    lobbies_joined: list[Game]  # the seat would be removed

    @property
    def allowed(self) -> bool:
        return not self.running


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


def account_delete(*, user, password: str) -> None:
    """Delete the account of ``user`` after checking the password.

    Refused while the user holds a live seat in a running game: the other players would be
    left with a seat nobody can play. Finished games keep the user's seats (``Seat.user`` becomes
    NULL, shown as "deleted player"). Lobbies the user created are deleted; seats in other
    lobbies are removed, with the chat lines written from them.
    """
    if not password or not user.check_password(password):
        raise AccountError(_("The password is not correct."), code="password")
    User = get_user_model()
    with transaction.atomic():
        # Game rows first (the site's lock order), in a fixed order, so that none of the lobbies
        # starts meanwhile; a game that started before the lock is seen as underway below.
        lobby_ids = list(
            Game.objects.select_for_update()
            .filter(status=Game.Status.LOBBY)
            .filter(pk__in=Seat.objects.filter(user=user).values("game_id"))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        created_ids = list(
            Game.objects.select_for_update()
            .filter(status=Game.Status.LOBBY, creator=user)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        User.objects.select_for_update().get(pk=user.pk)
        running = Seat.objects.filter(user=user, game__status__in=UNDERWAY).live().exists()
        if running:
            raise AccountError(
                _(
                    "You still play in a running game. Finish it, or ask an administrator to "
                    "hand your seat to someone else, before deleting your account."
                ),
                code="running",
            )
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
        User.objects.filter(pk=user.pk).delete()
