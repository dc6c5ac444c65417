"""The production suite's session: the README's production stack, started once for all its tests.

``stack`` makes a PostgreSQL database of its own, migrates it and collects the static files (the
release steps), then starts with ``DJANGO_ENV=production``: gunicorn (the pages), uvicorn (the
live streams), a Celery worker and beat on Redis (a queue, cache prefix and live channel of this
run's own; tests/redis_space.py), with email to an SMTP sink and push to the local push service
(tests/push_service.py), all behind one loopback proxy (tests/production/stack.py). Every test is
then checked for the stack's problems: a 5xx answer, a process that died, a log line of level
ERROR or CRITICAL, a line on a process's stderr that is not one JSON object.

Run it alone (its own pytest session, as ``make test`` does):
``DJANGO_ALLOW_ASYNC_UNSAFE=true .venv/bin/pytest tests/production``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from saboteur_site import vapid
from tests import chromium
from tests.push_service import PushService
from tests.redis_space import RUN_PREFIX, forget_queue, own_queue, redis_url

from .stack import (
    LogCheck,
    Process,
    Proxy,
    SmtpSink,
    beat_command,
    create_database,
    database_url,
    drop_database,
    free_port,
    run_command,
    wait_until,
    worker_command,
)

# Playwright's sync API keeps an event loop in this thread (the test script sets this too).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# The browsers: the headless shell, the full Chromium for the tests marked full_chromium.
browser_type_launch_args = chromium.browser_type_launch_args
full_chromium = chromium.full_chromium
browser = chromium.browser

INBOUND_SIGNING_KEY = "key-" + secrets.token_hex(16)
INBOUND_SECRET = "hook:" + secrets.token_hex(8)

BIN = Path(sys.executable).parent
PYTHON = str(BIN / "python")
MANAGE = [PYTHON, "manage.py"]
# Servers start slowly on a machine whose cores other test runs keep busy.
START_TIMEOUT = 120

ADMIN_EMAIL = "overseer@example.com"
ADMIN_PASSWORD = secrets.token_urlsafe(18)


@dataclass
class Stack:
    origin: str
    env: dict
    proxy: Proxy
    mail: SmtpSink
    push: PushService
    logs: LogCheck
    log_dir: Path
    processes: dict[str, Process] = field(default_factory=dict)
    worker_name: str = ""

    def manage(self, *args: str, name: str, **extra_env: str):
        """``python manage.py ...`` with the production environment; its output is checked like
        the servers' (one JSON object per line on stderr, no error)."""
        done = run_command([*MANAGE, *args], {**self.env, **extra_env})
        self.logs.watch_text(name, done.stderr, done.stdout, self.log_dir)
        return done

    def problems(self, *, running: bool = True) -> list[str]:
        """What has gone wrong since the last call: dead processes (while they should be
        ``running``), 5xx answers (the proxy's), the proxy's own failures and the processes'
        bad log lines."""
        found = [
            f"{name} exited with {process.popen.returncode}"
            for name, process in self.processes.items()
            if running and not process.running()
        ]
        found += [
            f"{a.upstream} answered {a.status} to {a.method} {a.path}"
            for a in self.proxy.take(self.proxy.server_errors)
        ]
        found += [f"proxy: {error}" for error in self.proxy.take(self.proxy.errors)]
        return found + self.logs.problems()


