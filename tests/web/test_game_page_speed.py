"""The game page's reads kept per revision (games/read/pages.py, table_events.py): fewer queries
on a page seen again, and nothing stale after any change the page shows.

docs/web-performance.md has the figures (bench/web.py)."""

import random
import re
import time
from functools import partial
from pathlib import Path

import pytest
from django.contrib.admin.sites import site
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from games import engine
from games.models import ChatMessage, Game
from games.moderation import tables
from games.play.chat import chat_post
from games.play.vacations import vacation_declare
from games.read import access, pages
from games.read.card_names import card_name
from tests.threads import at_once

from .test_game_pages import logged_in, play_random, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


def page(client, game) -> str:
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_page_seen_again_reads_only_the_user_game_and_seats(players):
    game = start_game(players)
    chat_post(game_id=game.pk, user=players[1], text="Dig east!")
    play_random(game, 6, random.Random(2))
    client = logged_in(players[1])
    page(client, game)
    with CaptureQueriesContext(connection) as queries:
        page(client, game)
    tables_read = [
        q["sql"].split(" FROM ", 1)[1].split()[0] for q in queries if " FROM " in q["sql"]
    ]
    assert '"games_chatmessage"' not in tables_read and '"games_tableevent"' not in tables_read
    assert '"games_move"' not in tables_read
    # The user, the game and its seats (the session and the deciding player's vacations, for
    # the clock, come from the shared cache); the visit's mark is a write.
    assert len(tables_read) == 3, tables_read


