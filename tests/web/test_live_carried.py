"""A watcher's page is carried its part in the live stream (games/web/live.py, ``Carried``): the
"part" event holds exactly what the poll view would answer that page, worked out by the same
code for the same user, so it shows nothing the poll would not (the poll is in the leak walks);
players' pages are told only the revision and ask, as before."""

from __future__ import annotations

import random
import re

import pytest

from games.models import Game
from games.web import live_parts

from .test_live import fresh_hub, logged_in, play_one, players, real_streams, started

__all__ = ["fresh_hub", "players", "real_streams"]  # fixtures used here

POLL = re.compile(r"/poll/\?v=(?P<v>\d+)&amp;p=(?P<p>[\w-]+)")


def page_of(client, game) -> tuple[int, str]:
    """A fresh game page: the revision its poll element shows and its token."""
    found = POLL.search(client.get(f"/games/{game.pk}/").content.decode())
    assert found, "the page follows the game"
    return int(found["v"]), found["p"]


def without_token(html: str, token: str) -> str:
    return html.replace(token, "TOKEN")


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_watchers_part_is_what_the_poll_would_answer_through_a_game(
    players, make_user, real_streams
):
    game = started(players, count=4)
    otto = logged_in(make_user("otto"))  # watches without a seat
    shown, carried_token = page_of(otto, game)
    other_shown, other_token = page_of(otto, game)  # a second page of his, asking the poll
    assert other_shown == shown
    stream = real_streams(otto, game, f"?v={shown}&p={carried_token}")
    assert stream.next_event() == ("revision", {"game": game.pk, "revision": shown})
    rng = random.Random(5)
    for _ in range(12):
        play_one(game, rng)
        game.refresh_from_db()
        name, data = stream.next_event()
        assert name == "part"
        assert (data["game"], data["from"], data["revision"]) == (game.pk, shown, game.revision)
        asked = otto.get(f"/games/{game.pk}/poll/?v={shown}&p={other_token}", HTTP_HX_REQUEST="1")
        assert asked.status_code == 200
        assert without_token(data["html"], carried_token) == without_token(
            asked.content.decode(), other_token
        )
        assert f"/poll/?v={game.revision}&amp;p={carried_token}" in data["html"]
        shown = game.revision
        if game.status != Game.Status.RUNNING:
            break
    # The carried page's token now holds what it was carried: its own ask is up to date.
    assert otto.get(f"/games/{game.pk}/poll/?v={shown}&p={carried_token}").status_code == 204


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_players_pages_and_pages_without_a_token_are_told_only_the_revision(
    players, make_user, real_streams
):
    game = started(players, count=3)
    ann = logged_in(players[0])
    shown, token = page_of(ann, game)
    player_stream = real_streams(ann, game, f"?v={shown}&p={token}")
    otto = make_user("otto")
    bare_stream = real_streams(otto, game)  # an older page: no ?v=&p=
    forged_stream = real_streams(otto, game, f"?v={shown}&p=not%20a%20token")
    for stream in (player_stream, bare_stream, forged_stream):
        assert stream.next_event()[0] == "revision"
    play_one(game)
    game.refresh_from_db()
    for stream in (player_stream, bare_stream, forged_stream):
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": game.revision})


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_part_the_page_could_not_apply_leaves_it_asking_for_the_whole_play_area(
    players, make_user, real_streams
):
    """The stream believes the page took each part; a page that did not (a request of its own
    was in flight) still shows the older revision, and its ask gets the play area whole: the
    token's memory says which revision it holds, never a mixture."""
    game = started(players, count=3)
    otto = logged_in(make_user("otto"))
    shown, token = page_of(otto, game)
    stream = real_streams(otto, game, f"?v={shown}&p={token}")
    stream.next_event()
    play_one(game)
    assert stream.next_event()[0] == "part"  # not applied by the page
    play_one(game)
    game.refresh_from_db()
    name, data = stream.next_event()
    assert name == "part" and data["from"] != shown  # the page ignores it too: asks instead
    body = otto.get(f"/games/{game.pk}/poll/?v={shown}&p={token}").content.decode()
    assert body.count('id="play"') == 1, "the whole play area"
    assert live_parts.POLLED.search(body)["revision"] == str(game.revision)
