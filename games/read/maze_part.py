"""The game page's maze: its cells as the viewer sees them, with the chosen card's legal spots and
the marks of the last act (a part of the game page, ``game_parts``: built on its own from the
engine's view and the bar, and frozen once built).

``board(view, decision, moves, since)`` -> ``Board``; ``last_act(moves)`` -> ``LastAct``, the
move the maze outlines. ``games.templatetags.maze`` draws the cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.utils.translation import gettext as _

from games import engine
from games.engine.cards import GOAL_POSITIONS

from . import history, learn
from .bar_part import Bar
from .card_names import card_name
from .drawing import card_use, goal_back_use
from .game_parts import Position
from .log import LoggedMove

# -- The maze ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell(history.MazeCell):
    """A cell of the maze as the viewer sees it: a ``MazeCell`` (its card or a goal, new or
    removed since their visit) with the chosen card's spot, where the maze last changed, a goal
    they saw, the help on its card and for screen readers its name (the card, the position, the
    neighbours)."""

    legal: bool = False
    chosen: bool = False
    last: bool = False  # where the maze last changed
    peeked: str = ""  # what the viewer saw on this face-down goal with a map (its face shows)
    look: str = ""  # the goal (north, middle, south) the chosen map may look at here
    looked: bool = False  # ... and the one chosen, waiting for Confirm
    card: str = ""  # the face-up card lying here
    help: str = ""  # what that card does (games/read/learn.py)
    name: str = ""  # for screen readers

    MARKS: ClassVar[tuple[str, ...]] = ("legal", "last", "new", "removed", "seen")

    @property
    def seen(self) -> bool:
        return bool(self.peeked)

    @property
    def blank(self) -> bool:
        return super().blank and not (self.name or self.help)


@dataclass(frozen=True)
class Board:
    """The maze's rows of cells, and the latest act of the round (outlined, animated once)."""

    rows: tuple[tuple[Cell, ...], ...] = ()
    last_act: LastAct | None = None

    @property
    def last_move(self) -> int:
        """The sequence of the round's latest act (0 before its first)."""
        return self.last_act.sequence if self.last_act else 0


@dataclass(frozen=True)
class LastAct:
    """The latest move of this round that everyone saw, whatever its kind: the page outlines its
    target and js/game.js sends a card from the mover's seat to it."""

    sequence: int
    mover: str  # the engine seat that moved
    card: str = ""  # the card played, when everyone sees it (not a pass's discards)
    seat: str = ""  # the player it was played on: a tool, a theft, a cleared card (their own)
    at: Position | None = None  # the maze's cell: a path, a rockfall, a map's goal
    passed: bool = False  # a pass: the mover's own chip shows it (nothing else moved)


def last_act(moves: Sequence[LoggedMove]) -> LastAct | None:
    """This round's latest act from the public events (None before the round's first)."""
    for sequence, events, _automatic, _seat in reversed(moves):
        for event in reversed(events):
            if event["kind"] == "round-started":
                return None  # a new maze: nothing of the last round's is "the last move"
            act = _act(sequence, event)
            if act is not None:
                return act
    return None


def _act(sequence: int, event: engine.Event) -> LastAct | None:
    """A public act (a card placed or played, a pass, a clearing, a theft, a gold card taken) as
    ``LastAct``; None for the other events."""
    if event["to"] is not None:
        return None
    if event["kind"] == "placed":
        x, y = event["at"]
        return LastAct(sequence, event["seat"], card=event["card"], at=(x, y))
    if event["kind"] == "action":
        at = event.get("at")
        spot = (at[0], at[1]) if at else None
        if "goal" in event:
            spot = GOAL_POSITIONS.get(event["goal"])
        seat = event.get("target") or ""
        return LastAct(sequence, event["seat"], card=event["card"], seat=seat, at=spot)
    if event["kind"] == "passed":
        return LastAct(sequence, event["seat"], passed=True)
    if event["kind"] == "cleared":
        return LastAct(sequence, event["seat"], seat=event["seat"])
    if event["kind"] == "stole":
        return LastAct(sequence, event["seat"], seat=event["victim"] or "")
    if event["kind"] == "gold-taken":
        return LastAct(sequence, event["seat"])
    return None


