"""Private suspicions and notes (issue 38): a player marks each other seat "gold digger /
saboteur / not sure" (in Saboteur 2 the team colours) for the round, and keeps a note.

Both are the author's alone, kept on their seat row: nothing here tells another page (the
game's revision is not bumped: a live update would say that someone changed something). A
round's marks become public when the round ends (its recap shows them beside the true roles,
``games.read.suspicions``); notes never do.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from games import engine
from games.models import Game, Seat
from games.read.suspicions import marks_for

from .errors import ServiceError
from .locking import lock_game, player_seat

NOTE_LENGTH = 4000


def mark_set(*, game_id: int, user, target: str, mark: str) -> Seat:
    """``user``'s guess at seat ``target`` for the running round; "" clears it."""
    with transaction.atomic():
        game = lock_game(game_id)
        seat = player_seat(game, user)
        if game.status not in (Game.Status.RUNNING, Game.Status.PAUSED) or not game.snapshot:
            raise ServiceError(_("Marks are for a game under way."), code="not-running")
        state = engine.State.from_json(game.snapshot)
        if target == seat.engine_name or target not in state.seats:
            raise ServiceError(_("Mark another player of this game."), code="bad-target")
        if state.finished or state.decision != engine.TURN:
            # The roles are face up: the round's marks are shown as they were.
            raise ServiceError(_("This round is over: its marks are shown."), code="round-over")
        if mark and mark not in marks_for(game.ruleset):
            raise ServiceError(_("That mark does not exist in this game."), code="bad-mark")
        marks = dict(seat.marks or {})
        this_round = dict(marks.get(str(state.round), {}))
        if mark:
            this_round[target] = mark
        else:
            this_round.pop(target, None)
        marks[str(state.round)] = this_round
        seat.marks = marks
        seat.save(update_fields=["marks"])
        return seat


def note_set(*, game_id: int, user, text: str) -> Seat:
    """``user``'s private note on the game (at most ``NOTE_LENGTH`` characters)."""
    if len(text) > NOTE_LENGTH:
        raise ServiceError(
            _("A note has at most %(count)d characters.") % {"count": NOTE_LENGTH},
            code="too-long",
        )
    with transaction.atomic():
        game = lock_game(game_id)
        seat = player_seat(game, user)
        seat.note = text.strip()
        seat.save(update_fields=["note"])
        return seat
