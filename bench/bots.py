"""Bot benchmark (not a test): ``python bench/bots.py``.

Plays seeded 12-player ``saboteur2`` games with bots on every seat and times each bot decision in
the middle of a round (from the 20th to the 60th move of round 1: a grown maze, full hands, a
public history to read). A decision is what the site does for a bot's turn: ``view_for``,
``legal_moves`` and ``choose_move``. Target on the 2-core machine class: median under 20 ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import choose_move, public_events  # noqa: E402
from games.engine import apply_in_place, legal_moves, new_game, view_for  # noqa: E402

GAMES = 20


def decision_times(seed: int) -> list[float]:
    rng = random.Random(seed)  # noqa: S311 - a benchmark's reproducible choices
    state = new_game(
        ruleset="saboteur2",
        seats=[f"p{i}" for i in range(12)],
        round_seeds=[f"bench-bots-{seed}-{r}" for r in range(3)],
    )
    history, times = [], []
    while not state.finished and state.round == 1 and state.version < 60:
        seat = state.seats[state.to_move]
        started = time.perf_counter()
        move = choose_move(view_for(state, seat), legal_moves(state, seat), rng, history)
        elapsed = time.perf_counter() - started
        if state.version >= 20:
            times.append(elapsed)
        history += public_events(apply_in_place(state, seat, move))
    return times


def main() -> None:
    times = [t for seed in range(GAMES) for t in decision_times(seed)]
    times.sort()
    print(f"saboteur2, 12 players, bots on every seat: {len(times)} mid-game decisions")
    print(f"  median {statistics.median(times) * 1000:.2f} ms")
    print(f"  90th percentile {times[int(len(times) * 0.9)] * 1000:.2f} ms")
    print(f"  slowest {times[-1] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
