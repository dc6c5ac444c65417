"""The Celery application.

Workers and beat start with ``celery -A saboteur_site worker`` / ``beat``. Configuration
comes from Django settings (``CELERY_*``). ``make run`` needs no servers: its broker is kombu's
SQLAlchemy transport on a SQLite file, ``.run/broker.sqlite3`` (``scripts/lib.sh``); with neither
Redis nor a broker URL configured it is kombu's filesystem transport in ``.run/broker/``, which
under load can read a message file before its writer has filled it and then stops the worker
(``docs/soak.md``).
"""

import logging
import os
import sqlite3
from pathlib import Path

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_ready
from celery.worker.consumer import Consumer as CeleryConsumer

from . import logs
from .startup import refusals_in_one_line

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")

log = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    """Celery's consumer, which survives losing Redis while it holds unacknowledged tasks.

    On a lost connection Celery (5.7) first lets kombu collect the connection, which drops its
    transport, then closes it; closing the channel tries to put the unacknowledged tasks back
    through that transport and raises ``AttributeError`` ('NoneType' object has no attribute
    'hostname'), which Celery does not expect: the worker logged "Unrecoverable error" and
    exited, so a Redis restart stopped every worker (bench/faults.py). Redis is gone at that
    moment anyway, so those tasks cannot be put back: with Redis's persistence they come back
    after the visibility timeout, without it they are lost, and beat's sweep does their work
    (every task re-reads the database). Here the error is logged and the consumer reconnects.
    """

    def on_connection_error_after_connected(self, exc):
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            log.warning(
                "closing the lost broker connection failed; reconnecting anyway", exc_info=True
            )

    def call_soon_ack(self, p, *args, **kwargs):
        """Acknowledge (or reject) a finished task, unless the connection it came on is lost.

        A task at work in the pool while Redis went away finishes afterwards, and Celery then
        acknowledges it on its message's channel, closed with the lost connection: the same
        ``AttributeError`` as above, raised in the worker's event loop, where it was an
        "Unrecoverable error" and the worker exited (bench/faults.py, Redis killed and started
        again). Such an acknowledgement cannot reach any Redis: it is dropped with a warning,
        as if the worker had been killed after the task (``acks_late``: with Redis's data kept
        the task comes back after the visibility timeout, and every task is safe to run again).
        """
        return super().call_soon_ack(_unless_channel_lost(p), *args, **kwargs)


def _unless_channel_lost(settle):
    """``settle`` (a message's ``ack_log_error`` or ``reject_log_error``), done only while the
    message's channel is open."""
    message = getattr(settle, "__self__", None)

    def settle_unless_lost(*args, **kwargs):
        if getattr(getattr(message, "channel", None), "closed", False):
            log.warning(
                "task message %s came on a lost broker connection: not acknowledged",
                getattr(message, "delivery_tag", "?"),
            )
            return None
        return settle(*args, **kwargs)

    return settle_unless_lost


