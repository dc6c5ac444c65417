"""The game table's server side (issue 25): the decision named in the turn line, the round's end
before and during the gold pick, the players' strip, the last move's outline, ties, "just now",
practice games' names, the log's numbers, the chat's box under its list, one Ukrainian word for
the saboteur and a language switch that leaves no other language in cached parts."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import engine
from games.models import Game, Seat
from games.play import lobby, moves
from games.read import durations
from tests.players import create_player, seat_in_order

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "set_aside": ["gold-digger"],
    "goals": {"north": "goal-stone-ne", "middle": "goal-gold", "south": "goal-stone-nw"},
    "first": "0",
    "hands": {
        "0": ["t-new", "straight-ew", "cross", "curve-ne", "curve-ne", "curve-ne"],
        "1": ["map", "cross", "straight-ew", "break-lantern", "break-lantern", "rockfall"],
        "2": ["dead-n", "straight-ew", "cross", "curve-nw", "curve-nw", "curve-nw"],
    },
    "pile": ["t-nse", "t-nse", "t-nse", "t-nse", "t-nse", "straight-ns", "straight-ns"],
    "gold": [3, 2, 1],
}


@pytest.fixture
def players():
    return [create_player(n) for n in ("ann", "bob", "cid")]


def rigged(players):
    game = lobby.game_create(
        creator=players[0], name="Table", ruleset="base", max_seats=3, rounds=1
    )
    for user in players[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=players[0])
    game.refresh_from_db()
    seat_in_order(game, players)
    state = engine.new_game(
        ruleset="base", seats=["0", "1", "2"], round_seeds=["table"], rounds=1, deals=[DEAL]
    )
    Game.objects.filter(pk=game.pk).update(
        snapshot=state.to_json(), version=0, to_move=state.to_move, revision=game.revision + 1
    )
    game.refresh_from_db()
    return game


def play(game, user, **wanted):
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    name = game.seats.get(user=user).engine_name
    for move in engine.legal_moves(state, name):
        if all(
            (list(move.get(k) or []) == list(v)) if k == "at" else move.get(k) == v
            for k, v in wanted.items()
        ):
            moves.move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)
            return
    raise AssertionError(wanted)


def page_of(user, game, query="") -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("game", args=[game.pk]) + query).content.decode()


def to_the_gold_pick(game, players):
    ann, bob, cid = players
    play(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    play(game, bob, move="action", card="map", goal="north")
    play(game, cid, move="pass", discard=["dead-n"])
    for user, card, x in [
        (ann, "straight-ew", 2),
        (bob, "cross", 3),
        (cid, "straight-ew", 4),
        (ann, "cross", 5),
        (bob, "straight-ew", 6),
        (cid, "cross", 7),
    ]:
        play(game, user, move="place", card=card, at=[x, 0])


def test_the_turn_line_names_the_decision(players):
    game = rigged(players)
    ann = players[0]
    title = r'data-testid="decision-title">(.*?)</span>'
    assert re.search(title, page_of(ann, game)).group(1) == "Choose a card to play, or pass."
    body = page_of(ann, game, "?card=t-new")
    assert re.search(title, body).group(1).startswith("Choose a highlighted spot for T-junction")
    assert 'data-testid="decision-title"' not in page_of(players[1], game)  # not Bob's turn


def test_the_round_end_shows_to_everyone_before_and_during_the_gold_pick(players):
    game = rigged(players)
    to_the_gold_pick(game, players)
    game.refresh_from_db()
    assert engine.State.from_json(game.snapshot).decision == engine.PICK_GOLD
    for user in players:
        body = page_of(user, game)
        end = re.search(r'data-testid="round-end">(.*?)</section>', body, re.S).group(1)
        assert "Round 1 is over" in end
        for name, role in (("Ann", "Gold digger"), ("Bob", "Saboteur"), ("Cid", "Gold digger")):
            assert f"<strong>{name}</strong>: {role}" in end
        # The maze shows every goal face up; the hand folds away, with no reasons.
        assert "card-svg--back" not in body
        assert 'data-testid="hand-folded"' in body
        assert 'data-testid="unplayable-reason"' not in body
    picker = page_of(players[2], game)
    assert re.search(r'data-testid="decision-title">(.*?)</span>', picker).group(1) == (
        "Pick a gold card."
    )
    # The seed stays secret until the round is done.
    assert "table" not in re.findall(r"<code>(.*?)</code>", picker)


def test_the_players_strip_shows_turn_cards_icons_and_badges(players):
    game = rigged(players)
    ann, bob, cid = players
    play(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    play(game, bob, move="action", card="break-lantern", target="0")
    Seat.objects.filter(game=game, user=cid).update(state=Seat.State.ABSENT, stand_in=True)
    body = page_of(bob, game)
    strip = re.search(r'<ol class="seats".*?</ol>', body, re.S).group(0)
    seats = re.findall(r'<li class="seat[^"]*".*?</li>', strip, re.S)
    assert len(seats) == 3
    assert all(name in seat for name, seat in zip(("Ann", "Bob", "Cid"), seats, strict=True))
    assert "seat--turn" in seats[2] and "Time left" in seats[2]
    assert "<title>Broken lantern</title>" in seats[0]
    assert "bot stands in" in seats[2] and "absent" in seats[2]
    assert re.search(r'seat__cards".*?(\d+)<span', seats[1], re.S).group(1) == "6"


def test_the_last_move_says_just_now_not_zero_minutes():
    now = timezone.now()
    assert durations.last_move(now - timedelta(seconds=20), now) == "last move just now"
    assert durations.last_move(now - timedelta(hours=2), now) == "last move 2\xa0hours ago"


def test_practice_games_have_distinct_names(players):
    first = lobby.practice_create(creator=players[0], ruleset="base", bots=2)
    second = lobby.practice_create(creator=players[0], ruleset="base", bots=2)
    assert first.name != second.name
    assert lobby.practice_create(creator=players[1], ruleset="base", bots=2).name == first.name


def test_the_log_is_numbered_in_the_order_of_play(players):
    game = rigged(players)
    play(game, players[0], move="place", card="t-new", at=[1, 0], turned=True)
    body = page_of(players[1], game)
    assert re.search(r'<ol class="log" id="log-r\d+" reversed>', body)


def test_the_chat_box_sits_under_the_chat_inside_the_play_area(players):
    game = rigged(players)
    body = page_of(players[0], game)
    chat = re.search(r'<section class="panel chat-panel" id="chat".*?</section>', body, re.S)
    assert chat and 'id="chat-text"' in chat.group(0) and 'hx-preserve="true"' in chat.group(0)
    client = Client()
    client.force_login(players[1])
    answer = client.post(reverse("chat", args=[game.pk]), {"text": "hello"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert 'id="play"' in answer.content.decode() and "hello" in answer.content.decode()


def test_ukrainian_names_the_saboteur_with_one_word():
    texts = [(ROOT / "locale/uk/LC_MESSAGES/django.po").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "templates").rglob("*.uk.html")]
    for text in texts:
        assert not re.search(r"[Сс]аботер|[Сс]аботаж", text)
    assert all("апосник" in text for text in texts)


def test_games_to_watch_follow_the_language(players):
    dan = create_player("dan")
    game = lobby.game_create(creator=players[1], name="Open", ruleset="saboteur2", max_seats=3)
    for user in (players[2], dan):
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=players[1])
    caches["local"].clear()
    client = Client()
    client.force_login(players[0])
    words = {}
    for code in ("cs", "uk"):
        with translation.override(code):
            words[code] = str(Game.Ruleset.SABOTEUR2.label)
        client.cookies["django_language"] = code
        body = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE=code).content.decode()
        watch = body[body.index(f"/games/{game.pk}/") :]
        words[code + "-page"] = watch[:2000]
    assert words["cs"] != words["uk"]
    assert words["cs"] in words["cs-page"]
    assert words["uk"] in words["uk-page"] and words["cs"] not in words["uk-page"]


def test_of_two_alike_cards_only_the_chosen_one_lights_up(players):
    """Ann holds three north-east curves: choosing one pressed all three."""
    game = rigged(players)
    page = page_of(players[0], game, "?card=curve-ne")
    pressed = re.findall(r'aria-pressed="true" data-card="([^"]+)"', page)
    assert pressed == ["curve-ne"]
    assert len(re.findall(r'aria-pressed="false" data-card="curve-ne"', page)) == 2


def test_the_last_rounds_result_stays_until_each_players_next_decision(players):
    """A round's end went by unseen once its gold was picked (or when none was to pick): the
    next round's page showed only a folded log line. Now each player sees it until they decide."""
    ann, bob, cid = players
    game = lobby.game_create(creator=ann, name="Two", ruleset="base", max_seats=3, rounds=2)
    for user in (bob, cid):
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=ann)
    game.refresh_from_db()
    seat_in_order(game, players)
    state = engine.new_game(
        ruleset="base", seats=["0", "1", "2"], round_seeds=["a", "b"], rounds=2, deals=[DEAL]
    )
    Game.objects.filter(pk=game.pk).update(
        snapshot=state.to_json(), version=0, to_move=state.to_move, revision=game.revision + 1
    )
    game.refresh_from_db()
    assert 'data-testid="round-result"' not in page_of(ann, game)  # no round has ended yet
    to_the_gold_pick(game, players)
    result = r'data-testid="round-result">(.*?)</section>'
    assert re.search(result, page_of(bob, game), re.S) is None  # the gold pick shows it already
    play(game, cid, move="pick-gold", value=3)
    play(game, ann, move="pick-gold", value=2)
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    assert state.round == 2 and game.status == Game.Status.RUNNING
    for user in players:
        body = page_of(user, game)
        shown = re.search(result, body, re.S)
        if user in (ann, cid):  # their gold pick was a decision after the round's end
            assert shown is None
            continue
        assert "Round 1 is over" in shown.group(
            1
        ) and "<strong>Bob</strong>: Saboteur" in shown.group(1)
        assert 'data-testid="hand-folded"' not in body  # the new round's hand is open
    # The others play until it is Bob's turn: he sees the result until he decides.
    while True:
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        seat = game.seats.get(position=state.to_move)
        if seat.user == bob:
            assert re.search(result, page_of(bob, game), re.S) is not None
        first = engine.legal_moves(state, seat.engine_name)[0]
        moves.move_submit(
            game_id=game.pk, user=seat.user, move=first, expected_version=game.version
        )
        if seat.user == bob:
            break
    game.refresh_from_db()
    assert re.search(result, page_of(bob, game), re.S) is None