@pytest.fixture(scope="session")
def stack(request):
    """The production stack, from a fresh database to the servers answering behind the proxy."""
    # Not under pytest's own temporary folders, which other pytest runs on the machine rotate:
    # kept after a failure for whoever reads it, deleted after a clean run.
    log_dir = Path(tempfile.mkdtemp(prefix="saboteur-production-"))
    database = f"saboteur_production_{secrets.token_hex(6)}"
    queue = own_queue()
    private_key, _public = vapid.generate()
    worker_name = f"production-{secrets.token_hex(4)}@%h"
    web_port, live_port = free_port(), free_port()

    proxy = Proxy(web_port, live_port)
    mail = SmtpSink()
    push = PushService()
    logs = LogCheck()
    processes: dict[str, Process] = {}
    # Undone in reverse order, each step even if another fails.
    with contextlib.ExitStack() as cleanup:
        create_database(database)
        cleanup.callback(drop_database, database)
        cleanup.callback(forget_queue, redis_url(), queue)
        proxy.start()
        cleanup.callback(proxy.stop)
        mail.start()
        cleanup.callback(mail.stop)
        cleanup.enter_context(push)
        env = {
            "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": os.environ.get("HOME", "/tmp"),  # noqa: S108 - a fallback only
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_ENV": "production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Plain HTTP on loopback: no TLS proxy, so no redirect and no X-Forwarded-Proto trusted.
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "SITE_URL": proxy.origin,
            # collectstatic into the run's own folder: two runs on one checkout never race.
            "DJANGO_STATIC_ROOT": str(log_dir / "staticfiles"),
            "DATABASE_URL": database_url(database),
            "REDIS_URL": redis_url(),
            # This run's share of Redis (tests/redis_space.py): its cache prefix, which RedBeat's
            # schedule and lock carry too (deleted at the end of the run by tests/conftest.py), a
            # queue and live channels of its own.
            "CACHE_KEY_PREFIX": RUN_PREFIX,
            "CELERY_QUEUE": queue,
            "LIVE_CHANNEL": f"saboteur:test-live:{secrets.token_hex(6)}",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(mail.port),
            "EMAIL_TIMEOUT": "10",
            "VAPID_PRIVATE_KEY": private_key,
            "PUSH_ANY_HOST": "1",  # the local push service (tests/push_service.py)
            # Replies to game emails through both inbound webhooks (tests/production/
            # test_replies.py posts as Mailgun and Postmark would).
            "REPLY_DOMAIN": "reply.saboteur.test",
            "INBOUND_EMAIL_PROVIDERS": "mailgun,postmark",
            "MAILGUN_WEBHOOK_SIGNING_KEY": INBOUND_SIGNING_KEY,
            "ANYMAIL_WEBHOOK_SECRET": INBOUND_SECRET,
        }
        if os.geteuid() == 0:
            # Test machines run as root, which no deployment should: Celery's warning about it is
            # the test machine's, not the site's (a Python warning, printed as plain text).
            env["PYTHONWARNINGS"] = "ignore:You're running the worker with superuser privileges"
        the_stack = Stack(
            proxy.origin, env, proxy, mail, push, logs, log_dir, processes, worker_name
        )
        cleanup.callback(_stop, processes)
        # The release steps (README): migrate, collect the static files (WhiteNoise serves them).
        the_stack.manage("migrate", "--noinput", name="migrate")
        the_stack.manage("collectstatic", "--noinput", name="collectstatic")

        def start(name, argv):
            processes[name] = Process(name, argv, env, log_dir)
            logs.watch(processes[name])

        start(
            "gunicorn",
            [
                str(BIN / "gunicorn"),
                "--config",
                "python:saboteur_site.gunicorn_conf",
                "saboteur_site.wsgi",
                "--bind",
                f"127.0.0.1:{web_port}",
                "--workers",
                "2",
            ],
        )
        start(
            "uvicorn",
            [
                str(BIN / "uvicorn"),
                "saboteur_site.asgi:application",
                "--log-config",
                "saboteur_site/uvicorn_logging.json",
                "--host",
                "127.0.0.1",
                "--port",
                str(live_port),
                "--workers",
                "2",
                "--timeout-graceful-shutdown",
                "5",
            ],
        )
        start("worker", worker_command(BIN, hostname=worker_name, queue=queue))
        start("beat", beat_command(BIN, schedule=log_dir / "celerybeat-schedule"))
        _wait_until_serving(the_stack, web_port, live_port)
        yield the_stack
    # What the processes wrote while stopping, and anything no test looked at.
    left = the_stack.problems(running=False)
    assert not left, f"the stack's logs ({log_dir}):\n" + "\n".join(left)
    if request.session.testsfailed == 0:
        shutil.rmtree(log_dir, ignore_errors=True)


def _stop(processes: dict[str, Process]) -> None:
    """Stop in the order a deployment would: the clock, the workers, the web."""
    for name in ("beat", "worker", "uvicorn", "gunicorn"):
        if name in processes:
            processes[name].stop()


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _wait_until_serving(stack: Stack, web_port: int, live_port: int) -> None:
    """Every server answers: gunicorn and uvicorn listen, the worker answers a ping by name (no
    request to /health/ before that: it would answer 503 and log an error), beat runs."""

    def check_alive():
        dead = [name for name, p in stack.processes.items() if not p.running()]
        if dead:
            raise AssertionError(
                f"{', '.join(dead)} stopped while starting:\n"
                + "\n".join(
                    f"{name}: {stack.processes[name].stderr_path.read_text()[-3000:]}"
                    for name in dead
                )
            )

    def ready(condition):
        def check():
            check_alive()
            return condition()

        return check

    wait_until(ready(lambda: _listening(web_port)), timeout=START_TIMEOUT, what="gunicorn")
    wait_until(ready(lambda: _listening(live_port)), timeout=START_TIMEOUT, what="uvicorn")
    from saboteur_site.celery import app

    worker = stack.worker_name.replace("%h", os.uname().nodename)
    wait_until(
        ready(lambda: app.control.ping(destination=[worker], timeout=1)),
        timeout=START_TIMEOUT,
        what="the Celery worker's answer to a ping",
        every=0.5,
    )


@pytest.fixture(autouse=True)
def _no_production_problems(stack):
    """Each test fails on what went wrong in the stack while it ran, and the first one on what
    went wrong while it started (``Stack.problems``)."""
    yield
    found = stack.problems()
    assert not found, (
        f"the production stack reported problems (its logs: {stack.log_dir}):\n" + "\n".join(found)
    )


class BrowserProblems:
    """Console errors, CSP violations, uncaught page errors and 5xx answers, from every page."""

    def __init__(self):
        self.problems: list[str] = []

    def attach(self, page, label: str):
        def on_console(message):
            if message.type == "error" or "Content Security Policy" in message.text:
                self.problems.append(f"{label} console {message.type}: {message.text}")

        def on_response(response):
            if response.status >= 500:
                self.problems.append(f"{label}: {response.status} from {response.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.problems.append(f"{label} pageerror: {error}"))
        page.on("response", on_response)
        return page


@pytest.fixture
def browser_problems():
    problems = BrowserProblems()
    yield problems
    assert problems.problems == [], "\n".join(problems.problems)


@pytest.fixture
def new_page(browser, browser_problems):
    """``new_page(label, **context_options)``: a page in a browser context of its own (a person
    on their own device), watched by ``browser_problems``."""
    contexts = []

    def make(label, **context_options):
        context = browser.new_context(**context_options)
        context.set_default_timeout(20_000)
        contexts.append(context)
        return browser_problems.attach(context.new_page(), label)

    yield make
    for context in contexts:
        context.close()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "after_the_rest: runs after the suite's other tests (tests/production)"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Tests that wait for the stack's clock (beat's minute) run last, when most of the wait
    has passed during the others (a stable sort keeps the rest in order)."""
    items.sort(key=lambda item: item.get_closest_marker("after_the_rest") is not None)
