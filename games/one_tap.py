"""One-tap decisions from the "your turn" email: signed links that each authorise one move.

A link carries a signed token bound to the user, the game, the seat, the game's version and the
move. It works without being logged in, and only for that move: opening it (GET) shows what it
does and one button; the button's POST makes the move through ``services.move_submit``, with an
idempotency key derived from the token, so a second tap gets the first answer. The link dies when
the game moves on (any move changes the version), when the deadline passes, and after
``MAX_AGE`` whatever happens.

Only decisions that need no maze get a link: each gold value to keep, each theft choice, each
action card on each legal target (not Rockfall, which needs a position) and passing with each
single card.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.utils import timezone
from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import ACTION, CATALOGUE

from . import services
from .drawing import card_name, hand_key
from .log import goal_label, tool_label
from .models import MAX_TURN_LIMIT, Game, Seat

SALT = "games.one-tap"
MAX_AGE = MAX_TURN_LIMIT + timedelta(days=1)


@dataclass(frozen=True)
class Tap:
    user_id: int
    game_id: int
    seat_id: int
    version: int
    move: dict
    key: str  # the idempotency key of the move it makes


def tap_token(*, user_id: int, game_id: int, seat_id: int, version: int, move: dict) -> str:
    data = {"u": user_id, "g": game_id, "s": seat_id, "v": version, "m": move}
    return signing.dumps(data, salt=SALT, compress=True)


def read_tap(token: str, *, max_age: timedelta = MAX_AGE) -> Tap | str:
    """The token's contents, or why it cannot be used: "invalid" or "expired"."""
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired:
        return "expired"
    except signing.BadSignature:
        return "invalid"
    try:
        fields = (data["u"], data["g"], data["s"], data["v"])
        move = data["m"]
    except (TypeError, KeyError):
        return "invalid"
    if not all(isinstance(f, int) for f in fields) or not isinstance(move, dict):
        return "invalid"
    key = "tap:" + hashlib.sha256(token.encode()).hexdigest()[:40]
    return Tap(*fields, move=move, key=key)


# -- Which decisions get a link, and their words -------------------------------------------------


def one_tap_moves(state: engine.State, me: str) -> list[dict]:
    """The seat's legal moves that need no maze, in the order of the hand."""
    if state.decision in (engine.PICK_GOLD, engine.STEAL):
        return engine.legal_moves(state, me)
    if state.decision != engine.TURN:
        return []
    moves = []
    for card in sorted(engine.playable_cards(state, me), key=hand_key):
        if CATALOGUE[card].kind == ACTION:
            moves += [m for m in engine.legal_moves(state, me, card=card) if "at" not in m]
    passes = [
        m for m in engine.discard_moves(state, me) if m["move"] == "pass" and len(m["discard"]) == 1
    ]
    return moves + sorted(passes, key=lambda m: hand_key(m["discard"][0]))


def path_cards(state: engine.State, me: str) -> list[str]:
    """The path cards the seat can place now (their links open the game with the card picked)."""
    if state.decision != engine.TURN:
        return []
    playable = engine.playable_cards(state, me)
    return sorted((c for c in playable if CATALOGUE[c].kind != ACTION), key=hand_key)


def move_label(move: dict, names: dict[str, str], me: str) -> str:
    """A one-tap move in words, for the email and the confirmation page."""
    kind = move["move"]
    if kind == "pick-gold":
        return _("Keep %(value)d gold") % {"value": move["value"]}
    if kind == "steal":
        if move["victim"] is None:
            return _("Steal nothing")
        return _("Steal from %(name)s") % {"name": names.get(move["victim"], "?")}
    if kind == "pass":
        return _("Pass, discarding %(card)s") % {"card": card_name(move["discard"][0])}
    card = CATALOGUE[move["card"]]
    if card.effect == "map":
        return _("Look at the %(goal)s goal") % {"goal": goal_label(move["goal"])}
    target = move.get("target")
    mine = target == me
    name = names.get(target, "?")
    if card.effect in ("break", "repair"):
        tool = tool_label(move.get("tool") or card.tools[0])
        if card.effect == "break":
            if mine:
                return _("Break your own %(tool)s") % {"tool": tool}
            return _("Break %(name)s's %(tool)s") % {"name": name, "tool": tool}
        if mine:
            return _("Repair your %(tool)s") % {"tool": tool}
        return _("Repair %(name)s's %(tool)s") % {"name": name, "tool": tool}
    if target is None or card.effect == "theft":
        return _("Play %(card)s") % {"card": card_name(card.id)}
    if mine:
        return _("Play %(card)s on yourself") % {"card": card_name(card.id)}
    return _("Play %(card)s on %(name)s") % {"card": card_name(card.id), "name": name}


def move_group(move: dict) -> str:
    """The heading a one-tap move is listed under."""
    return {
        "pick-gold": _("Keep a gold card"),
        "steal": _("Your Theft"),
        "action": _("Play an action card"),
        "pass": _("Pass"),
    }[move["move"]]


# -- The link's page -----------------------------------------------------------------------------


@dataclass
class TapPage:
    """What the link's page shows; only the game's name and the move in the seat's own words."""

    status: str  # ready, done, used, stale, expired, foreign, invalid or refused
    game_id: int | None = None
    game_name: str = ""
    label: str = ""
    message: str = ""


def _names(game: Game) -> dict[str, str]:
    from .selectors import display_name

    seats = game.seats.select_related("user").exclude(state=Seat.State.REPLACED)
    return {s.engine_name: display_name(s) for s in seats}


def _check(token: str, viewer, now) -> tuple[TapPage, Tap | None, Seat | None]:
    tap = read_tap(token)
    if isinstance(tap, str):
        return TapPage(tap), None, None
    game = Game.objects.filter(pk=tap.game_id).first()
    seat = Seat.objects.select_related("user").filter(pk=tap.seat_id, game_id=tap.game_id).first()
    if game is None or seat is None:
        return TapPage("invalid"), None, None
    if viewer.is_authenticated and viewer.pk != tap.user_id:
        return TapPage("foreign", game_id=game.pk), None, None
    page = TapPage("ready", game_id=game.pk, game_name=game.name)
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
    if (
        game.status != Game.Status.RUNNING
        or game.version != tap.version
        or seat.state == Seat.State.REPLACED
        or game.to_move != seat.position
    ):
        page.status = "stale"
        return page, None, None
    if game.deadline is not None and now >= game.deadline:
        page.status = "expired"
        return page, None, None
    page.label = move_label(tap.move, _names(game), seat.engine_name)
    return page, tap, seat


def tap_page(*, token: str, viewer, now=None) -> TapPage:
    """What opening the link shows; it changes nothing (mail scanners follow links)."""
    page, _tap, _seat = _check(token, viewer, now or timezone.now())
    return page


def tap_submit(*, token: str, viewer, now=None) -> TapPage:
    """Make the link's move (the button's POST), once, through ``move_submit``."""
    page, tap, seat = _check(token, viewer, now or timezone.now())
    if page.status == "used":
        page.status = "done"  # a second tap gets the first answer
    if page.status != "ready":
        return page
    try:
        services.move_submit(
            game_id=tap.game_id,
            user=seat.user,
            move=tap.move,
            expected_version=tap.version,
            idempotency_key=tap.key,
        )
    except services.StaleVersion:
        page.status = "stale"
    except services.ServiceError as refused:
        page.status, page.message = "refused", refused.message
    else:
        page.status = "done"
    return page
