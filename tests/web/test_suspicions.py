"""Private suspicions and notes (issue 38, points 2 to 4): each player marks the others for the
round and keeps a note; the marks are the author's alone until the round ends, then the recap
shows them beside the true roles with a count of good guesses; notes are never shown to anyone
else. Hostile: forged targets and marks, other players' pages, parts, live events, emails and
replays."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from games import engine
from games.models import Game, Notice, Seat
from games.outbox.emails import build_email
from games.play import suspicions
from games.play.errors import ServiceError
from games.play.moves import move_submit

from .test_game_pages import logged_in
from .test_learn import rigged
from .test_ledger_pages import DEAL, make

pytestmark = pytest.mark.django_db

SECRET_NOTE = "Bob hesitated before the cross: zebra-quokka-17"


@pytest.fixture
def table(make_user):
    users = [make_user(name) for name in ("ann", "bob", "cid")]
    game = rigged(users, ruleset="base", deal=DEAL)
    return game, users


def page_of(user, game, **params) -> str:
    return logged_in(user).get(reverse("game", args=[game.pk]), params).content.decode()


def seat_of(user, game) -> Seat:
    return Seat.objects.get(game=game, user=user)


def post_mark(user, game, target, mark):
    return logged_in(user).post(
        reverse("mark", args=[game.pk]), {"seat": target, "mark": mark}, HTTP_HX_REQUEST="true"
    )


def test_a_mark_shows_on_its_authors_strip_alone_with_the_keyboard_and_persists(table):
    game, (ann, bob, cid) = table
    answer = post_mark(ann, game, "1", "saboteur")
    assert answer.status_code == 200
    html = answer.content.decode()
    # The answer is Ann's play area: Bob's chip has her mark, his card the mark pressed.
    bob_chip = re.search(r'<li class="seat[^"]*" id="seat-1".*?</li>', html, re.S)[0]
    assert 'seat__mark--saboteur" title="Your guess: Saboteur"' in bob_chip
    bob_card = re.search(r'<form class="did-pop__marks" id="marks-1".*?</form>', html, re.S)[0]
    assert 'value="" class="mark-button" aria-pressed="true">Saboteur' in bob_card
    assert bob_card.count('<button type="submit" name="mark"') == 3  # keyboard: real buttons
    # Her own card has no marks to give.
    assert 'id="marks-0"' not in html
    # Another day, another device (a new session): still there.
    assert "seat__mark--saboteur" in page_of(ann, game)
    assert seat_of(ann, game).marks == {"1": {"1": "saboteur"}}
    # Pressing the pressed mark again clears it.
    post_mark(ann, game, "1", "")
    assert seat_of(ann, game).marks == {"1": {}} and "seat__mark--" not in page_of(ann, game)


def test_a_mark_tells_no_other_page_and_reaches_nobody_before_the_round_ends(table):
    game, (ann, bob, cid) = table
    revision = Game.objects.get(pk=game.pk).revision
    post_mark(ann, game, "1", "saboteur")
    post_mark(ann, game, "2", "digger")
    # No live update: the revision did not move (it would tell that someone did something).
    assert Game.objects.get(pk=game.pk).revision == revision
    for user in (bob, cid):
        html = page_of(user, game)
        assert "seat__mark--" not in html and "suspected" not in html
        assert "guessed" not in html and "Good guesses" not in html
        poll = logged_in(user).get(
            reverse("game_poll", args=[game.pk]), {"v": 0}, HTTP_HX_REQUEST="true"
        )
        assert b"seat__mark--" not in poll.content
    # The replay (during the game: the viewer's own view) and the emails neither.
    make(game, ann, move="action", card="break-pickaxe", target="1")
    for notice in Notice.objects.filter(game=game):
        body = build_email(notice, "x@example.com").body
        assert "guess" not in body.lower() and "suspect" not in body.lower()
    replay = logged_in(bob).get(reverse("game_replay", args=[game.pk])).content.decode()
    assert "seat__mark--" not in replay and "guessed" not in replay


def test_marks_refuse_what_is_not_a_mark_of_another_player_in_a_running_round(table, make_user):
    game, (ann, bob, cid) = table
    for target, mark, code in (
        ("0", "saboteur", "bad-target"),  # herself
        ("7", "saboteur", "bad-target"),  # no such seat
        ("1", "blue", "bad-mark"),  # a Saboteur 2 mark in a base game
        ("1", "<script>", "bad-mark"),
    ):
        with pytest.raises(ServiceError) as refused:
            suspicions.mark_set(game_id=game.pk, user=ann, target=target, mark=mark)
        assert refused.value.code == code
        assert post_mark(ann, game, target, mark).status_code == 422
    eve = make_user("eve")  # not at the table
    assert post_mark(eve, game, "1", "saboteur").status_code in (403, 404)
    assert all(not seat.marks for seat in Seat.objects.filter(game=game))
    # A GET changes nothing.
    assert logged_in(ann).get(reverse("mark", args=[game.pk])).status_code == 405


def test_at_the_rounds_end_the_recap_shows_the_guesses_beside_the_roles(table, make_user):
    game, (ann, bob, cid) = table
    post_mark(ann, game, "1", "saboteur")  # right: Bob is the saboteur
    post_mark(ann, game, "2", "saboteur")  # wrong: Cid digs
    post_mark(bob, game, "0", "unsure")
    # The round ends (the rigged game has one round): every player passes until the pile and
    # hands run out.
    end_the_round(game)
    for user in (ann, bob, cid):
        html = page_of(user, game)
        assert "Ann guessed Bob: Saboteur (right), Cid: Saboteur (wrong)." in html
        assert "Bob guessed Ann: Not sure (not sure)." in html
        # The game (of one round) is over: the count is the game's, not "so far" (issue 50).
        assert "Good guesses: Ann 1" in html and "so far" not in html
    # The round is over: its marks stay as they were.
    with pytest.raises(ServiceError):
        suspicions.mark_set(game_id=game.pk, user=cid, target="1", mark="digger")


def end_the_round(game):
    """Play passes until the round (and the one-round game) is over."""
    for _ in range(200):
        game.refresh_from_db()
        state = engine.State.from_json(game.snapshot)
        if state.finished:
            return
        seat = state.seats[state.to_move]
        user = game.seats.get(position=int(seat)).user
        moves = engine.legal_moves(state, seat)
        move = next((m for m in moves if m["move"] == "pass"), moves[0])
        move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)
    raise AssertionError("the round did not end")


def test_a_note_is_its_authors_alone_for_ever(table):
    game, (ann, bob, cid) = table
    client = logged_in(ann)
    answer = client.post(
        reverse("note", args=[game.pk]), {"text": SECRET_NOTE}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200 and b"Saved." in answer.content
    assert SECRET_NOTE in page_of(ann, game)  # in her textarea, every visit
    assert seat_of(ann, game).note == SECRET_NOTE
    # Never elsewhere: the others' pages, the watchers', the replay, the emails, even after
    # the game.
    make(game, ann, move="action", card="break-pickaxe", target="1")
    end_the_round(game)
    for user in (bob, cid):
        assert "zebra-quokka" not in page_of(user, game)
        replay = logged_in(user).get(reverse("game_replay", args=[game.pk])).content.decode()
        assert "zebra-quokka" not in replay
    for notice in Notice.objects.filter(game=game):
        assert "zebra-quokka" not in build_email(notice, "x@example.com").body
    assert all("zebra-quokka" not in m.body for m in mail.outbox)
    # Too long: refused, nothing changed.
    long = client.post(
        reverse("note", args=[game.pk]), {"text": "x" * 4001}, HTTP_HX_REQUEST="true"
    )
    assert long.status_code == 422 and seat_of(ann, game).note == SECRET_NOTE
