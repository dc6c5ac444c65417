"""Whole numbers posted in forms are ASCII digits only, as in the URLs and the poll (issue 36,
point 5).

Django's ``IntegerField`` reads with ``int()``, which takes "١" (Arabic-Indic one) and "１"
(fullwidth one) for 1: a move posted with version "١" was accepted. Each number field of the
site's forms is sent another script's digits, a superscript and fullwidth digits, and must be
refused clearly with nothing changed; the same number in ASCII digits is accepted (so the
refusal is the digits', not the test's).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game, Move, Seat, Vacation
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from games.web.forms import GameCreateForm, MoveForm, PracticeForm
from tests.players import create_player

pytestmark = pytest.mark.django_db

ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def spellings(number: int) -> list[str]:
    """``number`` in digits ``int()`` reads (or ``isdigit()`` calls digits) but the site must
    not: "١", "¹", "１" for 1."""
    text = str(number)
    return [text.translate(table) for table in (ARABIC_INDIC, SUPERSCRIPT, FULLWIDTH)]


def test_the_spellings_are_what_int_would_take_or_isdigit_calls_digits():
    assert spellings(12) == ["١٢", "¹²", "１２"]
    assert int("١٢") == int("１２") == 12 and "¹²".isdigit()


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


@pytest.fixture
def game(players):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=3)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def mover(game):
    game.refresh_from_db()
    return game.seats.select_related("user").get(position=game.to_move).user


def test_a_move_with_the_version_in_other_digits_is_refused(game):
    from games import engine

    first = mover(game)
    card = engine.State.from_json(game.snapshot).hands[game.to_move][0]
    move_submit(
        game_id=game.pk, user=first, move={"move": "pass", "discard": [card]}, expected_version=0
    )
    client = logged_in(mover(game))
    url = reverse("move", args=[game.pk])
    for version in spellings(1):
        response = client.post(
            url, {"version": version, "kind": "pass", "discard": ["0"]}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 422, version
        assert "That move is incomplete." in response.content.decode()
        assert Move.objects.filter(game=game).count() == 1, version
    response = client.post(
        url, {"version": "1", "kind": "pass", "discard": ["0"]}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and Move.objects.filter(game=game).count() == 2


def test_a_gold_card_value_in_other_digits_is_refused():
    base = {"version": "0", "kind": "pick-gold"}
    assert MoveForm({**base, "value": "3"}).is_valid()
    for value in spellings(3):
        form = MoveForm({**base, "value": value})
        assert not form.is_valid() and "value" in form.errors, value


def test_a_game_with_its_number_of_players_in_other_digits_is_not_created(players):
    client = logged_in(players[0])
    fields = {"name": "Far mine", "ruleset": "base", "visibility": "open"}
    fields["turn_limit"] = str(2 * 24 * 3600)
    before = Game.objects.count()
    for seats in spellings(4):
        response = client.post(reverse("game_create"), {**fields, "max_seats": seats})
        assert response.status_code == 422, seats
        assert "Enter a whole number." in response.content.decode()
        assert Game.objects.count() == before
    response = client.post(reverse("game_create"), {**fields, "max_seats": "4"})
    assert response.status_code == 302 and Game.objects.count() == before + 1


def test_a_practice_game_with_its_bots_in_other_digits_is_not_created(players):
    client = logged_in(players[0])
    fields = {"practice-ruleset": "base", "practice-rounds": "1"}
    before = Game.objects.count()
    for bots in spellings(3):
        response = client.post(reverse("practice_create"), {**fields, "practice-bots": bots})
        assert response.status_code == 422, bots
        assert "Enter a whole number." in response.content.decode()
        assert Game.objects.count() == before
    response = client.post(reverse("practice_create"), {**fields, "practice-bots": "3"})
    assert response.status_code == 302 and Game.objects.count() == before + 1


def test_a_vacation_of_days_in_other_digits_is_not_declared(players):
    client = logged_in(players[0])
    for days in spellings(7):
        response = client.post(reverse("vacation"), {"days": days})
        assert response.status_code == 422, days
        assert "Enter a whole number." in response.content.decode()
        assert not Vacation.objects.exists()
    assert client.post(reverse("vacation"), {"days": "7"}).status_code == 302
    assert Vacation.objects.count() == 1


def test_the_admin_extends_a_deadline_only_by_hours_in_ascii_digits(players, game):
    staff = create_player("sam", is_staff=True, is_superuser=True)
    client = logged_in(staff)
    url = reverse("admin:games_game_changelist")
    data = {"action": "extend_deadline", "_selected_action": [game.pk]}
    data |= {"moderation-apply": "Confirm", "moderation-reason": "Holiday"}
    before = Game.objects.get(pk=game.pk).deadline
    for hours in spellings(12):
        response = client.post(url, {**data, "moderation-hours": hours})
        assert response.status_code == 200, hours  # the form again, with its error
        assert "Enter a whole number." in response.content.decode()
        assert Game.objects.get(pk=game.pk).deadline == before
    client.post(url, {**data, "moderation-hours": "12"})
    assert Game.objects.get(pk=game.pk).deadline == before + timedelta(hours=12)


def test_numbered_choices_take_only_their_own_ascii_spelling(players, game):
    """Rounds, time per turn, reliability, banks and seats are choices: only the listed text
    is taken, and read the same way."""
    from games.admin.actions import ReplaceSeatForm

    create = {"name": "Far mine", "ruleset": "base", "visibility": "open", "max_seats": "4"}
    create |= {"turn_limit": "3600", "rounds": "2", "min_reliability": "90", "bank": "21600"}
    form = GameCreateForm(create)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["turn_limit"] == timedelta(hours=1)
    assert (form.cleaned_data["rounds"], form.cleaned_data["min_reliability"]) == (2, 90)
    for field, value in [("turn_limit", 3600), ("rounds", 2), ("min_reliability", 90)]:
        for spelled in spellings(value):
            assert field in GameCreateForm({**create, field: spelled}).errors, spelled
    practice = {"practice-ruleset": "base", "practice-bots": "3"}
    assert PracticeForm({**practice, "practice-rounds": "1"}).is_valid()
    for spelled in spellings(1):
        assert "rounds" in PracticeForm({**practice, "practice-rounds": spelled}).errors
    games = Game.objects.filter(pk=game.pk)
    position = Seat.objects.filter(game=game).order_by("position").first().position
    seat = {"moderation-reason": "x", "moderation-bot": "on"}
    valid = ReplaceSeatForm({**seat, "moderation-position": str(position)}, queryset=games)
    assert valid.is_valid(), valid.errors
    for spelled in spellings(position):
        form = ReplaceSeatForm({**seat, "moderation-position": spelled}, queryset=games)
        assert "position" in form.errors, spelled


def test_reminder_hours_in_other_digits_are_refused(players):
    client = logged_in(players[0])
    page = client.get(reverse("profile"))
    fields = {k: v for k, v in page.context["form"].initial.items() if v not in (None, False)}
    for hours in spellings(8):
        response = client.post(reverse("profile"), {**fields, "reminder_hours": hours})
        assert response.status_code == 422, hours
    players[0].refresh_from_db()
    assert players[0].reminder_hours == ""
