"""Every line production writes is one JSON object (issue 34): gunicorn's and uvicorn's own lines
too (access and errors), which their parent processes write before Django's LOGGING exists, and
beat keeps its schedule file under the run folder, never in the folder it was started from.

Each server is started as the README says, in production mode, on a free loopback port; it answers
one request, is stopped, and every line it wrote is parsed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.collected_static import collected_static
from tests.web.test_settings_guard import ROOT, production_env

pytestmark = pytest.mark.slow  # starts servers and Django in them


@pytest.fixture(scope="module")
def static_root(tmp_path_factory) -> str:
    """Production serves collected files: the offline page links them by their hashed names."""
    return str(collected_static(tmp_path_factory))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def environment(**overrides) -> dict:
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        production_env(
            DATABASE_URL=database,
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
            DJANGO_SECURE_SSL_REDIRECT="0",
            SITE_URL="http://127.0.0.1:8000",
            **overrides,
        )
    )
    return env


def serve_once(command: list[str], port: int, tmp_path: Path, static_root: str) -> list[dict]:
    """Start a server, ask it for the offline page once it listens, stop it; its lines, parsed."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    env = environment(DJANGO_STATIC_ROOT=static_root)
    with out.open("w") as stdout, err.open("w") as stderr:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    url = f"http://127.0.0.1:{port}/offline/"
                    with urllib.request.urlopen(url, timeout=10) as r:
                        assert r.status == 200
                    break
                except urllib.error.HTTPError as error:
                    pytest.fail(f"the server answered {error.code}")
                except OSError:
                    assert server.poll() is None, err.read_text()
                    assert time.monotonic() < deadline, err.read_text()
                    time.sleep(0.2)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    assert out.read_text() == ""  # nothing on stdout: every line is a log record, on stderr
    lines = err.read_text().splitlines()
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}\n" + "\n".join(lines))
    for record in records:
        assert {"time", "level", "logger", "message"} <= set(record), record
        assert record["level"] not in ("ERROR", "CRITICAL"), record
    return records


def loggers(records: list[dict]) -> set[str]:
    return {record["logger"] for record in records}


def test_gunicorn_writes_json_lines(tmp_path, static_root):
    port = free_port()
    command = [
        *(sys.executable, "-m", "gunicorn", "--config", "python:saboteur_site.gunicorn_conf"),
        *("saboteur_site.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"),
    ]
    records = serve_once(command, port, tmp_path, static_root)
    assert {"gunicorn.error", "gunicorn.access", "saboteur.request"} <= loggers(records)
    assert any("Booting worker" in record["message"] for record in records)


def test_uvicorn_writes_json_lines_for_access_and_errors(tmp_path, static_root):
    port = free_port()
    command = [
        *(sys.executable, "-m", "uvicorn", "saboteur_site.asgi:application"),
        *("--host", "127.0.0.1", "--port", str(port), "--workers", "2"),
        *("--log-config", "saboteur_site/uvicorn_logging.json", "--timeout-graceful-shutdown", "5"),
    ]
    records = serve_once(command, port, tmp_path, static_root)
    assert {"uvicorn.error", "uvicorn.access", "saboteur.request"} <= loggers(records)


def test_the_servers_lines_have_the_sites_json_format():
    from django.conf import settings

    servers = json.loads((ROOT / "saboteur_site" / "uvicorn_logging.json").read_text())
    assert servers["formatters"]["json"] == settings.LOGGING["formatters"]["json"]


def test_beat_keeps_its_schedule_under_the_run_folder_not_where_it_started(tmp_path):
    """On one machine without Redis (`make run`) beat keeps its schedule in a file; with Redis
    the schedule lives there (RedBeat, tests/tasks/test_two_beats.py) and beat writes no file."""
    started_in, schedule = tmp_path / "cwd", tmp_path / "run" / "not-yet" / "beat-schedule"
    started_in.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "REDIS_", "CEL"))}
    env.update(
        DJANGO_ENV="development",
        DJANGO_LOG_FORMAT="json",
        PYTHONPATH=str(ROOT),
        CELERY_BROKER_URL="filesystem://",
        CELERY_BROKER_DIR=str(tmp_path / "broker"),
        CELERY_BEAT_SCHEDULE_FILE=str(schedule),
    )
    err = tmp_path / "stderr"
    with err.open("w") as stderr:
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "saboteur_site", "--quiet", "beat"],
            cwd=started_in,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            deadline = time.monotonic() + 60
            while not list(schedule.parent.glob("beat-schedule*")):
                assert beat.poll() is None, err.read_text()
                assert time.monotonic() < deadline, err.read_text()
                time.sleep(0.2)
        finally:
            beat.send_signal(signal.SIGTERM)
            beat.wait(timeout=30)
    assert list(started_in.iterdir()) == []
    for line in err.read_text().splitlines():
        json.loads(line)  # beat's lines are JSON too
