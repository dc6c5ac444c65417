"""The teardown of tests with ``transaction=True`` (tests/conftest.py, QuickFlush): it leaves the
database as Django's flush does, and is Django's flush whenever a test touched the content types
or permissions."""

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import TransactionTestCase

from games import engine
from games.models import Game
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from tests.conftest import QuickFlush
from tests.players import create_player

pytestmark = pytest.mark.django_db(transaction=True)


def play_a_little():
    """Rows in most tables: players, a game with seats, moves, notices."""
    players = [create_player(name) for name in ("ann", "bob", "cid")]
    game = game_create(creator=players[0], name="Flushed", ruleset="base", max_seats=3)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=players[0])
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.get(position=state.to_move)
    move = engine.legal_moves(state, state.seats[state.to_move])[0]
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)


def database_state() -> dict[str, object]:
    """Every table's row count, and the rows of the two tables post_migrate fills."""
    counts = {}
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            table = model._meta.db_table
            cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 - a model's table
            counts[table] = cursor.fetchone()[0]
    types = sorted(ContentType.objects.values_list("pk", "app_label", "model"))
    permissions = sorted(Permission.objects.values_list("pk", "content_type", "codename"))
    return {"counts": counts, "types": types, "permissions": permissions}


def without_ids(state: dict) -> dict:
    types = {pk: (app, model) for pk, app, model in state["types"]}
    return {
        "counts": state["counts"],
        "types": sorted(types.values()),
        "permissions": sorted((types[ct], code) for _pk, ct, code in state["permissions"]),
    }


def test_the_quick_flush_leaves_the_database_as_djangos_flush_does():
    flush, case = QuickFlush(), TransactionTestCase()
    play_a_little()
    flush.teardown(case)  # the first: Django's own
    after_django = database_state()
    assert sum(after_django["counts"].values()) == len(after_django["types"]) + len(
        after_django["permissions"]
    )
    assert Game.objects.count() == 0

    play_a_little()
    assert database_state() != after_django
    flush.teardown(case)  # the quick one: the same rows, the same ids
    assert database_state() == after_django


def test_a_test_that_added_a_permission_gets_djangos_flush():
    flush, case = QuickFlush(), TransactionTestCase()
    flush.teardown(case)
    after_django = database_state()
    play_a_little()
    Permission.objects.create(
        codename="dig", name="Can dig", content_type=ContentType.objects.get_for_model(Game)
    )
    flush.teardown(case)
    after = database_state()
    assert not Permission.objects.filter(codename="dig").exists()
    # Django's flush made the rows again: the same ones, under new ids.
    assert without_ids(after) == without_ids(after_django)
    assert after["types"] != after_django["types"]
