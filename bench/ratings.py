"""Ratings benchmark (not a test): ``python bench/ratings.py``.

The pure part of what a round-completing move adds to its transaction (docs/ratings.md): the
replay of the game's stored moves that finds the round's players (``game_matches``) and the two
openskill updates (``updated``), for 3-round games of 10 players (base) and 12 (Saboteur 2)
played by bots. Printed beside the replay of the game alone, and per round for the rebuild.
Target on the 2-core machine class: well under the ~20 ms a move costs through ``move_submit``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import choose_move  # noqa: E402
from games.engine import apply_in_place, legal_moves, new_game, replay, view_for  # noqa: E402
from games.play import rating_maths as maths  # noqa: E402

GAMES = 6


def played(ruleset: str, players: int, seed: int):
    rng = random.Random(seed)  # noqa: S311 - a benchmark's reproducible choices
    seats = [str(i) for i in range(players)]
    state = new_game(
        ruleset=ruleset, seats=seats, round_seeds=[f"bench-{seed}-{r}" for r in range(3)]
    )
    config, moves = state.config, []
    while not state.finished:
        seat = state.seats[state.to_move]
        move = choose_move(view_for(state, seat), legal_moves(state, seat), rng)
        moves.append(maths.MoveRow(len(moves) + 1, int(seat), False, move))
        apply_in_place(state, seat, move)
    rows = {i: maths.SeatRow(i, i, 100 + i, False) for i in range(players)}
    return config, rows, moves


def main() -> None:
    for ruleset, players in (("base", 10), ("saboteur2", 12)):
        find, rate, bare, rounds = [], [], [], 0
        for seed in range(GAMES):
            config, seats, moves = played(ruleset, players, seed)
            started = time.perf_counter()
            replay(config, [(str(seats[m.seat].position), m.payload) for m in moves])
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            matches = maths.game_matches(game=seed, config=config, seats=seats, moves=moves)
            find.append(time.perf_counter() - started)
            ratings: dict = {}
            for match in matches:
                started = time.perf_counter()
                ratings.update(maths.updated(match, ratings))
                rate.append(time.perf_counter() - started)
            rounds += len(matches)
        ms = 1000
        print(f"{ruleset}, {players} players, {GAMES} games of 3 rounds ({rounds} rated rounds)")
        print(f"  replay of a whole game:            {statistics.median(bare) * ms:.2f} ms")
        print(f"  ... finding its rated rounds:      {statistics.median(find) * ms:.2f} ms")
        ratio = statistics.median(find) / statistics.median(bare)
        print(f"  ratio                              {ratio:.2f}")
        print(f"  both updates of one round:         {statistics.median(rate) * ms:.2f} ms")


if __name__ == "__main__":
    main()
