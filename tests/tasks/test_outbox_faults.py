"""The outbox when PostgreSQL goes away in the middle of a send (bench/faults.py found it).

The SMTP server takes the email, and at that moment the database drops the sender's connection
(a restart): the row could not be marked sent, stayed pending and was sent a second time. Now
the sender marks it sent as soon as the database answers again.
"""

import psycopg
import pytest
from django.db import connection

import games.tasks  # noqa: F401 - registered here, eager tasks run in this process
from games.models import Notice
from games.outbox import sending
from games.play.lobby import game_create, game_start, seat_join
from tests.players import create_player

pytestmark = pytest.mark.django_db(transaction=True)

DELIVERED = []


def drop_this_connection() -> None:
    """What a PostgreSQL restart does to a connection: the server ends it."""
    pid = connection.connection.info.backend_pid
    with psycopg.connect(**admin_params(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])


def admin_params() -> dict:
    params = connection.settings_dict
    return {
        "host": params["HOST"] or "127.0.0.1",
        "port": params["PORT"] or 5432,
        "user": params["USER"] or "postgres",
        "dbname": params["NAME"],
    }


class DatabaseDropsAfterDelivery:
    """An SMTP server that takes the email, as the database drops the sender's connection."""

    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        DELIVERED.extend(messages)
        drop_this_connection()
        return len(messages)


class AndAnotherSenderSkipsIt(DatabaseDropsAfterDelivery):
    """... and before the sender is back, another one (the sweep, once the database returned)
    finds the row no longer relevant (the turn moved on) and marks it skipped."""

    def send_messages(self, messages):
        sent = super().send_messages(messages)
        with psycopg.connect(**admin_params(), autocommit=True) as other:
            other.execute(
                "UPDATE games_notice SET status = 'skipped', reason = 'the turn has moved on' "
                "WHERE status = 'pending'"
            )
        return sent


@pytest.fixture
def notice(eager_celery):
    players = [create_player(name) for name in ("ann", "bob", "cid")]
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=3)
    for player in players[1:]:
        seat_join(game_id=game.pk, user=player)
    game_start(game_id=game.pk, user=players[0])
    notice = Notice.objects.get(kind="turn")
    Notice.objects.filter(pk=notice.pk).update(status="pending", sent_at=None, attempts=0)
    DELIVERED.clear()
    return notice


@pytest.mark.parametrize("backend", ["DatabaseDropsAfterDelivery", "AndAnotherSenderSkipsIt"])
def test_an_email_delivered_as_the_database_goes_away_is_marked_sent_not_sent_again(
    notice, settings, backend
):
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.{backend}"}}
    assert sending.send(notice.pk) == Notice.Status.SENT
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT and notice.attempts == 1 and not notice.reason
    assert len(DELIVERED) == 1
    # Another delivery of the task, or the sweep: nothing more goes out.
    assert sending.send(notice.pk) == Notice.Status.SENT
    assert len(DELIVERED) == 1
