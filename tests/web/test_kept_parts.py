"""No page pays for what did not change (issue 49, point 3): the game page's parts are rendered
once per change of their data and shared by every viewer who sees the same part
(``{% kept %}``, games/templatetags/kept.py), a viewer's page seen again unchanged is not built
again (``games.read.pages.game_page``), and what an open page is sent after a move is worked
out once for every page that got the same (``games.web.live_parts.update_for``)."""

from __future__ import annotations

import random
import re

import pytest
from django.core.cache import caches
from django.template import Context, Template
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.play.chat import chat_post
from games.play.suspicions import mark_set
from games.read import pages
from games.web import live_parts, views

from .test_game_pages import logged_in, play_random, start_game, to_move
from .test_live_parts import OpenPage, place_a_path_card

pytestmark = pytest.mark.django_db


def kept_keys(name: str) -> set[str]:
    """The keys of part ``name`` in the per-process cache (its markup, one per data)."""
    local = caches["local"]
    return {key for key in local._cache if f"kept:part:{name}:" in key}  # type: ignore[attr-defined]


@pytest.fixture
def table(make_user):
    players = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    game = start_game(players)
    play_random(game, 24, random.Random(5))
    return game, players, make_user("eve")  # Eve watches


def page(client, game, **data) -> str:
    response = client.get(reverse("game", args=[game.pk]), data)
    assert response.status_code == 200
    return response.content.decode()


def test_a_part_is_rendered_once_per_change_of_its_data_whoever_looks(table, monkeypatch):
    game, players, eve = table
    rendered: list[str] = []
    original = Template.render

    def counted(self, context):
        rendered.append(self.origin.template_name if self.origin else "")
        return original(self, context)

    viewers = [logged_in(user) for user in [*players, eve]]
    for client in viewers:
        page(client, game)
    # The ledger's table and the log are the same for everyone: one markup each.
    assert len(kept_keys("ledger")) == 1 and len(kept_keys("recaps")) == 1
    # The players' strip is the same for everyone but the marks each seat gives.
    assert len(kept_keys("seats")) <= len(viewers)
    # Each seat's bar is its own (its hand, its role): one per seat and one for the watcher.
    assert len(kept_keys("bar")) == len(viewers)

    monkeypatch.setattr(Template, "render", counted)
    chat_post(game_id=game.pk, user=players[0], text="Dig east!")  # a new revision
    for client in viewers:
        assert "Dig east!" in page(client, game) or client is viewers[-1]
    # The chat changed, nothing the ledger, the log or the recaps show did: no new markup.
    assert len(kept_keys("ledger")) == 1 and len(kept_keys("recaps")) == 1
    assert "games/_ledger.html" in rendered  # asked for (the page includes it), not rendered
    before = len(kept_keys("ledger"))
    place_a_path_card(game, random.Random(1)) or play_random(game, 1, random.Random(1))
    for client in viewers:
        page(client, game)
    assert len(kept_keys("ledger")) == before + 1  # a move: the ledger's new markup, once


def test_a_page_seen_again_unchanged_is_not_built_again(table, monkeypatch):
    game, players, _eve = table
    seat, _state = to_move(game)
    waiting = next(p for p in players if p != seat.user)
    built: list[int] = []
    original = pages.built_page

    def counted(game, user, **selection):
        built.append(user.pk)
        return original(game, user, **selection)

    monkeypatch.setattr(pages, "built_page", counted)
    client = logged_in(waiting)
    page(client, game)  # the visit begins: the seat's row says so (its "since" marks)
    page(client, game)
    built.clear()
    for _ in range(3):
        page(client, game)
    assert built == []  # the same rows, the same viewer: kept
    # A guess at another seat changes the viewer's seat, not the game's revision: built again,
    # and the page shows it.
    other = next(s for s in game.seats.all() if s.user_id != waiting.pk)
    mark_set(game_id=game.pk, user=waiting, target=other.engine_name, mark="saboteur")
    marked = page(client, game)
    assert len(built) == 1 and 'aria-pressed="true"' in marked.split('id="marks-')[1]
    # Another move chosen is another page.
    mover = logged_in(seat.user)
    page(mover, game)
    page(mover, game)
    built.clear()
    page(mover, game, card="nothing")
    assert built == [seat.user.pk]


