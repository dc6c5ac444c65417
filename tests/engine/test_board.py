"""How a revealed goal lies (docs/rules.md D13): the orientation that fits its revealed neighbours
best, then the player's choice, then the one opening toward the tunnel that reached it, else
upright. ``goal_orientation`` on small boards made by hand."""

from __future__ import annotations

from games.engine.board import goal_orientation
from games.engine.state import Placed

GOAL = (8, 0)


def lies_turned(neighbours, reached_from=("W",), choice=None, card="goal-stone-ne") -> bool:
    board = {GOAL: Placed(card, False, True), **neighbours}
    return goal_orientation(board, GOAL, card, list(reached_from), choice)


def test_the_orientation_that_fits_its_neighbours_wins_over_the_choice():
    # A tunnel from the west: the N-E stone fits only turned (S-W).
    west = {(7, 0): Placed("straight-ew")}
    assert lies_turned(west) is True
    assert lies_turned(west, choice=False) is True
    # A wall to the west and a tunnel from the north: upright (N-E) fits both.
    walls = {(7, 0): Placed("straight-ns"), (8, -1): Placed("straight-ns")}
    assert lies_turned(walls, reached_from=("N",)) is False
    assert lies_turned(walls, reached_from=("N",), choice=True) is False


def test_face_down_neighbours_count_for_nothing():
    """A face-down goal to the north (no tunnel shows: turned would fit it) and a wall to the
    west (upright fits it): only the wall counts."""
    board = {(7, 0): Placed("straight-ns"), (8, -1): Placed("goal-stone-nw", False, True)}
    assert lies_turned(board) is False


def test_on_a_tie_the_choice_then_the_reaching_tunnel_decide():
    # A cross to the west fits both ways once the north is open too: a tie.
    tie = {(7, 0): Placed("cross"), (8, -1): Placed("cross")}
    assert lies_turned(tie, choice=True) is True
    assert lies_turned(tie, choice=False) is False
    # No choice: the orientation whose tunnel opens toward the edge it was reached from.
    assert lies_turned(tie, reached_from=("W",)) is True  # S-W opens west
    assert lies_turned(tie, reached_from=("N",)) is False  # N-E opens north
    # Reached from both sides, or from none: upright.
    assert lies_turned(tie, reached_from=("W", "N")) is False
    assert lies_turned(tie, reached_from=()) is False
