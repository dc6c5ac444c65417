"""The game page's bar: the viewer's decision, what they may choose and how (a part of the game
page, ``game_parts``: built on its own from the engine's view, the players and the hand, and
frozen once built).

``bar(view, deciding, hand, players, moves, me=, title=)`` -> ``Bar``: the choices, the cards
and spots they need, the discards and the warnings; ``decision_title`` says it in a few words;
``gold_pick`` is the choice of gold at a round's end. The maze (``maze_part``) shows the spots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import CATALOGUE, GOAL_POSITIONS, PATH
from games.engine.types import ActionMove
from saboteur_site.text import ascii_int

from . import learn
from .card_names import card_name
from .game_parts import Hand, Move, Players, Position
from .log import LoggedMove, goal_label, tool_label

# -- The bar: the viewer's decision --------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One button: a complete move as form fields."""

    label: str
    fields: dict
    confirm: bool = False  # a first step: the page then asks to confirm (games/read/learn.py)

    @property
    def pick(self) -> str:
        """What the first step chooses: the player (and tool) an action is played on, or the
        goal a map looks at (the page's ``target`` parameter either way)."""
        return str(self.fields.get("target") or self.fields.get("goal") or "")


@dataclass(frozen=True)
class Bar:
    """The viewer's decision: the card chosen and how, the maze's spots for it, the players or
    goals it can go to, the move waiting for Confirm, passing and clearing, gold and steals."""

    title: str = ""  # the decision in words, for the turn line ("Pick a gold card.")
    selected: str | None = None
    selected_name: str = ""
    turned: bool = False
    place_kind: str | None = None  # "place" or "rockfall" when the maze's cells are buttons
    spots: frozenset[Position] = frozenset()  # where the chosen card can go
    chosen_at: Position | None = None  # the legal position picked, awaiting "Confirm"
    looks: tuple[tuple[Position, str], ...] = ()  # the goals a chosen map can look at, by cell
    choices: tuple[Choice, ...] = ()
    confirm: Choice | None = None
    confirm_warning: str = ""
    discard_options: tuple[dict, ...] = ()
    pass_range: tuple[int, int] = (1, 1)
    clear_removable: tuple[dict, ...] = ()
    gold_choices: tuple[Choice, ...] = ()
    steal_choices: tuple[Choice, ...] = ()
    gold_pick: dict | None = None  # who chooses gold, how many picks are left, who is next

    @property
    def pass_one(self) -> bool:
        """A pass discards exactly one card (a radio button), not one to three."""
        return self.pass_range[1] == 1

    @property
    def looked(self) -> str:
        """The goal of the map waiting for Confirm ("" for none)."""
        return str(self.confirm.fields.get("goal", "")) if self.confirm else ""


@dataclass(frozen=True)
class Deciding:
    """What the bar is built from: the viewer's legal moves (only what the page shows), their
    playable cards, the card chosen and its side, and the page's address (a spot, a target)."""

    legal: Sequence[Move] = ()
    selected: str | None = None
    turned: bool = False
    at: str | None = None
    target: str | None = None
    tool: str | None = None
    playable: frozenset[str] = frozenset()


def bar(
    view: engine.View,
    deciding: Deciding,
    hand: Hand,
    players: Players,
    moves: Sequence[LoggedMove],
    *,
    me: str | None,
    title: bool,
) -> Bar:
    """``title``: the decision is put in words (the viewer's turn in a running game)."""
    picking = gold_pick(view, players, me, moves)
    if view["me"] is None:
        return Bar(gold_pick=picking)
    selected = deciding.selected
    turned = deciding.turned and selected is not None
    kind = _place_kind(selected)
    choices = _action_choices(deciding, kind, players, me)
    confirm = next(
        (c for c in choices if c.confirm and _chosen(c, deciding.target, deciding.tool)), None
    )
    spots = _spots(deciding.legal, kind, selected, turned)
    at = _position(deciding.at)
    built = Bar(
        selected=selected,
        selected_name=card_name(selected) if selected else "",
        turned=turned,
        place_kind=kind,
        spots=frozenset(spots),
        chosen_at=at if at in spots else None,
        looks=_looks(deciding),
        choices=choices,
        confirm=confirm,
        confirm_warning=_warning(confirm, me),
        gold_pick=picking,
        **_discards(deciding.legal, hand),
        **_picks(deciding.legal, players),
    )
    return replace(built, title=decision_title(built)) if title else built


