"""Bot accounts (issue 54, point 4): made by their owner before any game, for good; shown with a
bot mark; seated only where the creator allows bot accounts; playing with a token of scope
``bot``; rated in a pool of their own."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.players import player_url
from accounts.services import AccountError
from accounts.tokens import token_create
from games.models import Game
from games.play import lobby
from games.play.errors import ServiceError
from games.play.rating_maths import won
from games.play.ratings import seat_rows
from tests.players import create_player

pytestmark = pytest.mark.django_db


def test_the_owner_makes_a_fresh_account_a_bot_and_only_a_fresh_one(db):
    robo, ann = create_player("robo"), create_player("ann")
    client = Client()
    client.force_login(robo)
    assert client.post("/accounts/bot/").status_code == 302
    robo.refresh_from_db()
    assert robo.is_bot
    lobby.game_create(creator=ann, name="Played", ruleset="base", max_seats=4)
    client.force_login(ann)
    client.post("/accounts/bot/")
    ann.refresh_from_db()
    assert not ann.is_bot  # she has sat at a table
    page = client.get("/accounts/tokens/").content.decode()
    assert "Make this account a bot" in page


def test_bots_join_only_the_tables_that_allow_them(db):
    robo, ann = create_player("robo"), create_player("ann")
    robo.is_bot = True
    robo.save(update_fields=["is_bot"])
    closed = lobby.game_create(creator=ann, name="People", ruleset="base", max_seats=4)
    with pytest.raises(ServiceError) as refused:
        lobby.seat_join(game_id=closed.pk, user=robo)
    assert refused.value.code == "no-bots"
    open_to_bots = lobby.game_create(
        creator=ann, name="Bots welcome", ruleset="base", max_seats=4, allows_bots=True
    )
    lobby.seat_join(game_id=open_to_bots.pk, user=robo)
    assert open_to_bots.seats.filter(user=robo).exists()
    client = Client()
    client.force_login(ann)
    lobby_page = client.get("/games/").content.decode()
    assert 'data-testid="bot-mark"' in lobby_page
    assert 'data-testid="bot-mark"' in client.get(player_url(robo)).content.decode()


def test_a_bots_tokens_play_with_the_bot_scope_only(db):
    robo = create_player("robo")
    robo.is_bot = True
    robo.save(update_fields=["is_bot"])
    with pytest.raises(AccountError):
        token_create(user=robo, name="x", scopes=["play"])
    _token, text = token_create(user=robo, name="x", scopes=["read", "bot"])
    client = Client(headers={"Authorization": f"Bearer {text}"})
    made = client.post("/api/v1/games/practice", {"bots": 2}, content_type="application/json")
    assert made.status_code == 201
    assert any(p["is_bot"] and p["me"] for p in made.json()["players"])
    person = create_player("ann")
    with pytest.raises(AccountError):
        token_create(user=person, name="x", scopes=["bot"])


def test_bot_accounts_are_rated_in_their_own_pool():
    # (pk, position, user, site bot, bot account)
    mixed = seat_rows([(1, 0, 10, None, False), (2, 1, 11, None, True), (3, 2, 12, None, False)])
    assert [mixed[pk].bot for pk in (1, 2, 3)] == [False, True, False]  # not rated with people
    bots = seat_rows([(1, 0, 10, None, True), (2, 1, 11, None, True), (3, 2, 12, None, True)])
    assert not any(row.bot for row in bots.values())  # rated among themselves
    rated_together = seat_rows(
        [(1, 0, 10, None, False), (2, 1, 11, None, True)], with_people=True
    )  # the game says so: rated with the people
    assert not any(row.bot for row in rated_together.values())
    site = seat_rows([(1, 0, 10, None, False), (2, 1, None, 1, False)])
    assert site[2].bot and not site[1].bot


def test_the_lobby_form_lets_the_creator_allow_bot_accounts(db):
    ann = create_player("ann")
    client = Client()
    client.force_login(ann)
    form = client.get("/games/").content.decode()
    assert 'name="allows_bots"' in form
    client.post(
        "/games/new/",
        {"name": "Bots welcome", "ruleset": "base", "max_seats": "4", "rounds": "3",
         "visibility": "open", "turn_limit": "172800", "allows_bots": "on"},
    )  # fmt: skip
    game = Game.objects.get(name="Bots welcome")
    assert game.allows_bots


def teaches(result) -> bool:
    """Whether a finished round (``rounds_done``) had both winners and losers."""
    return len({won(result, seat, role) for seat, role in result["roles"].items()}) > 1


@pytest.mark.parametrize(
    ("table_of", "with_people", "rated"),
    [("mixed", False, set()), ("mixed", True, {"ann", "bob", "robo"}),
     ("bots", False, {"robo", "rob2", "rob3"})],
)  # fmt: skip
def test_a_finished_round_is_rated_in_the_pool_it_belongs_to(table_of, with_people, rated):
    """Played for real (``move_submit``): a round of bot accounts with people is rated only when
    the game says so; one of bot accounts alone is rated among them."""
    import random

    from games.models import Rating
    from tests.web.ratings_play import play_until, table

    names = ("ann", "bob", "robo") if table_of == "mixed" else ("robo", "rob2", "rob3")
    users = [create_player(name) for name in names]
    for user in users:
        if user.display_name.lower().startswith("rob"):
            user.is_bot = True
            user.save(update_fields=["is_bot"])
    rng = random.Random(3)
    # Deals are drawn with ``secrets``: a round without a saboteur in play (everyone won or
    # everyone lost) teaches nothing and is rated for no one. Play until a round would teach.
    for attempt in range(8):
        game = table(
            users, allows_bots=True, bots_rated_with_people=with_people, name=f"Bots {attempt}"
        )
        game = play_until(game, rng)
        if any(teaches(result) for result in game.snapshot["rounds_done"]):
            break
    else:
        raise AssertionError("no round had both winners and losers")
    rated_names = set(
        Rating.objects.filter(kind="all").values_list("user__display_name", flat=True)
    )
    assert {name.lower() for name in rated_names} == rated
