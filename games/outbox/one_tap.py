"""One-tap links: a signed token per decision that needs no maze (which moves, their labels).

The token is bound to the user, seat, game version and move; ``games.play.taps`` reads it and
makes the move through ``move_submit``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import ACTION, CATALOGUE
from games.engine.types import ActionMove, PassMove
from games.models import MAX_TURN_LIMIT
from games.read.card_names import card_name, hand_key, hand_order
from games.read.learn import SELF_HARM
from games.read.log import goal_label, tool_label

SALT = "games.one-tap"

MAX_AGE = MAX_TURN_LIMIT + timedelta(days=1)


@dataclass(frozen=True)
class Tap:
    user_id: int
    game_id: int
    seat_id: int
    version: int
    # As signed: one of the seat's one-tap moves when the email was written (the engine checks
    # it again when it is made).
    move: engine.Move
    key: str  # the idempotency key of the move it makes


def tap_token(*, user_id: int, game_id: int, seat_id: int, version: int, move: engine.Move) -> str:
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
    # The site signed it: one of the moves it listed (``tap_token``), checked again when made.
    signed: engine.Move = data["m"]
    return Tap(*fields, move=signed, key=key)


def one_tap_moves(state: engine.State, me: str) -> list[engine.Move]:
    """The seat's legal moves that need no maze, the useful first (``_usefulness``), then the
    passes in the order of the hand. Moves that hurt the player themselves (breaking their own
    tool, giving up their dwarf card) are left to the game's page, which asks to confirm them
    with a warning: a turn email offered "Break your own tool" first (issue 36)."""
    if state.decision in (engine.PICK_GOLD, engine.STEAL):
        return engine.legal_moves(state, me)
    if state.decision != engine.TURN:
        return []
    moves: list[ActionMove] = []
    for card in sorted(engine.playable_cards(state, me), key=hand_key):
        if CATALOGUE[card].kind == ACTION:
            moves += [
                m
                for m in engine.legal_moves(state, me, card=card)
                if m["move"] == "action" and "at" not in m and not _hurts_oneself(m, me)
            ]
    moves.sort(key=lambda m: _usefulness(m, me))  # stable: the hand's order within a kind
    passes: list[PassMove] = [
        m for m in engine.discard_moves(state, me) if m["move"] == "pass" and len(m["discard"]) == 1
    ]
    return [*moves, *sorted(passes, key=lambda m: hand_key(m["discard"][0]))]


@dataclass(frozen=True)
class Listed:
    """A one-tap move as the turn email lists it and a reply names it."""

    move: engine.Move
    number: int  # the move's number; for a pass, the number of its card in the hand
    label: str

    @property
    def is_pass(self) -> bool:
        return self.move["move"] == "pass"

    @property
    def reply(self) -> str:
        """What a reply writes to make it: "3", or "pass 2" (the hand's second card)."""
        if self.is_pass:
            return _("pass %(number)d") % {"number": self.number}
        return str(self.number)


def listed_moves(state: engine.State, me: str, names: dict[str, str]) -> list[Listed]:
    """``one_tap_moves`` numbered one way for the email and the replies (issue 47: "3" and
    "pass 3" discarded different cards): the moves that are not passes 1, 2, 3...; a pass by the
    number its card has in the hand the email shows ("pass 2" discards the second card). Two
    moves that would read alike ("Repair Bob's pickaxe" with either of two cards) name their
    card."""
    moves = one_tap_moves(state, me)
    labels = [move_label(move, names, me) for move in moves]
    hand = hand_order(state.hands[state.seats.index(me)]) if me in state.seats else []
    listed: list[Listed] = []
    number = 0
    for move, label in zip(moves, labels, strict=True):
        card = str(move.get("card", ""))
        if labels.count(label) > 1 and card:
            label = _("%(move)s, with %(card)s") % {"move": label, "card": card_name(card)}
        if move["move"] == "pass":
            listed.append(Listed(move, hand.index(move["discard"][0]) + 1, label))
        else:
            number += 1
            listed.append(Listed(move, number, label))
    return listed


def _hurts_oneself(move: ActionMove, me: str) -> bool:
    return move.get("target") == me and CATALOGUE[move["card"]].effect in SELF_HARM


# What a player most likely wants of the action cards in hand: mend their own tools, look at a
# goal, help another, hinder another, then the rest.
_USEFULNESS = {"repair": 2, "map": 1, "break": 3}


def _usefulness(move: ActionMove, me: str) -> int:
    effect = CATALOGUE[move["card"]].effect
    if effect == "repair" and move.get("target") == me:
        return 0
    return _USEFULNESS.get(effect or "", 4)


def path_cards(state: engine.State, me: str) -> list[str]:
    """The path cards the seat can place now (their links open the game with the card picked)."""
    if state.decision != engine.TURN:
        return []
    playable = engine.playable_cards(state, me)
    return sorted((c for c in playable if CATALOGUE[c].kind != ACTION), key=hand_key)


def move_label(move: engine.Move, names: dict[str, str], me: str) -> str:
    """A one-tap move in words, for the email and the confirmation page."""
    if move["move"] == "pick-gold":
        return _("Keep %(value)d gold") % {"value": move["value"]}
    if move["move"] == "steal":
        if move["victim"] is None:
            return _("Steal nothing")
        return _("Steal from %(name)s") % {"name": names.get(move["victim"], "?")}
    if move["move"] == "pass":
        return _("Pass, discarding %(card)s") % {"card": card_name(move["discard"][0])}
    if move["move"] != "action":
        raise ValueError(f"a {move['move']} move is never a one-tap move")
    card = CATALOGUE[move["card"]]
    if card.effect == "map":
        return _("Look at the %(goal)s goal") % {"goal": goal_label(move["goal"])}
    target = move.get("target", "")  # "": none
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


def move_group(move: engine.Move) -> str:
    """The heading a one-tap move is listed under."""
    return {
        "pick-gold": _("Keep a gold card"),
        "steal": _("Your Theft"),
        "action": _("Play an action card"),
        "pass": _("Pass"),
    }[move["move"]]