def test_chat_lines_come_and_go_with_the_revision(players, root):
    game = start_game(players)
    bob = logged_in(players[1])
    assert "Dig east!" not in page(bob, game)
    chat_post(game_id=game.pk, user=players[2], text="Dig east!")
    assert "Dig east!" in page(bob, game)
    message = ChatMessage.objects.get(text="Dig east!")
    admin = Client()
    admin.force_login(root)
    before = Game.objects.get(pk=game.pk).revision
    response = admin.post(
        reverse("admin:games_chatmessage_delete", args=[message.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not ChatMessage.objects.filter(pk=message.pk).exists()
    assert Game.objects.get(pk=game.pk).revision == before + 1  # open pages learn of it
    assert "Dig east!" not in page(bob, game)


def test_deleting_chat_lines_in_bulk_bumps_each_game_once(players):
    first, second = start_game(players), start_game(players)
    for game in (first, second):
        chat_post(game_id=game.pk, user=players[0], text="Rude")
    revisions = {g.pk: Game.objects.get(pk=g.pk).revision for g in (first, second)}
    admin = site._registry[ChatMessage]
    admin.delete_queryset(None, ChatMessage.objects.filter(text="Rude"))
    assert not ChatMessage.objects.exists()
    assert {g.pk: g.revision for g in Game.objects.all()} == {
        pk: revision + 1 for pk, revision in revisions.items()
    }
    assert tables.chat_delete(message_ids=[]) == 0


def test_table_events_and_names_in_the_log_are_never_stale(players):
    game = start_game(players)
    play_random(game, 4, random.Random(4))  # every player has a line in the log
    bob = logged_in(players[1])
    page(bob, game)
    tables.game_pause(game_id=game.pk)
    assert "The moderators paused the game" in page(bob, game)
    player = players[2]
    old = player.display_name
    assert old in page(bob, game)
    player.display_name = "Zed"
    player.save()
    content = page(bob, game)
    assert "Zed" in content and old not in content


def test_the_log_lines_built_in_python_are_the_markup_the_template_made():
    """``{% log_items %}`` replaced the template's loop over the log (a sixth of the render):
    the same markup, escaped the same way."""
    from django.template import Context, Template
    from django.utils.safestring import mark_safe

    lines = [
        {"id": "l4-0", "text": 'Bob <b>&</b> "Ann" played a map', "new": True, "css": "log__new"},
        {"id": "l3-1", "text": "You saw: gold", "new": False, "css": "log__private"},
        {"id": "l3-0", "text": mark_safe("Cid <em>passed</em>"), "new": False, "css": ""},
        {"id": "l2-0", "text": "Dan's <script>", "new": True, "css": "log__private log__new"},
    ]
    loop = Template(
        '{% for line in lines %}<li id="{{ line.id }}" class="{{ line.css }}">{% if line.new %}'
        '<span class="log__marker">{{ new_label }}</span> {% endif %}{{ line.text }}</li>'
        "{% endfor %}"
    )
    tag = Template("{% load log_lines %}{% log_items lines new_label %}")
    for label in ("new", "nov\u00e9 <1>"):
        context = {"lines": lines, "new_label": label}
        assert tag.render(Context(context)) == loop.render(Context(context))
    assert "<script>" not in tag.render(Context({"lines": lines, "new_label": "new"}))


# The template loop ``{% seat_items %}`` replaced (games/templatetags/seats.py).
SEATS_LOOP = Path(__file__).parent / "reference" / "seats_loop.html"


def test_the_players_strip_built_in_python_is_the_markup_the_template_made():
    from types import SimpleNamespace

    from django.template import Context, Template
    from django.utils.safestring import mark_safe

    def player(number, **facts):
        return {
            "number": number, "seat": str(number - 1), "seat_label": f"seat {number} of 4",
            "label": f"P<{number}>",
            "short": f"Ann & <{number}>", "hand_size": 5, "icons": [], "to_move": False,
            "is_me": False, "has_gold": None, "gold": None, "bot": False, "stand_in": False,
            "absent": False, **facts,
        }  # fmt: skip

    icon = {"svg": mark_safe("<svg><rect/></svg>"), "name": "Broken <cart>"}
    players = [
        player(1, to_move=True, is_me=True, icons=[icon, icon], gold=0),
        player(2, bot=True, stand_in=True, has_gold=True),
        player(3, absent=True, gold=7, icons=[icon]),
        player(4, bot=True),
    ]

    class Clock:
        def text(self):
            return "2 hours <left>"

        def __bool__(self):
            return True

    class Page(SimpleNamespace):
        clock_shown = pages.GamePage.clock_shown  # the page's own rule

    loop = Template(SEATS_LOOP.read_text())
    tag = Template("{% load seats %}  {% seat_items page %}\n")
    on_three = SimpleNamespace(seat="2")  # the latest move was played on the third player
    cases = [
        (Clock(), {"finished": False}, None, on_three),
        (Clock(), {"finished": True}, None, None),
        (Clock(), {}, "paused", SimpleNamespace(seat="")),
        (None, None, None, None),
    ]
    for clock, view, stopped, act in cases:
        for language in ("en", "cs"):
            with translation.override(language):
                page = Page(
                    players=SimpleNamespace(rows=players, mark_choices=()),
                    board=SimpleNamespace(last_act=act),
                    ledger=SimpleNamespace(of=lambda seat: None),  # its card: test_ledger.py
                    clock=clock,
                    view=view,
                    stopped_reason=stopped,
                )
                old, new = (t.render(Context({"page": page})) for t in (loop, tag))
                assert " ".join(old.split()) == " ".join(new.split())
                assert "<left>" not in new and "&lt;cart&gt;" in new


def test_card_names_follow_the_language():
    from django.utils import translation

    with translation.override("en"):
        english = card_name("cross")
    with translation.override("cs"):
        czech = card_name("cross")
    with translation.override("en"):
        assert card_name("cross") == english
    assert english != czech


# -- Watchers: one render of the play area per revision ------------------------------------------


def poll(client, game, revision: int) -> str:
    response = client.get(reverse("game_poll", args=[game.pk]), {"v": revision})
    assert response.status_code == 200
    return response.content.decode()


def without_own_counts(html: str) -> str:
    """The answer without the viewer's own bits: the header's count and the title's."""
    html = re.sub(r'<a href="/" id="my-games".*?</a>', "", html, flags=re.S)
    html = re.sub(r"([?;]p=)[\w-]+", r"\1", html)  # each page's own token (games/web/live_parts.py)
    return re.sub(r"<title>\(\d+\) ", "<title>", html)


def test_everyone_watching_without_a_seat_gets_the_part_rendered_once_per_revision(
    players, make_user, monkeypatch
):
    game = start_game(players[:3], count=3)
    play_random(game, 5, random.Random(4))
    dan, eve = logged_in(players[3]), logged_in(make_user("eve"))
    # Eve has a game of her own waiting for her: her header differs from Dan's.
    start_game([make_user("fay"), players[3]][::-1] + [make_user("gus")], count=3)
    alone = {}
    for name, client in (("dan", dan), ("eve", eve)):
        caches["local"].clear()
        alone[name] = poll(client, game, game.revision - 1)
    # What each would have been given on their own is the same, but for their own counts...
    assert without_own_counts(alone["dan"]) == without_own_counts(alone["eve"])
    assert "csrfmiddlewaretoken" not in alone["dan"]
    caches["local"].clear()
    built = []
    build = pages.game_page
    monkeypatch.setattr(pages, "game_page", lambda *a, **k: built.append(1) or build(*a, **k))
    poll(dan, game, game.revision - 1)
    shared = poll(eve, game, game.revision - 1)
    # ... and the second watcher gets it without the game page being built again.
    assert without_own_counts(shared) == without_own_counts(alone["eve"])
    assert len(built) == 1
    # A move: the next poll shows the new revision.
    play_random(game, 1, random.Random(5))
    after = poll(eve, game, game.revision - 1)
    assert f"v={game.revision}" in after and after != shared


def test_a_watcher_with_the_part_in_the_cache_costs_one_query_and_never_the_games_state(
    players, make_user
):
    """A move watched by 200 open pages is fetched by all of them at once (bench/live.py
    --fetch): past the first render, each asks only for the revision and their own seat."""
    game = start_game(players[:3], count=3)
    play_random(game, 3, random.Random(7))
    dan, eve = logged_in(players[3]), logged_in(make_user("eve"))
    caches["local"].clear()
    first = poll(dan, game, game.revision - 1)  # renders the part
    poll(eve, game, game.revision - 1)  # warms Eve's session and header count
    with CaptureQueriesContext(connection) as queries:
        again = poll(eve, game, game.revision - 1)
    assert without_own_counts(again) == without_own_counts(first)
    sqls = [query["sql"] for query in queries]
    assert not [sql for sql in sqls if "snapshot" in sql], sqls
    game_queries = [sql for sql in sqls if "games_game" in sql]
    assert len(game_queries) == 1, sqls
    assert len(sqls) <= 2, sqls  # the user, the game's revision and their seat


def test_the_poll_tells_each_viewer_the_revision_and_whether_they_only_watch(players, make_user):
    """``access.poll_view`` is written as SQL (it runs for every open page after each move): it
    must agree with the rule in ``may_see`` and with who plays, seat by seat."""
    ann, bob, cid, dan = players
    game = start_game([ann, bob, cid], count=3)
    secret = start_game([ann, bob, cid], count=3, visibility="invite")

    def position(table, user):
        return table.seats.live().get(user=user).position

    def seen(game_id, user):
        view = access.poll_view(game_id, user)
        return view and (view.revision, view.watcher)

    for table in (game, secret):
        table.refresh_from_db()
        assert seen(table.pk, ann) == seen(table.pk, bob) == (table.revision, False)
    assert seen(game.pk, dan) == (game.revision, True)  # open: everyone logged in watches
    assert seen(secret.pk, dan) is None  # private: its players only
    # Bob's seat handed to Fay: he watches, at the private table too (he sat there).
    fay = make_user("fay")
    for table in (game, secret):
        tables.seat_replace(game_id=table.pk, position=position(table, bob), new_user=fay)
        table.refresh_from_db()
        assert seen(table.pk, bob) == (table.revision, True)
        assert seen(table.pk, fay) == (table.revision, False)
    # Back at the table in Cid's seat: a replaced seat and a live one, he plays.
    tables.seat_replace(game_id=game.pk, position=position(game, cid), new_user=bob)
    game.refresh_from_db()
    assert seen(game.pk, bob) == (game.revision, False)
    assert seen(game.pk, cid) == (game.revision, True)
    # The creator never gets the watchers' shared part, even without a seat of their own.
    tables.seat_replace(game_id=game.pk, position=position(game, ann), new_user=dan)
    game.refresh_from_db()
    assert seen(game.pk, ann) == (game.revision, False)
    # No such game, an id past the column's range, nobody logged in.
    assert seen(secret.pk + 1000, dan) is None
    assert seen(access.MAX_ID + 1, dan) is None
    assert seen(game.pk, AnonymousUser()) is None
    huge = Client()
    huge.force_login(dan)
    assert huge.get(f"/games/{access.MAX_ID + 1}/poll/?v=1").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_watchers_asking_at_once_wait_for_one_render(players, make_user, monkeypatch):
    """The pages of a watched move all ask at the same moment: one thread renders the part, the
    others of the process wait for it (four threads here, as a gunicorn worker has)."""
    game = start_game(players[:3], count=3)
    play_random(game, 2, random.Random(3))
    watchers = [logged_in(make_user(f"w{i}")) for i in range(4)]
    caches["local"].clear()
    built = []
    build = pages.game_page

    def slow_build(*args, **kwargs):  # a render long enough for the others to arrive meanwhile
        built.append(1)
        time.sleep(0.3)
        return build(*args, **kwargs)

    monkeypatch.setattr(pages, "game_page", slow_build)
    answers = []

    def watch(client):
        answers.append(poll(client, game, game.revision - 1))

    at_once([partial(watch, client) for client in watchers], timeout=30)
    assert len(answers) == len(watchers)
    assert len({without_own_counts(answer) for answer in answers}) == 1
    assert len(built) == 1


def test_a_seated_player_never_gets_the_watchers_part(players):
    game = start_game(players[:3], count=3)
    outsider = logged_in(players[3])
    watched = poll(outsider, game, game.revision - 1)  # cached for watchers
    seat = game.seats.get(user=players[1])
    state = engine.State.from_json(Game.objects.get(pk=game.pk).snapshot)
    hand = engine.view_for(state, seat.engine_name)["me"]["hand"]
    mine = poll(logged_in(players[1]), game, game.revision - 1)
    assert mine != watched
    assert all(card_name(card) in mine for card in hand)


def test_a_vacation_declared_stops_the_clock_on_the_page_at_once(players):
    game = start_game(players)
    game.refresh_from_db()
    deciding = game.seats.get(position=game.to_move).user
    watcher = logged_in(next(p for p in players if p != deciding))
    stopped = "(clock stopped: the player is on vacation)"
    assert stopped not in page(watcher, game)  # the player's vacations now in the cache
    vacation_declare(user=deciding, days=3)
    assert stopped in page(watcher, game)
