"""Sweep benchmark (not a test): ``python bench/sweep.py`` (about 3 minutes).

Fills its own PostgreSQL database (``saboteur_bench_sweep``, emptied on every run;
``BENCH_SWEEP_DATABASE_URL`` overrides it) in bulk with PostgreSQL's COPY: 20,000 users of whom
2,000 take the daily digest (spread over five European time zones), 100,000 running games of 4
seats, and 200,000 pending reminders (none due yet). Then times beat's minute sweep
(``games.tasks.sweep``) with the clock set:

* before the digest hour (05:50 UTC, 07:50 in the easternmost zone);
* the first sweep after it (09:00 UTC): every digest user's row for the day is written (up to
  2,000 per sweep), the sweep sends due rows itself for half a second (to the file email backend
  in /tmp) and hands the rest to the workers (none runs here: the tasks are purged); then the
  next sweep, which finds the handed-over rows still pending;
* later sweeps the same day (09:02 and 15:00), once the digests are out: the steady state, which
  used to look up every digest user's games every minute.

Then the same with twice the users, games and reminders (``--scales 1,2`` by default).
Goal: under 1 s per sweep, and flat when everything doubles.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault(
    "BENCH_DATABASE_URL",
    os.environ.get(
        "BENCH_SWEEP_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/saboteur_bench_sweep"
    ),
)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness  # noqa: E402

DAY = datetime(2026, 11, 3, tzinfo=UTC)
ZONES = ["UTC", "Europe/London", "Europe/Prague", "Europe/Bratislava", "Europe/Kyiv"]
SEATS = 4


def copy_rows(model, objects) -> None:
    """Insert model instances with COPY: the columns and values Django itself would write."""
    from django.db import connection

    fields = model._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for obj in objects:
                copy.write_row(
                    [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
                )
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, 'id'), (SELECT max(id) FROM {table}))",  # noqa: S608
            [model._meta.db_table],
        )


def fill(scale: int, rng: random.Random) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games.models import Game, Notice, Seat

    User = get_user_model()
    users, games, reminders, digest_users = 20_000 * scale, 100_000 * scale, 200_000 * scale, 0
    with connection.cursor() as cursor:
        tables = ", ".join(m._meta.db_table for m in (Notice, Seat, Game))
        cursor.execute(f"TRUNCATE {tables}, {User._meta.db_table} CASCADE")
    started = time.perf_counter()

    def user(pk):
        nonlocal digest_users
        digest = pk % 10 == 0  # one in ten: ~2,000 per 20,000
        digest_users += digest
        return User(
            pk=pk, username=f"u{pk}", email=f"u{pk}@bench.invalid", display_name=f"Player {pk}",
            password="!", email_digest=digest, time_zone=ZONES[pk // 10 % len(ZONES)],  # noqa: S106
            date_joined=DAY - timedelta(days=30),
        )  # fmt: skip

    copy_rows(User, (user(pk) for pk in range(1, users + 1)))
    limit = timedelta(days=3)  # reminders fall due from the next day on

    def game_rows():
        for pk in range(1, games + 1):
            since = DAY - timedelta(minutes=rng.randrange(12 * 60))
            yield Game(
                pk=pk, name=f"Mine {pk}", ruleset="base", max_seats=SEATS, rounds=3,
                invite_token=secrets.token_urlsafe(12), turn_limit=limit,
                creator_id=rng.randrange(1, users + 1), status=Game.Status.RUNNING,
                version=rng.randrange(40), revision=0, to_move=rng.randrange(SEATS),
                decision_since=since, deadline=since + limit, started_at=since,
                created_at=since,
            )  # fmt: skip

    copy_rows(Game, game_rows())

    # Seats in SQL (the largest table): four distinct players per game, spread over all users.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO games_seat (game_id, user_id, position, state, joined_at, last_seen_at,
                                    timeouts_in_a_row, seen_version, since_version, stand_in)
            SELECT g.id, 1 + ((g.id::bigint * 4 + p) * 7919) %% %s, p, 'active', %s, NULL, 0,
                   0, 0, false
            FROM generate_series(1, %s) AS g(id) CROSS JOIN generate_series(0, 3) AS p
            """,
            [users, DAY - timedelta(days=1), games],
        )

    # Reminders (half and 90 % of the limit) for the seat to move in every other game.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO games_notice (key, kind, user_id, email, game_id, seat_id, version, data,
                                      status, due_at, attempts, last_error, reason, created_at)
            SELECT 'reminder' || share || ':' || g.id || ':' || s.id || ':' || g.decision_since,
                   'reminder', s.user_id, '', g.id, s.id, g.version,
                   jsonb_build_object('share', share, 'since', g.decision_since), 'pending',
                   g.decision_since + g.turn_limit * share / 100, 0, '', '', g.decision_since
            FROM games_game g
            JOIN games_seat s ON s.game_id = g.id AND s.position = g.to_move
            CROSS JOIN (VALUES (50), (90)) AS shares(share)
            WHERE g.id %% 2 = 0 OR %s
            """,
            [reminders > games],
        )
        cursor.execute("ANALYZE")
    return {
        "users": users,
        "digest users": digest_users,
        "games": games,
        "reminders": Notice.objects.filter(kind="reminder", status="pending").count(),
        "fill s": round(time.perf_counter() - started, 1),
    }


def timed_sweep(at: datetime) -> tuple[float, int, dict]:
    from games.tasks import sweep

    return timed(lambda now: sweep(), at)


def timed(function, at: datetime):
    import time_machine
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with time_machine.travel(at, tick=False), CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        result = function(at)
        elapsed = time.perf_counter() - started
    return elapsed, len(queries), result


def measure(scale: int, rng: random.Random) -> list[tuple]:
    from games.models import Notice
    from games.outbox import digests as outbox_digests
    from saboteur_site.celery import app

    facts = fill(scale, rng)
    print(f"scale {scale}: " + ", ".join(f"{k} {v:,}" for k, v in facts.items()), flush=True)
    timed_sweep(DAY + timedelta(hours=5, minutes=40))  # warm up the caches and connections
    rows = []
    seconds, queries, result = timed_sweep(DAY + timedelta(hours=5, minutes=50))
    rows.append((scale, "before the digest hour (05:50)", seconds, queries, result))
    # The first sweep after the hour, as beat runs it; digests_due's share timed on the side.
    digests = []
    write = outbox_digests.digests_due

    def digests_due(now):
        started = time.perf_counter()
        due = write(now)
        digests.append((time.perf_counter() - started, len(due)))
        return due

    outbox_digests.digests_due = digests_due
    try:
        seconds, queries, result = timed_sweep(DAY + timedelta(hours=9))
    finally:
        outbox_digests.digests_due = write
    rows.append((scale, "09:00, the first sweep after it", seconds, queries, result))
    rows.append((scale, "  of which digests_due", digests[0][0], "", f"{digests[0][1]} to send"))
    written = Notice.objects.filter(kind="digest", user__isnull=False).count()
    # No worker runs here: the next sweep sends some of the handed-over rows itself again.
    seconds, queries, result = timed_sweep(DAY + timedelta(hours=9, minutes=1))
    rows.append((scale, "09:01, no worker took any", seconds, queries, result))
    # Workers send the rest within the minute; mark them sent to measure the steady state.
    Notice.objects.filter(kind="digest", status="pending").update(status="sent")
    app.control.purge()  # the handed-over tasks: no worker of this benchmark consumes them
    for label, at in [
        ("after it, digests out (09:02)", DAY + timedelta(hours=9, minutes=2)),
        ("after it, digests out (15:00)", DAY + timedelta(hours=15)),
    ]:
        seconds, queries, result = timed_sweep(at)
        rows.append((scale, label, seconds, queries, result))
    print(f"  digest rows written on the first sweep after the hour: {written:,}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="1,2", help="comma-separated multiples of the sizes")
    args = parser.parse_args()
    os.environ["EMAIL_FILE_PATH"] = "/tmp/saboteur-bench-sweep-mail"  # noqa: S108
    harness.setup_django()
    rng = random.Random(17)  # noqa: S311
    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        rows += measure(scale, rng)
    print(f"\n{'scale':>5}  {'sweep':<32} {'seconds':>8} {'queries':>8}  result")
    for scale, label, seconds, queries, result in rows:
        print(f"{scale:>5}  {label:<32} {seconds:>8.3f} {queries:>8}  {result}")


if __name__ == "__main__":
    main()
