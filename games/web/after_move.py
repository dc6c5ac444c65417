"""What the game page offers once the player's decision is made: the next game that waits for
them (oldest first; the page goes there by itself when the player chose so in the profile), and,
right after a move, never before, the offer to turn push notifications on in this browser."""

from __future__ import annotations

from dataclasses import dataclass

from games.read import lists
from games.read.lists import NextGame
from saboteur_site import vapid


@dataclass(frozen=True)
class AfterMove:
    next_game: NextGame | None = None
    go: bool = False  # a move was just made and the player goes on to the next game by themselves
    push_key: str | None = None  # set: offer push notifications (just after a move)


def after_move(user, page, *, moved: bool) -> AfterMove:
    """``page`` is the viewer's game page; ``moved``: this answer follows their accepted move."""
    push_key = vapid.public_key() if moved else None
    if not page.seated or page.my_turn:
        return AfterMove(push_key=push_key)
    following = lists.next_awaiting(user, besides=page.id)
    go = moved and following is not None and user.next_game_auto
    return AfterMove(next_game=following, go=go, push_key=push_key)
