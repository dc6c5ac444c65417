"""`make run`'s Celery broker: kombu's SQLAlchemy transport on a SQLite file (issue 35, point 2).

kombu's filesystem transport, which `make run` used, let the worker read a message file before
its writer had filled it; the worker died of ``JSONDecodeError('Expecting value: line 1
column 1')`` after about 45 minutes of practice games. These tests run a real worker on the
SQLite file as scripts/lib.sh configures it, check the file's setup and the pruning of delivered
messages, and the health check of that mode.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from celery import Celery

from saboteur_site.celery import (
    _sqlite_broker_options,
    prune_delivered_messages,
    sqlite_broker_path,
)
from tests.tasks.test_worker import celery_worker, wait_for_log

ROOT = Path(__file__).resolve().parents[2]


def lib_sh_broker_url() -> str:
    """The broker URL scripts/lib.sh's run_mode_env exports (for this checkout)."""
    out = subprocess.run(
        ["bash", "-c", 'source scripts/lib.sh && run_mode_env && printf %s "$CELERY_BROKER_URL"'],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=30,
        env={**os.environ, "CELERY_BROKER_URL": "redis://elsewhere:6380/0"},
    )  # fmt: skip
    return out.stdout


def test_run_mode_uses_a_sqlite_file_under_run_whatever_the_environment_says(tmp_path):
    url = lib_sh_broker_url()
    assert url == f"sqla+sqlite:///{ROOT}/.run/broker.sqlite3"
    assert sqlite_broker_path(url) == ROOT / ".run" / "broker.sqlite3"
    assert sqlite_broker_path(f"sqlalchemy+sqlite:///{tmp_path}/b.db") == tmp_path / "b.db"
    assert sqlite_broker_path("filesystem://") is None
    assert sqlite_broker_path("redis://127.0.0.1:6380/0") is None
    assert sqlite_broker_path("sqla+postgresql://u@h/db") is None


def test_the_broker_file_is_made_in_wal_mode_with_no_pool(tmp_path):
    path = tmp_path / "run" / "broker.sqlite3"  # its folder does not exist yet
    options = _sqlite_broker_options(path)
    assert path.exists()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert options["poolclass"].__name__ == "NullPool"
    assert options["connect_args"] == {"timeout": 30}


def test_a_worker_runs_tasks_over_the_sqlite_broker_and_delivered_ones_are_pruned(tmp_path):
    broker = tmp_path / "broker.sqlite3"
    url = f"sqla+sqlite:///{broker}"
    log_path = tmp_path / "worker.log"
    with celery_worker(
        log_path,
        REDIS_URL=None,
        CELERY_BROKER_URL=url,
        CELERY_RESULT_BACKEND=None,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    ) as worker:
        wait_for_log(log_path, " ready.")
        assert "delivered messages pruned from broker.sqlite3" in log_path.read_text()
        client = Celery(
            "pytest-client",
            set_as_current=False,
            broker=url,
            broker_transport_options=_sqlite_broker_options(broker),
        )
        results = [client.send_task("games.tasks.ping") for _ in range(3)]
        for result in results:
            log = wait_for_log(log_path, f"Task games.tasks.ping[{result.id}] succeeded")
        assert "sqla+sqlite:///" in log and "'pong'" in log
        # A task due later stays in the worker's hands (its row already taken), and one nobody
        # consumes stays visible in its queue.
        later = client.send_task("games.tasks.ping", countdown=600)
        wait_for_log(log_path, f"Task games.tasks.ping[{later.id}] received")
        waiting = client.send_task("games.tasks.ping", queue="nobody-consumes-this")
        client.close()

        with sqlite3.connect(broker) as connection:
            rows = connection.execute(
                "SELECT visible, count(*) FROM kombu_message GROUP BY visible ORDER BY visible"
            ).fetchall()
        assert rows == [(0, 4), (1, 1)]
        assert prune_delivered_messages(broker) == 4
        with sqlite3.connect(broker) as connection:
            assert connection.execute("SELECT visible FROM kombu_message").fetchall() == [(1,)]

        # The held task was deleted from the table, yet a warm shutdown gives it back: kombu
        # puts a task it holds unacknowledged as a new row, never by making the old one visible.
        worker.send_signal(15)
        assert worker.wait(timeout=60) == 0
    with sqlite3.connect(broker) as connection:
        payloads = connection.execute("SELECT payload FROM kombu_message WHERE visible = 1")
        ids = sorted(json.loads(payload)["headers"]["id"] for (payload,) in payloads)
    assert ids == sorted([later.id, waiting.id])


@pytest.mark.slow  # started first (tests/conftest.py)
def test_health_in_run_mode_leaves_out_the_ping_the_sqlite_broker_cannot_answer(tmp_path):
    """The SQLAlchemy transport has no fanout exchange, so the worker starts without remote
    control: a ping would always time out and call a working site unhealthy."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update(
        DJANGO_ENV="development",
        DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}",
        REDIS_URL="",
        CELERY_BROKER_URL=f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
    )

    def manage(*args):
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    for command in (["migrate", "--noinput"], ["createcachetable"]):
        assert manage(*command).returncode == 0
    code = (
        "from django.test import Client; "
        "r = Client().get('/health/', HTTP_ACCEPT='application/json', HTTP_HOST='127.0.0.1'); "
        "print(r.status_code, ' '.join(r.content.decode().split()))"
    )
    result = manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    status, _space, body = result.stdout.strip().splitlines()[-1].partition(" ")
    assert status == "200", body
    assert "Ping" not in body and "Database" in body


def test_the_worker_polls_the_sqlite_broker_five_times_a_second(tmp_path):
    """kombu's one second between polls capped the worker at two tasks a second (it sleeps a
    polling interval whenever it holds all the tasks it may, even when they take 50 ms)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update(
        DJANGO_ENV="development",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="",
        CELERY_BROKER_URL=f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
    )
    code = (
        "from saboteur_site.celery import app; "
        "connection = app.connection_for_read(); "
        "print(type(connection.transport).__module__, connection.transport.polling_interval)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["kombu.transport.sqlalchemy", "0.2"]
