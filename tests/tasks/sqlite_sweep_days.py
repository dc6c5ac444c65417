"""Two days of a game on SQLite, swept as `make run`'s beat does (run by test_sweep_on_sqlite.py).

Run in a process of its own with ``DATABASE_URL=sqlite:///...`` (migrated first): every player
takes the daily digest, and the clock travels through the day's digest hour and the half-time
reminder, while a second game's one-hour turns time out. Prints one JSON object: each sweep's
report, the outbox rows and the emails written; and what the open pages' poll query
(``access.poll_view``, written as SQL) tells a player and a watcher, and what a watcher's poll is
answered through the site (its user read with the game: games/web/polls.py).
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")

import django  # noqa: E402

django.setup()

import time_machine  # noqa: E402
from allauth.account.models import EmailAddress  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core import mail  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from games.models import Game, Notice  # noqa: E402
from games.play.lobby import game_create, game_start, seat_join  # noqa: E402
from games.read.access import MAX_ID, poll_view  # noqa: E402
from games.tasks import sweep  # noqa: E402

START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)  # a Monday


def player(name):
    user = get_user_model().objects.create_user(
        username=name, email=f"{name}@example.com", display_name=name.capitalize(),
        password="x", email_digest=True,
    )  # fmt: skip
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def main() -> None:
    mail.outbox = []  # the locmem backend keeps what is sent, in this process
    reports = []
    with time_machine.travel(START, tick=False) as traveller:
        users = [player(name) for name in ("ann", "bob", "cid")]
        game = game_create(
            creator=users[0], name="Deep mine", ruleset="base", max_seats=3,
            turn_limit=timedelta(days=2),
        )  # fmt: skip
        for user in users[1:]:
            seat_join(game_id=game.pk, user=user)
        game = game_start(game_id=game.pk, user=users[0])
        mover = game.seats.select_related("user").get(position=game.to_move).user
        # An hour per turn, and nobody plays: its deadlines pass (and its seats turn absent).
        short = game_create(
            creator=users[0], name="Short mine", ruleset="base", max_seats=3,
            turn_limit=timedelta(hours=1),
        )  # fmt: skip
        for user in users[1:]:
            seat_join(game_id=short.pk, user=user)
        game_start(game_id=short.pk, user=users[0])
        for moment in (
            START + timedelta(minutes=1),
            datetime(2026, 11, 3, 8, 1, tzinfo=UTC),  # the digest hour (UTC)
            datetime(2026, 11, 3, 10, 1, tzinfo=UTC),  # half the time limit has passed
        ):
            traveller.move_to(moment)
            reports.append(sweep())
    watcher, deep = player("dee"), Game.objects.get(name="Deep mine")
    polls = [poll_view(deep.pk, mover), poll_view(deep.pk, watcher), poll_view(MAX_ID, watcher)]
    # The same through the site: the poll's user read with the game (games/web/polls.py).
    client = Client(HTTP_HOST="localhost")  # run mode's hosts
    client.force_login(watcher)
    url = f"/games/{deep.pk}/poll/"
    with CaptureQueriesContext(django.db.connection) as queries:
        unchanged = client.get(url, {"v": deep.revision}).status_code
    asked = [unchanged, len(queries), client.get(url, {"v": deep.revision - 1}).status_code]
    notices = Notice.objects.filter(user__isnull=False, game__name="Deep mine").order_by("pk")
    notices = list(notices) + list(Notice.objects.filter(kind="digest", user__isnull=False))
    print(
        json.dumps(
            {
                "vendor": django.db.connection.vendor,
                "mover": mover.email,
                "status": Game.objects.get(name="Deep mine").status,
                "short": Game.objects.get(name="Short mine").version,
                "reports": reports,
                "notices": [[n.kind, n.user.email, n.status, n.reason] for n in notices],
                "mails": [[m.to[0], m.subject] for m in mail.outbox],
                "revision": deep.revision,
                "polls": [poll and [poll.revision, poll.watcher] for poll in polls],
                "asked": asked,
            }
        )
    )


if __name__ == "__main__":
    main()
