"""The daily digest is worked out once per user and day; the minute sweep's cost does not grow
with the number of digest users (bench/sweep.py measures it at scale)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Notice
from games.outbox import digests as outbox_digests
from games.outbox import sending
from games.play.lobby import game_create, game_start, seat_join
from games.tasks import sweep
from tests.players import create_player

pytestmark = pytest.mark.django_db
DAY = datetime(2026, 11, 3, tzinfo=UTC)


def player(name, **preferences):
    return create_player(name, password="x", **preferences)


def table(names, **preferences):
    users = [player(name, **preferences) for name in names]
    game = game_create(
        creator=users[0], name=f"Mine of {names[0]}", ruleset="base", max_seats=len(users)
    )
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=users[0])
    Game.objects.filter(pk=game.pk).update(deadline=DAY + timedelta(days=5))
    return users, game


def digest_queries(now) -> int:
    with CaptureQueriesContext(connection) as queries:
        outbox_digests.digests_due(now)
    return len(queries)


def awaited(users, game):
    game.refresh_from_db()
    return next(u for u in users if u.seats.get(game=game).position == game.to_move)


@pytest.fixture
def tables():
    with time_machine.travel(DAY - timedelta(hours=2), tick=False):
        return [table([f"p{n}a", f"p{n}b", f"p{n}c"], email_digest=True) for n in range(2)]


def test_digest_is_written_once_per_user_and_day_with_queries_independent_of_the_users(tables):
    before, at_hour = DAY + timedelta(hours=7, minutes=59), DAY + timedelta(hours=8, minutes=1)
    assert digest_queries(before) == 1  # the digest users' time zones, nothing more
    first = digest_queries(at_hour)
    assert Notice.objects.filter(kind="digest").count() == 6  # one per user
    pending = Notice.objects.filter(kind="digest", status="pending")
    assert {n.user for n in pending} == {awaited(users, game) for users, game in tables}
    assert set(Notice.objects.filter(kind="digest", status="skipped").values_list("reason")) == {
        ("nothing awaiting",)
    }
    # The next sweep finds every row written and marks the zone's day done; later sweeps that day
    # only read the zones and their markers.
    digest_queries(at_hour + timedelta(minutes=1))
    assert digest_queries(at_hour + timedelta(minutes=2)) == 2
    assert digest_queries(at_hour + timedelta(hours=10)) == 2
    assert Notice.objects.filter(kind="digest", user__isnull=False).count() == 6
    assert Notice.objects.filter(kind="digest", user__isnull=True).count() == 1  # UTC's marker

    # Three times the digest users: the same number of queries on the first sweep of the day.
    for n in range(2, 6):
        with time_machine.travel(DAY - timedelta(hours=1), tick=False):
            table([f"p{n}a", f"p{n}b", f"p{n}c"], email_digest=True)
    assert digest_queries(at_hour + timedelta(days=1)) == first
    assert Notice.objects.filter(kind="digest", user__isnull=False).count() == 6 + 18


def test_a_sweep_writes_a_bounded_number_of_digests_and_the_next_ones_the_rest(tables):
    at_hour = DAY + timedelta(hours=8, minutes=1)
    assert len(outbox_digests.digests_due(at_hour, most=4)) <= 2
    assert Notice.objects.filter(kind="digest").count() == 4
    outbox_digests.digests_due(at_hour + timedelta(minutes=1), most=4)
    assert Notice.objects.filter(kind="digest", user__isnull=False).count() == 6
    assert Notice.objects.filter(kind="digest", status="pending").count() == 2
    outbox_digests.digests_due(at_hour + timedelta(minutes=2), most=4)  # the zone's day is done
    assert Notice.objects.filter(kind="digest", user__isnull=True).count() == 1


def test_each_time_zone_gets_its_digest_at_its_own_eight_oclock(tables):
    prague = player("pavel", email_digest=True, time_zone="Europe/Prague")  # UTC+1
    broken = player("nowhere", email_digest=True, time_zone="Not/AZone")  # treated as UTC
    outbox_digests.digests_due(DAY + timedelta(hours=7, minutes=1))  # 08:01 in Prague
    assert list(Notice.objects.filter(kind="digest").values_list("key", flat=True)) == [
        f"digest:{prague.pk}:2026-11-03"
    ]
    outbox_digests.digests_due(DAY + timedelta(hours=8, minutes=1))
    assert Notice.objects.filter(user=broken, key=f"digest:{broken.pk}:2026-11-03").exists()
    assert Notice.objects.filter(kind="digest").count() == 8


def test_the_sweep_mails_each_digest_once(tables):
    mail.outbox.clear()
    for minutes in (1, 2, 3):
        with time_machine.travel(DAY + timedelta(hours=8, minutes=minutes), tick=False):
            sweep()
    digests = [m for m in mail.outbox if "It is your turn" in m.subject]
    assert sorted(m.to[0] for m in digests) == sorted(
        awaited(users, game).email for users, game in tables
    )


def test_a_sweep_out_of_time_hands_the_rest_to_the_workers(tables, eager_celery):
    # More due rows than the sweep sends itself once its time is up: the rest become tasks (run
    # in this process here), so every digest still goes out, once.
    outbox_digests.digests_due(DAY + timedelta(hours=8, minutes=1))
    mail.outbox.clear()
    now = DAY + timedelta(hours=8, minutes=1)
    due = len(sending.due_notice_ids(now))
    assert due > 2  # the two digests, the games' start notices
    with time_machine.travel(now, tick=False):
        result = sending.send_due(now, until=0, at_least=1)
    assert result["handed over"] == due - 1
    digests = [m for m in mail.outbox if "It is your turn" in m.subject]
    assert sorted(m.to[0] for m in digests) == sorted(
        awaited(users, game).email for users, game in tables
    )
    assert not Notice.objects.filter(status="pending", due_at__lte=now).exists()
