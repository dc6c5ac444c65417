"""Bots move in a practice game through a real Celery worker process over real Redis: a few
seconds after their turn begins, never inside the request (or service call) that began it."""

import time

import pytest
from django.contrib.auth import get_user_model

from games import engine
from games.models import Game, Move
from games.play.lobby import practice_create
from games.play.moves import move_submit
from tests.players import create_player
from tests.tasks.test_email_integration import (  # noqa: F401 - the channel fixture
    TIMEOUT,
    assert_clean,
    celery_app_on,
    channel,
    running_workers,
    worker_env,
    worker_logs,
)

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 1  # seconds: BOT_MOVE_DELAY for the test and its worker


def test_bots_move_through_the_worker_in_a_practice_game(channel, tmp_path, settings):  # noqa: F811
    url, queue = channel
    settings.BOT_MOVE_DELAY = DELAY
    env = {
        **worker_env(url, 1),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "BOT_MOVE_DELAY": str(DELAY),
        # The worker's own tasks (the next bot's move) go to this test's queue too.
        "CELERY_QUEUE": queue,
    }
    ann = create_player("ann")
    with celery_app_on(url, queue), running_workers(tmp_path, queue, env) as logs:
        started = time.monotonic()
        game = practice_create(creator=ann, ruleset="saboteur2", bots=2, rounds=1)
        # Nothing moved inside the call that started the game.
        assert game.moves.count() == 0
        while time.monotonic() - started < TIMEOUT * 2:
            game = Game.objects.get(pk=game.pk)
            bot_moves = Move.objects.filter(game=game, seat__bot__isnull=False).count()
            if bot_moves >= 6 or game.status != Game.Status.RUNNING:
                break
            seat = game.seats.live().get(position=game.to_move)
            if seat.user_id == ann.pk:
                state = engine.State.from_json(game.snapshot)
                move = engine.legal_moves(state, seat.engine_name)[0]
                move_submit(game_id=game.pk, user=ann, move=move, expected_version=game.version)
            time.sleep(0.1)
        else:
            pytest.fail("the bots did not move in time:\n" + worker_logs(logs))
        assert_clean(logs)
    moves = list(Move.objects.filter(game=game).order_by("sequence").select_related("seat"))
    bots = [m for m in moves if m.seat.bot is not None]
    assert len(bots) >= 6 or game.status == Game.Status.FINISHED
    assert "games.tasks.bot_play" in "".join(log.read_text() for log in logs)
    # Each bot waited about BOT_MOVE_DELAY after its decision began.
    previous = {m.sequence: m.created_at for m in moves}
    for move in bots:
        began = previous.get(move.sequence - 1, game.started_at)
        assert (move.created_at - began).total_seconds() >= DELAY * 0.9
    assert get_user_model().objects.count() == 1  # bots are no accounts
