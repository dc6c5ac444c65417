"""The minute sweep on SQLite, as `make run` runs it (issue 22, point 1).

A player who ticks "one daily summary" used to make every sweep fail on SQLite (the digest was
PostgreSQL-only SQL), and since the digests ran before the sending, no reminder went out any
more. The run happens in a process of its own on a fresh SQLite file, configured like
``scripts/run.sh`` (no Redis: the filesystem broker).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_mode_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update(
        DJANGO_ENV="development",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="",
        CELERY_BROKER_DIR=str(tmp_path / "broker"),
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
    )
    return env


def run(args, env):
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow  # started first (tests/conftest.py)
def test_digests_reminders_and_sending_all_work_in_the_sweep_on_sqlite(tmp_path):
    env = run_mode_env(tmp_path)
    run(["manage.py", "migrate", "--noinput", "-v0"], env)
    run(["manage.py", "createcachetable"], env)
    out = run([str(ROOT / "tests/tasks/sqlite_sweep_days.py")], env)
    days = json.loads(out.strip().splitlines()[-1])
    assert days["vendor"] == "sqlite"
    assert all("failed" not in report for report in days["reports"]), days["reports"]
    mover = days["mover"]
    # Monday's digests (written by the first sweep, after 08:00) and Tuesday's: the game
    # awaits the mover only.
    digests = sorted(n[1:] for n in days["notices"] if n[0] == "digest")
    others = sorted({n[0] for n in digests} - {mover})
    expected = [[mover, "sent", ""]] * 2 + [[o, "skipped", "nothing awaiting"] for o in others] * 2
    assert digests == sorted(expected)
    mails = days["mails"]
    assert mails.count([mover, "It is your turn in 1 game"]) == 2
    assert [mover, "Reminder: it is your turn in Deep mine"] in mails
    assert [r["timeouts"] > 0 for r in days["reports"]] == [False, True, True]  # the short game
    assert days["short"] > 0
    # The open pages' poll (SQL of its own): the player's and a watcher's view, no such game.
    assert days["polls"] == [[days["revision"], False], [days["revision"], True], None]
    # Through the site: unchanged, 204 after two queries (the session, kept in the database in
    # run mode, then the user with the game; through the view, the user and the game were two);
    # changed, the watchers' part.
    assert days["asked"] == [204, 2, 200]