def test_the_kept_parts_forms_carry_each_answers_own_token(table):
    """A part kept for everyone is rendered with stand-ins for the form token and the move key:
    each answer gets its own, never the stand-in, never another session's."""
    game, players, _eve = table
    seat, _state = to_move(game)
    ann, bob = (logged_in(user, enforce_csrf_checks=True) for user in players[:2])
    tokens = []
    for client in (ann, bob):
        html = page(client, game)
        assert "!csrf-token!" not in html and "!move-key!" not in html
        found = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert found and len(set(found)) == 1  # one render, one token
        tokens.append(found[0])
        keys = set(re.findall(r'name="key" value="([^"]*)"', html))
        assert len(keys) <= 1 and "" not in keys
    assert tokens[0] != tokens[1]
    # The token in a kept part is good for its session: a guess is accepted with it.
    html = page(bob, game)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
    target = next(s for s in game.seats.all() if s.user_id != players[1].pk).engine_name
    answer = bob.post(
        reverse("mark", args=[game.pk]),
        {"csrfmiddlewaretoken": token, "seat": target, "mark": "digger"},
    )
    assert answer.status_code in (200, 302)


def test_an_empty_first_value_renders_without_keeping():
    template = Template('{% load kept %}{% kept "t" value %}<p>{{ value }}</p>{% endkept %}')
    assert template.render(Context({"value": ""})) == "<p></p>"
    assert not kept_keys("t")
    assert template.render(Context({"value": "a<b"})) == "<p>a&lt;b</p>"
    assert len(kept_keys("t")) == 1
    assert template.render(Context({"value": "a<b"})) == "<p>a&lt;b</p>"
    assert len(kept_keys("t")) == 1


def test_the_watchers_answer_after_a_move_is_worked_out_once(table, monkeypatch):
    game, players, eve = table
    watchers = [OpenPage(eve, game) for _ in range(5)]
    worked: list[int] = []
    original = live_parts.changes

    def counted(*args, **kwargs):
        worked.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(live_parts, "changes", counted)
    answered: list[str] = []
    render = views.render_to_string

    def rendered(template, *args, **kwargs):
        answered.append(template)
        return render(template, *args, **kwargs)

    monkeypatch.setattr(views, "render_to_string", rendered)
    rng = random.Random(2)
    assert place_a_path_card(game, rng) or play_random(game, 1, rng) is None
    answers = {watcher.poll().replace(watcher.token, "TOKEN") for watcher in watchers}
    assert len(answers) == 1  # every watcher the same answer (each with its own token)
    assert len(worked) == 1  # worked out for the first, kept for the others
    assert answered == [views.PARTIALS["play"]]  # the answer around it rendered once too
    assert 'hx-swap-oob="true" id="play"' not in answers.pop()  # only what changed


def test_a_watcher_never_gets_a_seats_kept_part(table):
    """The bar and the hand are kept under the viewer's own view: a watcher's page holds no
    hand, whatever the seats' pages put in the cache before."""
    game, players, eve = table
    for user in players:
        page(logged_in(user), game)
    watched = page(logged_in(eve), game)
    assert 'id="hand"' not in watched and "Your role" not in watched
    assert Client().get(reverse("game", args=[game.pk])).status_code == 302  # anonymous: log in
    assert Game.objects.get(pk=game.pk).revision  # (the game is still there)


def test_a_page_reads_the_awaiting_list_once(table, monkeypatch):
    """The header's count and the page's next game are one list: one cache read per page."""
    from games.read import lists

    game, players, _eve = table
    reads: list[str] = []
    original = lists.get_or_build

    def counted(cache, key, build, timeout):
        reads.append(key)
        return original(cache, key, build, timeout)

    monkeypatch.setattr(lists, "get_or_build", counted)
    seat, _state = to_move(game)
    waiting = next(p for p in players if p != seat.user)
    html = page(logged_in(waiting), game)
    assert 'id="my-games"' in html
    assert [key for key in reads if key.startswith("awaiting-games:")] == [
        f"awaiting-games:{waiting.pk}"
    ]


