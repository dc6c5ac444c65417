"""Redis killed and started again, empty, under the production stack's beat: the sweep runs again.

When Redis restarted, beat (RedBeat) could not renew its lock and exited, and so it did as soon as
Redis refused it a connection; nothing started it again, so the minute sweep (reminders,
deadlines, bots' moves, held emails) never ran again (issue 48). The session's stack shares the
machine's Redis, which no test may stop: this test runs the stack's Celery part again, the
README's worker and beat with the production environment, on a redis-server of its own (a free
port, no persistence) and a database of its own, and breaks that Redis. Beat and the worker must
stay up through the outage, and the sweep must run again within two minutes of Redis's return,
with beat's production timings (its minute, its lock of 150 s renewed every 30 s).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
from pathlib import Path

import pytest

from tests.redis_server import REDIS_SERVER, RedisServer

from .stack import (
    Process,
    beat_command,
    create_database,
    database_url,
    drop_database,
    line_problems,
    wait_until,
    worker_command,
)

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")

BIN = Path(sys.executable).parent
AWAY = "beat: Redis does not answer"
# The worker's errors while its broker is away, both Celery's and harmless: each try to connect
# again ("consumer: Cannot connect to redis://...: Error 111 ... Trying again in 2.00
# seconds..."), and, at times, closing its gossip's channel on the lost connection ("Error on
# restarting Gossip: AttributeError(...)"), which it then opens again.
WORKER_AWAY = ("Cannot connect to redis://", "Error on restarting Gossip")


def records(path: Path) -> list[dict]:
    """The JSON objects among a process's output lines."""
    found = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def sweeps(worker: Process) -> int:
    """How many sweeps the worker has carried out (its task lines, ``saboteur.task``)."""
    return sum(
        1
        for record in records(worker.stderr_path)
        if record.get("task") == "games.tasks.sweep" and record.get("state") == "SUCCESS"
    )


def test_beat_ticks_on_through_a_redis_restart_and_the_sweep_runs_again(stack, tmp_path):
    database = f"saboteur_production_redis_{secrets.token_hex(4)}"
    with contextlib.ExitStack() as cleanup:
        redis_server = cleanup.enter_context(RedisServer(tmp_path / "redis"))
        create_database(database)
        cleanup.callback(drop_database, database)
        env = {
            **stack.env,
            "DATABASE_URL": database_url(database),
            "REDIS_URL": redis_server.url(),
            "CACHE_KEY_PREFIX": "saboteur-redis-restart",
        }
        stack.manage("migrate", "--noinput", name="redis-restart-migrate", **env)
        name = f"redis-restart-{secrets.token_hex(4)}@%h"
        worker = Process(
            "redis-restart-worker",
            worker_command(BIN, hostname=name, queue=env["CELERY_QUEUE"]),
            env,
            tmp_path,
        )
        cleanup.callback(worker.stop)
        beat = Process(
            "redis-restart-beat", beat_command(BIN, schedule=tmp_path / "schedule"), env, tmp_path
        )
        cleanup.callback(beat.stop)  # stopped first: the clock, then the worker

        def beat_says() -> str:
            return beat.stderr_path.read_text()

        # Beat sends the sweep at once when it starts (Redis has no record of its last run).
        wait_until(lambda: sweeps(worker) >= 1, timeout=120, what="the first sweep")

        redis_server.kill()  # a crash: the queue, beat's schedule and its lock are gone
        # Beat sees Redis away at its next tick (at most 30 s later) and waits for it.
        wait_until(lambda: AWAY in beat_says() or not beat.running(), timeout=90, what=AWAY)
        assert beat.running(), beat_says()
        before = sweeps(worker)
        redis_server.start()  # empty

        wait_until(
            lambda: sweeps(worker) > before or not beat.running(),
            timeout=120,
            what="the sweep within two minutes of Redis's return",
        )
        assert beat.running(), beat_says()
        assert worker.running(), worker.stderr_path.read_text()[-3000:]
        assert "lost its lock" in beat_says()  # Redis forgot it: beat took it again
        assert "falling back to broker_url" not in beat_says()  # RedBeat's settings all given

    # Beat's output: one JSON object per line, none an error (the outage is a warning).
    beat_problems = [
        f"{why}: {line}"
        for stream in (beat.stderr_path, beat.stdout_path)
        for line in stream.read_text().splitlines()
        for why in line_problems(line, stream is beat.stderr_path)
    ]
    assert beat_problems == [], beat_says()
    # The worker's: only those of its broker being away (above).
    worker_problems = [
        f"{why}: {line}"
        for stream in (worker.stderr_path, worker.stdout_path)
        for line in stream.read_text().splitlines()
        for why in line_problems(line, stream is worker.stderr_path)
        if not any(expected in line for expected in WORKER_AWAY)
    ]
    assert worker_problems == [], worker.stderr_path.read_text()[-5000:]
