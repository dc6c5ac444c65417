"""What each hot page and each live update costs, counted exactly (issue 49, point 2).

The tables below are the pins: the number of SQL queries of each page of ``bench/web.py``'s table
and of each step of a live update, in the test settings (sessions and the shared cache in Redis;
``bench/web.py`` runs without Redis, where the session and the cache are queries too). A page
measured "warm" is asked for a second time at the same revision (what a benchmark's steady state
and a player choosing a move see); a live update is the first answer after a change.

When a change saves a query, this test fails and names the page: lower its pin in the same
commit. A pin goes up only with a reason in the commit message and a note in
docs/web-performance.md. The bytes a live update sends are pinned in tests/web/test_live_parts.py.
"""

from __future__ import annotations

import itertools
import random

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.models import Rating
from games.play.lobby import game_create, seat_join
from games.play.moves import move_submit
from games.read import access

from .test_game_pages import logged_in, play_random, start_game, to_move
from .test_live_parts import OpenPage

pytestmark = pytest.mark.django_db

# Queries per request of each page of bench/web.py's table, asked for again at the same revision.
PAGE_QUERIES = {
    "game page, seat to move": 3,
    "game page, waiting seat": 3,
    "game page, watcher": 3,
    "play part (htmx), waiting seat": 3,
    "poll, unchanged (204)": 1,  # the user with the game (games/web/polls.py)
    "lobby": 1,
    "replay step": 2,  # the game's row and the viewer's seat (access.game_head)
    "round recap": 2,  # the game's row and the viewer's seat (access.game_head)
    "leaderboard": 1,  # the board itself: built once a minute per process
    "home (anonymous)": 0,
    "home (signed in)": 4,  # play now's forming tables come with the player's other lobbies
}

# Queries of each step of a live update: a move, then every open page of the game asks.
LIVE_QUERIES = {
    # The game's row locked, the mover's seat, the move, the next seat and its player's
    # vacations (each read once, for the deadline, the emails and a bot's turn), the game
    # saved, who awaits whom (games/read/lists.py), the turn emails that ended (their
    # newcomers' briefings, then the rest), the next ones; and two savepoints.
    "the move (move_submit), a person deciding next": 12,
    "the hub, per changed game": 2,  # who may still follow it (games/read/live.py)
    # Each poll reads its user with the game and its seats (games/web/polls.py).
    "poll after a move, the next player (first to ask)": 8,
    "poll after a move, a waiting seat": 4,
    "poll after a move, the first watcher": 3,  # renders the watchers' part
    "poll after a move, every other watcher": 1,  # the part from the cache
    "opening the stream (its first event)": 3,  # games/web/live.py
}


def queries(call) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured), [q["sql"] for q in captured]


def ask(page: OpenPage):
    """What an open page asks after the live event (static/js/live.js): its part since the
    revision it shows (``OpenPage.poll`` reads the new revision as well, a query of its own)."""
    url = reverse("game_poll", args=[page.game.pk])
    asked = {"v": page.revision, "p": page.token}
    response = get(page.client, url, data=asked, HTTP_HX_REQUEST="true")
    assert 'hx-swap-oob="true" id="play"' not in response.content.decode()  # only what changed
    return response


def get(client, url, status=200, **kwargs):
    response = client.get(url, **kwargs)
    assert response.status_code == status, (url, response.status_code)
    return response


@pytest.fixture
def table(make_user):
    """A game of four 60+ moves in, in its second round (bench/web.py's), a watcher, open
    games in the lobby and the four players on the leaderboard."""
    players = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    game = start_game(players)
    rng = random.Random(7)
    while True:
        seat, state = to_move(game)
        if state.round >= 2 and game.version >= 60:
            break
        assert not state.finished
        play_random(game, 1, rng)
    for n in range(3):
        lobby = game_create(creator=players[n], name=f"Open {n}", ruleset="base", max_seats=5)
        seat_join(game_id=lobby.pk, user=players[n + 1])
    # On the leaderboard, as players past their provisional rounds (round 1 may not have
    # rated them: a round everyone won or lost is not rated). The page reads only these rows.
    for user, kind in itertools.product(players, ("all", "digger", "saboteur")):
        Rating.objects.update_or_create(
            user=user, ruleset="base", kind=kind,
            defaults={"mu": 25.0, "sigma": 3.0, "score": 16.0, "last_round_at": timezone.now(),
                      "rounds": Rating.PROVISIONAL_ROUNDS},
        )  # fmt: skip
    return game, players, make_user("eve")


