"""Answers that say enough (issue 47): a map played by reply answers with the goal's card, each
refusal names its real reason, the turn email numbers moves and hand one way (a move by its
number, a pass by its card's number in the hand), and two moves with the same words name their
card. Games rigged through the services (tests/web/test_one_tap.py); emails built by the real
builder; replies handled by the one handler."""

from __future__ import annotations

import re

import pytest

from games.models import Notice
from games.moderation.tables import game_pause
from games.outbox import reply_addresses
from games.outbox.emails import build_email
from games.play import replies
from games.play.moves import move_submit
from tests.e2e.deals import BASE_DEAL
from tests.players import create_player

from .test_one_tap import ACTION_DEAL, rigged
from .test_replies import answers, reply, reply_to, turn_email

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


def answer(user) -> list[str]:
    return answers(user)[-1].data["lines"]


def listed(sent) -> list[tuple[str, str]]:
    """The numbered one-tap lines of an email's text: (what a reply writes, label)."""
    return re.findall(r"^- ((?:pass )?\d+)\. (.+?): http", sent.body, re.M)


def test_a_map_played_by_reply_answers_with_the_goal_card(players):
    game = rigged(players)
    got = replies.receive(reply(reply_to(turn_email(game, players[0])), "map south"))
    assert got.outcome == "moved"
    lines = answer(players[0])
    assert lines[0] == "Done in Deep mine: Look at the south goal."
    # BASE_DEAL's south goal is a stone; the answer says it as Ann's log does.
    assert BASE_DEAL["goals"]["south"] == "goal-stone-nw"
    assert any(line.startswith("You saw: the south goal is Stone") for line in lines), lines
    # Nobody else hears of it: the next player's turn email tells only that a map was played.
    bob = build_email(Notice.objects.filter(user=players[1], kind="turn").latest("pk"), "b@x")
    assert "goal is Stone" not in bob.body


def test_moves_and_the_hand_are_numbered_one_way(players):
    game = rigged(players)
    sent = turn_email(game, players[0])
    choices = listed(sent)
    hand = re.search(r"^Your hand: (.+)$", sent.body, re.M)[1]
    cards = dict(re.findall(r"(\d+)\. ([^,]+)", hand))
    passes = [(code, label) for code, label in choices if code.startswith("pass ")]
    # Each pass is listed by its card's number in the hand, and says that card.
    assert passes and all(label.endswith(cards[code.split()[1]]) for code, label in passes)
    moves = [code for code, _label in choices if not code.startswith("pass ")]
    assert moves == [str(n) for n in range(1, len(moves) + 1)]
    # "3" makes the third move listed; "pass 3" discards the hand's third card, as listed.
    third = dict(choices)["3"]
    replies.receive(reply(reply_to(sent), "3"))
    assert answer(players[0])[0] == f"Done in Deep mine: {third}."
    game.refresh_from_db()
    assert game.version == 1
    # A number that is a pass's and no move's: refused, saying how to pass.
    game2 = rigged([create_player(n) for n in ("dee", "eve", "fay")])
    dee = game2.seats.get(position=0).user
    sent2 = turn_email(game2, dee)
    beyond = len([c for c, _l in listed(sent2) if not c.startswith("pass")]) + 1
    replies.receive(reply(reply_to(sent2), str(beyond), sender=dee.email))
    assert f"lists no move number {beyond} (to pass, write “pass”" in answer(dee)[0]
    replies.receive(reply(reply_to(sent2), "pass 3", sender=dee.email))
    assert answer(dee)[0] == f"Done in Deep mine: {dict(listed(sent2))['pass 3']}."


def test_two_moves_with_the_same_words_name_their_card(players):
    # Cid breaks Bob's pickaxe; then Ann holds two cards that repair it.
    deal = {
        **ACTION_DEAL,
        "first": "2",
        "hands": {
            **ACTION_DEAL["hands"],
            "0": ["repair-pickaxe", "repair-pickaxe-lantern", "rockfall", "cross", "map", "map"],
            "2": ["break-pickaxe", *ACTION_DEAL["hands"]["2"][1:]],
        },
    }
    game = rigged(players, deal=deal)
    move_submit(
        game_id=game.pk,
        user=players[2],
        move={"move": "action", "card": "break-pickaxe", "target": "1", "tool": "pickaxe"},
        expected_version=game.version,
    )
    sent = turn_email(game, players[0])
    labels = [label for _code, label in listed(sent)]
    repairs = [label for label in labels if label.startswith("Repair Bob's pickaxe")]
    assert sorted(repairs) == [
        "Repair Bob's pickaxe, with Repair pickaxe",
        "Repair Bob's pickaxe, with Repair pickaxe or lantern",
    ]
    assert len(set(labels)) == len(labels)


def test_each_refusal_names_its_real_reason(players):
    game = rigged(players)
    ann = players[0]
    # "1" to an email that numbered nothing (the game's start, a mention): not "stale".
    start = reply_addresses.reply_address(user_id=ann.pk, game_id=game.pk, version=0, moves=False)
    replies.receive(reply(start, "1"))
    assert "that email lists no moves or cards to choose by number" in answer(ann)[0]
    # Paused by the moderators.
    sent = turn_email(game, ann)
    game_pause(game_id=game.pk)
    replies.receive(reply(reply_to(sent), "1"))
    assert "the moderators have paused the game" in answer(ann)[0]
    game.refresh_from_db()
    assert game.version == 0
