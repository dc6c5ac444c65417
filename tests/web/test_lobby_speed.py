"""The lobby page's budget: a fixed number of queries whatever the number of open games, and the
creation form rendered once per process and language (bench/web.py measures the rate)."""

import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.play.lobby import game_create, seat_join
from saboteur_site.form_renderer import FormRenderer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_cached_form():
    caches["local"].clear()
    yield
    caches["local"].clear()


def open_games(users, count):
    for n in range(count):
        game = game_create(
            creator=users[n % len(users)], name=f"Open {n}", ruleset="base", max_seats=5
        )  # fmt: skip
        seat_join(game_id=game.pk, user=users[(n + 1) % len(users)])


def lobby_queries(client) -> tuple[int, str]:
    client.get(reverse("lobby"))  # warms the per-process caches (form markup, games to watch)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("lobby"))
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_lobby_queries_do_not_grow_with_the_open_games(make_user):
    # Four creators: each may create 10 games an hour.
    users = [make_user(name) for name in ("ann", "bob", "dan", "eve")]
    client = Client()
    client.force_login(make_user("cid"))
    open_games(users, 2)
    few, body = lobby_queries(client)
    assert len(re.findall(r'href="/games/\d+/"', body)) == 2
    open_games(users, 30)
    many, body = lobby_queries(client)
    assert len(re.findall(r'href="/games/\d+/"', body)) == 32 and "2/5" in body
    # The user (the session comes from the cache: saboteur_site/sessions.py). The open games
    # are rendered once per version of the list (one query then: tests below); the header's
    # "awaiting" count is cached per player (below); the games to watch come from the
    # per-process cache (two queries when it is refreshed).
    assert few == many == 1


@pytest.fixture
def redis_commands(monkeypatch) -> list[str]:
    """The commands the shared cache (django-redis) sends to Redis from the fixture on, the
    session's reads included: each is a round trip (the real client sends them, counted)."""
    from django.core.cache import cache

    client = cache.client.get_client()
    sent: list[str] = []
    execute = client.execute_command

    def counted(*args, **options):
        sent.append(str(args[0]))
        return execute(*args, **options)

    monkeypatch.setattr(client, "execute_command", counted)
    return sent


def test_the_lobby_asks_the_shared_cache_twice_the_session_and_one_read(make_user, redis_commands):
    from games.play.lobby import game_start

    ann, game = three_seated(make_user, "Running")
    game = game_start(game_id=game.pk, user=ann)
    client = Client()
    client.force_login(game.seats.get(position=game.to_move).user)
    lobby_body(client)  # warm: the list, the forms, the header's count
    redis_commands.clear()
    body = lobby_body(client)
    # The session, then the open list's version with the header's count in one round trip.
    assert redis_commands == ["GET", "MGET"], redis_commands
    assert "1 game awaits your decision" in body  # the count read in that round trip


def lobby_body(client) -> str:
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    return response.content.decode()


def open_list(body: str) -> str:
    return re.search(r'<ul class="game-list" data-testid="open-games">.*?</ul>', body, re.S)[0]


def test_the_cached_open_games_change_at_once_with_every_change(make_user):
    from games.models import Game
    from games.play.lobby import game_start, seat_leave

    ann, bob, cid, dan = (make_user(name) for name in ("ann", "bob", "cid", "dan"))
    client = Client()
    client.force_login(make_user("eve"))
    assert "No open game is waiting" in lobby_body(client)

    game = game_create(creator=ann, name="Fresh table", ruleset="base", max_seats=5)
    body = lobby_body(client)
    assert "Fresh table" in body and "1/5" in body
    with CaptureQueriesContext(connection) as queries:
        again = lobby_body(client)  # unchanged: served from the cache, no query for it
    assert open_list(again) == open_list(body)
    assert len(queries) == 1  # the user

    seat_join(game_id=game.pk, user=bob)
    assert "2/5" in lobby_body(client)  # a seat taken
    seat_leave(game_id=game.pk, user=bob)
    assert "1/5" in lobby_body(client)  # and given up
    renamed = Game.objects.get(pk=game.pk)
    renamed.name = "Renamed table"
    renamed.save()  # as the admin does
    body = lobby_body(client)
    assert "Renamed table" in body and "Fresh table" not in body
    renamed.visibility = Game.Visibility.INVITE
    renamed.save()
    assert "Renamed table" not in lobby_body(client)  # made private
    renamed.visibility = Game.Visibility.OPEN
    renamed.save()
    for user in (bob, cid):
        seat_join(game_id=game.pk, user=user)
    assert "Renamed table" in lobby_body(client)
    game_start(game_id=game.pk, user=ann)
    assert "Renamed table" not in lobby_body(client)  # started: no longer waiting

    doomed = game_create(creator=dan, name="Doomed table", ruleset="base", max_seats=5)
    assert "Doomed table" in lobby_body(client)
    doomed.delete()
    assert "Doomed table" not in lobby_body(client)


