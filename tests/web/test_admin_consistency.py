"""The admin says what the site says (issue 22, point 6): seats numbered as the game page and the
emails number them, times with their zone, live seats counted, no doubled punctuation, and
``createsuperuser`` accounts with a verified address."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import FieldDoesNotExist
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.urls import reverse

from games.models import Game, Notice
from games.moderation import tables
from games.outbox.sending import verified_email
from games.play.lobby import game_create, game_start, seat_join
from games.tasks import sweep
from saboteur_site.admin_display import zoned
from tests.web.test_admin import log_for, run_action

pytestmark = pytest.mark.django_db
START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def players(make_user, traveller):
    return [make_user(name) for name in ("ann", "bob", "cid")]


@pytest.fixture
def game(players):
    game = game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=3)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_seats_are_numbered_alike_in_the_admin_the_game_page_and_the_emails(
    admin_client, players, game
):
    seat = game.seats.select_related("user").get(user=players[1])
    number = f"seat {seat.position + 1} of 3"
    # The email of the game's start, the game page and the admin: the same "seat N of 3".
    sweep()
    [email] = [m for m in mail.outbox if m.to == [players[1].email]]
    assert f"You sit at {number}." in email.body
    client = Client()
    client.force_login(players[1])
    assert f"You sit at {number}." in text(client.get(reverse("game", args=[game.pk])))
    page = text(admin_client.get(reverse("admin:games_game_change", args=[game.pk])))
    for position in range(3):
        assert f"seat {position + 1} of 3" in page
    assert "seat 0 of" not in page
    replace = reverse("admin:games_game_moderate", args=[game.pk, "replace_seat"])
    form = text(admin_client.get(replace))
    assert f"{number.capitalize()}: Bob" in form
    user_page = text(admin_client.get(reverse("admin:accounts_user_change", args=[seat.user_id])))
    assert number in user_page


def test_admin_times_name_their_zone(admin_client, players, game):
    lists = text(admin_client.get(reverse("admin:games_game_changelist")))
    assert "Nov. 4, 2026, 10 a.m. (UTC)" in lists  # the deadline (two days per turn)
    page = text(admin_client.get(reverse("admin:games_game_change", args=[game.pk])))
    assert "Nov. 2, 2026, 10 a.m. (UTC)" in page  # the decision's start, the game's start
    assert "Nov. 4, 2026, 10 a.m. (UTC)" in page
    notices = text(admin_client.get(reverse("admin:games_notice_changelist")))
    assert "Nov. 2, 2026, 10 a.m. (UTC)" in notices
    notice = Notice.objects.filter(kind="turn").first()
    one = text(admin_client.get(reverse("admin:games_notice_change", args=[notice.pk])))
    assert "Nov. 2, 2026, 10 a.m. (UTC)" in one
    user = text(admin_client.get(reverse("admin:accounts_user_change", args=[players[0].pk])))
    assert "Nov. 2, 2026, 10 a.m. (UTC)" in user  # joined


def shown_names(page) -> set[str]:
    """The columns and fields an admin page (or inline) names in its class."""
    names = set(getattr(page, "list_display", ())) | set(page.readonly_fields)
    names |= set(flatten_fieldsets(page.fieldsets or [(None, {"fields": page.fields or ()})]))
    return {name for name in names if isinstance(name, str)}


def date_time_fields(model, names) -> list[str]:
    found = []
    for name in names:
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if isinstance(field, models.DateTimeField):
            found.append(f"{model.__name__}.{name}")
    return found


def test_every_time_the_admin_shows_goes_through_a_zoned_display():
    """A date-time field named as such would show without its zone: each is a ``zoned``."""
    raw = []
    for model, page in admin.site._registry.items():
        if not type(page).__module__.startswith(("games.", "accounts.")):
            continue  # Django's and allauth's own pages
        raw += date_time_fields(model, shown_names(page))
        for inline in page.inlines:
            raw += date_time_fields(inline.model, shown_names(inline))
    assert raw == []
    assert "deadline_zoned" in admin.site._registry[Game].list_display


def test_a_zoned_display_is_for_date_time_fields_only():
    assert zoned(Game, "deadline").short_description == "deadline"
    with pytest.raises(TypeError):
        zoned(Game, "name")


def test_the_game_list_counts_the_seats_at_the_table(admin_client, players, game, make_user):
    tables.seat_replace(game_id=game.pk, position=0, new_user=make_user("dan"), reason="Away")
    page = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    row = re.search(r"<tr[^>]*>.*?Deep mine.*?</tr>", page, re.S).group(0)
    cells = re.findall(r'<td class="field-players">(\d+)</td>', row)
    assert cells == ["3"]


def test_admin_messages_have_no_doubled_full_stop(admin_client, players, game, traveller):
    tables.game_pause(game_id=game.pk)
    traveller.move_to(datetime(2026, 11, 2, 19, 0, tzinfo=UTC))  # two days left: 7 p.m.
    response = run_action(admin_client, Game, "resume", [game.pk], reason="Back")
    assert response.status_code == 302
    [message] = [m for m in log_for(game) if "Resumed" in m]
    assert message == "Resumed the game; deadline Nov. 4, 2026, 7 p.m. (UTC). Reason: Back"
    shown = text(admin_client.get(response.url))
    assert "p.m.." not in shown and "7 p.m. (UTC)." in shown


def test_createsuperuser_accounts_have_a_verified_address(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-password-1")
    call_command(
        "createsuperuser", interactive=False, username="boss", email="boss@example.com",
        display_name="Boss", verbosity=0,
    )  # fmt: skip
    boss = get_user_model().objects.get(username="boss")
    assert EmailAddress.objects.get(user=boss).verified
    assert verified_email(boss) == "boss@example.com"  # mail reaches them; they may take a seat
