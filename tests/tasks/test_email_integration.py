"""The notification path end to end: a move, the outbox row, a real Celery worker process over
real Redis, and a real SMTP server on loopback (aiosmtpd), against the test database.

The worker runs in a subprocess, so the tests commit their data (``transaction=True``) and hand
the worker the test database's name. Each test has a queue of its own in the test run's Redis
database (safe with concurrent runs, tests/redis_space.py); the site's Celery app in the test
process, which the on-commit hooks use, is pointed at it for the test and restored afterwards.
Everything is bounded in time; the workers and the SMTP server are always stopped.
"""

import email
import email.policy
import json
import os
import socket
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from aiosmtpd.controller import Controller
from celery.exceptions import TimeoutError as CeleryTimeout
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from games import engine
from games.models import Game, Notice
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from saboteur_site.celery import app as celery_app
from tests.players import create_player
from tests.redis_space import forget_queue, own_queue, redis_url
from tests.tasks.test_worker import celery_worker, wait_for_log

pytestmark = pytest.mark.django_db(transaction=True)

UNREACHABLE = "redis://127.0.0.1:1"  # nothing listens on port 1
GAME_NAME = "Deep mine"
TIMEOUT = 60  # seconds: the bound on every wait for the worker


# -- A real SMTP server -----------------------------------------------------------------------


