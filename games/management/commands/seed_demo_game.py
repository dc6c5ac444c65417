"""Create a demo game in progress between the demo players (idempotent), and name the email to
answer: the "your turn" email of the player to move, the only email the demo's setup writes.

The setup (the start and six moves) is made in one transaction and tells nobody: emails written
for it would describe a game that has moved on (a "your turn" email whose moves are no longer
legal, a "has started" email naming who moves first), and a newcomer who answered one got
"that email is out of date" (issue 47). ``make run`` (scripts/run.sh) prints what this prints.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core import mail
from django.core.mail.backends.filebased import EmailBackend as FileBackend
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse

from games import engine
from games.models import Game, Notice
from games.outbox import sending
from games.outbox.emails import message_id
from games.outbox.links import site_url
from games.outbox.schedule import decision_key
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit

DEMO_GAME = "Demo: the deep mine"
DEMO_PLAYERS = ("ann", "bob", "cid", "dan")
SETUP_MOVES = 6

# Why the outbox rows of the demo's setup were not sent (the admin's outbox shows it).
SETUP_UNSENT = "the demo game's setup: only the turn of now is emailed"


class Command(BaseCommand):
    help = "Create a running demo game where a demo player has the turn (run seed_demo first)."

    def handle(self, *args, **options):
        game = Game.objects.filter(name=DEMO_GAME, status=Game.Status.RUNNING).first()
        if game is None:
            game = self._create()
        seat = game.seats.select_related("user").get(position=game.to_move)
        player = seat.user
        if player is None:  # the demo's seats are the demo players'
            raise CommandError(f"{game.name!r}: the seat to move has no player.")
        self.stdout.write(
            f"  Demo game {game.name!r}: it is {player.username}'s turn "
            f"({site_url(reverse('game', args=[game.pk]))})"
        )
        email = turn_email_file(game)
        if email is not None:
            self.stdout.write(
                f'  {player.username}\'s "Your turn" email, to answer by reply '
                f'(README, "Answering the emails"): {shown(email)}'
            )

    def _create(self) -> Game:
        users = list(get_user_model().objects.filter(username__in=DEMO_PLAYERS))
        if len(users) != len(DEMO_PLAYERS):
            raise CommandError("Run `manage.py seed_demo` first.")
        users.sort(key=lambda user: user.username)
        with transaction.atomic():  # nothing is handed to Celery before the setup's rows are off
            game = game_create(creator=users[0], name=DEMO_GAME, ruleset="base", max_seats=4)
            for user in users[1:]:
                seat_join(game_id=game.pk, user=user)
            game = game_start(game_id=game.pk, user=users[0])
            rng = random.Random(game.pk)  # noqa: S311 - demo moves, not secrets
            for _ in range(SETUP_MOVES):
                game.refresh_from_db()
                seat = game.seats.get(position=game.to_move)
                state = game.engine_state()
                moves = engine.legal_moves(state, seat.engine_name)
                places = [m for m in moves if m["move"] == "place"]
                move = rng.choice(places or moves)
                move_submit(
                    game_id=game.pk, user=seat.user, move=move, expected_version=game.version
                )
            game.refresh_from_db()
            this_turn = current_turn(game)
            Notice.objects.filter(game=game, status=Notice.Status.PENDING).exclude(
                pk__in=this_turn.values("pk")
            ).update(status=Notice.Status.SKIPPED, reason=SETUP_UNSENT)
        # Sent here rather than by the worker once it runs, so that the file can be named now.
        turn = this_turn.filter(kind=Notice.Kind.TURN, status=Notice.Status.PENDING)
        sending.send_each(list(turn.values_list("pk", flat=True)))
        return game


def current_turn(game: Game):
    """The outbox rows of the decision of now: its "your turn" email and its reminders."""
    return Notice.objects.filter(
        game=game,
        kind__in=(Notice.Kind.TURN, Notice.Kind.REMINDER),
        version=game.version,
        data__since=decision_key(game),
    )


def turn_email_file(game: Game) -> Path | None:
    """The file holding the "your turn" email of the decision of now, when emails are written to
    files (``make run``) and that one was sent (not when its player had the game open, say)."""
    mailer = mail.mailers.default
    if not isinstance(mailer, FileBackend):
        return None
    turn = current_turn(game).filter(kind=Notice.Kind.TURN, status=Notice.Status.SENT).first()
    if turn is None or turn.sent_at is None:
        return None
    marker = f"Message-ID: {message_id(turn)}".encode()
    # Newest first, and none written before the email was sent: the folder only grows.
    written = sorted(
        Path(mailer.file_path).glob("*.log"),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    for path in written:
        if path.stat().st_mtime < turn.sent_at.timestamp() - 60:
            break
        if marker in path.read_bytes():
            return path
    return None


def shown(path: Path) -> str:
    """The path as the reader can type it: relative to where they are, when it is below."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative.startswith("..") else relative
