"""The public ledger where players look (issue 38, point 1): each player's card in the players
strip, the table beside the log, the round's recap, the replay and the "your turn" email; and
live, as a part of its own (games/web/live_parts.py)."""

import re

import pytest
from django.urls import reverse

from games import engine
from games.models import Notice
from games.outbox.emails import build_email
from games.play.moves import move_submit

from .test_game_pages import logged_in
from .test_learn import rigged

pytestmark = pytest.mark.django_db

DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "first": "0",
    "hands": {
        "0": ["break-pickaxe", "cross", "cross", "map", "rockfall", "dead-n"],
        "1": ["t-nse", "t-nse", "t-nse", "repair-pickaxe", "map", "map"],
        "2": ["straight-ns", "t-new", "t-new", "t-new", "map", "curve-ne"],
    },
}


def make(game, user, **wanted):
    """``user``'s legal move with the ``wanted`` fields, through the one door for moves."""
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.get(user=user).engine_name
    move = next(
        m
        for m in engine.legal_moves(state, seat)
        if all(m.get(key) == value for key, value in wanted.items())
    )
    move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)
    game.refresh_from_db()


@pytest.fixture
def table(make_user):
    users = [make_user(name) for name in ("ann", "bob", "cid")]
    game = rigged(users, ruleset="base", deal=DEAL)
    ann, bob, cid = users
    make(game, ann, move="action", card="break-pickaxe", target="1")  # Ann breaks Bob's pickaxe
    make(game, bob, move="action", card="repair-pickaxe", target="1")  # Bob repairs it
    make(game, cid, move="action", card="map", goal="north")  # Cid looks at the north goal
    return game, users


def card_of(page: str, seat: str) -> str:
    """What a player's card in the strip says they did (without the viewer's own marks)."""
    return re.search(rf'<div class="did-pop__said" id="said-{seat}">.*?</div>', page, re.S)[0]


def test_each_player_in_the_strip_opens_what_everyone_saw_them_do(table):
    game, (ann, bob, cid) = table
    page = logged_in(cid).get(reverse("game", args=[game.pk])).content.decode()
    # The whole chip is a button for its card (a tap, a click, the keyboard; hover: learn.js).
    assert page.count('class="seat__open" popovertarget="did-') == 3
    assert page.count('<div popover class="did-pop" id="did-') == 3
    assert 'aria-label="What Ann was seen doing"' in page
    anns = card_of(page, "0")
    assert "broke Bob&#x27;s pickaxe" in anns or "broke Bob's pickaxe" in anns
    assert "This round:" in anns and "This game:" in anns
    assert "repaired their own pickaxe" in card_of(page, "1")
    cids = card_of(page, "2")
    assert "map on the north goal" in cids
    # Never what the map showed, nor anyone's role or hand.
    for secret in ("Saboteur", "Gold digger", "treasure", "stone", "T-junction"):
        assert secret not in anns + card_of(page, "1") + cids, secret


def test_the_table_beside_the_log_counts_the_round_for_everyone(table):
    game, (ann, bob, cid) = table
    # A watcher sees the same table as a player (it is public).
    for user in (bob, cid):
        page = logged_in(user).get(reverse("game", args=[game.pk])).content.decode()
        ledger = re.search(r"<!--p:ledger-->(.*?)<!--/p:ledger-->", page, re.S)[1]
        assert "Who did what in round 1" in ledger and 'href="/rules/#ledger"' in ledger
        rows = dict(re.findall(r'<tr id="ledger-(\d)">(.*?)</tr>', ledger, re.S))
        cells = {seat: re.findall(r"<td>(.*?)</td>", row) for seat, row in rows.items()}
        # Towards, cut, dead ends, broke, repaired (others / own), rockfalls, maps, passes.
        assert cells["0"] == ["0", "0", "0", "1", "0 / 0", "0", "0", "0"]
        assert cells["1"] == ["0", "0", "0", "0", "0 / 1", "0", "0", "0"]
        assert cells["2"] == ["0", "0", "0", "0", "0 / 0", "0", "1", "0"]


def test_the_your_turn_email_says_what_each_player_did_since_the_readers_last_move(table):
    game, (ann, bob, cid) = table
    notice = Notice.objects.get(game=game, kind="turn", user=ann, version=game.version)
    body = build_email(notice, "ann@example.com").body
    assert "Who did what since your last move:" in body
    assert "- Bob: repaired their own pickaxe." in body
    assert "- Cid: map on the north goal." in body
    assert "- Ann:" not in body  # her own move was before: not since


def test_the_rules_page_says_how_to_read_the_ledger(client):
    for language in ("en", "cs", "sk", "uk", "ro"):
        page = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert '<section id="ledger"' in page, language
