"""Who sits where, as every page, email and log line names them."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.models import Game, Seat

# The seats that still play: active, or absent and played for (not replaced by someone else).
LIVE_SEAT = [Seat.State.ACTIVE, Seat.State.ABSENT]


def display_name(seat: Seat) -> str:
    """The seat's player as the log, the chat and the emails name them."""
    bot_name = seat.bot_name
    if bot_name is not None:  # a bot's seat
        return bot_name
    return seat.user.display_name if seat.user else _("deleted player")


def seat_label(seat: Seat) -> str:
    """The seat in the table of players: also says when a bot plays for an absent player."""
    name = display_name(seat)
    if seat.stand_in and seat.bot is None:
        return _("played by a bot for %(name)s") % {"name": name}
    return name


def seat_number(position: int | None, count: int) -> str:
    """A seat as the admin, the game page and the emails number it: "seat 1 of 4" (positions
    count from 0; ``count`` is the number of seats at the table)."""
    if position is None:
        return "-"
    return _("seat %(number)d of %(count)d") % {"number": position + 1, "count": count}


def live_seat(game: Game, user) -> Seat | None:
    if not user.is_authenticated:
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk and seat.state != Seat.State.REPLACED:
            return seat
    return None


def user_name(user) -> str:
    """A player's name, or the placeholder for a deleted account."""
    return user.display_name if user is not None else _("deleted player")


def seat_names(game: Game) -> dict[str, str]:
    """Engine seat name -> the name of the player who holds that seat now (from the game's
    seats, usually prefetched)."""
    return {
        s.engine_name: display_name(s) for s in game.seats.all() if s.state != Seat.State.REPLACED
    }
