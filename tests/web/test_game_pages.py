"""Game pages over HTTP: lobby, moves through htmx, polling, access and query budgets."""

import random
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import engine
from games.models import Game, Move
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from games.read.card_names import hand_order

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan", "eve", "fay")]


def start_game(players, *, count=4, ruleset="base", visibility="open"):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset=ruleset, max_seats=count,
        visibility=visibility,
    )  # fmt: skip
    for user in players[1:count]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def to_move(game):
    game.refresh_from_db()
    seat = game.seats.get(position=game.to_move)
    return seat, engine.State.from_json(game.snapshot)


def play_random(game, count, rng):
    for _ in range(count):
        seat, state = to_move(game)
        if state.finished:
            return
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    game.refresh_from_db()


def logged_in(user, **kwargs):
    client = Client(**kwargs)
    client.force_login(user)
    return client


def test_create_join_and_start_through_the_pages(players):
    ann, bob, cid = (logged_in(u, enforce_csrf_checks=False) for u in players[:3])
    response = ann.post(
        reverse("game_create"),
        {"name": "Gold rush", "ruleset": "base", "max_seats": 3, "visibility": "open",
         "turn_limit": str(24 * 3600)},
    )  # fmt: skip
    game = Game.objects.get(name="Gold rush")
    assert response.status_code == 302
    assert "Gold rush" in bob.get(reverse("lobby")).content.decode()
    bob.post(reverse("join", args=[game.pk]))
    cid.post(reverse("join", args=[game.pk]))
    ann.post(reverse("start", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == "running" and game.seats.count() == 3


def test_invalid_game_settings_are_explained(players):
    client = logged_in(players[0])
    response = client.post(
        reverse("game_create"),
        {"name": "Too many", "ruleset": "base", "max_seats": 12, "visibility": "open",
         "turn_limit": "3600"},
    )  # fmt: skip
    assert response.status_code == 422
    assert "3 to 10 players" in response.content.decode()
    assert not Game.objects.exists()


def test_a_move_through_htmx_updates_the_page_at_once(players):
    game = start_game(players)
    seat, state = to_move(game)
    client = logged_in(seat.user)
    hand = hand_order(state.hands[state.to_move])
    response = client.post(
        reverse("move", args=[game.pk]),
        {"version": 0, "key": "k", "kind": "pass", "discard": ["0"]},
        headers=HTMX,
    )
    assert response.status_code == 200, response.content.decode()
    assert 'id="play"' in response.content.decode()
    assert Move.objects.get().payload == {"move": "pass", "discard": [hand[0]]}


def test_stale_and_illegal_moves_change_nothing(players):
    game = start_game(players)
    seat, state = to_move(game)
    client = logged_in(seat.user)
    url = reverse("move", args=[game.pk])
    stale = client.post(url, {"version": 5, "kind": "pass", "discard": ["0"]}, headers=HTMX)
    assert stale.status_code == 409
    assert "Someone moved first" in stale.content.decode()
    bad = client.post(
        url, {"version": 0, "kind": "place", "card": "cross", "at": "0,0"}, headers=HTMX
    )
    assert bad.status_code == 422
    forged = client.post(url, {"version": 0, "kind": "pass", "discard": ["99"]}, headers=HTMX)
    assert forged.status_code == 422
    junk = client.post(url, {"version": "x", "kind": "fly"}, headers=HTMX)
    assert junk.status_code == 422
    assert not Move.objects.exists()


def test_a_player_cannot_act_for_another_seat(players):
    game = start_game(players)
    seat, state = to_move(game)
    other = game.seats.exclude(pk=seat.pk).first()
    client = logged_in(other.user)
    response = client.post(
        reverse("move", args=[game.pk]),
        {"version": 0, "kind": "pass", "discard": ["0"], "seat": seat.engine_name},
        headers=HTMX,
    )
    assert response.status_code == 422
    assert not Move.objects.exists()


def test_double_click_with_one_key_makes_one_move(players):
    game = start_game(players)
    seat, _ = to_move(game)
    client = logged_in(seat.user)
    data = {"version": 0, "key": "same-key", "kind": "pass", "discard": ["0"]}
    first = client.post(reverse("move", args=[game.pk]), data, headers=HTMX)
    second = client.post(reverse("move", args=[game.pk]), data, headers=HTMX)
    assert first.status_code == second.status_code == 200
    assert Move.objects.count() == 1


def test_plain_form_posts_work_without_javascript(players):
    game = start_game(players)
    seat, _ = to_move(game)
    client = logged_in(seat.user)
    response = client.post(
        reverse("move", args=[game.pk]), {"version": 0, "kind": "pass", "discard": ["0"]}
    )
    assert response.status_code == 302
    assert Move.objects.count() == 1


def test_mutating_routes_refuse_get_and_need_csrf(players):
    game = start_game(players)
    seat, _ = to_move(game)
    client = logged_in(seat.user)
    for name in ("move", "chat", "join", "leave", "start"):
        assert client.get(reverse(name, args=[game.pk])).status_code == 405
    strict = logged_in(seat.user, enforce_csrf_checks=True)
    response = strict.post(
        reverse("move", args=[game.pk]), {"version": 0, "kind": "pass", "discard": ["0"]}
    )
    assert response.status_code == 403
    assert not Move.objects.exists()


def test_private_game_is_404_for_outsiders_and_anonymous_is_sent_to_log_in(players):
    game = start_game(players, visibility="invite")
    outsider = logged_in(players[5])
    for name in ("game", "game_poll"):
        assert outsider.get(reverse(name, args=[game.pk])).status_code == 404
    for name in ("move", "chat", "join", "leave", "start"):
        assert outsider.post(reverse(name, args=[game.pk])).status_code == 404
    anonymous = Client()
    response = anonymous.get(reverse("game", args=[game.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_invite_link_get_changes_nothing_and_post_joins(players):
    game = game_create(
        creator=players[0], name="Secret", ruleset="base", max_seats=4, visibility="invite"
    )
    bob = logged_in(players[1])
    assert bob.get(reverse("game", args=[game.pk])).status_code == 404
    page = bob.get(reverse("invite", args=[game.invite_token]))
    assert page.status_code == 200 and game.seats.count() == 1
    bob.post(reverse("invite_accept", args=[game.invite_token]))
    assert game.seats.count() == 2
    assert bob.get(reverse("game", args=[game.pk])).status_code == 200
    assert bob.get(reverse("invite", args=["not-a-token"])).status_code == 404


def test_poll_answers_204_in_at_most_two_queries_while_nothing_changed(players):
    game = start_game(players)
    client = logged_in(players[1])
    url = reverse("game_poll", args=[game.pk]) + f"?v={game.revision}"
    client.get(url)  # warm up
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=HTMX)
    assert response.status_code == 204
    assert len(queries) <= 2  # the user, the game's revision and their seat (POLL_SQL)
    play_random(game, 1, random.Random(1))
    changed = client.get(url, headers=HTMX)
    assert changed.status_code == 200 and 'id="play"' in changed.content.decode()


def _page_queries(client, game):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 200
    return len(queries)


def test_the_move_log_is_read_once_per_version_and_only_up_to_it(players):
    from games.read.history import move_log

    game = start_game(players, count=3)
    play_random(game, 4, random.Random(5))
    game.refresh_from_db()
    first = move_log(game)
    assert [m[0] for m in first] == list(range(1, game.version + 1))
    with CaptureQueriesContext(connection) as queries:
        assert move_log(game) == first  # the same version: from the process's cache
    assert len(queries) == 0
    stale = Game.objects.get(pk=game.pk)  # read before the next move, as a racing request
    play_random(game, 1, random.Random(6))
    game.refresh_from_db()
    assert [m[0] for m in move_log(game)] == list(range(1, game.version + 1))
    from django.core.cache import caches

    caches["local"].clear()
    assert len(move_log(stale)) == stale.version  # never a move beyond the version it read


def test_game_page_queries_do_not_grow_with_moves_or_players(players):
    small = start_game(players, count=3)
    big = start_game(players, count=6, ruleset="saboteur2")
    client = logged_in(players[0])
    _page_queries(client, small), _page_queries(client, big)  # "last seen" is written once
    early_small, early_big = _page_queries(client, small), _page_queries(client, big)
    rng = random.Random(3)
    play_random(small, 30, rng)
    play_random(big, 30, rng)
    # The first look at a new version writes it once ("since you were here") and reads the
    # moves of that version once (history.move_log) and its chat and table events (kept per
    # revision), then no more; the moves also dropped the header's cached "awaiting" count,
    # counted again once.
    assert _page_queries(client, small) == early_small + 5
    assert _page_queries(client, big) == early_big + 4
    assert _page_queries(client, small) == early_small
    assert _page_queries(client, big) == early_big
    assert early_small == early_big


def test_chat_is_stored_and_shown_to_seated_players(players):
    game = start_game(players)
    ann, bob = logged_in(players[0]), logged_in(players[1])
    response = ann.post(reverse("chat", args=[game.pk]), {"text": "Dig east!"}, headers=HTMX)
    assert response.status_code == 200
    assert 'id="chat-form"' in response.content.decode()
    assert "Dig east!" in bob.get(reverse("game", args=[game.pk])).content.decode()
    spectator = logged_in(players[5]).get(reverse("game", args=[game.pk]))
    assert spectator.status_code == 200
    assert "Dig east!" not in spectator.content.decode()


def test_dashboard_lists_games_awaiting_me_first(players):
    game = start_game(players)
    seat, _ = to_move(game)
    body = logged_in(seat.user).get(reverse("home")).content.decode()
    awaiting = re.search(r'data-testid="awaiting">(.*?)</ul>', body, re.S).group(1)
    assert "Deep mine" in awaiting
    other = game.seats.exclude(pk=seat.pk).first()
    body = logged_in(other.user).get(reverse("home")).content.decode()
    # An empty list is a sentence, not a list with a "nothing" item.
    assert 'data-testid="awaiting"' not in body
    assert '<p class="small">Nothing waits for you.</p>' in body


def test_every_page_shows_how_many_games_await_me(players):
    game = start_game(players)
    seat, _ = to_move(game)
    body = logged_in(seat.user).get(reverse("lobby")).content.decode()
    assert re.search(r'class="badge"[^>]*>1</span>', body)
    other = game.seats.exclude(pk=seat.pk).first()
    body = logged_in(other.user).get(reverse("lobby")).content.decode()
    assert 'class="badge"' not in body


def test_htmx_swaps_refusals_so_the_player_sees_the_reason(client):
    """409, 422 and 429 (a rate limit) answers carry the fresh page part: htmx must be told to
    swap them."""
    body = client.get(reverse("home")).content.decode()
    assert '"code": "(409|422|429)", "swap": true' in body


def test_leaving_a_lobby_after_chatting_works(players):
    game = game_create(creator=players[0], name="Chatty", ruleset="base", max_seats=4)
    seat_join(game_id=game.pk, user=players[1])
    bob = logged_in(players[1])
    bob.post(reverse("chat", args=[game.pk]), {"text": "Hi all"})
    response = bob.post(reverse("leave", args=[game.pk]))
    assert response.status_code == 302
    assert game.seats.count() == 1


def test_placing_asks_for_a_confirmation_on_the_chosen_position(players):
    game = start_game(players)
    seat, state = to_move(game)
    place = next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "place")
    client = logged_in(seat.user)
    url = reverse("game", args=[game.pk])
    query = {"card": place["card"], "turned": "1" if place["turned"] else "0"}
    body = client.get(url, query).content.decode()
    assert 'class="maze__spot"' in body and 'data-testid="confirm-move"' not in body
    at = f"{place['at'][0]},{place['at'][1]}"
    body = client.get(url, {**query, "at": at}).content.decode()
    assert re.search(rf'value="{at}" class="maze__spot maze__spot--chosen"', body)
    # A position that is not legal for the card is not offered for confirmation.
    body = client.get(url, {**query, "at": "40,40"}).content.decode()
    assert 'data-testid="confirm-move"' not in body


@pytest.mark.parametrize("language", ["cs", "sk", "uk", "ro"])
def test_the_awaiting_badge_works_in_every_language(players, language):
    """Slavic plural rules compute with the count: it must be a real number."""
    game = start_game(players)
    seat, _ = to_move(game)
    client = logged_in(seat.user)
    response = client.get(reverse("lobby"), headers={"Accept-Language": language})
    assert response.status_code == 200
    assert re.search(r'class="badge"[^>]*>1</span>', response.content.decode())


def test_a_peeked_goal_is_marked_for_the_peeker_alone(players):
    game = start_game(players)
    seat, state = to_move(game)
    state.peeks[state.to_move]["north"] = state.board[state.goals["north"]].card
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())
    mine = logged_in(seat.user).get(reverse("game", args=[game.pk])).content.decode()
    assert mine.count('data-testid="peeked"') == 1
    other = game.seats.exclude(pk=seat.pk).first()
    theirs = logged_in(other.user).get(reverse("game", args=[game.pk])).content.decode()
    assert 'data-testid="peeked"' not in theirs


def test_poll_answers_update_the_tab_title_and_the_awaiting_count(players):
    game = start_game(players)
    seat, _ = to_move(game)
    client = logged_in(seat.user)
    body = client.get(reverse("game_poll", args=[game.pk]) + "?v=-1", headers=HTMX).content.decode()
    assert re.search(r"<title>\(1\) Your turn – Deep mine", body)  # the count of games waiting
    assert re.search(r'id="my-games" data-testid="my-games" hx-swap-oob="true"', body)
    other = game.seats.exclude(pk=seat.pk).first()
    body = (
        logged_in(other.user)
        .get(reverse("game_poll", args=[game.pk]) + "?v=-1", headers=HTMX)
        .content.decode()
    )
    assert "<title>Deep mine" in body


def test_the_latest_change_to_the_maze_is_outlined(players):
    game = start_game(players)
    seat, state = to_move(game)
    place = next(m for m in engine.legal_moves(state, seat.engine_name) if m["move"] == "place")
    move_submit(game_id=game.pk, user=seat.user, move=place, expected_version=0)
    body = logged_in(players[4]).get(reverse("game", args=[game.pk])).content.decode()
    x, y = place["at"]
    assert body.count("maze__cell--last") == 1
    assert re.search(rf'maze__cell--last" data-x="{x}" data-y="{y}"', body)
