"""What the emails and their one-tap pages say (issue 22, point 5): the maze picture's labels
and alt text, what a tapped move revealed, the page's language, and who moved since the email.

Built on the rigged deals of test_one_tap.py; the links are followed with Django's test client
with CSRF checks on.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta

import cairosvg
import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from games import engine
from games.models import Game, Notice
from games.outbox.emails import build_email
from games.outbox.schedule import notices_for_decision
from games.play.lobby import game_create, game_start, seat_join
from games.read import maze_drawing, svg
from games.read.log import position_label
from games.tasks import sweep
from tests.e2e.deals import BASE_DEAL
from tests.players import create_player, seat_in_order
from tests.web.test_one_tap import BASE_TO_GOLD, csrf_post, email_for, links, play, rigged

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


def maze_picture(message) -> tuple[str, bytes]:
    """The maze image's alt text and PNG bytes, from the email as sent."""
    raw = message.message()
    markup = raw.get_body(("html",)).get_content()
    cid, alt = re.search(r'<img src="cid:(maze-[^"]*)" alt="([^"]*)"', markup).groups()
    [png] = [
        part.get_content()
        for part in raw.walk()
        if part["Content-ID"] and part["Content-ID"].strip("<>") == cid
    ]
    return html.unescape(alt), png


# -- The one-tap page -----------------------------------------------------------------------------


def test_the_result_page_shows_the_goal_the_map_revealed_to_the_player(players):
    ann = players[0]
    game = rigged(players)  # Ann holds a map; the north goal is a stone (north-east curve)
    offered = links(email_for(game, ann))
    client = Client(enforce_csrf_checks=True)
    page = csrf_post(client, offered["Look at the north goal"]).content.decode()
    assert "Your move is made." in page
    assert "You saw: the north goal is Stone (north-east curve)." in html.unescape(page)
    # A link scanner or a forwarded email opening the link later sees no secret.
    later = client.get(offered["Look at the north goal"]).content.decode()
    assert "This move is already made" in later and "Stone" not in later


def test_a_tap_page_opened_without_logging_in_speaks_the_players_language(players):
    ann = players[0]
    game = rigged(players)
    link = links(email_for(game, ann))["Look at the north goal"]
    ann.language = "cs"
    ann.save()
    response = Client(enforce_csrf_checks=True).get(link)
    page = response.content.decode()
    assert '<html lang="cs">' in page
    assert response.headers["Content-Language"] == "cs"
    assert "Nothing happens until you press the button." not in page  # the English text
    done = csrf_post(Client(enforce_csrf_checks=True), link)
    assert '<html lang="cs">' in done.content.decode()
    assert "Your move is made." not in done.content.decode()


def test_a_link_after_the_players_own_move_does_not_say_someone_else_moved(players):
    ann, bob = players[:2]
    game = rigged(players)
    offered = links(email_for(game, ann))
    # Ann moves on the game page: her email's links are dead, and the page says she moved.
    play(game, [("0", {"move": "pass", "discard": ["rockfall"]})])
    response = csrf_post(Client(enforce_csrf_checks=True), offered["Look at the middle goal"])
    page = response.content.decode()
    assert response.status_code == 409
    assert "You have already moved" in page and "Someone moved" not in page
    # Bob's time runs out: the site decided for him, nobody else moved.
    bobs = links(email_for(game, bob))
    game.refresh_from_db()
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        sweep()
    response = csrf_post(Client(enforce_csrf_checks=True), next(iter(bobs.values())))
    assert response.status_code == 410
    assert "The time for this decision has run out." in response.content.decode()


# -- The maze picture ---------------------------------------------------------------------------


def test_the_maze_picture_is_labelled_as_the_text_names_places(players):
    ann = players[0]
    game = rigged(players)
    message = email_for(game, ann)
    _alt, png = maze_picture(message)
    state = engine.State.from_json(Game.objects.get(pk=game.pk).snapshot)
    view = engine.view_for(state, "0")
    cells = [(c["x"], c["y"], c["card"], c["turned"]) for c in view["board"]]
    backs = [(g["x"], g["y"]) for g in view["goals"] if g["face_down"]]
    labelled = maze_drawing.board_svg(cells, goal_backs=backs, labels=True)
    assert png == cairosvg.svg2png(bytestring=str(labelled).encode())
    # The labels: every column above the maze and every row left of it, numbered as the
    # text's "column x, row y" numbers them (the start card is "column 0, row 0").
    texts = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)"[^>]*>(-?\d+)</text>', labelled)
    columns = {int(t) for x, y, t in texts if float(y) < -3 * svg.CARD_H}
    rows = {int(t) for x, y, t in texts if float(x) < -svg.CARD_W}
    assert columns == set(range(-1, 10)) and rows == set(range(-3, 4))
    start_column = next(x for x, y, t in texts if t == "0" and float(y) < -3 * svg.CARD_H)
    assert float(start_column) == svg.CARD_W / 2  # above the start card, at x = 0
    assert position_label(0, 0) == "column 0, row 0"


def two_rounds(users):
    """A running two-round game with ``users[i]`` at seat i; round 1 is BASE_DEAL."""
    game = game_create(creator=users[0], name="Deep mine", ruleset="base", max_seats=3, rounds=2)
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game_start(game_id=game.pk, user=users[0])
    game.refresh_from_db()
    seat_in_order(game, users)
    state = engine.new_game(
        ruleset="base", seats=["0", "1", "2"], round_seeds=["rigged-1", "rigged-2"], rounds=2,
        deals=[BASE_DEAL],
    )  # fmt: skip
    Notice.objects.all().delete()
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json(), to_move=state.to_move)
    game.refresh_from_db()
    notices_for_decision(game=game, now=timezone.now())
    return game


def test_the_alt_text_says_nothing_changed_in_a_new_rounds_maze(players):
    game = two_rounds(players)
    play(game, BASE_TO_GOLD)  # Cid's cross reaches the gold: round 1 ends
    state = engine.State.from_json(game.snapshot)
    while state.decision == engine.PICK_GOLD:
        seat = state.to_move
        play(game, [(seat, {"move": "pick-gold", "value": max(state.offer)})])
        state = engine.State.from_json(game.snapshot)
    assert state.round == 2
    # Bob's last move was his straight at column 6 in round 1; Cid reached the gold after it,
    # but round 2's maze is fresh: none of that is in the picture, nothing is outlined.
    bob = players[1]
    seat = game.seats.get(user=bob)
    email = build_email(
        Notice(kind="turn", user=bob, game=game, seat=seat, version=game.version, data={}),
        bob.email,
    )
    alt, _png = maze_picture(email)
    assert alt == "The maze. It has not changed since your last move."
