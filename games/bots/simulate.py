"""Measure the bots: play seeded games and print win rates per role.

    python -m games.bots.simulate --ruleset base --players 5 --games 1000 --seed 1

For each role it prints four win rates (the share of the seat-rounds played in that role that
ended among the round's winners; for a geologist, never a winner, the gold earned per round):

- ``random``: every seat moves uniformly at random among its legal moves;
- ``bot``: the seats holding that role (at the moment of each decision) are bots, everyone else
  moves at random;
- ``random in this role, bots elsewhere``: the other way round (a saboteur bot's strength shows
  here: random diggers never find the treasure, so random saboteurs already win every round);
- ``all bots``: bots on every seat (the balance table).

The ratio ``bot / random`` is the bot's strength in that role. Pure Python, engine and bots only.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from games.engine import apply_in_place, legal_moves, new_game, view_for
from games.engine.cards import GEOLOGIST, PLAYERS, ROLES, VARIANTS
from games.engine.types import Event, RoundResult

from .brain import choose_move, public_events

SEATS = [f"p{i}" for i in range(12)]


@dataclass
class Tally:
    played: Counter = field(default_factory=Counter)
    won: Counter = field(default_factory=Counter)
    gold: Counter = field(default_factory=Counter)
    rounds: int = 0
    treasure: int = 0

    def rate(self, role: str) -> float | None:
        """Geologists never win (docs/rules.md 7.1): their figure is the gold earned per round."""
        counter = self.gold if role == GEOLOGIST else self.won
        return counter[role] / self.played[role] if self.played[role] else None


def play_game(
    *, ruleset: str, players: int, seed: int, bot_roles, variants=(), rounds: int = 3
) -> list[RoundResult]:
    """One seeded game; ``bot_roles`` is the set of roles that bots play (the rest is random).

    Returns the finished rounds (the engine's ``rounds_done``).
    """
    rng = random.Random(seed)  # noqa: S311 - reproducible simulations, not secrets
    state = new_game(
        ruleset=ruleset,
        seats=SEATS[:players],
        variants=list(variants),
        rounds=rounds,
        round_seeds=[f"{seed}-{r}-{rng.random()}" for r in range(rounds)],
        gold_seed=f"{seed}-gold",
    )
    history: list[Event] = []
    while state.to_move is not None and not state.finished:
        seat = state.seats[state.to_move]
        moves = legal_moves(state, seat)
        if state.roles[state.to_move] in bot_roles:
            move = choose_move(view_for(state, seat), moves, rng, history)
        else:
            move = rng.choice(moves)
        history += public_events(apply_in_place(state, seat, move))
    return state.rounds_done


def _tally_range(ruleset: str, players: int, seed: int, bot_roles, variants, start: int, stop: int):
    """Games ``start`` to ``stop - 1`` of a set-up (each game's seed depends only on its number,
    so any split of the games adds up to the same tally)."""
    result = Tally()
    for game in range(start, stop):
        for done in play_game(
            ruleset=ruleset,
            players=players,
            seed=seed * 1_000_003 + game,
            bot_roles=bot_roles,
            variants=variants,
        ):
            result.rounds += 1
            result.treasure += bool(done["treasure_found"])
            winners = set(done["winners"])
            for seat, role in done["roles"].items():
                result.played[role] += 1
                result.won[role] += seat in winners
                result.gold[role] += done["gained"].get(seat, 0)
    return result


def _merge(parts) -> Tally:
    total = Tally()
    for part in parts:
        total.played += part.played
        total.won += part.won
        total.gold += part.gold
        total.rounds += part.rounds
        total.treasure += part.treasure
    return total


def _tallies(plans: dict, *, ruleset, players, seed, variants, jobs: int) -> dict[str, Tally]:
    """``plans`` maps a name to (bot roles, games); the games are spread over ``jobs`` processes."""
    chunk = 25
    work = [
        (
            name,
            (
                ruleset,
                players,
                seed,
                frozenset(roles),
                tuple(variants),
                start,
                min(start + chunk, n),
            ),
        )
        for name, (roles, n) in plans.items()
        for start in range(0, n, chunk)
    ]
    parts: dict[str, list] = {name: [] for name in plans}
    if jobs <= 1:
        for name, task in work:
            parts[name].append(_tally_range(*task))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [(name, pool.submit(_tally_range, *task)) for name, task in work]
            for name, future in futures:
                parts[name].append(future.result())
    return {name: _merge(found) for name, found in parts.items()}


def measure(
    *,
    ruleset: str,
    players: int,
    games: int,
    seed: int,
    variants=(),
    reverse_games: int | None = None,
    jobs: int = 1,
) -> list[dict]:
    """Rows of (role, random rate, bot rate, ratio, reverse rate, all-bots rate) for one set-up.

    ``reverse_games`` (default ``games``) is the number of games for the "random in this role,
    bots elsewhere" column, the costliest one (mostly bot decisions).
    """
    roles = ROLES[ruleset]
    reverse_games = games if reverse_games is None else reverse_games
    plans = {"random": (set(), games), "everyone": (set(roles), games)}
    for role in roles:
        plans[f"bot:{role}"] = ({role}, games)
        # The same role moving at random against bots everywhere else (the other way round).
        if reverse_games:
            plans[f"alone:{role}"] = (set(roles) - {role}, reverse_games)
    found = _tallies(
        plans, ruleset=ruleset, players=players, seed=seed, variants=variants, jobs=jobs
    )
    baseline, everyone = found["random"], found["everyone"]
    rows = []
    for role in roles:
        if not baseline.played[role]:
            continue
        low, high = baseline.rate(role), found[f"bot:{role}"].rate(role)
        alone = found.get(f"alone:{role}")
        rows.append(
            {
                "role": role,
                "random": low,
                "bot": high,
                "ratio": (high / low) if low and high is not None else None,
                "random_among_bots": alone.rate(role) if alone else None,
                "all_bots": everyone.rate(role),
                "seat_rounds": baseline.played[role],
            }
        )
    rows.append(
        {
            "role": "(treasure found)",
            "random": baseline.treasure / baseline.rounds,
            "bot": None,
            "ratio": None,
            "random_among_bots": None,
            "all_bots": everyone.treasure / everyone.rounds,
            "seat_rounds": baseline.rounds,
        }
    )
    return rows


def _pct(value, role: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:.2f} gold" if role == GEOLOGIST else f"{100 * value:.1f} %"


def format_rows(rows: list[dict]) -> str:
    lines = [
        "| role | all random | bot in this role | ratio | random in this role, bots elsewhere "
        "| bots on every seat |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        if row["ratio"] is not None and row["ratio"] > 100:
            ratio = "> 100x"  # from a baseline of almost nothing: the figure itself means little
        role = row["role"]
        lines.append(
            f"| {role} | {_pct(row['random'], role)} | {_pct(row['bot'], role)} | {ratio} "
            f"| {_pct(row['random_among_bots'], role)} | {_pct(row['all_bots'], role)} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.bots.simulate", description=__doc__)
    parser.add_argument("--ruleset", choices=sorted(PLAYERS), default="base")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", action="append", default=[], choices=VARIANTS)
    parser.add_argument(
        "--reverse-games",
        type=int,
        default=None,
        help="games for the 'random in this role, bots elsewhere' column "
        "(default: --games; 0 leaves it out)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes to spread the games over (same figures)"
    )
    args = parser.parse_args(argv)
    low, high = PLAYERS[args.ruleset]
    if not low <= args.players <= high:
        parser.error(f"{args.ruleset} is for {low} to {high} players")
    if args.variant and args.ruleset != "base":
        parser.error("variants belong to the base game")
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.reverse_games is not None and args.reverse_games < 0:
        parser.error("--reverse-games must be 0 or more")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    rows = measure(
        ruleset=args.ruleset,
        players=args.players,
        games=args.games,
        seed=args.seed,
        variants=args.variant,
        reverse_games=args.reverse_games,
        jobs=args.jobs,
    )
    title = f"{args.ruleset}, {args.players} players, {args.games} games, seed {args.seed}"
    if args.reverse_games is not None and args.reverse_games != args.games:
        title += f" ({args.reverse_games} for the reverse column)"
    if args.variant:
        title += ", variants " + ", ".join(args.variant)
    sys.stdout.write(f"{title}\n\n{format_rows(rows)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
