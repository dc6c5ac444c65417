"""Hypothesis strategies and helpers that build and play random Saboteur games (engine only).

Everything random is driven by a ``random.Random`` handed in by hypothesis (``st.randoms()``), so a
failing game shrinks and reproduces from hypothesis' own database.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import strategies as st

from games.engine import State, apply_in_place, legal_moves, new_game
from games.engine.cards import CATALOGUE, GOAL_NAMES, ROLES, VARIANTS

SEAT_NAMES = ("ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lee")
PLAYERS = {"base": (3, 10), "saboteur2": (2, 12)}
# A full game is at most 3 rounds x (deck + gold picks + steals); this cap only guards against a
# game that never ends (an engine bug), it is far above any real game length.
MOVE_CAP = 2000

# Names that are not also the project's vocabulary (so that token checks stay meaningful).
_VOCABULARY = set(CATALOGUE) | {r for roles in ROLES.values() for r in roles} | set(GOAL_NAMES)
free_names = st.text(min_size=1, max_size=8).filter(lambda name: name not in _VOCABULARY)
seeds = st.binary(min_size=8, max_size=16).map(bytes.hex)


@dataclass
class GameSpec:
    ruleset: str
    seats: list[str]
    variants: list[str] = field(default_factory=list)
    rounds: int = 3
    round_seeds: list[str] = field(default_factory=list)

    def build(self) -> State:
        return new_game(
            ruleset=self.ruleset,
            seats=list(self.seats),
            variants=list(self.variants),
            rounds=self.rounds,
            round_seeds=list(self.round_seeds),
        )


@st.composite
def game_specs(draw, ruleset: str | None = None, rounds=None) -> GameSpec:
    """A random game set-up: ``base`` with 3-10 seats and a subset of the variants, or ``saboteur2``
    with 2-12 seats; one random hex seed per round."""
    if ruleset is None:
        ruleset = draw(st.sampled_from(("base", "saboteur2")))
    low, high = PLAYERS[ruleset]
    players = draw(st.integers(low, high))
    if draw(st.integers(0, 3)) == 0:
        # Seat names are free strings (docs/scenarios.md): any non-empty text, numbers, JSON-ish.
        seats = draw(st.lists(free_names, min_size=players, max_size=players, unique=True))
    else:
        seats = list(SEAT_NAMES[:players])
        if draw(st.booleans()):
            seats = draw(st.permutations(seats))
    variants = []
    if ruleset == "base":
        variants = sorted(draw(st.sets(st.sampled_from(VARIANTS))))
    if rounds is None:
        rounds = draw(st.sampled_from((1, 2, 3, 3, 3)))
    round_seeds = [draw(seeds) for _ in range(rounds)]
    return GameSpec(ruleset, list(seats), variants, rounds, round_seeds)


def games(ruleset: str | None = None, rounds=None):
    """A strategy of freshly dealt ``State`` objects."""
    return game_specs(ruleset, rounds).map(GameSpec.build)


def choose_move(state: State, rng: random.Random, eager: bool = False) -> tuple[str, dict] | None:
    """A legal move of the seat to move, uniformly at random (``eager``: mostly dig toward the
    goals, so that treasures get found and gold gets picked or stolen more often)."""
    if state.finished or state.to_move is None:
        return None
    seat = state.seats[state.to_move]
    moves = legal_moves(state, seat)
    assert moves, f"{seat} must decide but has no legal move (decision {state.decision})"
    if eager and rng.random() < 0.9:
        # Dig toward the goals (placements nearest to a face-down goal, dead ends avoided), mend
        # tools, and leave other players' tools alone.
        places = [m for m in moves if m["move"] == "place" and "dead" not in m["card"]]
        hidden = [pos for pos in state.goals.values() if state.board[pos].face_down]
        if places and hidden:
            best = min(_distance(m["at"], hidden) for m in places)
            return seat, rng.choice([m for m in places if _distance(m["at"], hidden) == best])
        mild = [m for m in moves if not _hostile(m)]
        if mild:
            return seat, rng.choice(mild)
    return seat, rng.choice(moves)


def _hostile(move: dict) -> bool:
    card = move.get("card", "")
    return move["move"] == "action" and (
        card.startswith("break-") or card in ("rockfall", "trapped")
    )


def _distance(at, targets) -> int:
    return min(abs(at[0] - x) + abs(at[1] - y) for x, y in targets)


def play(
    state: State, rng: random.Random, *, eager: bool = False, cap: int = MOVE_CAP, on_move=None
):
    """Play ``state`` (changed in place) to the end with random legal moves.

    ``on_move(state, seat, move, events)`` is called after each accepted move. Returns the list of
    ``(seat, move)`` played.
    """
    moves = []
    for _ in range(cap):
        chosen = choose_move(state, rng, eager)
        if chosen is None:
            return moves
        seat, move = chosen
        events = apply_in_place(state, seat, move)
        moves.append((seat, move))
        if on_move is not None:
            on_move(state, seat, move, events)
    raise AssertionError(f"game not finished after {cap} moves")


def play_some(state: State, rng: random.Random, count: int, *, eager: bool = False):
    """Play up to ``count`` random legal moves (fewer when the game ends); return them."""
    moves = []
    for _ in range(count):
        chosen = choose_move(state, rng, eager)
        if chosen is None:
            break
        apply_in_place(state, *chosen)
        moves.append(chosen)
    return moves


def random_game(rng: random.Random, spec: GameSpec, *, eager: bool | None = None):
    """A full random game: (final state, moves)."""
    if eager is None:
        eager = rng.random() < 0.5
    state = spec.build()
    moves = play(state, rng, eager=eager)
    return state, moves
