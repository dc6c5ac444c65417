"""Shared parts of the web benchmarks (``bench/web.py``, ``bench/load.py``); not a test.

A dedicated PostgreSQL database (``saboteur_bench``, emptied on every run) and Redis database 14,
gunicorn on a free loopback port, sessions made directly in the database, and a small HTTP client
on ``http.client`` (one keep-alive connection per thread; only 127.0.0.1 is ever contacted).
"""

from __future__ import annotations

import http.client
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/saboteur_bench"
)
ENV = {
    "DJANGO_ENV": "development",
    "DJANGO_DEBUG": "0",
    "DATABASE_URL": DATABASE_URL,
    "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    "DJANGO_SETTINGS_MODULE": "bench.bench_settings",
    # 4xx answers are part of the load (stale versions); 5xx tracebacks still show.
    "DJANGO_LOG_LEVEL": "ERROR",
    # Keep the mail and broker files of a run out of the developer's .run/.
    "EMAIL_FILE_PATH": "/tmp/saboteur-bench-mail",  # noqa: S108
    "CELERY_BROKER_DIR": "/tmp/saboteur-bench-broker",  # noqa: S108
}
CSRF_TOKEN = secrets.token_hex(16)  # 32 characters: a valid unmasked CSRF secret
PASSWORD = "bench-password-not-secret"  # noqa: S105


def setup_django() -> None:
    """Point this process at the bench database, create and migrate it, and empty it."""
    os.environ.update(ENV)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _create_database()
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("createcachetable", verbosity=0)  # the cache's table when there is no Redis
    call_command("flush", verbosity=0, interactive=False)
    cache.clear()


