"""Backups: scripts/backup.sh dumps a database with a game in progress, scripts/restore.sh
restores it into a fresh database, and the game plays on there through the services.

The game is committed (``transaction=True``) so that pg_dump, another process, sees it. The
restored database gets a name of its own on the same server and is always dropped.
"""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from django.db import connection

from games import engine
from games.models import Game, Move, Notice
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from tests.players import create_player

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]

PLAY_ON = """
import json
from games import engine
from games.models import Game, Move, Notice
from games.play.moves import move_submit
game = Game.objects.get(name="Backed up")
moves = list(Move.objects.filter(game=game).select_related("seat").order_by("sequence"))
state = engine.State.from_json(game.snapshot)
replayed = engine.replay(state.config, [(m.seat.engine_name, m.payload) for m in moves])
last_notice = max(Notice.objects.values_list("pk", flat=True))
found = {"version": game.version, "snapshot": game.snapshot, "replays": replayed == state,
         "notices": Notice.objects.count(), "last_notice": last_notice}
for number in range(4):
    game.refresh_from_db()
    seat = game.seats.get(position=game.to_move)
    state = engine.State.from_json(game.snapshot)
    move = engine.legal_moves(state, seat.engine_name)[0]
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version,
                idempotency_key=f"after-restore-{number}")
game.refresh_from_db()
moves = list(Move.objects.filter(game=game).select_related("seat").order_by("sequence"))
state = engine.State.from_json(game.snapshot)
replayed = engine.replay(state.config, [(m.seat.engine_name, m.payload) for m in moves])
new_notices = Notice.objects.filter(pk__gt=last_notice).values_list("pk", flat=True)
found.update(after=game.version, sequences=[m.sequence for m in moves],
             replays_after=replayed == state, new_notices=sorted(new_notices))
print("FOUND" + json.dumps(found))
"""


def url_for(name: str) -> str:
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + name))


def run(command, **env):
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=180,
    )


def play(game, turns: int) -> None:
    for number in range(turns):
        game.refresh_from_db()
        seat = game.seats.get(position=game.to_move)
        state = engine.State.from_json(game.snapshot)
        move = engine.legal_moves(state, seat.engine_name)[-1]
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version,
                    idempotency_key=f"before-{number}")  # fmt: skip


@pytest.fixture
def fresh_name():
    name = f"{connection.settings_dict['NAME']}_restored_{uuid.uuid4().hex[:8]}"
    yield name
    with psycopg.connect(url_for("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_backup_restores_into_a_fresh_database_and_the_game_plays_on(tmp_path, fresh_name):
    users = [create_player(name) for name in ("ann", "bob", "cid")]
    game = game_create(creator=users[0], name="Backed up", ruleset="base", max_seats=3)
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=users[0])
    play(game, 5)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.version == 5

    dump = tmp_path / "saboteur.dump"
    database = url_for(connection.settings_dict["NAME"])
    backup = run(["bash", "scripts/backup.sh", str(dump)], DATABASE_URL=database)
    assert backup.returncode == 0, backup.stderr
    assert backup.stdout.strip() == str(dump) and dump.stat().st_size > 0
    assert not Path(f"{dump}.partial").exists()

    restore = run(["bash", "scripts/restore.sh", str(dump), url_for(fresh_name)])
    assert restore.returncode == 0, restore.stdout + restore.stderr
    # Never over an existing database.
    again = run(["bash", "scripts/restore.sh", str(dump), url_for(fresh_name)])
    assert again.returncode != 0 and "already exists" in again.stderr

    result = run(
        [sys.executable, "manage.py", "shell", "-c", PLAY_ON],
        DATABASE_URL=url_for(fresh_name),
        DJANGO_ENV="development",
    )
    assert "FOUND" in result.stdout, result.stderr[-3000:]
    found = json.loads(result.stdout.split("FOUND", 1)[1])
    # The restored game is the one that was dumped, whole: same version, same snapshot, and
    # its moves replay to it.
    assert found["version"] == 5
    assert found["snapshot"] == game.snapshot
    assert found["replays"]
    assert found["notices"] == Notice.objects.count()
    # And it plays on: moves numbered on from 6, the state still the replay of the log, and
    # new outbox rows numbered after the restored ones (the sequences came back too).
    assert found["after"] == 9
    assert found["sequences"] == list(range(1, 10))
    assert found["replays_after"]
    assert found["new_notices"] and min(found["new_notices"]) > found["last_notice"]
    # The original database is untouched by all this.
    assert Move.objects.filter(game=game).count() == 5


def test_backup_refuses_a_database_that_is_not_postgresql(tmp_path):
    result = run(["bash", "scripts/backup.sh", str(tmp_path / "x.dump")],
                 DATABASE_URL="sqlite:///db.sqlite3")  # fmt: skip
    assert result.returncode != 0
    assert "must be a PostgreSQL URL" in result.stderr
