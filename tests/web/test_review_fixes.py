"""Regressions found in review: replaced seats and the sweep, repeated decisions, admin filters,
failed sends, long addresses, paused games, translated refusals, whole-name mentions."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import engine
from games.models import Game, Notice, Seat
from games.moderation import tables
from games.outbox import sending
from games.play.account_deletion import account_deletion_check
from games.play.errors import reason_message
from games.play.lobby import game_create, game_start, invitation_send, seat_join
from games.play.moves import move_submit
from games.tasks import sweep
from tests.players import create_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid", "eve")]


def start(players, count=3):
    game = game_create(creator=players[0], name="Mine", ruleset="base", max_seats=count)
    for user in players[1:count]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def test_the_sweep_handles_a_replaced_seat_and_tells_the_newcomer(players):
    game = start(players)
    tables.seat_replace(game_id=game.pk, position=game.to_move, new_user=players[3])
    Notice.objects.all().delete()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert sweep()["timeouts"] == 1
    game.refresh_from_db()
    assert game.moves.get().seat.user == players[3]
    # The newcomer's own turns are announced to the newcomer, not to the player they replaced.
    tables.seat_replace(game_id=game.pk, position=game.to_move, new_user=create_player("fay"))
    turn = Notice.objects.filter(kind="turn").latest("pk")
    assert turn.user.username == "fay"


def test_a_seat_deciding_twice_in_a_row_gets_a_new_deadline(players, settings):
    game = start(players)
    # Rig the round: only the seat to move holds cards, so it decides again after its move.
    state = engine.new_game(
        ruleset="base", seats=["0", "1", "2"], round_seeds=["a", "b", "c"], rounds=1,
        deals=[{"first": "0", "hands": {"0": ["cross", "cross"], "1": [], "2": []}}],
    )  # fmt: skip
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json(), to_move=0, version=0)
    seat = game.seats.get(position=0)
    past = timezone.now() - timedelta(hours=3)
    Game.objects.filter(pk=game.pk).update(decision_since=past, deadline=past + timedelta(hours=1))
    move = {"move": "place", "card": "cross", "at": [1, 0], "turned": False}
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=0)
    game.refresh_from_db()
    assert game.to_move == 0
    assert game.deadline > timezone.now() + game.turn_limit - timedelta(minutes=1)


def test_admin_filters_cannot_probe_secret_fields(players):
    game = start(players)
    root = create_player("root")
    root.is_staff = root.is_superuser = True
    root.save()
    client = Client()
    client.force_login(root)
    probes = [
        ("admin:games_game_changelist", "snapshot__roles__0", "saboteur"),
        ("admin:games_game_changelist", "snapshot__config__round_seeds__0__startswith", "a"),
        ("admin:games_move_changelist", "payload__discard__0", "cross"),
        ("admin:games_notice_changelist", "data__since__startswith", "2"),
    ]
    for name, lookup, value in probes:
        response = client.get(reverse(name), {lookup: value})
        assert response.status_code == 400, lookup
    assert (
        client.get(reverse("admin:games_game_changelist"), {"status": "running"}).status_code == 200
    )
    assert game.pk


class FailingBackend:
    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise ConnectionError("the mail server is down")


def test_failed_sends_are_recorded_backed_off_and_finally_given_up(players, settings):
    game = start(players)
    notice = Notice.objects.get(kind="turn")
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.FailingBackend"}}
    now = timezone.now()
    for attempt in range(1, sending.MAX_ATTEMPTS + 1):
        with pytest.raises(ConnectionError):
            sending.send(notice.pk, now=now)
        notice.refresh_from_db()
        assert notice.attempts == attempt and "down" in notice.last_error
        now = notice.due_at if notice.status == "pending" else now
    assert notice.status == Notice.Status.FAILED
    assert game.pk


def test_a_very_long_invitation_address_is_fine(players):
    game = game_create(creator=players[0], name="Friends", ruleset="base", max_seats=4)
    address = "a" * 64 + "@" + "b" * 60 + ".com"
    client = Client()
    client.force_login(players[0])
    response = client.post(reverse("invitation_create", args=[game.pk]), {"email": address})
    assert response.status_code == 302
    assert game.invitations.get().email == address
    invitation_send(game_id=game.pk, user=players[0], email=address)  # once per address
    assert game.invitations.count() == 1


def test_a_paused_game_is_listed_among_the_games_that_go_on_after_a_deletion(players):
    """Issue 53: a running or paused game no longer stands in the way; the delete page lists
    it among those whose seat is left absent."""
    game = start(players)
    tables.game_pause(game_id=game.pk)
    check = account_deletion_check(players[1])
    assert check.allowed and check.running == [game]


def test_refusals_are_translated_when_shown():
    with translation.override("cs"):
        assert reason_message("not-in-hand") != "That card is not in your hand."
    assert reason_message("not-in-hand") == "That card is not in your hand."


def test_a_mention_must_name_the_whole_player(players):
    from games.play.chat import chat_post

    al = create_player("al")
    game = game_create(creator=players[0], name="Chat", ruleset="base", max_seats=4)
    for user in (al, players[1]):
        seat_join(game_id=game.pk, user=user)
    mail.outbox.clear()
    chat_post(game_id=game.pk, user=players[0], text="@Alice? no, @Bob!")
    assert [n.user.username for n in Notice.objects.filter(kind="mention")] == ["bob"]
    assert Seat.objects.filter(game=game).count() == 3