def _create_database() -> None:
    with postgres() as conn:
        name = database_name(DATABASE_URL)
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        if not conn.execute(query, [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def database_name(url: str) -> str:
    import dj_database_url

    return dj_database_url.parse(url)["NAME"]


def postgres(dbname: str = "postgres"):
    """A psycopg connection (autocommit) to ``dbname`` on the bench database's server, for what
    Django cannot do on its own database (create or copy it) or does not need to set up for."""
    import dj_database_url
    import psycopg

    db = dj_database_url.parse(DATABASE_URL)
    params = {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "dbname": dbname}
    params["user"] = db["USER"] or "postgres"
    if db["PASSWORD"]:
        params["password"] = db["PASSWORD"]
    return psycopg.connect(**params, autocommit=True)


def make_user(name: str):
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username=name, email=f"{name}@bench.invalid", display_name=name.capitalize(),
        password=PASSWORD,
    )  # fmt: skip
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def session_cookie(user) -> str:
    """A logged-in session made directly in the database (no login form, no rate limit)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn(
    *, worker_class: str = "gthread", workers: int = 2, threads: int = 4,
    site: Path = ROOT, database_url: str | None = None, app_name: str | None = None,
    extra_env: dict | None = None,
):  # fmt: skip
    """Run gunicorn on a free loopback port; always stopped on the way out, even on error.

    ``site``: the checkout whose code it serves (``bench/web.py --compare`` serves a git
    worktree of each commit, with this checkout's .venv); ``app_name``: how its PostgreSQL
    backends are found (``Server.cpu``), one per server when several run at once."""
    port = free_port()
    app_name = app_name or SERVER_APP_NAME
    database_url = database_url or DATABASE_URL
    command = [
        str(ROOT / ".venv" / "bin" / "gunicorn"),
        "saboteur_site.wsgi:application",
        "--chdir", str(site),
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers),
        "--worker-class", worker_class,
        "--log-level", "warning",
        "--timeout", "60",
        "--backlog", "256",
    ]  # fmt: skip
    if worker_class == "gthread":
        command += ["--threads", str(threads), "--keep-alive", "30"]
    # The application name lets Server.cpu find the workers' PostgreSQL backends.
    separator = "&" if "?" in database_url else "?"
    env = {
        **os.environ,
        **ENV,
        **(extra_env or {}),
        "DATABASE_URL": f"{database_url}{separator}application_name={app_name}",
    }
    process = subprocess.Popen(command, cwd=site, env=env, start_new_session=True)  # noqa: S603
    try:
        _wait_until_up(port, process)
        yield Server(port, process.pid, app_name=app_name)
    finally:
        _stop(process)


SERVER_APP_NAME = "saboteur-bench-server"


@contextmanager
def uvicorn(*, workers: int = 1, extra_env: dict | None = None):
    """Run uvicorn (the site under ASGI, as production serves the live streams) on a free
    loopback port; always stopped on the way out, even on error."""
    port = free_port()
    command = [
        str(ROOT / ".venv" / "bin" / "uvicorn"),
        "saboteur_site.asgi:application",
        "--app-dir", str(ROOT),
        "--host", "127.0.0.1",
        "--port", str(port),
        "--workers", str(workers),
        "--log-level", "warning",
        "--timeout-graceful-shutdown", "2",
        "--backlog", "1024",
    ]  # fmt: skip
    separator = "&" if "?" in DATABASE_URL else "?"
    env = {
        **os.environ,
        **ENV,
        **(extra_env or {}),
        "DATABASE_URL": f"{DATABASE_URL}{separator}application_name={SERVER_APP_NAME}",
    }
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)  # noqa: S603
    try:
        _wait_until_up(port, process)
        yield Server(port, process.pid, include_self=workers == 1)
    finally:
        _stop(process)


class Server:
    def __init__(
        self, port: int, pid: int, *, include_self: bool = False, app_name: str = SERVER_APP_NAME
    ):
        self.port, self.pid, self.app_name = port, pid, app_name
        self.include_self = include_self  # a single-process server (uvicorn --workers 1)

    def processes(self) -> list[int]:
        pids = [pid for pid in _all_pids() if _parent(pid) == self.pid]
        return [self.pid, *pids] if self.include_self else pids

    def cpu(self) -> dict[int, float]:
        """CPU seconds used so far by each server process and each of their database backends.

        The machine may be shared, so requests per second move with other load; CPU time per
        request does much less."""
        pids = self.processes() + self.database_backends()
        return {pid: _cpu_seconds(pid) for pid in pids}

    def database_backends(self) -> list[int]:
        with postgres() as conn:  # not Django's: bench/web.py --compare does not set it up
            query = "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
            return [row[0] for row in conn.execute(query, [self.app_name]).fetchall()]

    def status(self, field: str) -> int:
        """A number from /proc/<pid>/status summed over the server processes (VmRSS in kB,
        Threads)."""
        total = 0
        for pid in self.processes():
            for line in _read(f"/proc/{pid}/status").splitlines():
                if line.startswith(f"{field}:"):
                    total += int(line.split()[1])
        return total


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def _read(path: str) -> str:
    try:
        with open(path) as file:
            return file.read()
    except OSError:
        return ""


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _parent(pid: int) -> int | None:
    stat = _read(f"/proc/{pid}/stat")
    return int(stat.rsplit(")", 1)[1].split()[1]) if stat else None


def _cpu_seconds(pid: int) -> float:
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_until_up(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with code {process.returncode}")
        try:
            status, _, _ = Http(port).request("GET", "/bare/")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within 30 s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # graceful: the master stops its workers
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # our own session: the master and its workers
        process.wait(timeout=5)


class Http:
    """One keep-alive connection to 127.0.0.1 (reopened when the server closes it)."""

    def __init__(self, port: int, session: str | None = None):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        cookies = [f"csrftoken={CSRF_TOKEN}"]
        if session:
            cookies.append(f"sessionid={session}")
        self.headers = {"Cookie": "; ".join(cookies)}

    def request(self, method: str, path: str, *, fields=None, htmx: bool = False):
        headers = dict(self.headers)
        body = None
        if htmx:
            headers["HX-Request"] = "true"
        if method == "POST":
            headers["X-CSRFToken"] = CSRF_TOKEN
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(fields or {}, doseq=True)
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                if response.will_close:
                    self.conn.close()
                return response.status, response, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server had already closed: nothing was processed
                # only if we never got a response, so retry once on a fresh connection.
                self.conn.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


def move_fields(move: dict, hand: list[str]) -> dict:
    """An engine move as the form fields the move view reads (discards as sorted-hand indexes)."""
    fields = {"kind": move["move"]}
    for key in ("card", "target", "tool", "goal", "remove"):
        if move.get(key) is not None:
            fields[key] = move[key]
    if move.get("at") is not None:
        fields["at"] = f"{move['at'][0]},{move['at'][1]}"
    if move.get("turned"):
        fields["turned"] = "on"
    if "value" in move:
        fields["value"] = move["value"]
    if move["move"] == "steal":
        fields["victim"] = move["victim"] or ""
    if "discard" in move:
        sorted_hand, used = sorted(hand), set()
        indexes = []
        for card in move["discard"]:
            index = next(i for i, c in enumerate(sorted_hand) if c == card and i not in used)
            used.add(index)
            indexes.append(str(index))
        fields["discard"] = indexes
    return fields
