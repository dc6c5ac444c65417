"""The daily digest: one email a day listing the games that await the player."""

from __future__ import annotations

from datetime import datetime, time

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import CharField, Exists, F, OuterRef, Value
from django.db.models.functions import Cast, Concat

from games.models import Game, Notice, Seat
from games.read.seats import LIVE_SEAT

from .quiet import zone_named
from .schedule import DIGEST_HOUR, DIGEST_SERVES

# The digest rows one sweep writes at most (about 0.2 s here): more digest users take a few
# more minutes after DIGEST_HOUR, and no sweep takes longer.
DIGESTS_PER_SWEEP = 2000


def digests_due(now: datetime, *, most: int = DIGESTS_PER_SWEEP) -> list[int]:
    """Daily digests: from DIGEST_HOUR local time, one row per digest user and local day.

    Runs every minute, so its cost must not grow with the number of digest users: users are
    grouped by time zone (a few distinct values), and only those whose row for the local day is
    not written yet are looked at; their rows, their awaiting games included, are written in a
    fixed number of queries (``_write_digests``), ``most`` rows per sweep at most (the next
    sweeps write the rest). A user with nothing awaiting gets a skipped row, so that their day
    is done too. Once a zone's day has nobody left, a marker row (``digests-done:<zone>:<day>``)
    says so, and later sweeps that day cost two small queries whatever the number of users.
    Someone who turns the digest on after that gets it from the next day. Everything is written
    in one transaction (a failure leaves nothing half done, and the sweep's other parts run on).
    Returns the ids of the rows to send.
    """
    takers = get_user_model().objects.filter(email_digest=True, is_active=True)
    zones_by_day: dict = {}
    for name in takers.values_list("time_zone", flat=True).distinct():
        local = now.astimezone(zone_named(name))
        if local.time() >= time(DIGEST_HOUR):
            zones_by_day.setdefault(local.date(), []).append(name)
    markers = [f"digests-done:{z}:{d.isoformat()}" for d, zs in zones_by_day.items() for z in zs]
    done = set(Notice.objects.filter(key__in=markers).values_list("key", flat=True))
    todo = {
        day: zones
        for day, all_zones in zones_by_day.items()
        if (zones := [z for z in all_zones if f"digests-done:{z}:{day.isoformat()}" not in done])
    }
    if not todo:
        return []
    with transaction.atomic():
        return _write_days(todo, now, most)


def _write_days(zones_by_day: dict, now: datetime, most: int) -> list[int]:
    """The rows of these (day, zones) not written yet, and the markers of the zones done."""
    marker_rows: list[Notice] = []
    written_now: list[tuple[int, str]] = []  # (pk, status)
    for day, zones in zones_by_day.items():
        suffix = f":{day.isoformat()}"
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
    """The day's row of every digest user in these zones who has none (at most ``most`` users,
    lowest ids first, so that the sweep's cost stays flat); returns the rows' ids and statuses.

    Four queries whatever the number of users, on any database (``make run`` uses SQLite): the
    users without their row (its key found by the unique index), their awaiting games (their
    live seat is the one to move, in a running game whose time limit a digest can serve; oldest
    decision first), one ``INSERT`` of the rows (a skipped one for a user with nothing
    awaiting) and the written rows' ids. Rows another sweeper wrote meanwhile are left as they
    are (``ignore_conflicts``); sending each row once is ``sending.send``'s job.
    """
    key = Concat(Value("digest:"), Cast("pk", CharField()), Value(suffix), output_field=CharField())
    users = (
        get_user_model()
        .objects.filter(email_digest=True, is_active=True, time_zone__in=zones)
        .annotate(digest_key=key)
        .filter(~Exists(Notice.objects.filter(key=OuterRef("digest_key"))))
        .order_by("pk")
    )
    ids = list(users.values_list("pk", flat=True)[:most])
    if not ids:
        return []
    awaiting: dict[int, list[int]] = {pk: [] for pk in ids}
    seats = Seat.objects.filter(
        user_id__in=ids,
        state__in=LIVE_SEAT,
        position=F("game__to_move"),
        game__status=Game.Status.RUNNING,
        # Games with a shorter time limit send their own "your turn" emails.
        game__turn_limit__gte=DIGEST_SERVES,
    ).order_by("game__decision_since", "game_id")
    for user_id, game_id in seats.values_list("user_id", "game_id"):
        awaiting[user_id].append(game_id)
    rows = [
        Notice(
            key=f"digest:{pk}{suffix}",
            kind=Notice.Kind.DIGEST,
            user_id=pk,
            data={"games": games},
            status=Notice.Status.PENDING if games else Notice.Status.SKIPPED,
            reason="" if games else "nothing awaiting",
            due_at=now,
        )
        for pk, games in awaiting.items()
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    written = Notice.objects.filter(key__in=[row.key for row in rows])
    return list(written.order_by("pk").values_list("pk", "status"))