def test_each_page_costs_its_pinned_queries(table):
    game, players, eve = table
    seat, _state = to_move(game)
    waiting = next(p for p in players if p != seat.user)
    clients = {"to_move": logged_in(seat.user), "waiting": logged_in(waiting)}
    clients["watcher"] = logged_in(eve)
    page = reverse("game", args=[game.pk])
    htmx = {"HTTP_HX_REQUEST": "true"}
    requests = {
        "game page, seat to move": lambda: get(clients["to_move"], page),
        "game page, waiting seat": lambda: get(clients["waiting"], page),
        "game page, watcher": lambda: get(clients["watcher"], page),
        "play part (htmx), waiting seat": lambda: get(
            clients["waiting"], page, data={"part": "play"}, **htmx
        ),
        "poll, unchanged (204)": lambda: get(
            clients["waiting"],
            reverse("game_poll", args=[game.pk]),
            204,
            data={"v": game.revision},
            **htmx,
        ),
        "lobby": lambda: get(clients["waiting"], reverse("lobby")),
        "replay step": lambda: get(
            clients["waiting"],
            reverse("game_replay", args=[game.pk]),
            data={"step": game.version // 2},
        ),
        "round recap": lambda: get(clients["waiting"], reverse("round_recap", args=[game.pk, 1])),
        "leaderboard": lambda: get(clients["waiting"], reverse("leaderboard", args=["base"])),
        "home (anonymous)": lambda: get(Client(), reverse("home")),
        "home (signed in)": lambda: get(clients["waiting"], reverse("home")),
    }
    assert 'href="/players/' in requests["leaderboard"]().content.decode()  # its leaders
    game.refresh_from_db()
    counted, sqls = {}, {}
    with time_machine.travel(timezone.now(), tick=False):  # one instant: no visit grows stale
        for label, request in requests.items():
            request()  # the first: caches of the revision, the viewer, the process
            counted[label], sqls[label] = queries(request)
    assert counted == PAGE_QUERIES, _listed(counted, PAGE_QUERIES, sqls)


def test_each_step_of_a_live_update_costs_its_pinned_queries(table, make_user):
    game, players, eve = table
    mover, before = to_move(game)
    pages = {user.pk: OpenPage(user, game) for user in players if user != mover.user}
    watchers = [OpenPage(eve, game), OpenPage(make_user("fay"), game)]
    counted, sqls = {}, {}
    with time_machine.travel(timezone.now(), tick=False):  # one instant: no visit grows stale
        label = "the move (move_submit), a person deciding next"
        counted[label], sqls[label] = queries(lambda: a_path_card_if_any(game, mover, before))
        game.refresh_from_db()
        following, state = to_move(game)
        assert state.round == before.round  # not the round's end: its update is the whole area
        next_page = pages.pop(following.user.pk)
        waiting_page = next(iter(pages.values()))
        # In this order: the first page to ask pays the revision's reads (games/read/pages.py).
        steps = {
            "the hub, per changed game": lambda: access.audience(game.pk),
            "poll after a move, the next player (first to ask)": lambda: ask(next_page),
            "poll after a move, a waiting seat": lambda: ask(waiting_page),
            "poll after a move, the first watcher": lambda: ask(watchers[0]),
            "poll after a move, every other watcher": lambda: ask(watchers[1]),
            "opening the stream (its first event)": lambda: get(
                watchers[0].client, reverse("game_live", args=[game.pk])
            ),
        }
        for label, step in steps.items():
            counted[label], sqls[label] = queries(step)
    assert counted == LIVE_QUERIES, _listed(counted, LIVE_QUERIES, sqls)


def a_path_card_if_any(game, seat, state) -> None:
    """The move of ``seat`` (to move in ``state``): a path card if it can place one."""
    moves = engine.legal_moves(state, seat.engine_name)
    places = [move for move in moves if move["move"] == "place"]
    move = random.Random(3).choice(places or moves)
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)


def _listed(counted: dict, pinned: dict, sqls: dict) -> str:
    """The queries of each page whose count moved, for the failure's message."""
    lines = []
    for label, count in counted.items():
        if count != pinned.get(label):
            lines.append(f"{label}: {count} queries, pinned {pinned.get(label)}")
            lines += [f"    {sql[:160]}" for sql in sqls[label]]
    return "\n".join(lines)


def test_a_form_field_is_drawn_without_a_django_template_per_option(make_user):
    """Form fields are drawn by Django's form templates for Jinja2 (saboteur_site/form_renderer.py):
    under Django's engine each option of a select was a template include of its own, and the
    profile's time zone field alone has about 600 (1,265 templates for the page, 55 ms). The
    test client lists the Django templates a page rendered; the admin's widgets, which exist for
    Django's engine only, are still drawn by it."""
    ann = make_user("ann")
    page = logged_in(ann).get(reverse("profile"))
    assert page.status_code == 200
    assert 'value="Asia/Kathmandu"' in page.content.decode()  # an option of the time zone field
    assert len(page.templates) < 40, len(page.templates)
    ann.is_staff = ann.is_superuser = True
    ann.save()
    admin_page = logged_in(ann).get(reverse("admin:accounts_user_change", args=[ann.pk]))
    assert admin_page.status_code == 200
    assert "auth/widgets/read_only_password_hash.html" in [t.name for t in admin_page.templates]