def test_a_map_looks_at_a_goal_chosen_on_the_maze_after_a_confirm_step(players):
    """A Map was made at once by one of three buttons, unlike every other action: now a goal is
    chosen by its button or on the maze, then confirmed."""
    ann, bob, cid = players
    game = rigged(players)
    play(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    chosen = page_of(bob, game, "?card=map")
    goals = re.findall(r'<a class="maze__spot maze__spot--goal" data-goal="(\w+)"', chosen)
    assert goals == ["north", "middle", "south"]  # top to bottom
    assert 'data-testid="confirm-step"' not in chosen
    assert "?card=map&amp;turned=0&amp;target=north" in chosen
    confirm = page_of(bob, game, "?card=map&target=north")
    step = re.search(r'data-testid="confirm-step">(.*?)</div>', confirm, re.S).group(1)
    assert "Map: Look at the north goal?" in step
    assert 'name="goal" value="north"' in step and 'name="kind" value="action"' in step
    assert 'maze__spot--looked" data-goal="north"' in confirm
    assert 'aria-pressed="true"' in confirm.split('data-goal="north"')[1].split(">")[0]
    forged = page_of(bob, game, "?card=map&target=west")  # no such goal: nothing to confirm
    assert 'data-testid="confirm-step"' not in forged and "maze__spot--looked" not in forged
    assert 'data-goal="north"' not in page_of(cid, game, "?card=map")  # not Cid's turn


def test_the_outline_follows_the_latest_move_of_any_kind(players):
    """The outline kept marking a path card placed minutes before a tool, a map or a theft."""
    ann, bob, cid = players
    game = rigged(players)
    last_cell = r'class="[^"]*maze__cell--last[^"]*" data-x="(-?\d+)" data-y="(-?\d+)"'
    play(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    page = page_of(cid, game)
    assert re.findall(last_cell, page) == [("1", "0")]
    assert "seat--last" not in page
    assert 'data-act-from="0" data-act-card="t-new" data-act-at="1,0"' in page
    play(game, bob, move="action", card="map", goal="middle")  # the middle goal: (8, 0)
    page = page_of(cid, game)
    assert re.findall(last_cell, page) == [("8", "0")]
    assert 'data-act-from="1" data-act-card="map" data-act-at="8,0"' in page
    play(game, cid, move="pass", discard=["dead-n"])
    page = page_of(ann, game)
    assert re.findall(last_cell, page) == []  # a pass is on nobody
    assert 'data-act-from="2" data-act-card=""' in page  # its discard stays secret
    play(game, ann, move="place", card="straight-ew", at=[2, 0])
    play(game, bob, move="action", card="break-lantern", target="0")
    page = page_of(cid, game)
    assert re.findall(last_cell, page) == []
    [outlined] = re.findall(r'<li class="seat[^"]*seat--last" id="seat-\d" data-seat="(\d)"', page)
    assert outlined == "0"  # Ann's seat, whose lantern Bob broke
    assert 'data-act-from="1" data-act-card="break-lantern" data-act-seat="0"' in page
