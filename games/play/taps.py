"""A one-tap link's page and its button: the move it carries, made once through ``move_submit``.

The token itself (what it binds, how moves are labelled) is the outbox's (``games.outbox.one_tap``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.models import Game, Seat
from games.outbox.one_tap import Tap, move_label, read_tap
from games.read.log import describe
from games.read.seats import display_name

from .errors import ServiceError, StaleVersion
from .locking import lock_game
from .moves import move_submit


@dataclass
class TapPage:
    """What the link's page shows; only the game's name and the move in the seat's own words
    (and, once made, what it showed the seat: the goal a map revealed, the card drawn)."""

    status: str  # ready, done, used, stale, moved, expired, foreign, invalid, refused or off
    game_id: int | None = None
    game_name: str = ""
    label: str = ""
    message: str = ""
    revealed: list[str] = field(default_factory=list)
    language: str = ""  # the player's, for a page opened without logging in


def _names(game: Game) -> dict[str, str]:
    seats = game.seats.select_related("user").exclude(state=Seat.State.REPLACED)
    return {s.engine_name: display_name(s) for s in seats}


def _game(game_id: int, *, lock: bool) -> Game | None:
    if not lock:
        return Game.objects.filter(pk=game_id).first()
    try:
        return lock_game(game_id)
    except Game.DoesNotExist:
        return None


def _check(token: str, viewer, now, *, lock=False) -> tuple[TapPage, Tap | None, Seat | None]:
    """What the link can do now; with ``lock`` (the button's POST) read under the game's row
    lock, so that the answer holds until the move is made in the same transaction."""
    tap = read_tap(token)
    if isinstance(tap, str):
        return TapPage(tap), None, None
    game = _game(tap.game_id, lock=lock)
    seat = Seat.objects.select_related("user").filter(pk=tap.seat_id, game_id=tap.game_id).first()
    if game is None or seat is None:
        return TapPage("invalid"), None, None
    if viewer.is_authenticated and viewer.pk != tap.user_id:
        return TapPage("foreign", game_id=game.pk), None, None
    page = TapPage("ready", game_id=game.pk, game_name=game.name)
    if seat.user is not None and seat.user_id == tap.user_id and not seat.user.email_hand:
        page.status = "off"  # they turned one-tap moves off: every link sent before dies
        return page, None, None
    if game.moves.filter(seat=seat, idempotency_key=tap.key).exists():
        page.status = "used"
        return page, tap, seat
    user = seat.user
    if user is None or user.pk != tap.user_id or not user.is_active:
        page.status = "stale"
        return page, None, None
    if game.status == Game.Status.PAUSED and game.version == tap.version:
        page.status = "refused"
        page.message = _("The moderators have paused this game; moves wait until it resumes.")
        return page, None, None
    late = _too_late(game, seat, tap, now)
    if late is not None:
        page.status = late
        return page, None, None
    page.label = move_label(tap.move, _names(game), seat.engine_name)
    return page, tap, seat


def _too_late(game: Game, seat: Seat, tap: Tap, now) -> str | None:
    """Why the link's move may no longer be made, as a page status ("stale", "moved" or
    "expired"), or None while it is still the seat's decision the email was about."""
    if (
        game.status != Game.Status.RUNNING
        or game.version != tap.version
        or seat.state == Seat.State.REPLACED
        or game.to_move != seat.position
    ):
        # "Someone moved after this email" is not said to the one who did (on the game's page
        # or with another link of the email), nor when their time ran out.
        theirs = game.moves.filter(sequence=tap.version + 1, seat=seat).first()
        if theirs is None:
            return "stale"
        return "expired" if theirs.automatic else "moved"
    if game.deadline is not None and now >= game.deadline:
        return "expired"
    return None


def _language(token: str, viewer) -> str:
    """The language of the link's player, for a page opened without logging in (a logged-in
    viewer's own language is already active)."""
    if viewer.is_authenticated:
        return ""
    tap = read_tap(token)
    if isinstance(tap, str):
        return ""
    seat = Seat.objects.select_related("user").filter(pk=tap.seat_id, user_id=tap.user_id).first()
    language = seat.user.language if seat is not None and seat.user is not None else ""
    return language if language and translation.check_for_language(language) else ""


def tap_page(*, token: str, viewer, now=None) -> TapPage:
    """What opening the link shows; it changes nothing (mail scanners follow links)."""
    language = _language(token, viewer)
    with translation.override(language or translation.get_language()):
        page, _tap, _seat = _check(token, viewer, now or timezone.now())
    page.language = language
    return page


def tap_submit(*, token: str, viewer, now=None) -> TapPage:
    """Make the link's move (the button's POST), once, through ``move_submit``, in the player's
    language when the page was opened without logging in."""
    language = _language(token, viewer)
    with translation.override(language or translation.get_language()):
        page = _submit(token, viewer, now or timezone.now())
    page.language = language
    return page


@transaction.atomic
def _submit(token: str, viewer, now) -> TapPage:
    """The answer is decided under the game's row lock, in the transaction that makes the move:
    taps of one link at once queue on the lock, and each after the first sees the link used
    and answers "done", never "stale"."""
    page, tap, seat = _check(token, viewer, now, lock=True)
    if page.status == "used":
        page.status = "done"  # a second tap gets the first answer
    if page.status != "ready" or tap is None or seat is None:  # "ready" comes with both
        return page
    try:
        result = move_submit(
            game_id=tap.game_id,
            user=seat.user,
            move=tap.move,
            expected_version=tap.version,
            idempotency_key=tap.key,
        )
    except StaleVersion:
        page.status = "stale"
    except ServiceError as refused:
        page.status, page.message = "refused", refused.message
    else:
        page.status = "done"
        page.revealed = _revealed(result.move, seat)
    return page


def _revealed(move, seat: Seat) -> list[str]:
    """What the move showed the seat alone (a map's goal, the cards drawn), in its own words;
    shown only to the request that made the move."""
    me, names = seat.engine_name, _names(move.game)
    lines = [describe(e, names, me) for e in move.events if e.get("to") == me]
    return [line for line in lines if line]