def board(
    view: engine.View, decision: Bar, moves: Sequence[LoggedMove], since: history.Since | None
) -> Board:
    """The maze the viewer looks at (``_lying``), the chosen card's legal spots with a preview of
    it there, the marks; one ring of empty cells around."""
    act = last_act(moves)
    lying = _lying(view)
    if lying.over:
        decision = Bar()  # nothing to choose on a maze that is over
    taken = set(lying.cards) | lying.backs | set(decision.spots)
    if not taken:
        return Board(last_act=act)
    xs, ys = [x for x, _y in taken], [y for _x, y in taken]
    columns, lines = range(min(xs) - 1, max(xs) + 2), range(min(ys) - 1, max(ys) + 2)
    marks = _Marks(decision, act.at if act else None, since)
    drawn = {
        (x, y): lying.drawing((x, y), decision) | marks.of((x, y)) for y in lines for x in columns
    }
    names = learn.cell_names({at: (d.get("label", ""), d["legal"]) for at, d in drawn.items()})
    rows = tuple(
        tuple(Cell(x, y, **drawn[(x, y)], name=names.get((x, y), "")) for x in columns)
        for y in lines
    )
    return Board(rows=rows, last_act=act)


@dataclass(frozen=True)
class _Lying:
    """What lies on the maze: face-up cards, face-down goals, the goals the viewer saw."""

    cards: dict[Position, tuple[str, bool]]
    backs: set[Position] = field(default_factory=set)
    peeked: dict[Position, str] = field(default_factory=dict)
    over: bool = False  # a round's maze as it ended

    def drawing(self, at: Position, decision: Bar) -> dict[str, Any]:
        return _drawing(at, self.cards, self.peeked, self.backs, decision)


def _lying(view: engine.View) -> _Lying:
    """The running round's maze (its goals face down, or seen by the viewer); while a round's
    gold is shared, that round's as it ended; once the game is over, the last round's with
    every goal face up."""
    ended = None
    if view["finished"] and view["rounds_done"]:
        ended = view["rounds_done"][-1]
    elif view.get("round_ending"):
        ended = view["round_ending"]
    if ended:
        return _Lying(history.round_maze(ended), over=True)
    mine = view["me"]["peeks"] if view["me"] else {}
    # A face-down goal I looked at with a map shows its face, marked as seen, to me alone.
    return _Lying(
        cards={(c["x"], c["y"]): (c["card"], c["turned"]) for c in view["board"]},
        backs={(g["x"], g["y"]) for g in view["goals"] if g["face_down"]},
        peeked={(g["x"], g["y"]): mine[g["name"]] for g in view["goals"] if g["name"] in mine},
    )


@dataclass(frozen=True)
class _Marks:
    """A cell's marks: a spot of the chosen card (the one picked), a goal a map can look at
    (the one picked), where the maze last changed, what changed since the viewer's visit."""

    decision: Bar
    last: Position | None
    since: history.Since | None

    def of(self, at: Position) -> dict[str, Any]:
        decision, since = self.decision, self.since
        look = dict(decision.looks).get(at, "")
        return {
            "legal": at in decision.spots,
            "chosen": at == decision.chosen_at,
            "look": look,
            "looked": bool(look) and look == decision.looked,
            "last": at == self.last,
            "new": since is not None and at in since.placed,
            "removed": since is not None and at in since.removed,
        }


def _drawing(at: Position, cards: dict, peeked: dict, backs: set, decision: Bar) -> dict:
    """What a cell shows: its card, a goal the viewer saw, a goal's back, or the preview of the
    chosen card on a legal spot; and the help on it."""
    if at in cards:
        card, turned = cards[at]
        return {
            "svg": card_use(card, turned),
            "label": card_name(card),
            "card": card,
            "help": learn.card_help(card),
        }
    if at in peeked:
        seen = card_name(peeked[at])
        return {
            "svg": card_use(peeked[at]),
            "label": _("Face-down goal you saw: %(card)s") % {"card": seen},
            "peeked": seen,
            "face_down": True,
            "help": _(
                "You saw this goal with a map: %(card)s. It is still face down for the others."
            )
            % {"card": seen},
        }
    if at in backs:
        return {
            "svg": goal_back_use(),
            "label": _("Face-down goal"),
            "face_down": True,
            "help": _("A goal card, face down: the treasure or a stone."),
        }
    if at in decision.spots and decision.selected:  # a preview of the card there
        return {"svg": card_use(decision.selected, decision.turned)}
    return {}
