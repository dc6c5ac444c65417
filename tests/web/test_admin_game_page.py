"""The admin's page of a game says its times in words and names every seat (issue 36, point 8).

It said "Time left: Time left: 58 minutes" (the label, then the game page's whole sentence),
"Time per turn: 1:00:00" (Django's raw timedelta) and "-" for a seat handed to a bot.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.moderation.tables import game_pause, seat_replace
from games.play.lobby import game_create, game_start, seat_join
from tests.players import create_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = Client()
    client.force_login(create_player("sam", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def game():
    ann, bob, cid = (create_player(name) for name in ("ann", "bob", "cid"))
    game = game_create(
        creator=ann, name="Deep mine", ruleset="base", max_seats=3, turn_limit=timedelta(hours=1)
    )
    for user in (bob, cid):
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=ann)


def readonly(page: str, label: str) -> str:
    """The text the change page shows for the read-only field labelled ``label``."""
    found = re.search(
        rf'<label>{label}:</label>\s*<div class="readonly">(.*?)</div>', page, flags=re.DOTALL
    )
    assert found, f"no field {label}"
    return text_of(found.group(1))


def seat_rows(page: str) -> list[str]:
    """The rows of the seats' inline table, as text."""
    start = page.index('id="seats-group"')
    table = page[start : page.index("</table>", start)]
    rows = re.findall(r'<tr class="form-row.*?</tr>', table, flags=re.DOTALL)
    return [" ".join(text_of(row).split()) for row in rows]


def text_of(html: str) -> str:
    """Text without tags, with Django's non-breaking spaces ("1\xa0hour") as plain ones."""
    return re.sub(r"<[^>]+>", "", html).replace("\xa0", " ").strip()


def change_page(staff, game) -> str:
    response = staff.get(reverse("admin:games_game_change", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_times_are_in_words_and_said_once(staff, game):
    page = change_page(staff, game)
    assert readonly(page, "Time per turn") == "1 hour"
    left = readonly(page, "Time left")
    # Less than the hour by the test's own run time: "59 minutes" (or "1 hour" on a coarse clock).
    assert re.fullmatch(r"[0-9]+ minutes|1 hour", left), left
    assert "Time left: Time left" not in page and "1:00:00" not in page
    listed = staff.get(reverse("admin:games_game_changelist")).content.decode()
    assert "Time left:" not in listed and re.search(r"[0-9]+\xa0minutes|1\xa0hour", listed)
    game_pause(game_id=game.pk)
    page = change_page(staff, Game.objects.get(pk=game.pk))
    assert re.fullmatch(r"[0-9]+ minutes|1 hour", readonly(page, "Time left when paused"))
    assert readonly(page, "Time left") == "-"  # no clock runs while paused


def test_a_seat_handed_to_a_bot_shows_the_bots_name(staff, game):
    seat_replace(game_id=game.pk, position=1, new_user=None, reason="Gone")
    page = change_page(staff, game)
    rows = seat_rows(page)
    assert len(rows) == 4, rows  # the replaced seat and the three at the table
    handed = [row for row in rows if "Bot 1 (a bot)" in row]
    assert len(handed) == 1 and "seat 2 of 3" in handed[0], rows
    assert [row for row in rows if "Ann" in row] and [row for row in rows if "Cid" in row]
    # A person's name still leads to their account.
    assert reverse("admin:accounts_user_change", args=[game.creator_id]) in page
    assert all("0:00:00" not in row for row in rows)  # the banks are words too
