"""The game services against PostgreSQL: lobby, start, and the move pipeline."""

from datetime import timedelta

import pytest

from games import engine
from games.models import Game, Move
from games.play.errors import MoveRefused, ServiceError, StaleVersion
from games.play.lobby import game_create, game_start, seat_join, seat_leave
from games.play.moves import move_submit
from tests.threads import at_once

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


def started(players, ruleset="base"):
    game = game_create(creator=players[0], name="Deep mine", ruleset=ruleset, max_seats=4)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def mover(game):
    seat = game.seats.get(position=game.to_move)
    state = engine.State.from_json(game.snapshot)
    return seat, state


def test_create_checks_the_rule_set_limits(players):
    with pytest.raises(ServiceError):
        game_create(creator=players[0], name="x", ruleset="base", max_seats=11)
    with pytest.raises(ServiceError):
        game_create(creator=players[0], name="x", ruleset="saboteur2", max_seats=4,
                    variants=["rivalry"])  # fmt: skip
    with pytest.raises(ServiceError):
        game_create(creator=players[0], name="x", ruleset="base", max_seats=4,
                    turn_limit=timedelta(minutes=30))  # fmt: skip
    game = game_create(creator=players[0], name="x", ruleset="saboteur2", max_seats=12)
    assert game.seats.get().user == players[0]


def test_lobby_join_leave_and_start(players):
    game = game_create(creator=players[0], name="x", ruleset="base", max_seats=3)
    seat_join(game_id=game.pk, user=players[1])
    seat_join(game_id=game.pk, user=players[1])  # joining twice keeps one seat
    with pytest.raises(ServiceError):
        game_start(game_id=game.pk, user=players[0])  # 2 of 3 needed
    seat_join(game_id=game.pk, user=players[2])
    with pytest.raises(ServiceError):
        seat_join(game_id=game.pk, user=players[3])  # full
    seat_leave(game_id=game.pk, user=players[2])
    seat_join(game_id=game.pk, user=players[3])
    with pytest.raises(ServiceError):
        game_start(game_id=game.pk, user=players[1])  # only the creator starts
    game = game_start(game_id=game.pk, user=players[0])
    assert game.status == Game.Status.RUNNING
    assert sorted(game.seats.values_list("position", flat=True)) == [0, 1, 2]
    assert game.deadline == game.decision_since + game.turn_limit
    with pytest.raises(ServiceError):
        seat_leave(game_id=game.pk, user=players[3])


def test_accepted_move_appends_to_the_log_and_the_snapshot(players):
    game = started(players)
    seat, state = mover(game)
    move = engine.legal_moves(state, seat.engine_name)[0]
    result = move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=0)
    game.refresh_from_db()
    assert not result.repeated and result.move.sequence == 1
    assert game.version == 1
    expected, _ = engine.apply(state, seat.engine_name, move)
    assert game.snapshot == expected.to_json()


def test_refused_move_changes_nothing_and_says_why(players):
    game = started(players)
    seat, _ = mover(game)
    before = Game.objects.get(pk=game.pk).snapshot
    bad = {"move": "place", "card": "cross", "at": [0, 0], "turned": False}
    with pytest.raises(MoveRefused) as refused:
        move_submit(game_id=game.pk, user=seat.user, move=bad, expected_version=0)
    assert refused.value.code in {"occupied", "not-in-hand"}
    assert refused.value.message
    game.refresh_from_db()
    assert game.version == 0 and game.snapshot == before and not Move.objects.exists()


def test_out_of_turn_stale_and_outsider_are_refused(players, make_user):
    game = started(players)
    seat, state = mover(game)
    other = game.seats.exclude(pk=seat.pk).first()
    move = {"move": "pass", "discard": [state.hands[int(other.engine_name)][0]]}
    with pytest.raises(MoveRefused) as refused:
        move_submit(game_id=game.pk, user=other.user, move=move, expected_version=0)
    assert refused.value.code == "not-your-decision"
    with pytest.raises(StaleVersion):
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=3)
    with pytest.raises(ServiceError):
        move_submit(game_id=game.pk, user=make_user("eve"), move=move, expected_version=0)
    assert not Move.objects.exists()


def test_repeated_idempotency_key_gets_the_first_answer(players):
    game = started(players)
    seat, state = mover(game)
    move = engine.legal_moves(state, seat.engine_name)[0]
    first = move_submit(
        game_id=game.pk, user=seat.user, move=move, expected_version=0, idempotency_key="k1"
    )
    again = move_submit(
        game_id=game.pk, user=seat.user, move=move, expected_version=0, idempotency_key="k1"
    )
    assert again.repeated and again.move.pk == first.move.pk
    assert Move.objects.count() == 1


def test_the_move_log_replays_to_the_snapshot(players):
    game = started(players, ruleset="saboteur2")
    for _ in range(25):
        game.refresh_from_db()
        seat, state = mover(game)
        move = engine.legal_moves(state, seat.engine_name)[-1]
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    moves = [(m.seat.engine_name, m.payload) for m in game.moves.select_related("seat")]
    assert list(game.moves.values_list("sequence", flat=True)) == list(range(1, 26))
    assert engine.replay(state.config, moves) == state


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("with_key", [False, True])
def test_twenty_identical_submissions_at_once_apply_one_move(players, with_key):
    game = started(players)
    seat, state = mover(game)
    move = engine.legal_moves(state, seat.engine_name)[0]
    outcomes = []

    def submit():
        try:
            result = move_submit(
                game_id=game.pk,
                user=seat.user,
                move=move,
                expected_version=0,
                idempotency_key="same" if with_key else None,
            )
            outcomes.append("repeated" if result.repeated else "applied")
        except StaleVersion:
            outcomes.append("stale")

    at_once([submit] * 20)
    assert outcomes.count("applied") == 1
    assert len(outcomes) == 20
    assert set(outcomes) - {"applied"} == ({"repeated"} if with_key else {"stale"})
    assert Move.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).version == 1
