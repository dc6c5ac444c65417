"""Every legal move of a seat, in canonical form (used by the UI, bots and property tests).

Candidates are checked by the same code that ``apply`` runs, so the list is exact by construction;
the property tests prove that nothing outside it is accepted.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from itertools import combinations, islice

from . import board as maze
from .cards import ACTION, CATALOGUE, GOAL_NAMES, PATH
from .errors import IllegalMove
from .rules import PASS_COUNTS, broken_tools, check, is_trapped
from .state import PICK_GOLD, STEAL, TURN, State
from .types import ActionMove, ClearMove, Move, PassMove, PickGoldMove, PlaceMove, StealMove


def legal_moves(state: State, seat: str, *, card: str | None = None) -> list[Move]:
    """The moves ``seat`` may make now; empty when it is not their decision.

    With ``card``, only the moves that play that card (placing it or acting with it): a page
    showing one selected card needs no more. ``discard_moves`` gives the passes and clears.
    """
    index = state.seat_index(seat)
    if index is None or state.finished or state.to_move != index:
        return []
    if state.decision == PICK_GOLD:
        if card:
            return []
        return [PickGoldMove(move="pick-gold", value=v) for v in sorted(set(state.offer))]
    if state.decision == STEAL:
        return [] if card else _steals(state, seat)
    if state.decision != TURN:
        return []
    hand = sorted(set(state.hands[index]))
    if card is not None:
        hand = [c for c in hand if c == card]
    moves = _placements(state, index, [c for c in hand if CATALOGUE[c].kind == PATH])
    for action in (c for c in hand if CATALOGUE[c].kind == ACTION):
        moves += _valid(state, seat, _action_candidates(state, index, action))
    if card is None:
        moves += _valid(state, seat, _discard_candidates(state, index))
    return moves


def discard_moves(state: State, seat: str) -> list[Move]:
    """The legal passes and (saboteur2) clears of the seat's turn."""
    index = state.seat_index(seat)
    if index is None or state.finished or state.to_move != index or state.decision != TURN:
        return []
    return _valid(state, seat, _discard_candidates(state, index))


def playable_cards(state: State, seat: str) -> set[str]:
    """The cards of the seat's hand that some legal move plays now (stops at the first one)."""
    index = state.seat_index(seat)
    if index is None or state.finished or state.to_move != index or state.decision != TURN:
        return set()
    hand = sorted(set(state.hands[index]))
    paths = [card for card in hand if CATALOGUE[card].kind == PATH]
    # Each card until its first legal move.
    playable = {move["card"] for move in _placement_iter(state, index, paths, first_only=True)}
    for card in hand:
        if CATALOGUE[card].kind != PATH and any(
            True for _ in _valid_iter(state, seat, _action_candidates(state, index, card))
        ):
            playable.add(card)
    return playable


def playable_on_turn(state: State, seat: str) -> set[str]:
    """The cards of the seat's hand that would be playable were it the seat's turn on the maze as
    it is (what a waiting hand shows); nothing outside a turn to play cards."""
    index = state.seat_index(seat)
    if index is None or state.finished or state.decision != TURN:
        return set()
    if state.to_move == index:
        return playable_cards(state, seat)
    waiting = state.clone()
    waiting.to_move = index
    return playable_cards(waiting, seat)


def _valid_iter(state: State, seat: str, candidates: Iterable[Move]) -> Iterator[Move]:
    for move in candidates:
        try:
            check(state, seat, move)
        except IllegalMove:
            continue
        yield move


def _valid(state: State, seat: str, candidates: Iterable[Move]) -> list[Move]:
    return list(_valid_iter(state, seat, candidates))


def _placements(state: State, index: int, cards: list[str]) -> list[Move]:
    return [*_placement_iter(state, index, cards)]


def _placement_iter(
    state: State, index: int, cards: list[str], *, first_only: bool = False
) -> Iterator[PlaceMove]:
    """The legal placements of ``cards``, or with ``first_only`` the first one of each card."""
    if not cards or is_trapped(state, index) or broken_tools(state, index):
        return
    joined = maze.joined_nodes(state.board)
    spots = sorted(
        {
            maze.neighbour(pos, edge)
            for pos in state.board
            for edge in "NESW"
            if maze.neighbour(pos, edge) not in state.board
        }
    )
    # What each free spot asks of a card, worked out once (when a card is first tried there)
    # for every card: the same checks as ``placement_error`` (``apply``'s), which ``spot_error``
    # makes from it.
    spot_of = functools.cache(lambda at: maze.spot_at(state.board, at, joined))
    for card in cards:
        placements = (
            PlaceMove(move="place", card=card, at=list(at), turned=turned)
            for at in spots
            for turned in (False, True)
            if maze.spot_error(spot_of(at), card, turned) is None
        )
        if first_only:
            yield from islice(placements, 1)
        else:
            yield from placements


def _action_candidates(state: State, index: int, card_id: str) -> Iterator[Move]:
    card = CATALOGUE[card_id]
    if card.effect == "rockfall":
        for at in sorted(state.board):
            yield ActionMove(move="action", card=card_id, at=list(at))
    elif card.effect == "map":
        for goal in GOAL_NAMES:
            yield ActionMove(move="action", card=card_id, goal=goal)
    elif card.effect == "theft":
        yield ActionMove(move="action", card=card_id, target=state.seats[index])
    elif card.effect == "repair" and len(card.tools) > 1:
        for target in state.seats:
            for tool in card.tools:
                yield ActionMove(move="action", card=card_id, target=target, tool=tool)
    else:
        for target in state.seats:
            yield ActionMove(move="action", card=card_id, target=target)


def _discard_candidates(state: State, index: int) -> Iterator[Move]:
    hand = sorted(state.hands[index])
    low, high = PASS_COUNTS[state.ruleset]
    for count in range(low, high + 1):
        for cards in sorted(set(combinations(hand, count))):
            yield PassMove(move="pass", discard=list(cards))
    if state.ruleset != "base":
        for cards in sorted(set(combinations(hand, 2))):
            for remove in sorted(set(state.in_front[index])):
                yield ClearMove(move="clear", discard=list(cards), remove=remove)


def _steals(state: State, seat: str) -> list[Move]:
    return _valid(
        state,
        seat,
        [StealMove(move="steal", victim=None)]
        + [StealMove(move="steal", victim=other) for other in state.seats],
    )
