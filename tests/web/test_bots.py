"""Practice games against bots, bots moving through the service, and bots standing in for absent
players (the worker path is in tests/tasks/test_bot_worker.py)."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import engine, tasks
from games.models import Game, Seat
from games.play import bot_turns
from games.play.bot_turns import bot_games_due
from games.play.errors import ServiceError
from games.play.lobby import game_create, game_start, practice_create, seat_join
from games.play.moves import bot_move, move_submit, turn_timeout
from games.play.visits import seat_seen
from games.read import stats
from games.read.pages import game_page

pytestmark = pytest.mark.django_db


def play_bots_until_my_turn(game, cap=500):
    """Let the bots decide (as the worker would) until a person decides or the game ends."""
    for _ in range(cap):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        seat = game.seats.live().get(position=game.to_move)
        if not seat.bot_plays:
            return game
        assert bot_move(game_id=game.pk, version=game.version) is not None
    pytest.fail("the bots never handed the turn back")


def my_legal_move(game, user):
    seat = game.seats.live().get(user=user)
    state = engine.State.from_json(game.snapshot)
    return engine.legal_moves(state, seat.engine_name)[0]


@pytest.mark.parametrize(("ruleset", "bots"), [("base", 2), ("base", 9), ("saboteur2", 11)])
def test_a_practice_game_starts_at_once_with_its_bots(user, ruleset, bots):
    game = practice_create(creator=user, ruleset=ruleset, bots=bots)
    assert game.status == Game.Status.RUNNING
    assert game.practice and game.visibility == Game.Visibility.INVITE
    seats = list(game.seats.order_by("position"))
    assert len(seats) == bots + 1
    assert sorted(s.bot for s in seats if s.bot) == list(range(1, bots + 1))
    assert [s.user for s in seats if s.bot is None] == [user]


@pytest.mark.parametrize(("ruleset", "bots"), [("base", 1), ("base", 10), ("saboteur2", 12)])
def test_practice_refuses_a_bot_count_outside_the_rule_set(user, ruleset, bots):
    with pytest.raises(ServiceError):
        practice_create(creator=user, ruleset=ruleset, bots=bots)
    assert not Game.objects.exists()


def test_bots_play_a_whole_practice_game_with_one_person(user):
    game = practice_create(creator=user, ruleset="base", bots=2, rounds=1)
    for _ in range(300):
        game = play_bots_until_my_turn(game)
        if game.status == Game.Status.FINISHED:
            break
        move_submit(
            game_id=game.pk,
            user=user,
            move=my_legal_move(game, user),
            expected_version=game.version,
        )
    assert game.status == Game.Status.FINISHED
    bot_seats = game.seats.filter(bot__isnull=False)
    assert game.moves.filter(seat__in=bot_seats).count() > 5


def test_a_bot_does_not_move_for_a_person_nor_on_an_old_version(user):
    game = practice_create(creator=user, ruleset="base", bots=2)
    game = play_bots_until_my_turn(game)
    assert bot_move(game_id=game.pk, version=game.version) is None  # the person's turn
    assert bot_move(game_id=game.pk, version=game.version - 1) is None
    game.refresh_from_db()
    assert game.version == game.moves.count()


def test_bots_are_named_as_bots_on_the_page(user):
    game = practice_create(creator=user, ruleset="saboteur2", bots=3)
    game = Game.objects.prefetch_related("seats__user").get(pk=game.pk)
    page = game_page(game, user)
    names = sorted(p["name"] for p in page.players.rows)
    assert names == ["Ann", "Bot 1 (a bot)", "Bot 2 (a bot)", "Bot 3 (a bot)"]


def test_practice_games_stay_out_of_the_statistics(user):
    game = practice_create(creator=user, ruleset="base", bots=2, rounds=1)
    assert stats.player_stats(user).games_played == 0
    game.practice = False
    game.save(update_fields=["practice"])
    assert stats.player_stats(user).games_played == 1


def test_the_lobby_starts_a_practice_game(client, user):
    client.force_login(user)
    assert "practice-form" in client.get(reverse("lobby")).content.decode()
    response = client.post(
        reverse("practice_create"),
        {"practice-ruleset": "saboteur2", "practice-bots": "4", "practice-rounds": "2"},
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("game", args=[game.pk])
    assert game.practice and game.seats.filter(bot__isnull=False).count() == 4
    assert game.rounds == 2


def test_the_lobby_refuses_a_bad_practice_form(client, user):
    client.force_login(user)
    response = client.post(
        reverse("practice_create"),
        {"practice-ruleset": "base", "practice-bots": "10", "practice-rounds": "3"},
    )
    assert response.status_code == 422
    assert "This rule set is for 2 to 9 bots." in response.content.decode()
    assert not Game.objects.exists()


def test_overdue_bot_decisions_are_found_by_the_sweep(user):
    game = practice_create(creator=user, ruleset="base", bots=2)
    game.refresh_from_db()
    seat = game.seats.live().get(position=game.to_move)
    later = timezone.now() + timedelta(minutes=5)
    due = bot_games_due(later)
    assert ((game.pk, game.version) in due) == seat.bot_plays
    assert bot_games_due(timezone.now() - timedelta(minutes=5)) == []


# -- Stand-ins --------------------------------------------------------------------------------


def stand_in_game(make_user, bot_stand_ins=True):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = game_create(
        creator=ann, name="Slow", ruleset="base", max_seats=3, bot_stand_ins=bot_stand_ins
    )
    for other in (bob, cid):
        seat_join(game_id=game.pk, user=other)
    game_start(game_id=game.pk, user=ann)
    game.refresh_from_db()
    return game


def time_out_until_absent(game):
    """Let the deadlines of the seat to move pass until that seat is absent; return the seat."""
    seat = game.seats.live().get(position=game.to_move)
    for _ in range(20):
        game.refresh_from_db()
        if game.to_move == seat.position:
            turn_timeout(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
        else:
            other = game.seats.live().get(position=game.to_move)
            move_submit(
                game_id=game.pk,
                user=other.user,
                move=my_legal_move(game, other.user),
                expected_version=game.version,
            )
        seat.refresh_from_db()
        if seat.state == Seat.State.ABSENT:
            return seat
    pytest.fail("the seat never became absent")


def test_a_bot_stands_in_for_an_absent_player_until_they_return(make_user):
    game = stand_in_game(make_user)
    seat = time_out_until_absent(game)
    assert seat.stand_in
    game = Game.objects.prefetch_related("seats__user").get(pk=game.pk)
    page = game_page(game, game.seats.live().exclude(pk=seat.pk).first().user)
    labels = [p["label"] for p in page.players.rows]
    assert f"played by a bot for {seat.user.display_name}" in labels
    # Their next decisions are the bot's.
    for _ in range(10):
        game.refresh_from_db()
        if game.to_move == seat.position:
            break
        other = game.seats.live().get(position=game.to_move)
        move_submit(
            game_id=game.pk,
            user=other.user,
            move=my_legal_move(game, other.user),
            expected_version=game.version,
        )
    before = game.version
    assert bot_move(game_id=game.pk, version=game.version).seat_id == seat.pk
    game.refresh_from_db()
    assert game.version == before + 1
    # The table reads that a bot played for them (not that their time ran out).
    game = Game.objects.prefetch_related("seats__user").get(pk=game.pk)
    watcher = game.seats.live().exclude(pk=seat.pk).first().user
    lines = [entry.text for entry in game_page(game, watcher).log.entries]
    name = seat.user.display_name
    assert lines.count(f"A bot played for {name}.") == 1
    assert lines.count(f"Time ran out for {name}: the site decided for them.") == 3
    # Lines about their own moves name them plainly: the label is for the table of players.
    assert not any("played by a bot for" in line for line in lines)
    # Opening the game takes the seat back from the bot.
    game = Game.objects.prefetch_related("seats__user").get(pk=game.pk)
    seat_seen(game=game, user=seat.user)
    seat.refresh_from_db()
    assert not seat.stand_in and seat.state == Seat.State.ACTIVE


def test_without_stand_ins_an_absent_seat_gets_no_bot(make_user):
    game = stand_in_game(make_user, bot_stand_ins=False)
    seat = time_out_until_absent(game)
    assert not seat.stand_in
    assert not bot_turns.bot_games_due(timezone.now() + timedelta(days=30))


# -- Admins seat a bot ----------------------------------------------------------------------------


def test_an_admin_seats_a_bot_in_place_of_a_player(root, make_user):  # noqa: F811
    from tests.web.test_admin import log_for, run_action, start_game, to_move

    client = Client()
    client.force_login(root)
    users = [make_user(name) for name in ("ann", "bob", "cid")]
    game = start_game(users)
    old_seat, _state = to_move(game)
    missing = run_action(
        client, Game, "replace_seat", [game.pk],
        position=old_seat.position, new_user="", reason="Bob left",
    )  # fmt: skip
    assert missing.status_code == 200
    assert b"Name the new player, or hand the seat to a bot." in missing.content
    response = run_action(
        client, Game, "replace_seat", [game.pk],
        position=old_seat.position, new_user="", bot="on", reason="Bob left",
    )  # fmt: skip
    assert response.status_code == 302
    seat = game.seats.live().get(position=old_seat.position)
    assert seat.bot == 1 and seat.user is None
    [message] = log_for(game)
    assert f"a bot took over from {old_seat.user.display_name}" in message
    game.refresh_from_db()
    assert bot_games_due(timezone.now() + timedelta(minutes=5)) == [(game.pk, game.version)]
    assert bot_move(game_id=game.pk, version=game.version).seat == seat


def test_the_creator_chooses_stand_ins_when_creating_a_game(client, user):
    client.force_login(user)
    assert "A bot plays for absent players" in client.get(reverse("lobby")).content.decode()
    fields = {"ruleset": "base", "max_seats": 3, "visibility": "open", "turn_limit": "86400"}
    client.post(reverse("game_create"), {**fields, "name": "With bots", "bot_stand_ins": "on"})
    client.post(reverse("game_create"), {**fields, "name": "Without"})
    assert Game.objects.get(name="With bots").bot_stand_ins
    assert not Game.objects.get(name="Without").bot_stand_ins


def test_with_stand_ins_the_bot_decides_when_time_runs_out(make_user):
    """The first timeout already asks the bot (from the seat's view), not the safe default pass:
    over a few turns some automatic move is not a pass."""
    game = stand_in_game(make_user)
    kinds = set()
    for _ in range(12):
        game.refresh_from_db()
        record = turn_timeout(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
        kinds.add(record.payload["move"])
        assert record.automatic
    assert kinds - {"pass"}


def test_the_minute_sweep_plays_an_overdue_bot_move(user):
    game = practice_create(creator=user, ruleset="base", bots=2)
    game.refresh_from_db()
    if not game.seats.live().get(position=game.to_move).bot_plays:
        move_submit(game_id=game.pk, user=user, move=my_legal_move(game, user), expected_version=0)
        game.refresh_from_db()
    before = game.version
    tasks.sweep()  # not overdue yet: the bot's task is on its way
    game.refresh_from_db()
    assert game.version == before
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        tasks.sweep()
    game.refresh_from_db()
    assert game.version == before + 1
