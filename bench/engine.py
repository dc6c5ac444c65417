"""Engine benchmark (not a test): ``python bench/engine.py``.

Plays random legal games (seeded, so every run measures the same games) and prints the median
time to apply one move, to replay a whole 3-round game from its seeds and moves, and to compute
``legal_moves`` for a mid-game state, for a 10-player ``base`` and a 12-player ``saboteur2`` game.
Targets on the 2-core machine class: replay under 20 ms, legal_moves under 5 ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import apply, legal_moves, new_game, replay  # noqa: E402

GAMES = {"base, 10 players": ("base", 10), "saboteur2, 12 players": ("saboteur2", 12)}


def play_random_game(ruleset: str, players: int, seed: int):
    """A complete game of random legal moves; returns the final state, moves and mid-game states."""
    rng = random.Random(seed)  # noqa: S311 - a benchmark's reproducible choices
    seats = [f"p{i}" for i in range(players)]
    state = new_game(
        ruleset=ruleset,
        seats=seats,
        round_seeds=[f"bench-{seed}-{r}" for r in range(3)],
    )
    moves, states = [], []
    while not state.finished:
        seat = state.seats[state.to_move]
        move = rng.choice(legal_moves(state, seat))
        states.append((state, seat, move))
        state, _ = apply(state, seat, move)
        moves.append((seat, move))
    return state, moves, states


def median_ms(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(label: str, ruleset: str, players: int) -> None:
    final, moves, states = play_random_game(ruleset, players, seed=1)
    mid_state, mid_seat, _ = states[len(states) // 2]
    apply_times = []
    for state, seat, move in states:
        start = time.perf_counter()
        apply(state, seat, move)
        apply_times.append((time.perf_counter() - start) * 1000)
    replay_ms = median_ms(lambda: replay(final.config, moves), repeat=15)
    legal_ms = median_ms(lambda: legal_moves(mid_state, mid_seat), repeat=50)
    if replay(final.config, moves) != final:
        raise SystemExit("replay does not rebuild the game: the engine is broken")
    print(f"{label}: {len(moves)} moves over {final.config.rounds} rounds")
    print(f"  apply one move   median {statistics.median(apply_times):7.3f} ms")
    print(f"  replay the game  median {replay_ms:7.3f} ms   (target < 20 ms)")
    print(f"  legal_moves mid  median {legal_ms:7.3f} ms   (target < 5 ms)")


def main() -> None:
    print(f"Python {sys.version.split()[0]}")
    for label, (ruleset, players) in GAMES.items():
        measure(label, ruleset, players)


if __name__ == "__main__":
    main()