class Inbox:
    """aiosmtpd handler that keeps every message it accepts."""

    def __init__(self):
        self._lock = threading.Lock()
        self._messages = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self._messages.append((list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"

    @property
    def messages(self):
        with self._lock:
            return list(self._messages)

    def to(self, address):
        return [message for rcpt, message in self.messages if address in rcpt]

    def wait_for(self, count, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.messages) >= count:
                return self.messages
            time.sleep(0.1)
        pytest.fail(f"{count} email(s) expected within {timeout}s, got {len(self.messages)}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def smtp_server():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), ready_timeout=10)
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


# -- Celery: the test process's app and worker processes --------------------------------------


def _forget_connections():
    """Drop the app's cached broker pool, routing and result backend so new settings apply."""
    celery_app.__dict__.pop("amqp", None)  # a cached property: queues, router, producer pool
    celery_app._pool = None
    celery_app._backend_cache = None
    celery_app._local.__dict__.pop("backend", None)


@contextmanager
def celery_app_on(url, queue="celery"):
    """Point the site's Celery app (what ``send_notice`` uses) at ``url`` and ``queue``."""
    conf = celery_app.conf
    saved = conf.broker_url, conf.result_backend, conf.task_default_queue
    conf.broker_url = conf.result_backend = url
    conf.task_default_queue = queue
    _forget_connections()
    try:
        yield celery_app
    finally:
        conf.broker_url, conf.result_backend, conf.task_default_queue = saved
        _forget_connections()


@pytest.fixture
def channel():
    """The test run's Redis database and a queue of this test's own (tests/redis_space.py):
    another test run or a site using the same database neither steals our tasks nor loses
    theirs to us."""
    url, queue = redis_url(), own_queue()
    yield url, queue
    forget_queue(url, queue)


def worker_env(broker_url, smtp_port):
    """The worker uses the test's database, broker and SMTP server, and its live channel (what
    the worker's moves publish reaches the pages and streams this test process serves)."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    database_url = urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": broker_url,
        "CELERY_BROKER_URL": None,
        "CELERY_RESULT_BACKEND": None,
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_TIMEOUT": "10",
        "DJANGO_ENV": "development",
        "LIVE_CHANNEL": settings.LIVE_CHANNEL,  # this run's own (tests/conftest.py)
    }


@contextmanager
def running_workers(log_dir: Path, queue: str, env: dict, count: int = 1):
    with ExitStack() as stack:
        logs = [log_dir / f"worker{i}.log" for i in range(count)]
        for log in logs:
            stack.enter_context(celery_worker(log, queue=queue, **env))
        for log in logs:
            wait_for_log(log, " ready.", timeout=TIMEOUT)
        yield logs


def _unacked(client, queue) -> int:
    """Tasks of ``queue`` that a worker has taken but not finished (acks_late)."""
    entries = (json.loads(raw) for raw in client.hvals("unacked"))
    return sum(1 for _message, _exchange, routing_key in entries if routing_key == queue)


def queue_drained(url, queue, timeout=TIMEOUT):
    """Wait until no task waits in the queue and none is being worked on."""
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not client.llen(queue) and not _unacked(client, queue):
                return
            time.sleep(0.2)
        pytest.fail(f"tasks still queued or running after {timeout}s")
    finally:
        client.close()


def result_of(result, logs):
    """The task's result; on a timeout, fail with the workers' logs."""
    try:
        return result.get(timeout=TIMEOUT)
    except CeleryTimeout:
        pytest.fail(f"no result for {result.id} in {TIMEOUT}s:\n" + worker_logs(logs))


def worker_logs(logs):
    return "\n".join(f"--- {log.name}\n{log.read_text()}" for log in logs)


def assert_clean(logs):
    for log in logs:
        text = log.read_text()
        assert "Traceback" not in text, worker_logs(logs)


# -- Games ------------------------------------------------------------------------------------


def lobby():
    players = [create_player(name) for name in ("ann", "bob", "cid")]
    game = game_create(creator=players[0], name=GAME_NAME, ruleset="base", max_seats=3)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game


def deciding_seat(game):
    game.refresh_from_db()
    return game.seats.select_related("user").get(position=game.to_move)


def play_one_move(game):
    """The player to move makes a legal move; return the seat that decides next."""
    seat = deciding_seat(game)
    state = engine.State.from_json(game.snapshot)
    move = engine.legal_moves(state, seat.engine_name)[0]
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    following = deciding_seat(game)
    assert following.pk != seat.pk
    return following


def turn_notice(seat):
    return Notice.objects.get(seat=seat, kind=Notice.Kind.TURN)


def sent_notice(seat, timeout=15.0):
    """The seat's turn notice once the worker's transaction has marked it sent (or the timeout)."""
    deadline = time.monotonic() + timeout
    notice = turn_notice(seat)
    while notice.status != Notice.Status.SENT and time.monotonic() < deadline:
        time.sleep(0.1)
        notice = turn_notice(seat)
    return notice


def subject_of(message):
    return str(message["Subject"])


# -- The tests --------------------------------------------------------------------------------


def test_a_move_emails_the_next_player_once(channel, tmp_path):
    url, queue = channel
    with smtp_server() as (inbox, port), celery_app_on(url, queue) as client:
        with running_workers(tmp_path, queue, worker_env(url, port)) as logs:
            game = game_start(game_id=lobby().pk, user=get_user_model().objects.get(username="ann"))
            first = deciding_seat(game)
            inbox.wait_for(3)  # every player is told when the game starts, once
            (started,) = inbox.to(first.user.email)
            assert subject_of(started) == f"Your turn in {GAME_NAME}"
            for seat in game.seats.exclude(pk=first.pk).select_related("user"):
                (started,) = inbox.to(seat.user.email)
                assert subject_of(started) == f"{GAME_NAME} has started"

            following = play_one_move(game)  # its commit enqueues send_notice
            inbox.wait_for(4)
            (_started, message) = inbox.to(following.user.email)
            assert subject_of(message) == f"Your turn in {GAME_NAME}"
            assert message.get_body(("plain",)).get_content().strip()
            assert "<html" in message.get_body(("html",)).get_content().lower()
            assert message["List-Unsubscribe"].startswith("<http")
            assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            # The worker marks the row sent in the transaction that sent the email: the message
            # can reach the inbox a moment before that commit.
            notice = sent_notice(following)
            assert notice.status == Notice.Status.SENT and notice.attempts == 1

            # The minute's sweep finds nothing left to send.
            result = client.send_task("games.tasks.sweep")
            assert result_of(result, logs)["sent"] == 0
            queue_drained(url, queue)
            assert len(inbox.messages) == 4
            assert len(inbox.to(following.user.email)) == 2
            assert_clean(logs)


def test_a_move_while_the_broker_is_down_is_sent_by_the_sweep(channel, tmp_path, caplog):
    url, queue = channel
    game = lobby()
    with celery_app_on(UNREACHABLE):
        game = game_start(game_id=game.pk, user=game.creator)
        first = deciding_seat(game)
        started = time.monotonic()
        following = play_one_move(game)
        assert time.monotonic() - started < 10
    assert "the sweep will send it" in caplog.text
    notice = turn_notice(following)
    assert notice.status == Notice.Status.PENDING

    with smtp_server() as (inbox, port), celery_app_on(url, queue) as client:
        with running_workers(tmp_path, queue, worker_env(url, port)) as logs:
            result = client.send_task("games.tasks.sweep")
            assert result_of(result, logs)["sent"] == 3  # the turn and two "has started"
            queue_drained(url, queue)
            assert_clean(logs)
        ((recipients, message),) = [
            (to, m) for to, m in inbox.messages if "has started" not in subject_of(m)
        ]
    assert recipients == [following.user.email] and message["To"] == following.user.email
    assert subject_of(message) == f"Your turn in {GAME_NAME}"
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT
    stale = turn_notice(first)  # the first player's turn passed before anything was sent
    assert stale.status == Notice.Status.SKIPPED and stale.reason == "the turn has moved on"


def test_redelivered_tasks_and_concurrent_sweeps_send_one_email(channel, tmp_path):
    url, queue = channel
    with celery_app_on(url, queue) as client:
        # No worker yet: the on-commit tasks wait in the queue with the repeats below.
        game = lobby()
        game = game_start(game_id=game.pk, user=game.creator)
        following = play_one_move(game)
        notice = turn_notice(following)
        results = [
            *(client.send_task("games.tasks.send_notice", args=[notice.pk]) for _ in range(3)),
            *(client.send_task("games.tasks.sweep") for _ in range(2)),
        ]
        with smtp_server() as (inbox, port):
            with running_workers(tmp_path, queue, worker_env(url, port), count=2) as logs:
                for result in results:
                    result_of(result, logs)
                queue_drained(url, queue)
                assert_clean(logs)
            messages = [m for m in inbox.messages if "has started" not in subject_of(m[1])]
    assert len(inbox.messages) == 3  # and the two others told once that the game started
    assert len(messages) == 1
    assert messages[0][0] == [following.user.email]
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT and notice.attempts == 1
    assert Game.objects.get(pk=game.pk).version == 1


def test_the_worker_holds_a_turn_email_in_quiet_hours_and_the_sweep_sends_it_after(
    channel, tmp_path
):
    """Quiet hours around the real clock: the worker's send keeps the notice pending (due at
    their end); once they are over, the minute's sweep delivers it, once."""
    from datetime import timedelta

    from django.utils import timezone

    url, queue = channel
    game = lobby()
    now = timezone.now()
    quiet = {
        "time_zone": "UTC",
        "quiet_from": (now - timedelta(hours=1)).time().replace(microsecond=0),
        "quiet_until": (now + timedelta(hours=1)).time().replace(microsecond=0),
    }
    get_user_model().objects.update(**quiet)
    with smtp_server() as (inbox, port), celery_app_on(url, queue) as client:
        with running_workers(tmp_path, queue, worker_env(url, port)) as logs:
            game = game_start(game_id=game.pk, user=game.creator)
            first = deciding_seat(game)
            queue_drained(url, queue)
            assert inbox.messages == []
            notice = turn_notice(first)
            assert notice.status == Notice.Status.PENDING and notice.due_at > timezone.now()
            # The quiet hours are over (the player changed them); the notice falls due.
            get_user_model().objects.update(quiet_from=None, quiet_until=None)
            Notice.objects.exclude(kind=Notice.Kind.REMINDER).update(due_at=timezone.now())
            for _ in range(2):
                result_of(client.send_task("games.tasks.sweep"), logs)
            queue_drained(url, queue)
            assert_clean(logs)
        assert len(inbox.to(first.user.email)) == 1
        assert len(inbox.messages) == 3  # and the two others' "has started", once each


def test_the_turn_email_arrives_with_its_maze_picture_and_one_tap_links(channel, tmp_path):
    url, queue = channel
    with smtp_server() as (inbox, port), celery_app_on(url, queue):
        with running_workers(tmp_path, queue, worker_env(url, port)) as logs:
            game = game_start(game_id=lobby().pk, user=get_user_model().objects.get(username="ann"))
            inbox.wait_for(3)  # the first player's turn, the others' "has started"
            following = play_one_move(game)
            inbox.wait_for(4)
            queue_drained(url, queue)
            assert_clean(logs)
    (message,) = [m for m in inbox.to(following.user.email) if "Your turn" in subject_of(m)]
    html = message.get_body(("html",))
    related = next(p for p in message.walk() if p.get_content_type() == "multipart/related")
    pictures = [p for p in related.iter_parts() if p.get_content_maintype() == "image"]
    maze = next(p for p in pictures if p["Content-ID"].startswith("<maze-"))
    assert maze.get_content_type() == "image/png" and maze.get_content_disposition() == "inline"
    assert maze.get_content().startswith(b"\x89PNG\r\n\x1a\n") and len(maze.get_content()) > 1000
    cid = maze["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html.get_content()
    assert len(pictures) > 1  # the hand's cards
    text = message.get_body(("plain",)).get_content()
    assert "/tap/" in text and "Your hand:" in text and "Decide by " in text