def _place_kind(selected: str | None) -> str | None:
    """ "place" for a path card, "rockfall" for a rockfall: the maze's cells are its buttons."""
    if selected and CATALOGUE[selected].kind == PATH:
        return "place"
    if selected and CATALOGUE[selected].effect == "rockfall":
        return "rockfall"
    return None


def _action_choices(
    deciding: Deciding, kind: str | None, players: Players, me: str | None
) -> tuple[Choice, ...]:
    """The chosen action card's buttons: the players (and tools) or goals it can go to."""
    if not deciding.selected or kind == "place":
        return ()
    return tuple(
        _choice(m, players, me)
        for m in deciding.legal
        if m["move"] == "action" and m["card"] == deciding.selected and "at" not in m
    )


def _looks(deciding: Deciding) -> tuple[tuple[Position, str], ...]:
    """The goals a chosen map can look at, by their cell."""
    goals = (
        m["goal"]
        for m in deciding.legal
        if m["move"] == "action" and m["card"] == deciding.selected and "goal" in m
    )
    return tuple((GOAL_POSITIONS[goal], goal) for goal in goals if goal in GOAL_POSITIONS)


def _discards(legal: Sequence[Move], hand: Hand) -> dict[str, Any]:
    """Passing (its cards: the hand; how many) and clearing (what can be removed)."""
    counts = [len(m["discard"]) for m in legal if m["move"] == "pass"]
    options = (
        {"id": c.id, "name": c.name, "index": i, "svg": c.svg} for i, c in enumerate(hand.cards)
    )
    removable = sorted({m["remove"] for m in legal if m["move"] == "clear"})
    return {
        "discard_options": tuple(options) if counts else (),
        "pass_range": (min(counts), max(counts)) if counts else (1, 1),
        "clear_removable": tuple({"id": card, "name": card_name(card)} for card in removable),
    }


def _picks(legal: Sequence[Move], players: Players) -> dict[str, Any]:
    """The gold pick's and a Theft's buttons."""

    def steal(victim: str | None) -> str:
        if victim:
            return _("Steal from %(name)s") % {"name": players.name(victim)}
        return _("Steal nothing")

    return {
        "gold_choices": tuple(
            Choice(_("Keep %(value)d gold") % {"value": m["value"]}, _fields(m))
            for m in legal
            if m["move"] == "pick-gold"
        ),
        "steal_choices": tuple(
            Choice(steal(m["victim"]), _fields(m)) for m in legal if m["move"] == "steal"
        ),
    }


def decision_title(bar: Bar) -> str:
    """The viewer's decision in words, for the turn line ("Pick a gold card")."""
    if bar.gold_choices:
        return _("Pick a gold card.")
    if bar.steal_choices:
        return _("Choose whom to steal from.")
    if not bar.selected:
        if bar.discard_options:
            return _("Choose a card to play, or pass.")
        return _("Choose a card to play.")
    card = {"card": bar.selected_name}
    if bar.confirm:
        return _("Confirm your move, or choose again.")
    if bar.place_kind == "place":
        if bar.chosen_at:
            return _("Confirm %(card)s on the chosen spot, or choose another.") % card
        return _("Choose a highlighted spot for %(card)s.") % card
    if bar.place_kind == "rockfall":
        if bar.chosen_at:
            return _("Confirm the rockfall, or choose another card.")
        return _("Choose a path card to remove.")
    if any("goal" in choice.fields for choice in bar.choices):
        return _("Choose a goal to look at.")
    return _("Choose whom to play %(card)s on.") % card


