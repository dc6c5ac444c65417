"""One rematch per finished game (issue 50, point 4): "Play again with this table" pressed by
several players at once makes one new game, and they all join it (8 presses by 4 players made 4
games). Real threads on PostgreSQL, through the view; the database itself refuses a second new
game for a finished one; the migration keeps the first of those made before."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from games.models import Game, Invitation
from tests.players import create_player
from tests.threads import at_once
from tests.web.ratings_play import play_until, table


def finished_table(names):
    players = [create_player(name) for name in names]
    game = play_until(table(players, rounds=1, name="Deep mine"), random.Random(5))
    assert game.status == Game.Status.FINISHED
    return players, game


@pytest.mark.django_db(transaction=True)
def test_eight_presses_at_once_by_four_players_make_one_game_with_the_four_seated():
    players, finished = finished_table(["ann", "bob", "cid", "dan"])
    before = Game.objects.count()
    clients = []
    for player in players * 2:  # each presses twice (a double click), all at the same moment
        client = Client()
        client.force_login(player)
        clients.append(client)
    answers, lock = [], threading.Lock()

    def press(client):
        response = client.post(reverse("rematch", args=[finished.pk]))
        with lock:
            answers.append((response.status_code, response.headers.get("Location")))

    at_once([lambda client=client: press(client) for client in clients])
    again = Game.objects.get(rematch_of=finished)  # one (get: two would raise)
    assert Game.objects.count() == before + 1
    assert answers == [(302, reverse("game", args=[again.pk]))] * 8  # everyone to the same game
    seated = set(again.seats.values_list("user", flat=True))
    assert seated == {player.pk for player in players}
    # The whole table joined: it started by itself (the creator did not have to).
    assert again.status == Game.Status.RUNNING and again.version == 0
    creator = again.creator
    invited = set(Invitation.objects.filter(game=again).values_list("email", flat=True))
    assert invited == {player.email for player in players if player != creator}


@pytest.mark.django_db
def test_the_database_refuses_a_second_new_game_for_a_finished_one():
    """Whatever a writer forgets (the row lock), the unique ``rematch_of`` holds."""
    players, finished = finished_table(["ann", "bob", "cid"])
    common = {"ruleset": "base", "max_seats": 3, "rematch_of": finished, "server_seeds": []}
    Game.objects.create(name="First", creator=players[0], **common)
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(name="Second", creator=players[1], **common)
    assert Game.objects.filter(rematch_of=finished).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_each_finished_games_first_rematch():
    def migrate(target):
        executor = MigrationExecutor(connection)
        executor.migrate([target])
        return executor.loader.project_state([target]).apps

    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    ann = create_player("ann")
    old = migrate(("games", "0012_emailed_replies")).get_model("games", "Game")
    common = {"ruleset": "base", "max_seats": 3, "creator_id": ann.pk}
    finished = old.objects.create(name="Over", status="finished", invite_token="f" * 32, **common)
    other = old.objects.create(name="Other", status="finished", invite_token="o" * 32, **common)
    made = [
        old.objects.create(name=name, rematch_of=finished, invite_token=name * 32, **common)
        for name in "abc"
    ]
    alone = old.objects.create(name="Alone", rematch_of=other, invite_token="d" * 32, **common)
    for node in latest:  # forward again, to every app's latest (the next tests need them)
        migrate(node)
    assert list(Game.objects.filter(rematch_of=finished.pk).values_list("pk", flat=True)) == [
        made[0].pk
    ]
    assert Game.objects.filter(pk__in=[g.pk for g in made[1:]], rematch_of=None).count() == 2
    assert Game.objects.get(pk=alone.pk).rematch_of_id == other.pk
