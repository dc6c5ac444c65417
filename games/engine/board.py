"""The maze: tunnels, joining, placing rules and goal reveals (docs/rules.md 1 and 6.2)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import (
    CATALOGUE,
    EDGES,
    GOAL,
    OPPOSITE,
    START,
    STEP,
    edges_of,
    tunnels_of,
    turned_edges,
)
from .state import Placed

Pos = tuple[int, int]
Node = tuple[Pos, int]  # a position and the index of one tunnel of the card there


def neighbour(pos: Pos, edge: str) -> Pos:
    dx, dy = STEP[edge]
    return pos[0] + dx, pos[1] + dy


def card_tunnels(placed: Placed) -> tuple[frozenset[str], ...]:
    """The tunnels of a card on the table; a face-down goal has none."""
    if placed.face_down:
        return ()
    return tunnels_of(placed.card, placed.turned)


def open_edges(placed: Placed) -> frozenset[str]:
    if placed.face_down:
        return frozenset()
    return edges_of(placed.card, placed.turned)


def _roots(board: dict[Pos, Placed]) -> list[Node]:
    """The start's tunnel and every ladder's: joined by themselves."""
    roots: list[Node] = []
    for pos, placed in board.items():
        card = CATALOGUE[placed.card]
        if card.kind == START or card.ladder:
            roots.extend((pos, i) for i in range(len(card.tunnels)))
    return roots


def joined_nodes(board: dict[Pos, Placed], skip_door: str | None = None) -> set[Node]:
    """Every tunnel joined to the start (1.1), optionally not passing any door of one colour."""
    tunnels = {pos: card_tunnels(p) for pos, p in board.items()}
    if skip_door:
        for pos, p in board.items():
            if CATALOGUE[p.card].door == skip_door:
                tunnels[pos] = ()
    seen: set[Node] = set()
    stack = [node for node in _roots(board) if tunnels[node[0]]]
    seen.update(stack)
    while stack:
        pos, index = stack.pop()
        for edge in tunnels[pos][index]:
            other = neighbour(pos, edge)
            back = OPPOSITE[edge]
            for j, tunnel in enumerate(tunnels.get(other, ())):
                if back in tunnel and (other, j) not in seen:
                    seen.add((other, j))
                    stack.append((other, j))
    return seen


def is_goal(placed: Placed | None) -> bool:
    return placed is not None and CATALOGUE[placed.card].kind == GOAL


def placement_error(
    board: dict[Pos, Placed], card_id: str, pos: Pos, turned: bool, joined: set[Node]
) -> str | None:
    """The reason code refusing this placement (1.2 and 6.2), or None when it is legal.

    ``joined`` is ``joined_nodes(board)``, computed once by the caller.
    """
    if pos in board:
        return "occupied"
    return spot_error(spot_at(board, pos, joined), card_id, turned)


@dataclass(frozen=True, slots=True)
class Spot:
    """What placing a card on one free position depends on, whatever the card: the legal moves
    try every card of a hand both ways up at every free position, so they work this out once
    per position (``spot_at``) and ask ``spot_error`` for each card, as ``placement_error``
    does for one."""

    has_neighbour: bool
    next_to_goal: bool
    # The edges of the position whose face-up neighbour opens toward it (a card there must
    # open on them), and those whose face-up neighbour is closed toward it (it must not).
    must_open: frozenset[str]
    must_close: frozenset[str]
    # The edges a tunnel joined to the start faces (``faces_joined``).
    reaching: frozenset[str]


def spot_at(board: dict[Pos, Placed], pos: Pos, joined: set[Node]) -> Spot:
    """The free position ``pos`` as ``spot_error`` reads it."""
    around = [(edge, board.get(neighbour(pos, edge))) for edge in EDGES]
    must_open: set[str] = set()
    must_close: set[str] = set()
    for edge, placed in around:
        if placed is None or placed.face_down:
            continue
        (must_open if OPPOSITE[edge] in open_edges(placed) else must_close).add(edge)
    return Spot(
        has_neighbour=any(placed for _, placed in around),
        next_to_goal=any(is_goal(placed) for _, placed in around),
        must_open=frozenset(must_open),
        must_close=frozenset(must_close),
        reaching=frozenset(edge for edge in EDGES if faces_joined(board, pos, edge, joined)),
    )


def spot_error(spot: Spot, card_id: str, turned: bool) -> str | None:
    """``placement_error`` for a free position, from its ``Spot``."""
    if not spot.has_neighbour:
        return "no-neighbour"
    card = CATALOGUE[card_id]
    if card.ladder and spot.next_to_goal:
        return "ladder-next-to-goal"
    mine = edges_of(card_id, turned)
    if not spot.must_open <= mine or spot.must_close & mine:
        return "edge-mismatch"
    if card.ladder:
        return None
    # A tunnel of the card opens on an edge a joined tunnel faces (``edges_of`` is every edge
    # some tunnel opens on).
    if mine & spot.reaching:
        return None
    return "not-joined"


def faces_joined(board: dict[Pos, Placed], pos: Pos, edge: str, joined: set[Node]) -> bool:
    """Whether a joined tunnel of the neighbour across ``edge`` opens toward ``pos``."""
    other = neighbour(pos, edge)
    placed = board.get(other)
    if placed is None:
        return False
    back = OPPOSITE[edge]
    return any(back in t and (other, j) in joined for j, t in enumerate(card_tunnels(placed)))


def reaching_edges(board: dict[Pos, Placed], pos: Pos, joined: set[Node]) -> list[str]:
    """Edges of the position at ``pos`` that a joined tunnel faces."""
    return [edge for edge in EDGES if faces_joined(board, pos, edge, joined)]


def goal_orientation(
    board: dict[Pos, Placed], pos: Pos, card_id: str, reached_from: list[str], choice: bool | None
) -> bool:
    """Whether a revealed goal lies turned (1.3): best fit, then the player's choice, then the
    orientation opening toward the tunnel that reached it, then upright."""
    shape = CATALOGUE[card_id].tunnels[0]

    def fits(turned: bool) -> int:
        edges = turned_edges(shape, turned)
        count = 0
        for edge in EDGES:
            placed = board.get(neighbour(pos, edge))
            if placed is not None and not placed.face_down:
                count += (edge in edges) == (OPPOSITE[edge] in open_edges(placed))
        return count

    upright, turned = fits(False), fits(True)
    if upright != turned:
        return turned > upright
    if choice is not None:
        return choice
    toward = [t for t in (False, True) if set(turned_edges(shape, t)) & set(reached_from)]
    return toward[0] if len(toward) == 1 else False


def crystals_in_maze(board: dict[Pos, Placed]) -> int:
    return sum(CATALOGUE[p.card].crystals for p in board.values())