def three_seated(make_user, name):
    """Ann's lobby game with Bob and Cid seated: (ann, game)."""
    ann, bob, cid = (make_user(player) for player in ("ann", "bob", "cid"))
    game = game_create(creator=ann, name=name, ruleset="base", max_seats=3)
    for user in (bob, cid):
        seat_join(game_id=game.pk, user=user)
    return ann, game


def test_moves_in_running_games_leave_the_cached_open_games_alone(make_user):
    from games.play.lobby import game_start
    from games.read.lists import open_lobbies_version

    ann, game = three_seated(make_user, "Running")
    game = game_start(game_id=game.pk, user=ann)
    before = open_lobbies_version()
    game.refresh_from_db()
    game.revision += 1
    game.save()  # what every move does to the game row
    assert open_lobbies_version() == before


@pytest.fixture
def form_templates(monkeypatch) -> list[str]:
    """The form templates drawn (by the site's form renderer, Jinja2's: the test client's list of
    templates holds Django's only), from the fixture on."""
    drawn: list[str] = []
    get_template = FormRenderer.get_template

    def recorded(renderer, name):
        drawn.append(name)
        return get_template(renderer, name)

    monkeypatch.setattr(FormRenderer, "get_template", recorded)
    return drawn


def test_the_empty_creation_form_is_rendered_once_per_language(make_user, form_templates):
    client = Client()
    client.force_login(make_user("ann"))
    client.get(reverse("lobby"))
    assert "django/forms/widgets/select.html" in form_templates  # rendered the first time
    form_templates.clear()
    again = client.get(reverse("lobby"))
    assert form_templates == []  # then served from the process's cache
    assert 'name="max_seats"' in again.content.decode()
    assert again.content.decode().count('name="variants"') == 5
    czech = client.get(reverse("lobby"), headers={"Accept-Language": "cs"})
    assert form_templates  # its own entry, in its own language
    assert czech.content.decode() != again.content.decode()


def test_a_cached_creation_form_is_not_even_built(make_user, monkeypatch):
    """Building the form (its 600 time zones' choices, copied per form) was a third of the
    lobby's time though its markup came from the cache: the cache key needs no form."""
    from games.web import forms

    client = Client()
    client.force_login(make_user("ann"))
    assert 'name="max_seats"' in lobby_body(client)
    built = []
    real_init = forms.GameCreateForm.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(forms.GameCreateForm, "__init__", counted)
    assert 'name="max_seats"' in lobby_body(client)
    assert built == []


def test_the_filters_form_is_built_only_when_a_filter_is_asked_for(make_user, monkeypatch):
    """Most visits ask for no filter: the empty filters are cached markup (issue 52's filters
    made the lobby a seventh costlier when each visit built and validated the form)."""
    from games.web import forms

    client = Client()
    client.force_login(make_user("ann"))
    assert 'id="filter-ruleset"' in lobby_body(client)
    built = []
    real_init = forms.LobbyFilterForm.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(forms.LobbyFilterForm, "__init__", counted)
    assert 'id="filter-ruleset"' in lobby_body(client)
    assert built == []
    narrowed = client.get(reverse("lobby"), {"ruleset": "saboteur2"}).content.decode()
    assert built == [1] and 'value="saboteur2" selected' in narrowed


