"""The daily digest: one email a day listing the games that await the player."""

from __future__ import annotations

from datetime import datetime, time

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from games.models import Game, Notice
from games.read.seats import LIVE_SEAT

from .quiet import zone_named
from .schedule import DIGEST_SERVES

DIGEST_HOUR = 8  # local time of the daily digest

# The digest rows one sweep writes at most (about 0.2 s here): more digest users take a few
# more minutes after DIGEST_HOUR, and no sweep takes longer.
DIGESTS_PER_SWEEP = 2000


def digests_due(now: datetime, *, most: int = DIGESTS_PER_SWEEP) -> list[int]:
    """Daily digests: from DIGEST_HOUR local time, one row per digest user and local day.

    Runs every minute, so its cost must not grow with the number of digest users: users are
    grouped by time zone (a few distinct values), and only those whose row for the local day is
    not written yet are looked at; their rows are written by one ``INSERT ... SELECT`` in the
    database, their awaiting games included (``_write_digests``), ``most`` rows per sweep at
    most (the next sweeps write the rest). A user with nothing awaiting gets a skipped row, so
    that their day is done too. Once a zone's day has nobody left, a marker row
    (``digests-done:<zone>:<day>``) says so, and later sweeps that day cost two small queries
    whatever the number of users. Someone who turns the digest on after that gets it from the
    next day. Returns the ids of the rows to send.
    """
    takers = get_user_model().objects.filter(email_digest=True, is_active=True)
    zones_by_day: dict = {}
    for name in takers.values_list("time_zone", flat=True).distinct():
        local = now.astimezone(zone_named(name))
        if local.time() >= time(DIGEST_HOUR):
            zones_by_day.setdefault(local.date(), []).append(name)
    markers = [f"digests-done:{z}:{d.isoformat()}" for d, zs in zones_by_day.items() for z in zs]
    done = set(Notice.objects.filter(key__in=markers).values_list("key", flat=True))
    marker_rows, written_now = [], []
    for day, all_zones in zones_by_day.items():
        suffix = f":{day.isoformat()}"
        zones = [z for z in all_zones if f"digests-done:{z}{suffix}" not in done]
        if not zones:
            continue
        room = most - len(written_now)
        if room <= 0:
            break  # the next sweep writes the rest
        written = _write_digests(zones=zones, suffix=suffix, now=now, most=room)
        written_now += written
        if not written:
            marker_rows += [
                Notice(
                    key=f"digests-done:{zone}{suffix}",
                    kind=Notice.Kind.DIGEST,
                    due_at=now,
                    status=Notice.Status.SKIPPED,
                    reason="every digest of the day written",
                )
                for zone in zones
            ]
    if marker_rows:
        Notice.objects.bulk_create(marker_rows, ignore_conflicts=True)
    return [pk for pk, status in written_now if status == Notice.Status.PENDING]


def _write_digests(
    *, zones: list[str], suffix: str, now: datetime, most: int
) -> list[tuple[int, str]]:
    """One ``INSERT ... SELECT``: the day's row of every digest user in these zones who has none.

    The database gathers each user's awaiting games (their live seat is the one to move, in a
    running game whose time limit a digest can serve; oldest decision first) and writes the rows,
    a skipped one for a user with nothing awaiting; no row passes through Python. At most
    ``most`` users (lowest ids first), so that the sweep's cost stays flat. Returns the
    written rows' ids and statuses.
    """
    users = connection.ops.quote_name(get_user_model()._meta.db_table)
    sql = f"""
        INSERT INTO games_notice (key, kind, user_id, email, data, status, due_at, attempts,
                                  last_error, reason, created_at)
        SELECT 'digest:' || u.id || %(suffix)s, %(kind)s, u.id, '',
               jsonb_build_object('games', COALESCE(awaiting.games, '[]'::jsonb)),
               CASE WHEN awaiting.games IS NULL THEN %(skipped)s ELSE %(pending)s END,
               %(now)s, 0, '',
               CASE WHEN awaiting.games IS NULL THEN %(nothing)s ELSE '' END, %(created)s
        FROM {users} u
        LEFT JOIN LATERAL (
            SELECT jsonb_agg(g.id ORDER BY g.decision_since, g.id) AS games
            FROM games_seat s JOIN games_game g ON g.id = s.game_id
            WHERE s.user_id = u.id AND s.state = ANY(%(live)s) AND s.position = g.to_move
              AND g.status = %(running)s AND g.turn_limit >= %(serves)s
        ) awaiting ON true
        WHERE u.email_digest AND u.is_active AND u.time_zone = ANY(%(zones)s)
          AND NOT EXISTS (
              SELECT FROM games_notice n WHERE n.key = 'digest:' || u.id || %(suffix)s
          )
        ORDER BY u.id
        LIMIT %(most)s
        ON CONFLICT (key) DO NOTHING
        RETURNING id, status
    """  # noqa: S608 (the table name is the user model's, quoted; every value is a parameter)
    params = {
        "suffix": suffix,
        "kind": Notice.Kind.DIGEST.value,
        "skipped": Notice.Status.SKIPPED.value,
        "pending": Notice.Status.PENDING.value,
        "nothing": "nothing awaiting",
        "now": now,
        "created": timezone.now(),
        "live": [str(state) for state in LIVE_SEAT],
        "running": Game.Status.RUNNING.value,
        # Games with a shorter time limit send their own "your turn" emails.
        "serves": DIGEST_SERVES,
        "zones": zones,
        "most": most,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
