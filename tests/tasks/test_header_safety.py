"""User text that reaches an email header is one line: a game name with CR/LF used to switch off
every email of its game (the mail library refuses the header; the notices stayed pending)."""

import email

import pytest
from django.core import mail
from django.urls import reverse

from games.models import Game, Notice
from games.play.errors import ServiceError
from games.play.lobby import game_create, game_start, invitation_send, seat_join
from tests.players import create_player

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
BAD_NAMES = ["Deep\r\nBcc: victim@example.com", "Deep\nmine", "Deep\rmine", "Deep\u2028mine"]


@pytest.fixture
def players():
    return [create_player(n) for n in ("ann", "bob", "cid")]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_game_name_with_a_line_break_is_refused_by_the_form_and_the_service(
    client, players, name
):
    client.force_login(players[0])
    data = {"name": name, "ruleset": "base", "max_seats": 3, "visibility": "open"}
    data["turn_limit"] = "86400"
    response = client.post(reverse("game_create"), data)
    assert response.status_code == 422
    assert "must be one line" in response.content.decode()
    with pytest.raises(ServiceError):
        game_create(creator=players[0], name=name, ruleset="base", max_seats=3)
    assert not Game.objects.exists()


def test_a_stored_name_with_line_breaks_still_gets_its_emails_with_a_one_line_subject(
    players, django_capture_on_commit_callbacks
):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=3)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    # Written before names were checked (or past the services): the emails must still go.
    Game.objects.filter(pk=game.pk).update(name="Deep\r\nBcc: victim@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        game_start(game_id=game.pk, user=players[0])
    sent = [m for m in mail.outbox if "Your turn" in m.subject]
    assert sent, [n.last_error for n in Notice.objects.all()]
    for message in sent:
        parsed = email.message_from_string(message.message().as_string())
        assert parsed["Subject"] == "Your turn in Deep Bcc: victim@example.com"
        assert parsed["Bcc"] is None and message.bcc == []
    assert not Notice.objects.filter(kind="turn", status="pending").exists()


def test_invitation_subject_and_body_are_safe_with_any_stored_name(
    players, django_capture_on_commit_callbacks
):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=3)
    Game.objects.filter(pk=game.pk).update(name="Deep\r\nmine")
    with django_capture_on_commit_callbacks(execute=True):
        invitation_send(game_id=game.pk, user=players[0], email="pal@example.com")
    [message] = mail.outbox
    assert "\n" not in message.subject and "\r" not in message.subject
    message.message().as_string()  # the mail library accepts every header