def test_a_refused_creation_form_shows_its_errors_not_the_cached_form(make_user):
    client = Client()
    client.force_login(make_user("ann"))
    client.get(reverse("lobby"))  # caches the empty form
    response = client.post(
        reverse("game_create"),
        {"name": "Too many", "ruleset": "base", "max_seats": 11, "visibility": "open",
         "turn_limit": str(2 * 24 * 3600)},
    )  # fmt: skip
    assert response.status_code == 422
    assert "This rule set is for 3 to 10 players." in response.content.decode()
    assert 'value="Too many"' in response.content.decode()


def test_the_games_to_watch_cost_two_queries_whatever_their_number(make_user):
    from games.models import Seat
    from games.play.lobby import game_start
    from games.read.lists import games_to_watch

    players = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    viewer = make_user("eve")

    def running_game(number):
        creator = players[number % 4]
        game = game_create(creator=creator, name=f"Deep {number}", ruleset="base", max_seats=3)
        for other in (players[(number + 1) % 4], players[(number + 2) % 4]):
            seat_join(game_id=game.pk, user=other)
        return game_start(game_id=game.pk, user=creator)

    counts = []
    for number in range(6):
        running_game(number)
        if number in (0, 5):
            caches["local"].clear()
            with CaptureQueriesContext(connection) as queries:
                rows = games_to_watch(viewer)
            counts.append(len(queries))
            assert len(rows) == number + 1
    assert counts == [2, 2]
    # Each viewer's own games are left out of the same cached list.
    ann_plays = set(Seat.objects.filter(user=players[0]).values_list("game_id", flat=True))
    offered = {row.pk for row in games_to_watch(players[0])}
    assert offered and not offered & ann_plays


def test_the_awaiting_count_is_cached_and_follows_every_move(make_user):
    """The header's count costs no query while nothing changed, and a move changes it at once for
    the player who moved and for the next (games/read/invalidation.py)."""
    from games import engine
    from games.moderation import tables
    from games.play.lobby import game_start
    from games.play.moves import move_submit
    from games.read.lists import awaiting_count

    ann, game = three_seated(make_user, "Counted")
    assert awaiting_count(ann) == 0  # cached while in the lobby
    game = game_start(game_id=game.pk, user=ann)
    users = {seat.position: seat.user for seat in game.seats.all()}
    mover, waiting = users[game.to_move], users[(game.to_move + 1) % 3]
    assert (awaiting_count(mover), awaiting_count(waiting)) == (1, 0)
    with CaptureQueriesContext(connection) as queries:
        assert awaiting_count(mover) == 1
    assert len(queries) == 0

    state = engine.State.from_json(game.snapshot)
    move = next(m for m in engine.legal_moves(state, str(game.to_move)) if m["move"] == "pass")
    move_submit(game_id=game.pk, user=mover, move=move, expected_version=game.version)
    assert (awaiting_count(mover), awaiting_count(waiting)) == (0, 1)

    tables.game_pause(game_id=game.pk)
    assert awaiting_count(waiting) == 0
    tables.game_resume(game_id=game.pk)
    assert awaiting_count(waiting) == 1
    newcomer = make_user("dan")
    seat = next(s for s in game.seats.all() if s.user == waiting)
    tables.seat_replace(game_id=game.pk, position=seat.position, new_user=newcomer)
    assert (awaiting_count(waiting), awaiting_count(newcomer)) == (0, 1)
    tables.game_abort(game_id=game.pk, reason="test")
    assert awaiting_count(newcomer) == 0


def test_a_lobby_page_shows_the_awaiting_count_of_the_moment(make_user):
    from games import engine
    from games.play.lobby import game_start
    from games.play.moves import move_submit

    ann, game = three_seated(make_user, "Badge")
    game = game_start(game_id=game.pk, user=ann)
    users = {seat.position: seat.user for seat in game.seats.all()}
    nxt = users[(game.to_move + 1) % 3]
    client = Client()
    client.force_login(nxt)
    assert 'class="badge"' not in lobby_body(client)
    state = engine.State.from_json(game.snapshot)
    move = next(m for m in engine.legal_moves(state, str(game.to_move)) if m["move"] == "pass")
    move_submit(game_id=game.pk, user=users[game.to_move], move=move, expected_version=game.version)
    assert "1 game awaits your decision" in lobby_body(client)
