"""The example bot (examples/bot.py, standard library and httpx) plays a whole practice game
through the public API against a live server (pytest-django's ``live_server``, a thread of this
process, rather than `make run`'s whole stack, which takes a minute to start), with a real Celery
worker playing the site's bots, as tests/e2e/test_practice.py does for the browser."""

from __future__ import annotations

import random

import httpx
import pytest

from accounts.tokens import token_create
from examples.bot import play_practice
from games.models import Game
from tests.players import create_player
from tests.tasks.test_email_integration import assert_clean as assert_worker_clean
from tests.tasks.test_email_integration import (
    celery_app_on,
    channel,  # noqa: F401 - a fixture
    running_workers,
    worker_env,
)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_example_bot_plays_a_practice_game_to_its_end(
    channel,  # noqa: F811
    tmp_path,
    settings,
    live_server,
):
    url, queue = channel
    settings.BOT_MOVE_DELAY = 0
    env = {
        **worker_env(url, 1),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "BOT_MOVE_DELAY": "0",
        "CELERY_QUEUE": queue,
    }
    ann = create_player("ann")
    _token, text = token_create(user=ann, name="bot", scopes=["read", "play"])
    headers = {"Authorization": f"Bearer {text}"}
    settings.RATE_LIMITS_SCALE = 10  # a bot plays as fast as the machine: no waits for 429s
    with celery_app_on(url, queue), running_workers(tmp_path, queue, env) as logs:
        with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client:
            game = play_practice(client, bots=2, rounds=1, pause=0.1, rng=random.Random(5))
        assert_worker_clean(logs)
    assert game["status"] == "finished"
    played = Game.objects.get(pk=game["id"])
    assert played.practice and played.status == Game.Status.FINISHED
    assert played.moves.filter(seat__user=ann).exists()
    assert played.moves.filter(seat__bot__isnull=False).exists()
