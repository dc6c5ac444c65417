"""The bots are blind and legal: properties over random games of every rule set and variant."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games.bots import choose_move, public_events
from games.engine import State, apply_in_place, legal_moves, view_for
from tests.conftest import scaled_examples
from tests.engine.strategies import choose_move as random_move
from tests.engine.strategies import game_specs

NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]


def twin(state: State, seat: str, rng: random.Random) -> State:
    """A state that ``seat`` cannot tell from ``state``: the other hands, the pile, the discards,
    the other roles, the role pool and the goals it has not seen are dealt anew (the last three
    only while the round is under way)."""
    other = state.clone()
    me = other.seat_index(seat)
    others = [i for i in range(len(other.seats)) if i != me]
    hidden = [c for i in others for c in other.hands[i]] + other.pile + other.discard
    rng.shuffle(hidden)
    for i in others:
        size = len(other.hands[i])
        other.hands[i], hidden = hidden[:size], hidden[size:]
    other.pile, other.discard = hidden[: len(other.pile)], hidden[len(other.pile) :]
    if other.result is not None:
        return other  # the round has ended: its roles and goals are public (its "round-ended")
    roles = [other.roles[i] for i in others] + other.set_aside
    rng.shuffle(roles)
    for i in others:
        other.roles[i] = roles.pop(0)
    other.set_aside = roles
    unseen = [
        pos
        for name, pos in other.goals.items()
        if other.board[pos].face_down and name not in other.peeks[me]
    ]
    cards = [other.board[pos].card for pos in unseen]
    rng.shuffle(cards)
    for pos, card in zip(unseen, cards, strict=True):
        other.board[pos].card = card
    for i in others:
        other.peeks[i] = {}
        other.inspections[i] = {}
    return other


# A twin per example, from part of a game: cheap, and each one a different secret to hide.
@settings(
    max_examples=scaled_examples(5),
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=game_specs(), seed=st.integers(0, 2**32), steps=st.integers(0, 120))
def test_a_bot_is_blind_to_what_its_seat_may_not_know(spec, seed, steps):
    rng = random.Random(seed)
    state = spec.build()
    history = []
    for _ in range(steps):
        chosen = random_move(state, rng, eager=True)
        if chosen is None:
            break
        history += public_events(apply_in_place(state, *chosen))
    if state.finished:
        return
    seat = state.seats[state.to_move]
    other = twin(state, seat, rng)
    # The twin differs only in secrets: the seat's view and its legal moves are the same.
    assert view_for(other, seat) == view_for(state, seat)
    moves = legal_moves(state, seat)
    assert legal_moves(other, seat) == moves
    seed = rng.randrange(2**32)
    first = choose_move(view_for(state, seat), moves, random.Random(seed), history)
    second = choose_move(
        view_for(other, seat), legal_moves(other, seat), random.Random(seed), history
    )
    assert first == second


STATES_SEEN = []


# Whole games: twice the profile's count, 60 in ci (thousands of bot decisions, checked below).
LEGAL_GAMES = scaled_examples(2)


@settings(max_examples=LEGAL_GAMES, deadline=None, phases=NO_SHRINK)
@given(spec=game_specs(), seed=st.integers(0, 2**32), share=st.sampled_from((0.5, 1.0)))
def bots_only_make_legal_moves(spec, seed, share):
    """Whole games where bots hold every seat (or half the decisions, the rest random): every
    move a bot returns is one of the legal moves and the engine accepts it."""
    rng = random.Random(seed)
    state = spec.build()
    history = []
    while not state.finished:
        seat = state.seats[state.to_move]
        moves = legal_moves(state, seat)
        if rng.random() < share:
            move = choose_move(view_for(state, seat), moves, rng, history)
            assert move in moves
            STATES_SEEN.append(1)
        else:
            move = rng.choice(moves)
        history += public_events(apply_in_place(state, seat, move))


@pytest.mark.slow  # started first (tests/conftest.py)
def test_a_bot_only_makes_legal_moves_in_thousands_of_states():
    """The property above, run here (not a test of its own: under pytest-xdist's worksteal a
    second test could run in another process and count nothing): dozens of bot decisions a game
    (about 70 on average), so thousands in ci."""
    STATES_SEEN.clear()
    bots_only_make_legal_moves()
    assert len(STATES_SEEN) >= 34 * LEGAL_GAMES
