"""runserver's access lines hide the secrets of paths (issue 36, point 10).

One-tap, unsubscribe, invitation, email confirmation and password reset links act without a
login: their token is in the path. The site's own request line and Django's request warnings hid
it (``saboteur_site.logs``); runserver's access log (logger ``django.server``, the lines of
``make run``) printed the whole URL. Its records carry the request line as text, with no
resolved request: the configured handler's filter resolves the path itself.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.web.test_settings_guard import ROOT, run_manage

SECRET = "s3cr3t-T0ken_value"
SECRET_PATHS = [
    f"/tap/{SECRET}/",
    f"/tap/{SECRET}",  # before APPEND_SLASH's redirect
    f"/unsubscribe/{SECRET}/",
    f"/invite/{SECRET}/",
    f"/invite/{SECRET}/join/",
    f"/accounts/confirm-email/{SECRET}/",
    f"/accounts/password/reset/key/4z-{SECRET}/",
    f"/tap/{SECRET}/?next=/games/",
    f"/accounts/login/?next=/invite/{SECRET}/",  # where a link leads once logged in
    f"/accounts/login/?x=1&next=%2Funsubscribe%2F{SECRET}%2F",
    "/tap/%C5%A1" + SECRET + "/",  # percent-encoded ("š")
]


def server_record(request_line: str, status: str = "200") -> logging.LogRecord:
    """A record as runserver's ``WSGIRequestHandler.log_message`` makes it."""
    record = logging.LogRecord(
        "django.server", logging.INFO, __file__, 0, '"%s" %s %s', (request_line, status, "42"), None
    )
    record.request = object()  # the handler's socket, not an HttpRequest
    record.server_time = "04/Dec/2026 09:00:00"
    return record


def configured_handlers() -> list[logging.Handler]:
    """The handlers the settings' LOGGING gives runserver's logger (pytest adds its own to
    every logger that does not propagate: those are left out)."""
    logger = logging.getLogger("django.server")
    configured = [h for h in logger.handlers if h.name]  # dictConfig names its handlers
    assert configured and not logger.propagate
    return configured


@pytest.mark.parametrize("path", SECRET_PATHS)
def test_runserver_lines_through_the_configured_handler_hide_the_token(path):
    for handler in configured_handlers():
        record = server_record(f"GET {path} HTTP/1.1")
        assert handler.filter(record)
        line = handler.format(record)
        assert SECRET not in line and "[hidden]" in line, line
        assert "HTTP/1.1" in line and line.rstrip().endswith("200 42")


def test_other_runserver_lines_are_left_as_they_are():
    handler = configured_handlers()[0]
    for line in (
        "GET /games/12/?v=3 HTTP/1.1",
        "POST /accounts/devices/ HTTP/1.1",
        "GET /no-such-page/x/ HTTP/1.1",
        "GET /static/css/site.css HTTP/1.1",
    ):
        record = server_record(line)
        handler.filter(record)
        assert record.getMessage() == f'"{line}" 200 42'


def test_a_malformed_request_line_is_hidden_too():
    """runserver's "code 400, message Bad request syntax ('GET /tap/<token>/ x y')"."""
    handler = configured_handlers()[0]
    record = logging.LogRecord(
        "django.server", logging.WARNING, __file__, 0, "code %d, message %s",
        (400, f"Bad request syntax ('GET /tap/{SECRET}/ HTTP/1.1 extra')"), None,
    )  # fmt: skip
    handler.filter(record)
    assert SECRET not in record.getMessage() and "/tap/[hidden]/" in record.getMessage()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (our own server)
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.slow  # migrates a database and starts runserver
def test_runserver_writes_no_token_to_its_log(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env |= {
        "DJANGO_ENV": "development",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "REDIS_URL": "",
        "CELERY_BROKER_DIR": str(tmp_path / "broker"),
    }
    for command in (["migrate", "--noinput"], ["createcachetable"]):
        assert run_manage(command, **env).returncode == 0
    port = free_port()
    stderr = tmp_path / "stderr.log"
    with stderr.open("w") as errors:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors,
        )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        for _attempt in range(600):  # until it serves (a minute at most), not a fixed wait
            try:
                fetch(f"{base}/health/")
                break
            except OSError:
                time.sleep(0.1)
        statuses = [fetch(base + path) for path in SECRET_PATHS[:4]]
    finally:
        server.terminate()
        server.wait(timeout=30)
    log = stderr.read_text()
    assert all(status < 500 for status in statuses), (statuses, log)
    lines = [line for line in log.splitlines() if "django.server" in line]
    assert any("/tap/[hidden]/" in line for line in lines), log
    assert SECRET not in log


@pytest.mark.django_db
def test_an_api_token_reaches_no_log_line_nor_email(caplog):
    """Issue 54: a personal access token is on the answer that made it, and nowhere else: not in
    the request lines of its making, its calls (good, refused, too fast), its revoking, nor any
    email."""
    import re

    from django.core import mail
    from django.test import Client

    from tests.players import create_player

    caplog.set_level(logging.DEBUG)
    client = Client()
    client.force_login(create_player("ann"))
    made = client.post("/accounts/tokens/", {"name": "t", "scopes": ["read", "play"]})
    text = re.search(r"sab_[A-Za-z0-9_-]{40,}", made.content.decode()).group(0)
    caller = Client(headers={"Authorization": f"Bearer {text}"})
    caller.get("/api/v1/account")
    caller.get(f"/api/v1/account?token={text[:4]}")
    caller.post("/api/v1/games/practice", b"{", content_type="application/json")
    Client(headers={"Authorization": f"Bearer {text}x"}).get("/api/v1/games")
    for _ in range(12):
        caller.post("/api/v1/games/practice", {"bots": 1}, content_type="application/json")
    token_id = re.search(r"/accounts/tokens/(\d+)/revoke/", client.get("/accounts/tokens/")
                         .content.decode()).group(1)  # fmt: skip
    client.post(f"/accounts/tokens/{token_id}/revoke/")
    caller.get("/api/v1/account")
    secret = text[12:]  # past the hint the list shows
    assert caplog.records
    for record in caplog.records:
        assert secret not in record.getMessage() and secret not in str(vars(record))
    for message in mail.outbox:
        assert secret not in message.body
