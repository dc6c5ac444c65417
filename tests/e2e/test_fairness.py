"""Deals anyone can check, in the browser (issue 39): a player's browser makes their seed in the
lobby; after a round, "Check this deal" recomputes it with WebCrypto and says "matches"; a
tampered document is reported; and the browser's checker agrees with the Python one on 100
random deals and as many tampered copies (tests/fairness_documents.py)."""

import json
import random
import re

import pytest
from playwright.sync_api import expect

from games.engine import fairness
from games.models import Game
from games.play import lobby
from tests.fairness_documents import random_document, tampered
from tests.web.ratings_play import play_until, rounds_done

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 15_000


def test_the_browser_makes_a_seed_then_checks_the_deal_after_the_round(
    make_player, player_page, live_server, browser_problems
):
    ann, bob, cid = (make_player(name) for name in ("ann", "bob", "cid"))
    game = lobby.game_create(creator=ann, name="Fair mine", ruleset="base", max_seats=3, rounds=2)
    page = player_page(ann, service_workers="block")  # page.route sees the checker's fetch
    page.goto(f"{live_server.url}/games/{game.pk}/")
    # The seat had no seed: the browser makes one and saves it in the background.
    # (the lobby's live update then shows it among the players' seeds).
    seeds = page.get_by_test_id("player-seeds")
    expect(seeds).to_contain_text(re.compile(r"Ann: [0-9a-f]{32}"), timeout=WAIT)
    made = page.locator("#own-seed").input_value()
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert game.seats.get(user=ann).seed == made
    expect(seeds).to_contain_text(made)
    page.get_by_role("button", name="New random seed").click()
    another = page.locator("#own-seed").input_value()
    assert re.fullmatch(r"[0-9a-f]{32}", another) and another != made
    page.get_by_role("button", name="Save my seed").click()
    expect(page.get_by_text("Your seed is saved.")).to_be_visible()
    assert game.seats.get(user=ann).seed == another
    for user in (bob, cid):
        lobby.seat_join(game_id=game.pk, user=user)
    game = lobby.game_start(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert game.seats.get(user=ann).seed == another  # fixed as it stood at the start

    page.goto(f"{live_server.url}/games/{game.pk}/deals/1/")
    expect(page.get_by_test_id("deal-secret")).to_be_visible()
    game = play_until(game, random.Random(3), done=lambda g: rounds_done(g) >= 1)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.get_by_test_id("fairness").locator("summary").click()
    page.get_by_test_id("check-1").click()
    verdict = page.get_by_test_id("deal-verdict")
    expect(verdict).to_have_text(re.compile(r"^Matches"), timeout=WAIT)
    expect(page.get_by_test_id("server-seed")).to_have_text(game.server_seeds[1])

    # A document tampered on its way (the first seat's role changed) is reported, with what
    # differs.
    def forge(route):
        document = json.loads(route.fetch().text())
        roles = document["deal"]["roles"]
        roles[0] = "gold-digger" if roles[0] == "saboteur" else "saboteur"
        route.fulfill(json=document)

    page.route(f"**/games/{game.pk}/deals/1.json", forge)
    page.reload()
    expect(verdict).to_have_text(re.compile(r"^Does not match"), timeout=WAIT)
    expect(page.locator("[data-fair-problems] li")).to_have_text(["deal roles: differs"])
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
    assert browser_problems.problems == []


def test_the_browser_and_python_checkers_agree_on_100_random_deals(
    make_player, player_page, live_server
):
    """The page's own checker (static/js/fairness.js, WebCrypto) on documents of every size,
    rule set and round, and on a tampered copy of each: the same answer as the Python one, word
    for word."""
    ann = make_player("ann")
    page = player_page(ann)
    game = lobby.practice_create(creator=ann, ruleset="base", bots=2)
    page.goto(f"{live_server.url}/games/{game.pk}/deals/1/")  # a page that loads the checker
    page.wait_for_function("window.SabShuffle !== undefined")
    rng = random.Random(39)
    documents = [random_document(rng) for _ in range(100)]
    documents += [tampered(document, rng) for document in documents]
    in_browser = page.evaluate(
        "documents => Promise.all(documents.map(d => SabShuffle.verify(d)))", documents
    )
    in_python = [fairness.verify(document) for document in documents]
    assert in_browser == in_python
    assert all(problems == [] for problems in in_python[:100])
    assert sum(bool(problems) for problems in in_python[100:]) >= 95  # a tampering may be moot
    assert {document["round"] for document in documents[:100]} >= {0, 1, 2, 3}


def test_what_is_being_typed_in_the_lobby_survives_its_live_updates(
    make_player, player_page, live_server, browser_problems
):
    """Someone joins while Ann types her own seed and an invitation's address: the lobby's live
    update shows the new player and leaves both boxes as she left them."""
    ann, bob = make_player("ann"), make_player("bob")
    game = lobby.game_create(creator=ann, name="Fair mine", ruleset="base", max_seats=3)
    lobby.seat_seed(game_id=game.pk, user=ann, seed="saved-first")
    page = player_page(ann)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("#own-seed").fill("being-typed")
    page.locator("#invite-email").fill("friend@example")
    lobby.seat_join(game_id=game.pk, user=bob)
    expect(page.get_by_test_id("player-seeds")).to_contain_text("Bob", timeout=WAIT)
    expect(page.locator("#own-seed")).to_have_value("being-typed")
    expect(page.locator("#invite-email")).to_have_value("friend@example")
    assert browser_problems.problems == []