app = Celery("saboteur_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Not a setting in Django's settings: it names this module, which settings must not import.
app.conf.worker_consumer = "saboteur_site.celery:Consumer"


def _filesystem_broker_options(broker_dir) -> dict:
    queue_dir = broker_dir / "queue"
    processed_dir = broker_dir / "processed"
    control_dir = broker_dir / "control"  # kombu's default is ./control in the working directory
    for folder in (queue_dir, processed_dir, control_dir):
        folder.mkdir(parents=True, exist_ok=True)
    # One folder for both directions: producers (web) and the worker share it.
    return {
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(processed_dir),
        "control_folder": str(control_dir),
        "store_processed": False,
    }


SQLITE_BROKER_PREFIXES = ("sqla+sqlite://", "sqlalchemy+sqlite://")


def sqlite_broker_path(broker_url: str) -> Path | None:
    """The file of a SQLAlchemy-on-SQLite broker URL (``sqla+sqlite:////abs/path``), else None."""
    if not broker_url.startswith(SQLITE_BROKER_PREFIXES):
        return None
    from sqlalchemy.engine import make_url

    database = make_url(broker_url.partition("+")[2]).database
    return Path(database) if database and database != ":memory:" else None


def _sqlite_broker_options(path: Path) -> dict:
    """kombu's SQLAlchemy transport on one SQLite file shared by runserver (which publishes),
    the worker and beat, each a process of its own (and the worker's pool forks children).

    - WAL journal: readers and the one writer do not block each other (it stays set in the file).
    - A 30-second busy timeout instead of Python's 5: on a loaded machine a writer may wait for
      another; what still fails is an ``OperationalError``, a connection error to Celery (the
      consumer reconnects, a publish fails and beat's sweep catches up), never a crash.
    - No connection pool (each session opens its file and closes it): no SQLite connection is
      ever inherited across the prefork pool's fork.

    These are passed to ``sqlalchemy.create_engine`` by the transport.
    """
    from sqlalchemy.pool import NullPool

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=30)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
    finally:
        connection.close()
    return {"poolclass": NullPool, "connect_args": {"timeout": 30}}


# How often the worker asks the SQLite broker for tasks when it has none it may take: kombu's 1 s
# capped the worker at about two tasks a second (--concurrency=2, prefetch 1: after taking two it
# sleeps a polling interval even if both are done in 50 ms), so bots played one move a second at
# best across all games (bench/soak.py). An empty poll costs a millisecond.
SQLITE_POLLING_INTERVAL = 0.2


def _poll_sqlite_broker_often() -> None:
    """kombu reads ``polling_interval`` from the transport options, but its SQLAlchemy transport
    passes every option on to ``create_engine``, which refuses it: set the transport's own."""
    from kombu.transport.sqlalchemy import Transport

    Transport.polling_interval = SQLITE_POLLING_INTERVAL


def prune_delivered_messages(path: Path) -> int:
    """Deletes the SQLite broker's delivered messages; returns how many.

    kombu's SQLAlchemy transport marks a message invisible when a consumer takes it and never
    deletes it: the table would grow by every task ever sent, and each poll scans past them. An
    invisible row is never read again (a task given back, by a warm shutdown or a rejection, is
    put as a new row), so deleting them at any time loses nothing.
    """
    connection = sqlite3.connect(path, timeout=30)
    try:
        with connection:
            return connection.execute("DELETE FROM kombu_message WHERE visible = 0").rowcount
    except sqlite3.OperationalError:  # no table yet (nothing sent), or locked for 30 s
        log.warning("could not prune the broker's delivered messages", exc_info=True)
        return 0
    finally:
        connection.close()


PRUNE_EVERY = 600.0  # seconds


@worker_ready.connect
def _prune_sqlite_broker(sender, **kwargs):
    """In the worker (its main process): prune when it starts and every ten minutes."""
    path = sqlite_broker_path(sender.app.conf.broker_url or "")
    if path is None:
        return

    def prune():
        count = prune_delivered_messages(path)
        log.info("broker: %d delivered messages pruned from %s", count, path.name)

    prune()
    sender.timer.call_repeatedly(PRUNE_EVERY, prune)


@app.on_configure.connect
def _configure_embedded_broker(sender, **kwargs):
    from django.conf import settings

    # The first read of the settings in a worker or beat: a refusal is one line, not a traceback.
    with refusals_in_one_line():
        broker_url = settings.CELERY_BROKER_URL
    if broker_url.startswith("filesystem://"):
        sender.conf.broker_transport_options = _filesystem_broker_options(
            settings.CELERY_BROKER_DIR
        )
    elif (path := sqlite_broker_path(broker_url)) is not None:
        sender.conf.broker_transport_options = _sqlite_broker_options(path)
        _poll_sqlite_broker_often()


app.autodiscover_tasks()

# One log line per task (saboteur_site/logs.py).
task_prerun.connect(logs.task_started, weak=False)
task_postrun.connect(logs.task_finished, weak=False)