def _choice(move: ActionMove, players: Players, me: str | None) -> Choice:
    """An action's button; one played on a player or a goal takes two steps, like placing:
    choose, then confirm (the chosen target comes from the page's address)."""
    confirm = "goal" in move or "target" in move
    return Choice(_choice_label(move, players, me), _fields(move), confirm=confirm)


def _chosen(choice: Choice, target: str | None, tool: str | None) -> bool:
    """The choice the page's address picked: only a choice the engine offers is ever shown for
    confirmation."""
    fields = choice.fields
    if "goal" in fields:
        return fields["goal"] == target and tool is None
    return fields.get("target") == target and fields.get("tool") == tool


def _warning(confirm: Choice | None, me: str | None) -> str:
    if confirm is None or confirm.fields.get("target") != me:
        return ""
    effect = CATALOGUE[confirm.fields["card"]].effect
    return str(learn.SELF_HARM[effect]) if effect in learn.SELF_HARM else ""


def _choice_label(move: ActionMove, players: Players, me: str | None) -> str:
    if "goal" in move:
        return _("Look at the %(goal)s goal") % {"goal": goal_label(move["goal"])}
    if move["target"] == me:
        if "tool" in move:
            return _("Repair your %(tool)s") % {"tool": tool_label(move["tool"])}
        return _("Play on yourself")
    target = players.name(move["target"])
    if "tool" in move:
        return _("Repair %(name)s's %(tool)s") % {"name": target, "tool": tool_label(move["tool"])}
    return _("Play on %(name)s") % {"name": target}


def _fields(move: Move) -> dict:
    """A move as the flat form fields the move view reads."""
    fields: dict[str, object] = {"kind": move["move"]}
    given = {key: value for key, value in move.items() if value is not None}
    for key in ("card", "target", "tool", "goal", "value", "victim"):
        if key in given:
            fields[key] = given[key]
    return fields


def _spots(legal: Sequence[Move], kind: str | None, selected, turned: bool) -> set[Position]:
    """Where the selected card can go (a path card the way round it is shown, a rockfall)."""
    if kind == "place":
        return {
            (m["at"][0], m["at"][1])
            for m in legal
            if m["move"] == "place" and m["card"] == selected and m["turned"] == turned
        }
    if kind == "rockfall":
        return {
            (m["at"][0], m["at"][1])
            for m in legal
            if m["move"] == "action" and m["card"] == selected and "at" in m
        }
    return set()


def _position(text: str | None) -> Position | None:
    x_text, _comma, y_text = (text or "").partition(",")
    x, y = ascii_int(x_text), ascii_int(y_text)
    return None if x is None or y is None else (x, y)


def gold_pick(
    view: engine.View, players: Players, me: str | None, moves: Sequence[LoggedMove]
) -> dict | None:
    """The gold pick in words: "Bob is choosing gold (2 of 4 picks left)", and for the picker
    who picks after them and what the others get."""
    if view["decision"] != engine.PICK_GOLD or view["finished"]:
        return None
    taken = 0  # picks already made since the round ended (this round's "gold-taken" events)
    for _sequence, events, _automatic, _position in reversed(moves):
        kinds = [event["kind"] for event in events]
        if "round-started" in kinds:
            break
        taken += kinds.count("gold-taken")
    left = view["offer_count"]
    pickers = view["pickers"]
    # The rotation goes round again when there are more cards than pickers.
    after = [players.name(pickers[k % len(pickers)]) for k in range(1, left)] if pickers else []
    return {
        "picker": players.name(pickers[0]) if pickers else "",
        "mine": bool(pickers) and pickers[0] == me,
        "left": left,
        "total": left + taken,
        "after": after,
        "rest": left - 1,
    }
