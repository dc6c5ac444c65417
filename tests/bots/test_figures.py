"""The brain's figures, pinned: what a bot knows and how it scores every legal move, at positions
of four games played by a seeded random driver (the engine tests' ``choose_move``, not the bots,
so that the positions do not depend on the brain).

Each position records the seat's knowledge (targets, the front's distances, suspicion of every
other seat, how much it wants each to do well, what each card in hand is worth) and the scores of
its legal moves: their count, sum and sum of squares, and the best two. A change of any score
or any piece of knowledge changes these figures. A deliberate change of the bots' play rewrites
them: ``python -m tests.bots.test_figures`` (then read the difference before committing it).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from games.bots import choose_move, public_events
from games.bots.brain import Table
from games.engine import apply_in_place, legal_moves, new_game, view_for
from tests.engine.strategies import choose_move as random_move

FIGURES = Path(__file__).with_name("figures.json")
GAMES = [
    ("base", ["ann", "bob", "cid", "dan"], [], 11),
    ("base", ["ann", "bob", "cid", "dan", "eve", "fay"], ["greedy-dwarf", "rivalry"], 12),
    ("saboteur2", ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"], [], 17),
    ("saboteur2", ["ann", "bob", "cid", "dan", "eve"], [], 15),
]
EVERY = 5  # one turn in five, and every decision that is not a turn (gold, thefts)


def _round(value: float) -> float:
    return round(value, 6)


def _key(move) -> str:
    return json.dumps(move, sort_keys=True)


def position(view, moves, history, seed: int) -> dict:
    table = Table(view, history)
    scores = sorted((table.score(move), _key(move)) for move in moves)
    others = [seat for seat in view["seats"] if seat != table.me]
    return {
        "seat": table.me,
        "decision": view["decision"],
        "targets": sorted(list(t) for t in table.targets),
        "certain": table.certain,
        "quiet": table.quiet,
        "nearest": [table.nearest, table.second, table.min_distance, table.nearest_shared],
        "progress": _round(table.progress_now),
        "suspicion": {seat: _round(value) for seat, value in sorted(table.suspicion.items())},
        "ally": {seat: _round(table.ally(seat)) for seat in others + [table.me]},
        "values": {card: _round(table.card_value(card)) for card in sorted(set(table.hand))},
        "moves": len(moves),
        "sum": _round(sum(score for score, _ in scores)),
        "squares": _round(sum(score * score for score, _ in scores)),
        "best": [[_round(score), key] for score, key in scores[-2:]],
        "chosen": _key(choose_move(view, moves, random.Random(seed), history)),
    }


def game_positions(ruleset, seats, variants, seed):
    """The positions recorded in one game, one at a time."""
    state = new_game(
        ruleset=ruleset,
        seats=list(seats),
        variants=variants,
        round_seeds=[f"figures:{seed}:{r}" for r in range(3)],
    )
    rng, history, turns = random.Random(seed), [], 0
    while not state.finished:
        seat = state.seats[state.to_move]
        moves = legal_moves(state, seat)
        turns += 1
        if state.decision != "turn" or turns % EVERY == 0:
            yield position(view_for(state, seat), moves, history, turns)
        played = random_move(state, rng, eager=True)
        assert played is not None
        history += public_events(apply_in_place(state, *played))


def name(number, ruleset, seats, variants) -> str:
    return f"{number} {ruleset} {len(seats)} {' '.join(variants)}".strip()


def figures() -> dict:
    return {
        name(number, *game[:3]): list(game_positions(*game)) for number, game in enumerate(GAMES)
    }


def test_the_brain_gives_the_pinned_figures():
    expected = json.loads(FIGURES.read_text(encoding="utf-8"))
    assert list(expected) == [name(number, *game[:3]) for number, game in enumerate(GAMES)]
    for number, game in enumerate(GAMES):
        want = expected[name(number, *game[:3])]
        count = 0
        for i, got in enumerate(game_positions(*game)):  # stops at the first difference
            assert i < len(want) and got == want[i], f"{name(number, *game[:3])}, position {i}"
            count += 1
        assert count == len(want)


if __name__ == "__main__":
    # One position a line: a difference shows which.
    games = [
        f"{json.dumps(game)}: [\n" + ",\n".join(json.dumps(p) for p in positions) + "\n]"
        for game, positions in figures().items()
    ]
    FIGURES.write_text("{\n" + ",\n".join(games) + "\n}\n", encoding="utf-8")
