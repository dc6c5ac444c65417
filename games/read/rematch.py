"""What a finished game's page offers its players (issue 37): to play again with this table
(games.play.lobby.game_rematch), or to join the new game another of them made for it."""

from __future__ import annotations

from dataclasses import dataclass

from games.models import Game


@dataclass(frozen=True)
class PlayAgain:
    offer: Game | None = None  # another player's new game with this table, not yet joined


def play_again(game: Game, user) -> PlayAgain | None:
    """For a person seated at a finished game; None for anyone else and any other game."""
    if game.status != Game.Status.FINISHED or not user.is_authenticated:
        return None
    if not game.seats.filter(user=user).live().exists():
        return None
    offer = (
        game.rematches.filter(status=Game.Status.LOBBY)
        .exclude(creator=user)
        .exclude(seats__user=user)
        .order_by("-created_at")
        .first()
    )
    return PlayAgain(offer=offer)
