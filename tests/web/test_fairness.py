"""Deals anyone can check (issue 39): the site commits to its seeds when a game is created, the
players add theirs until the start, the seats and every deal come from both, and each round's
seed is revealed when it ends, with a deal document that the offline checker (and the browser:
tests/e2e/test_fairness.py) recomputes.

Games are created, joined, started and played through the services (a bot chooses the moves)."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
from django.urls import reverse

from games import engine
from games.engine import fairness
from games.models import Game
from games.play import lobby
from games.play.errors import ServiceError
from games.read import deals
from tests.web.ratings_play import play_until, rounds_done
from tests.web.scenario_games import scenario_game

from .test_game_pages import logged_in

pytestmark = pytest.mark.django_db

HEX64 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def four(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


def created(users, *, rounds=2, ruleset="base", **options) -> Game:
    return lobby.game_create(
        creator=users[0],
        name="Fair mine",
        ruleset=ruleset,
        max_seats=len(users),
        rounds=rounds,
        **options,
    )


def started(users, *, seeds=None, **options) -> Game:
    game = created(users, **options)
    for user in users[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    for user, seed in zip(users, seeds or (), strict=False):
        lobby.seat_seed(game_id=game.pk, user=user, seed=seed)
    game = lobby.game_start(game_id=game.pk, user=users[0])
    game.refresh_from_db()
    return game


def page(user, game) -> str:
    return logged_in(user).get(reverse("game", args=[game.pk])).content.decode()


def document(user, game, number):
    return logged_in(user).get(reverse("deal_json", args=[game.pk, number]))


def commitments_of(body: str) -> list[str]:
    listed = body[body.index('data-testid="commitments"') :]
    listed = listed[: listed.index("</ul>")]
    return re.findall(r"<code>([0-9a-f]{64})</code>", listed)


# -- Commit, contribute, reveal: in that order ------------------------------------------------


def test_the_site_commits_before_anyone_joins_and_deals_from_those_very_seeds(four, make_user):
    """The order is the point: the server seeds exist, and their commitments are shown, before
    any player's seed; the start deals from exactly those seeds (not drawn again once the
    players' seeds are known), the players' seeds as they stood, and nothing else."""
    game = created(four, rounds=2)
    drawn = list(game.server_seeds)
    assert len(drawn) == 3 and all(HEX64.fullmatch(seed) for seed in drawn)
    assert len(set(drawn)) == 3
    assert game.seats.get().seed == ""  # the creator's seed comes after, from their browser
    shown = [hashlib.sha256(bytes.fromhex(seed)).hexdigest() for seed in drawn]
    stranger = make_user("eve")
    for viewer in (four[0], stranger):  # before anyone else joins: the creator, a passer-by
        body = page(viewer, game)
        assert commitments_of(body) == shown
        assert not any(seed in body for seed in drawn)
    for user in four[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    mine = ["ann-seed", "bob_seed", "c1d", "DAN-7"]
    for user, seed in zip(four, mine, strict=True):
        lobby.seat_seed(game_id=game.pk, user=user, seed=seed)
    game.refresh_from_db()
    assert game.server_seeds == drawn  # seeing the players' seeds changed nothing
    assert commitments_of(page(four[2], game)) == shown
    lobby.game_start(game_id=game.pk, user=four[0])
    game.refresh_from_db()
    assert game.server_seeds == drawn
    seating, seeds = fairness.game_seeds([bytes.fromhex(s) for s in drawn], game.pk, mine)
    by_position = {seat.position: seat.user for seat in game.seats.all()}
    assert [by_position[i] for i in range(4)] == [four[i] for i in seating]
    config = engine.State.from_json(game.snapshot).config
    assert config.round_seeds == [seeds[1].hex(), seeds[2].hex()]
    assert config.gold_seed == seeds[0].hex()
    assert game.joined_seeds == [
        [game.seats.get(user=u).pk, s] for u, s in zip(four, mine, strict=True)
    ]


def test_another_players_seed_gives_another_deal_from_the_same_commitment(four):
    """Each player's seed counts: the same committed server seeds with one seed changed give
    another round seed (so a player's own seed is not decoration)."""
    first = started(four, seeds=["a", "b", "c", "d"])
    servers = [bytes.fromhex(s) for s in first.server_seeds]
    _seating, seeds = fairness.game_seeds(servers, first.pk, ["a", "b", "c", "d"])
    _seating, other = fairness.game_seeds(servers, first.pk, ["a", "b", "c", "e"])
    assert seeds[1] != other[1] and seeds[0] != other[0]


def test_a_player_sets_their_seed_until_the_start_and_bad_seeds_change_nothing(four, make_user):
    game = created(four[:3])
    lobby.seat_join(game_id=game.pk, user=four[1])
    revision = Game.objects.get(pk=game.pk).revision
    lobby.seat_seed(game_id=game.pk, user=four[1], seed="  my-lucky_42  ")
    assert game.seats.get(user=four[1]).seed == "my-lucky_42"
    assert Game.objects.get(pk=game.pk).revision == revision + 1  # open lobbies show it
    for bad in ("", "a|b", "x" * 65, "naïve", "two words", "<script>"):
        with pytest.raises(ServiceError) as refused:
            lobby.seat_seed(game_id=game.pk, user=four[1], seed=bad)
        assert refused.value.code == "bad-seed"
        assert "1 to 64 letters, digits, hyphens or underscores" in refused.value.message
    assert game.seats.get(user=four[1]).seed == "my-lucky_42"
    with pytest.raises(ServiceError) as refused:
        lobby.seat_seed(game_id=game.pk, user=make_user("eve"), seed="mine")
    assert refused.value.code == "not-seated"
    # Through the page: a forged seed is refused with the message, nothing saved.
    client = logged_in(four[1])
    response = client.post(reverse("seed", args=[game.pk]), {"seed": "a|b"}, follow=True)
    assert "1 to 64 letters" in response.content.decode()
    assert game.seats.get(user=four[1]).seed == "my-lucky_42"
    response = client.post(reverse("seed", args=[game.pk]), {"seed": "typed-by-hand"}, follow=True)
    assert "Your seed is saved." in response.content.decode()
    body = page(four[2], game)  # every seat's seed is public in the lobby
    assert "typed-by-hand" in body
    lobby.seat_join(game_id=game.pk, user=four[2])
    lobby.game_start(game_id=game.pk, user=four[0])
    with pytest.raises(ServiceError) as refused:
        lobby.seat_seed(game_id=game.pk, user=four[1], seed="too-late")
    assert refused.value.code == "started"
    game.refresh_from_db()
    # The seeds are fixed: the creator's (none given) and the third player's drawn by the site.
    seeds = {seat.user_id: seat.seed for seat in game.seats.all()}
    assert seeds[four[1].pk] == "typed-by-hand"
    assert re.fullmatch(r"[0-9a-f]{32}", seeds[four[0].pk])
    assert "The seeds were fixed when the game started." in page(four[1], game)


def test_the_lobby_shows_the_own_seed_form_with_a_browser_made_seed(four):
    game = created(four[:3])
    body = page(four[0], game)
    form = body[body.index("data-own-seed") - 200 :]
    form = form[: form.index("</form>")]
    assert f'action="/games/{game.pk}/seed/"' in form and "data-empty" in form
    assert "js/seed.js" in body
    lobby.seat_seed(game_id=game.pk, user=four[0], seed="abc")
    body = page(four[0], game)
    assert 'value="abc"' in body and "data-empty" not in body
    assert "data-own-seed" not in page(four[1], game)  # not seated: no form


def test_a_practice_games_bots_get_their_seeds_from_the_site(make_user):
    game = lobby.practice_create(creator=make_user("ann"), ruleset="base", bots=3)
    seats = list(game.seats.all())
    assert all(re.fullmatch(r"[0-9a-f]{32}", seat.seed) for seat in seats)
    assert len({seat.seed for seat in seats}) == 4
    assert len(game.joined_seeds) == 4


# -- Reveal and check --------------------------------------------------------------------------


def test_a_rounds_deal_is_secret_while_it_runs_then_checks_out(four, make_user):
    game = started(four, seeds=["a1", "b2", "c3", "d4"], rounds=2)
    dealt = engine.State.from_json(game.snapshot)
    stranger = make_user("eve")
    for viewer in (four[0], stranger):
        for number in (0, 1, 2):
            assert document(viewer, game, number).status_code == 404
            check = logged_in(viewer).get(reverse("deal_check", args=[game.pk, number]))
            assert check.status_code == 200
            assert 'data-testid="deal-secret"' in check.content.decode()
            assert "data-fair-check" not in check.content.decode()
        assert 'data-testid="check-' not in page(viewer, game)
    rng = random.Random(39)
    game = play_until(game, rng, done=lambda g: rounds_done(g) >= 1)
    answer = document(stranger, game, 1)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    doc = answer.json()
    assert fairness.verify(doc) == []
    assert doc["server_seed"] == game.server_seeds[1]
    assert doc["commitment"] == hashlib.sha256(bytes.fromhex(game.server_seeds[1])).hexdigest()
    names = {seat.engine_name: seat.user.display_name for seat in game.seats.all()}
    assert doc["players"] == [names[seat] for seat in dealt.seats]
    # The document's deal is the deal the players were really dealt.
    assert doc["deal"]["roles"] == dealt.roles and doc["deal"]["hands"] == dealt.hands
    assert doc["deal"]["pile"] == dealt.pile and doc["deal"]["first"] == dealt.first_seat
    assert doc["deal"]["goals"] == {
        name: dealt.board[position].card for name, position in dealt.goals.items()
    }
    labels = [entry["label"] for entry in doc["shuffles"]] + [p["label"] for p in doc["picks"]]
    assert labels == ["roles", "goals", "deck", "first"]
    body = page(four[1], game)
    assert 'data-testid="check-1"' in body and 'data-testid="check-2"' not in body
    assert game.server_seeds[1] in body or "check-1" in body
    assert document(four[1], game, 2).status_code == 404  # the next round still runs
    assert document(four[1], game, 0).status_code == 404  # the seating: at the game's end
    check = logged_in(four[2]).get(reverse("deal_check", args=[game.pk, 1])).content.decode()
    assert "data-fair-check" in check and 'src="/static/js/fairness.js"' in check
    assert game.server_seeds[1] in check and dealt.roles and "a1" in check
    game = play_until(game, rng)
    assert game.status == Game.Status.FINISHED
    final = engine.State.from_json(game.snapshot)
    for number in (1, 2):
        assert fairness.verify(document(four[3], game, number).json()) == []
    seating = document(four[3], game, 0).json()
    assert fairness.verify(seating) == []
    assert seating["player_seeds"] == ["a1", "b2", "c3", "d4"]  # the order they joined
    assert seating["deal"]["seating"] == [names[seat] for seat in final.seats]
    assert seating["deal"]["gold_supply"] == engine.gold_draws(final.config)[0]["output"]
    assert 'data-testid="check-seating"' in page(four[0], game)


def test_a_tampered_document_is_reported_offline(four, tmp_path, capsys):
    game = started(four, rounds=1)
    game = play_until(game, random.Random(7))
    doc = document(four[0], game, 1).json()
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(doc))
    assert fairness.main([str(path)]) == 0 and capsys.readouterr().out == "matches\n"

    def tampered(change) -> list[str]:
        copy = json.loads(json.dumps(doc))
        change(copy)
        return fairness.verify(copy)

    def swap_roles(d):
        d["deal"]["roles"][0], d["deal"]["roles"][1] = "saboteur", "gold-digger"
        d["deal"]["roles"][2] = "saboteur" if d["deal"]["roles"][2] != "saboteur" else "gold-digger"

    forged = tampered(lambda d: d["player_seeds"].__setitem__(0, "forged"))
    assert forged[0] == "round_seed: differs" and "shuffle deck: output differs" in forged
    assert "commitment: SHA-256(server_seed) differs" in tampered(
        lambda d: d.__setitem__("server_seed", "00" * 32)
    )
    assert tampered(swap_roles) == ["deal roles: differs"]
    assert tampered(lambda d: d["deal"]["hands"][0].reverse()) in (
        ["deal hands: differs"],
        [],  # a hand of identical cards reversed is the same hand
    )
    assert tampered(lambda d: d["deal"].__setitem__("first", (d["deal"]["first"] + 1) % 4)) == [
        "deal first: differs"
    ]
    assert tampered(lambda d: d["deal"]["pile"].pop()) == ["deal pile: differs"]


