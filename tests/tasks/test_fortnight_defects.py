"""Defects of a simulated fortnight and a hostile probe (issue 36), each with the test that
failed before its fix. Celery runs eagerly, with the slow-play scaffolding of
test_notices_over_days.py (its fixtures too, hence the noqa)."""
# ruff: noqa: F401, F811

from datetime import timedelta

import pytest

from games.moderation import players as moderation
from games.moderation import tables
from games.models import Seat
from tests.players import create_player
from tests.tasks.test_notices_over_days import (  # the slow-play scaffolding, fixtures too
    eager_celery,  # autouse
    mover,
    players,
    start,
    traveller,
)

pytestmark = pytest.mark.django_db
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


# -- 1. A replaced seat keeps its time bank ---------------------------------------------------


def test_a_banned_players_seat_keeps_its_bank_for_whoever_takes_it_over(
    players, traveller, django_capture_on_commit_callbacks
):
    """A ban during the player's turn brought the deadline to now and their stand-in's move
    spent the whole bank: the newcomer started with none, though the briefing promised one."""
    game = start(
        players, capture=django_capture_on_commit_callbacks, turn_limit=6 * HOUR, bank=DAY,
        bot_stand_ins=True,
    )  # fmt: skip
    banned = mover(game)
    traveller.shift(HOUR)
    with django_capture_on_commit_callbacks(execute=True):
        moderation.user_ban(user=banned.user, by=None, reason="Cheating")
    game.refresh_from_db()
    assert game.to_move != banned.position  # the stand-in played the turn
    assert Seat.objects.get(pk=banned.pk).bank_left == DAY
    fay = create_player("fay")
    with django_capture_on_commit_callbacks(execute=True):
        seat = tables.seat_replace(game_id=game.pk, position=banned.position, new_user=fay)
    assert seat.bank_left == DAY
