"""Reliability over the last 90 days (issue 28): turns that ran out, games abandoned or taken
over, the median time to move, the vacation hook; and a game's minimum reliability to join."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import engine
from games.models import Game, Seat
from games.moderation import tables
from games.play.errors import ServiceError
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit, turn_timeout
from games.read import stats
from tests.redis_space import clear_run_cache

pytestmark = pytest.mark.django_db

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def trio(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid")]


def started(users, name="Deep mine") -> Game:
    game = game_create(creator=users[0], name=name, ruleset="base", max_seats=len(users))
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=users[0])


def turns(game, count, clock, *, late=None, step=timedelta(minutes=10)):
    """``count`` decisions, each ``step`` after the one before; ``late``'s time runs out."""
    for _ in range(count):
        game.refresh_from_db()
        seat = game.seats.live().get(position=game.to_move)
        if late is not None and seat.user == late:
            clock.move_to(game.deadline + timedelta(seconds=1))
            turn_timeout(game_id=game.pk)
            continue
        clock.shift(step)
        state = engine.State.from_json(game.snapshot)
        move = next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "pass")
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)


def test_reliability_counts_the_last_90_days(trio, make_user, client):
    ann, bob, cid = trio
    with time_machine.travel(NOW - timedelta(days=200), tick=False) as clock:
        old = started(trio, name="Long ago")
        turns(old, 12, clock, late=ann)  # 4 of Ann's turns ran out, long ago
        tables.game_abort(game_id=old.pk, reason="old")
    with time_machine.travel(NOW - timedelta(days=10), tick=False) as clock:
        game = started(trio)
        turns(game, 9, clock)  # three turns each, 10 minutes after the move before
        turns(game, 3, clock, late=ann)  # one of Ann's ran out
        other = started([bob, ann, cid], name="Second table")
        turns(other, 1, clock)
        tables.seat_replace(
            game_id=other.pk,
            position=other.seats.get(user=ann).position,
            new_user=make_user("dan"),
        )
    with time_machine.travel(NOW, tick=False):
        mine = stats.reliability(ann)
        assert (mine.turns, mine.ran_out) == (
            game.moves.filter(seat__user=ann).count() + other.moves.filter(seat__user=ann).count(),
            1,
        )
        assert (mine.games, mine.dropped) == (2, 1)  # taken over at the second table
        assert mine.median_response == timedelta(minutes=10)
        assert mine.ran_out_percent == round(100 / mine.turns)
        expected = round(100 * (mine.turns - 1) / mine.turns * (1 / 2))
        assert mine.percent == expected
        assert mine.vacation_days == 0
        client.force_login(bob)
        body = client.get(reverse("player", args=["Ann"])).content.decode()
    assert f'data-testid="reliability-percent">{expected} %<' in body
    assert 'data-testid="dropped">1 of 2<' in body
    assert f'data-testid="median-90">{mine.median_response_words}<' in body
    assert 'data-testid="vacation-days">0<' in body  # no vacation taken
    # Bob was never late nor replaced: 100 %.
    with time_machine.travel(NOW, tick=False):
        assert stats.reliability(bob).percent == 100


def test_a_player_without_a_record_has_no_reliability_figure(trio):
    assert stats.reliability(trio[0]).percent is None
    assert stats.reliability_percents([trio[0].pk]) == {trio[0].pk: None}


def test_lists_read_reliability_from_the_shared_cache(trio):
    with time_machine.travel(NOW - timedelta(days=1), tick=False) as clock:
        turns(started(trio), 6, clock, late=trio[0])
    ids = [user.pk for user in trio]
    first = stats.reliability_percents(ids)
    assert first[trio[1].pk] == 100 and first[trio[0].pk] < 100
    with CaptureQueriesContext(connection) as queries:
        assert stats.reliability_percents(ids) == first
    assert len(queries) == 0
    clear_run_cache()  # this run's keys only (tests/redis_space.py)
    with CaptureQueriesContext(connection) as queries:
        assert stats.reliability_percents(ids) == first
    assert len(queries) == 2  # whatever the number of players


# -- The creator's minimum ------------------------------------------------------------------------


def unreliable(trio):
    """Cid's time ran out on every one of his turns."""
    with time_machine.travel(timezone_now() - timedelta(days=1), tick=False) as clock:
        turns(started(trio, name="Late one"), 9, clock, late=trio[2])
    assert stats.reliability(trio[2]).percent == 0


def timezone_now():
    from django.utils import timezone

    return timezone.now()


def test_a_game_may_require_a_minimum_reliability_to_join(trio, make_user, client):
    ann, bob, cid = trio
    unreliable(trio)
    game = game_create(creator=ann, name="Careful", ruleset="base", max_seats=5, min_reliability=90)
    with pytest.raises(ServiceError) as refused:
        seat_join(game_id=game.pk, user=cid)
    assert refused.value.code == "unreliable"
    assert "at least 90 %" in refused.value.message and "yours is 0 %" in refused.value.message
    assert not game.seats.filter(user=cid).exists()
    seat_join(game_id=game.pk, user=bob)  # 100 %
    seat_join(game_id=game.pk, user=make_user("newbie"))  # no record yet: welcome
    assert game.seats.count() == 3

    client.force_login(cid)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert 'data-testid="min-reliability"' in page and "at least 90 %" in page
    response = client.post(reverse("join", args=[game.pk]), follow=True)
    assert "yours is 0 %" in response.content.decode()
    assert not Seat.objects.filter(game=game, user=cid).exists()
    lobby = client.get(reverse("lobby")).content.decode()
    assert "reliability 90 % or more" in lobby


def test_the_creation_form_sets_the_minimum_and_refuses_nonsense(trio, client):
    client.force_login(trio[0])
    fields = {"name": "Picky", "ruleset": "base", "max_seats": 4, "visibility": "open",
              "turn_limit": str(2 * 24 * 3600), "rounds": "3"}  # fmt: skip
    response = client.post(reverse("game_create"), {**fields, "min_reliability": "75"})
    assert response.status_code == 302
    assert Game.objects.get(name="Picky").min_reliability == 75
    response = client.post(reverse("game_create"), {**fields, "name": "Any"})
    assert Game.objects.get(name="Any").min_reliability is None
    response = client.post(
        reverse("game_create"), {**fields, "name": "Odd", "min_reliability": "33"}
    )
    assert response.status_code == 422 and not Game.objects.filter(name="Odd").exists()
    for bad in (0, 101, "90", 1.5):
        with pytest.raises(ServiceError):
            game_create(
                creator=trio[1], name="Bad", ruleset="base", max_seats=4, min_reliability=bad
            )
    assert not Game.objects.filter(name="Bad").exists()
