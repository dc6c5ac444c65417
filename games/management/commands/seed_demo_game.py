"""Create a demo game in progress between the demo players (idempotent)."""

import random

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from games import engine
from games.models import Game, Notice
from games.outbox import sending
from games.outbox.links import site_url
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit

DEMO_GAME = "Demo: the deep mine"
DEMO_PLAYERS = ("ann", "bob", "cid", "dan")


class Command(BaseCommand):
    help = "Create a running demo game where a demo player has the turn (run seed_demo first)."

    def handle(self, *args, **options):
        game = Game.objects.filter(name=DEMO_GAME, status=Game.Status.RUNNING).first()
        if game is None:
            game = self._create()
        seat = game.seats.select_related("user").get(position=game.to_move)
        self.stdout.write(
            f"  Demo game {game.name!r}: it is {seat.user.username}'s turn "
            f"({site_url(reverse('game', args=[game.pk]))})"
        )

    def _create(self) -> Game:
        users = list(get_user_model().objects.filter(username__in=DEMO_PLAYERS))
        if len(users) != len(DEMO_PLAYERS):
            raise CommandError("Run `manage.py seed_demo` first.")
        users.sort(key=lambda user: user.username)
        game = game_create(creator=users[0], name=DEMO_GAME, ruleset="base", max_seats=4)
        for user in users[1:]:
            seat_join(game_id=game.pk, user=user)
        game = game_start(game_id=game.pk, user=users[0])
        # The start's emails go out now, before the demo moves below end the first player's
        # turn: they get their "your turn" email (with the game's start) like everyone else
        # gets theirs; sent later, it would be skipped as out of date.
        started = Notice.objects.filter(
            game=game, kind__in=[Notice.Kind.TURN, Notice.Kind.STARTED], status="pending"
        )
        sending.send_each(list(started.values_list("pk", flat=True)))
        rng = random.Random(game.pk)  # noqa: S311 - demo moves, not secrets
        for _ in range(6):
            game.refresh_from_db()
            seat = game.seats.get(position=game.to_move)
            state = game.engine_state()
            moves = engine.legal_moves(state, seat.engine_name)
            places = [m for m in moves if m["move"] == "place"]
            move = rng.choice(places or moves)
            move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        game.refresh_from_db()
        return game
