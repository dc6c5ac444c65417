"""What a finished game's page offers its players: to play again with this table (issue 37), one
new game per finished game (issue 50, games.play.lobby.game_rematch): to make it, to join it
once another player made it, to go to it once in it, or why they cannot join it.

While something may still be offered (no new game yet, or one the viewer may join) the page keeps
following the finished game live (``PlayAgain.listens``: its poll and stream, which stop for a
finished game otherwise), so the new game is offered on every open page of the table as soon as
it is made: making it grows the finished game's revision."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q

from games.models import Game, Seat

from .seats import user_name

NONE = "none"  # nobody has made the new game yet: the viewer may
JOIN = "join"  # another player made it; a seat is free for the viewer
IN = "in"  # the viewer is in it
STARTED = "started"  # it has started without the viewer
FULL = "full"  # its seats are taken


@dataclass(frozen=True)
class PlayAgain:
    """Plain values (the play area is kept under a digest of them: games/templatetags/kept.py)."""

    state: str = NONE
    maker: str = ""  # who made the new game
    again_id: int | None = None  # the new game, for a viewer in it
    others: bool = True  # other people played (not a practice game): they may make it

    @property
    def listens(self) -> bool:
        """The page follows the finished game live: something may still be offered."""
        return self.others and self.state in (NONE, JOIN)


def play_again(game: Game, user) -> PlayAgain | None:
    """For a person seated at a finished game; None for anyone else and any other game. One
    query (the seats come with the game the page shows: ``access.game_for``)."""
    if game.status != Game.Status.FINISHED or not user.is_authenticated:
        return None
    if not any(
        seat.user_id == user.pk and seat.state != Seat.State.REPLACED for seat in game.seats.all()
    ):
        return None
    theirs = Seat.objects.filter(game=OuterRef("pk"), user=user).exclude(state=Seat.State.REPLACED)
    again = (
        Game.objects.filter(rematch_of=game)
        .select_related("creator")
        .annotate(taken=Count("seats", filter=~Q(seats__state=Seat.State.REPLACED)))
        .annotate(mine=Exists(theirs))
        .first()
    )
    if again is None:
        return PlayAgain(others=not game.practice)
    maker = user_name(again.creator)
    if again.mine:
        return PlayAgain(state=IN, maker=maker, again_id=again.pk)
    if again.status != Game.Status.LOBBY:
        return PlayAgain(state=STARTED, maker=maker)
    if again.taken >= again.max_seats:
        return PlayAgain(state=FULL, maker=maker)
    return PlayAgain(state=JOIN, maker=maker)
