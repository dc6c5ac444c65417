"""The Saboteur rules engine: pure Python, no Django, no I/O, no clock, no global randomness.

Public API:

- ``new_game(ruleset=, seats=, round_seeds=, variants=, rounds=, deals=)`` -> ``State``
- ``apply(state, seat, move)`` -> ``(new_state, events)``; raises ``IllegalMove`` (``.code``)
- ``legal_moves(state, seat, card=None)`` -> list of moves (only those playing ``card``)
- ``playable_cards(state, seat)`` -> the hand's cards that some legal move plays
- ``playable_on_turn(state, seat)`` -> those that would be playable were it the seat's turn
- ``view_for(state, seat)`` -> what that seat may know (``seat=None``: the public view), a ``View``
- ``own_view(state, seat)`` -> that seat's own part of it (``view_for(...)["me"]``), a ``ViewMe``
- ``replay(state_config_json, moves)`` rebuilds a state from its seeds and moves
- ``round_draws(config, round)`` / ``gold_draws(config)``: what a deal drew (docs/fairness.md)
- ``State.to_json()`` / ``State.from_json()``: the stable snapshot form

Modules:

- ``cards``: the card catalogue as data;
- ``state``: the game state: plain data with a stable JSON form;
- ``types``: the shapes of moves and events;
- ``errors``: ``IllegalMove`` and the reason codes of docs/rules.md 9;
- ``board``: the maze: tunnels, joining, placing rules and goal reveals;
- ``setup``: dealing each round;
- ``create``: starting a game: check the setup, deal round 1 and open it;
- ``rules``: applying one move: turns and the round's end;
- ``legal``: every legal move of a seat, in canonical form;
- ``view``: what one seat may know;
- ``fairness``: ``sab-shuffle-v1``, the documented shuffle a deal can be checked by;
- ``documents``: deal documents: what a verifier needs to recompute a round's deal;
- ``scenario``: rule scenarios run from JSON files (docs/scenarios.md).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from .create import new_game
from .errors import REASONS, BadSetup, IllegalMove
from .legal import discard_moves, legal_moves, playable_cards, playable_on_turn
from .rules import apply, apply_in_place
from .setup import gold_draws, round_draws
from .state import GAME_OVER, PICK_GOLD, STEAL, TURN, Config, State
from .types import Event, Move, View, ViewMe, ViewRound
from .view import own_view, seed_hash, view_for


def replay(config: Config, moves: Iterable[tuple[str, Mapping[str, Any]]]) -> State:
    """Rebuild a game from its configuration (seeds included) and its accepted moves."""
    state = new_game(
        ruleset=config.ruleset,
        seats=config.seats,
        variants=config.variants,
        rounds=config.rounds,
        round_seeds=config.round_seeds,
        deals=config.deals,
        gold_seed=config.gold_seed,
    )
    for seat, move in moves:
        apply_in_place(state, seat, move)
    return state


__all__ = [
    "GAME_OVER",
    "PICK_GOLD",
    "REASONS",
    "STEAL",
    "TURN",
    "BadSetup",
    "Config",
    "Event",
    "IllegalMove",
    "Move",
    "View",
    "ViewMe",
    "ViewRound",
    "discard_moves",
    "gold_draws",
    "round_draws",
    "State",
    "apply",
    "apply_in_place",
    "legal_moves",
    "new_game",
    "own_view",
    "playable_cards",
    "playable_on_turn",
    "replay",
    "seed_hash",
    "view_for",
]