def test_a_game_dealt_before_deals_were_checkable_says_so(make_user):
    game, players = scenario_game("base/three_rounds_then_game_over_with_totals")
    # As a game dealt before this feature: no committed seeds, no players' seeds kept.
    Game.objects.filter(pk=game.pk).update(server_seeds=[], joined_seeds=[])
    game.refresh_from_db()
    user = next(iter(players.values()))
    assert document(user, game, 1).status_code == 404
    body = logged_in(user).get(reverse("deal_check", args=[game.pk, 1])).content.decode()
    assert 'data-testid="deal-unchecked"' in body
    assert 'data-testid="fairness"' not in page(user, game)
    assert deals.panel(game, list(game.seats.all()), None, None) is None


def test_no_such_round_or_game(four, make_user):
    game = started(four[:3], rounds=1)
    client = logged_in(four[0])
    assert client.get(reverse("deal_check", args=[game.pk, 2])).status_code == 404
    assert client.get(reverse("deal_json", args=[game.pk, 2])).status_code == 404
    assert client.get(reverse("deal_json", args=[game.pk + 999, 1])).status_code == 404


# -- The migration: lobbies get committed seeds before they start, dealt games none -----------


@pytest.mark.django_db(transaction=True)
def test_the_migration_commits_seeds_for_lobbies_only(four):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(target):
        executor = MigrationExecutor(connection)
        executor.migrate([target])
        return executor.loader.project_state([target]).apps

    latest = [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes()]
    old = migrate(("games", "0010_seat_marks_and_note")).get_model("games", "Game")
    common = {"ruleset": "base", "max_seats": 4, "creator_id": four[0].pk, "rounds": 2}
    waiting = old.objects.create(name="Waiting", status="lobby", invite_token="w" * 32, **common)
    dealt = old.objects.create(name="Dealt", status="running", invite_token="d" * 32, **common)
    for node in latest:  # forward again, to every app's latest (the next tests need them)
        migrate(node)
    waiting, dealt = Game.objects.get(pk=waiting.pk), Game.objects.get(pk=dealt.pk)
    assert len(waiting.server_seeds) == 3 and all(HEX64.fullmatch(s) for s in waiting.server_seeds)
    assert dealt.server_seeds == [] and dealt.joined_seeds == []
