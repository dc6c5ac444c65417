"""Play now benchmark (not a test): ``python bench/matchmaking.py`` (about a minute).

Simulates one day of "Play now" (issue 52) through the service itself (``games.play.matchmaking``)
against a real PostgreSQL database of its own (``saboteur_bench_matchmaking``, emptied on every
run; ``BENCH_MATCHMAKING_DATABASE_URL`` overrides it): ``--players`` players (1,000 by default)
ask at random moments of a simulated day, with mixed wishes (rule sets, a range of players, five
paces, one to three languages, some variants, some with a reliability floor, some agreeing to
bots); a few leave their table before it starts, a few ask a second time for another pace. Beat's
start-time sweep (``forming_due``) runs every simulated five minutes, and for one more day after
the last ask, so that every table shown a start time reaches it.

Prints: tables formed (started full, started at their time, with bots), seats filled, the median
and worst wait from asking to the table's start, seekers left unseated at the end of the day and
after the extra day, the messages of tables that waited longer, queries per request (median and
worst) and the time per request. docs/matchmaking.md has a run's figures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

os.environ.setdefault(
    "BENCH_DATABASE_URL",
    os.environ.get(
        "BENCH_MATCHMAKING_DATABASE_URL",
        "postgres://postgres@127.0.0.1:5432/saboteur_bench_matchmaking",
    ),
)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness  # noqa: E402

PACES = ["1d", "2d", "3d", "12h", "daily"]
PACE_WEIGHTS = [30, 35, 15, 10, 10]
LANGUAGES = ["en", "cs", "sk", "uk", "ro"]
STEP = timedelta(minutes=5)  # the simulated sweep's period


def make_players(count: int, rng: random.Random):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    user = get_user_model()
    unusable = make_password(None)
    user.objects.bulk_create(
        user(
            username=f"seeker{n}",
            email=f"seeker{n}@bench.invalid",
            display_name=f"Seeker {n}",
            language=rng.choice(LANGUAGES),
            password=unusable,
        )
        for n in range(count)
    )
    return list(user.objects.filter(username__startswith="seeker").order_by("pk"))


def random_wish(rng: random.Random, player):
    from games.play.matchmaking import Wish

    roll = rng.random()
    rulesets = ("base",) if roll < 0.6 else ("saboteur2",) if roll < 0.8 else ("base", "saboteur2")
    low = rng.choice([3, 3, 3, 4, 4, 5])
    high = min(10, low + rng.choice([0, 1, 2, 3, 3, 5]))
    languages = [player.language]
    if player.language != "en" and rng.random() < 0.7:
        languages.append("en")
    if rng.random() < 0.2:
        languages.append(rng.choice(LANGUAGES))
    return Wish(
        rulesets=rulesets,
        min_players=low,
        max_players=high,
        pace=rng.choices(PACES, PACE_WEIGHTS)[0],
        languages=tuple(dict.fromkeys(languages)),
        variants=("rivalry",) if rulesets == ("base",) and rng.random() < 0.05 else (),
        min_reliability=75 if rng.random() < 0.1 else None,
        bots_ok=rng.random() < 0.3,
    )


def simulate(players: int, seed: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from games.models import FormingTable, Notice, Seat, TableWish
    from games.play import matchmaking
    from games.play.errors import ServiceError

    rng = random.Random(seed)  # noqa: S311  (a simulation's draws, no secret)
    people = make_players(players, rng)
    start = timezone.now() - timedelta(days=2)  # the simulated day, ended before the real now
    asks: list[tuple[datetime, int, object]] = []
    for index, player in enumerate(people):
        asks.append((start + timedelta(seconds=rng.uniform(0, 86400)), index, player))
        if rng.random() < 0.1:  # a second ask, for another pace, later the same day
            asks.append((start + timedelta(seconds=rng.uniform(0, 86400)), index, player))
    asks.sort(key=lambda ask: (ask[0], ask[1]))
    asked_at: dict[int, datetime] = {}
    queries, seconds, refused = [], [], {}
    leaving: list[tuple[datetime, int, object]] = []
    clock = start
    for when, _index, player in asks:
        while clock + STEP <= when:
            clock += STEP
            matchmaking.forming_due(clock)
        wish = random_wish(rng, player)
        began = time.perf_counter()
        try:
            connection.queries_log.clear()
            with CaptureQueriesContext(connection) as captured:
                row = matchmaking.seek(user=player, wish=wish, now=when)
        except ServiceError as error:
            refused[error.code] = refused.get(error.code, 0) + 1
            continue
        finally:
            seconds.append(time.perf_counter() - began)
        queries.append(len(captured))
        asked_at[row.pk] = when
        if rng.random() < 0.05:
            leaving.append((when + timedelta(hours=rng.uniform(1, 12)), row.table_id, player))
        leaving.sort(key=lambda leave: leave[0])
        while leaving and leaving[0][0] <= when:
            _at, table_id, who = leaving.pop(0)
            try:
                matchmaking.leave(user=who, table_id=table_id, now=when)
            except ServiceError:
                pass  # it started meanwhile
    end_of_day = start + timedelta(days=1)
    while clock + STEP <= end_of_day:
        clock += STEP
        matchmaking.forming_due(clock)
    waiting_at_day_end = TableWish.objects.filter(waiting=True).count()
    while clock + STEP <= end_of_day + timedelta(days=1):
        clock += STEP
        matchmaking.forming_due(clock)
    started = FormingTable.objects.filter(state=FormingTable.State.STARTED)
    waits = [
        (row.ended_at - asked_at[row.pk]).total_seconds() / 3600
        for row in TableWish.objects.filter(table__in=started, ended_at__isnull=False)
        if row.pk in asked_at
    ]
    full = sum(
        1
        for t in started.select_related("game")
        if t.ended_at
        and t.game.max_seats == Seat.objects.filter(game=t.game, bot__isnull=True).count()
    )
    return {
        "asks": len(asks),
        "refused": refused,
        "tables started": started.count(),
        "of which full of people": full,
        "with bots": started.filter(game__seats__bot__isnull=False).distinct().count(),
        "tables still forming": FormingTable.objects.filter(state="forming").count(),
        "tables closed": FormingTable.objects.filter(state="closed").count(),
        "seats filled by players": Seat.objects.filter(
            game__forming__in=started, user__isnull=False
        ).count(),
        "seats filled by bots": Seat.objects.filter(
            game__forming__in=started, bot__isnull=False
        ).count(),
        "median wait (h)": round(statistics.median(waits), 1) if waits else None,
        "worst wait (h)": round(max(waits), 1) if waits else None,
        "seekers waiting at the day's end": waiting_at_day_end,
        "seekers left unseated a day later": TableWish.objects.filter(waiting=True).count(),
        "messages 'waits longer' or 'closed'": Notice.objects.filter(
            kind=Notice.Kind.FORMING
        ).count(),
        "queries per request (median, worst)": (statistics.median(queries), max(queries)),
        "ms per request (median, worst)": (
            round(statistics.median(seconds) * 1000, 1),
            round(max(seconds) * 1000, 1),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=52)
    args = parser.parse_args()
    harness.setup_django()
    for name, value in simulate(args.players, args.seed).items():
        print(f"{name:40} {value}")


if __name__ == "__main__":
    main()