def test_the_pages_frame_is_kept_with_each_answers_own_nonce_name_and_token(make_user):
    """Every page's head, header and footer (templates/base.html) are kept too: shared by who
    sees the same, never with another answer's CSP nonce, another player's name or token."""
    ann, bob = make_user("ann"), make_user("bob")
    seen = []
    for user in (ann, bob, ann, None):
        client = logged_in(user, enforce_csrf_checks=True) if user else Client()
        response = client.get(reverse("rules"))
        html = response.content.decode()
        assert "!csp-nonce!" not in html and "!csrf-token!" not in html
        nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])[1]
        scripts = re.findall(r'<script [^>]*nonce="([^"]+)"', html)
        assert scripts and set(scripts) == {nonce}  # the header's own, in every script
        names = re.findall(r'data-testid="display-name"[^>]*>([^<]+)', html)
        assert names == ([user.display_name] if user else [])
        seen.append(nonce)
    assert len(set(seen)) == len(seen)  # a new nonce per answer, never a kept one
    assert kept_keys("base-header") and kept_keys("base-footer") and kept_keys("base-head")
    czech = logged_in(ann).get(reverse("rules"), headers={"Accept-Language": "cs"})
    assert 'lang="cs"' in czech.content.decode() and ">Pravidla<" in czech.content.decode()


def test_a_replay_step_is_built_once_for_everyone_in_the_same_seat(table, make_user, monkeypatch):
    """A step of a replay never changes (its moves are done): built once per process for
    every viewer who sees it from the same seat; a player's own view is built for them."""
    from games.read import history

    game, players, eve = table
    built = []
    real = history.replay_page

    def counted(game, step, names, me, renames=()):
        built.append(me)
        return real(game, step, names, me, renames)

    monkeypatch.setattr(history, "replay_page", counted)
    url = reverse("game_replay", args=[game.pk])
    watchers = [eve, make_user("fay")]
    pages_seen = [replay_of(logged_in(u).get(url, {"step": 5})) for u in watchers]
    assert built == [None] and pages_seen[0] == pages_seen[1]
    ann_page = replay_of(logged_in(players[0]).get(url, {"step": 5}))
    assert len(built) == 2 and built[1] is not None and "Your role" in ann_page
    assert "Your role" not in pages_seen[0]
    logged_in(players[0]).get(url, {"step": 6})
    assert len(built) == 3  # another step, another page


def replay_of(response) -> str:
    html = response.content.decode()
    return html[html.index('data-testid="replay"') : html.index("</main>")]


def test_a_round_recap_is_rendered_once_for_everyone_in_the_same_seat(table, make_user):
    game, players, eve = table
    while game.engine_state().round == 1:  # play on until the first round is over
        play_random(game, 1, random.Random(game.version))
        game.refresh_from_db()
    url = reverse("round_recap", args=[game.pk, 1])
    pages_seen = [replay_of_recap(logged_in(u).get(url)) for u in (eve, make_user("fay"))]
    assert pages_seen[0] == pages_seen[1] and len(kept_keys("recap")) == 1
    logged_in(players[0]).get(url)
    assert len(kept_keys("recap")) == 2  # a player's own: their seat's view of the round


def replay_of_recap(response) -> str:
    html = response.content.decode()
    return html[html.index("<h1>") : html.index("</main>")]


def test_the_anonymous_home_is_kept_whole_with_each_answers_own_nonce_and_token():
    """The home page is the same for every visitor: rendered once per process and language,
    each answer with its own CSP nonce and form token (a language change posted with it works)."""
    nonces = []
    for _ in range(2):
        client = Client(enforce_csrf_checks=True)
        response = client.get(reverse("home"))
        html = response.content.decode()
        assert "!csp-nonce!" not in html and "!csrf-token!" not in html
        nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])[1]
        assert set(re.findall(r'<script [^>]*nonce="([^"]+)"', html)) == {nonce}
        nonces.append(nonce)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
        changed = client.post(
            reverse("set_language"),
            {"csrfmiddlewaretoken": token, "language": "sk", "next": "/"},
        )
        assert changed.status_code == 302
        slovak = client.get(reverse("home")).content.decode()
        assert 'lang="sk"' in slovak  # its own page, in its own language
    assert nonces[0] != nonces[1]
    assert len({k for k in caches["local"]._cache if "kept:page:" in k}) == 2  # type: ignore[attr-defined]


def test_a_visitors_message_is_shown_on_the_kept_home_page(make_user):
    client = logged_in(make_user("ann"))
    client.get(reverse("home"))
    Client().get(reverse("home"))  # the kept page, made before
    left = client.post(reverse("account_logout"), follow=True).content.decode()
    assert 'class="messages"' in left  # "You have signed out."
    assert 'class="messages"' not in client.get(reverse("home")).content.decode()
