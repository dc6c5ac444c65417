"""A new display name shows at once in the player's games: each game they sit at gets a new
revision (games.play.profiles.player_renamed, receiving accounts.signals.renamed), so open pages
refresh and no part kept per revision (the watchers' shared part, the move log) goes on showing
the old name."""

import random
from html.parser import HTMLParser

import pytest
from django.core.cache import caches
from django.db import transaction
from django.urls import reverse

from accounts import services as accounts
from games.models import Game
from tests.players import create_player

from .test_game_pages import logged_in, play_random, start_game

pytestmark = pytest.mark.django_db


def watched(client, game) -> str:
    """A watcher's poll from before the game's latest change (the part its page would swap in)."""
    response = client.get(
        reverse("game_poll", args=[game.pk]), {"v": 0}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    return response.content.decode()


def revision(game) -> int:
    return Game.objects.values_list("revision", flat=True).get(pk=game.pk)


@pytest.fixture
def table():
    players = [create_player(name) for name in ("ann", "bob", "cid")]
    game = start_game(players, count=3)
    play_random(game, 3, random.Random(2))
    other = start_game([create_player("dan"), create_player("eve"), create_player("fay")], count=3)
    return players, game, other


def test_a_name_changed_in_the_profile_shows_at_once_on_the_pages_of_the_players_games(table):
    (ann, bob, cid), game, other = table
    watcher = logged_in(create_player("otto"))
    caches["local"].clear()
    assert "Bob" in watched(watcher, game)  # kept for every watcher at this revision
    before, other_before = revision(game), revision(other)
    accounts.profile_update(user=bob, display_name="Robert")
    assert revision(game) == before + 1  # open pages hear of it and refresh
    assert revision(other) == other_before  # a game without Bob is left alone
    part = watched(watcher, game)
    assert "Robert" in part and ">Bob<" not in part and "Bob " not in part


def test_a_profile_saved_with_the_same_name_touches_no_game(table):
    (ann, bob, cid), game, _other = table
    before = revision(game)
    accounts.profile_update(user=bob, display_name="Bob", language="cs")
    assert revision(game) == before


def test_the_games_follow_a_new_name_before_the_save_returns_and_in_its_transaction(table):
    """accounts sends a signal that games receives: synchronously (the revision has grown when
    ``profile_update`` returns) and inside the caller's transaction (undone with the name)."""
    (ann, bob, cid), game, _other = table
    before = revision(game)
    with pytest.raises(RuntimeError), transaction.atomic():
        accounts.profile_update(user=bob, display_name="Robert")
        assert revision(game) == before + 1
        raise RuntimeError("the caller's transaction fails")
    assert revision(game) == before
    bob.refresh_from_db()
    assert bob.display_name == "Bob"


class FormFields(HTMLParser):
    """What a browser would send from a page's forms, as they stand (the admin's change form
    with its inlines' management forms)."""

    def __init__(self):
        super().__init__()
        self.data, self.select = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.data[name] = attrs.get("value", "on")
            else:
                self.data[name] = attrs.get("value") or ""
        elif tag == "select" and name:
            self.select = name  # sent only with an option chosen, as browsers do
        elif tag == "option" and self.select and "selected" in attrs:
            self.data.setdefault(self.select, []).append(attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None


def test_a_name_changed_by_an_admin_shows_at_once_too(
    table, client, django_capture_on_commit_callbacks
):
    (ann, bob, cid), game, _other = table
    staff = create_player("sam", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[bob.pk])
    form = FormFields()
    form.feed(client.get(url).content.decode())
    before = revision(game)
    with django_capture_on_commit_callbacks(execute=True):  # after the admin's transaction
        response = client.post(url, {**form.data, "display_name": "Robert"})
    assert response.status_code == 302
    bob.refresh_from_db()
    assert bob.display_name == "Robert" and bob.is_active  # the form sent as it stood
    assert revision(game) == before + 1
    # Saved again without a new name: no game is touched.
    form = FormFields()
    form.feed(client.get(url).content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, form.data).status_code == 302
    assert revision(game) == before + 1
