"""The lock every writer takes first (the game row), and the checks made under it.

Lock contract: every writer that touches a running game locks its ``Game`` row first
(``select_for_update``) and does all its work inside that one transaction.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.models import Game, Seat

from .errors import ServiceError


def lock_game(game_id: int) -> Game:
    """The game row, locked until the transaction ends: every writer takes this lock first."""
    return Game.objects.select_for_update().get(pk=game_id)


def touch(game: Game) -> None:
    """Tell polling pages that something changed (the caller holds the row lock)."""
    game.revision += 1
    game.save(update_fields=["revision"])


def player_seat(game: Game, user) -> Seat:
    """The player's live seat at ``game``, or a refusal."""
    seat = game.seats.filter(user=user).live().first()
    if seat is None:
        raise ServiceError(_("You do not play in this game."), code="not-seated")
    return seat
