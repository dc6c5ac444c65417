"""The static files as production serves them (``collectstatic`` in production mode: hashed
names, every file compressed), collected once per test run and shared by its processes.

Collecting compresses every file (gzip and Brotli) and takes about half a minute of a core; the
tests that need the collected files (tests/web/test_production_static.py, test_server_logs.py)
only read them, so the first process to ask collects and the others wait for it and read the same
folder."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

from tests.web.test_settings_guard import production_env, run_manage


def collected_static(tmp_path_factory) -> Path:
    """The folder ``collectstatic`` filled in production mode (its STATIC_ROOT)."""
    base = tmp_path_factory.getbasetemp()
    # Under pytest-xdist each process has a folder of its own inside the run's: share the run's.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root, done = shared / "staticfiles-production", shared / "staticfiles-production.done"
    with (shared / "staticfiles-production.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)
            database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
            env = production_env(DATABASE_URL=database, DJANGO_STATIC_ROOT=str(root))
            collected = run_manage(["collectstatic", "--noinput"], **env)
            assert collected.returncode == 0, collected.stderr
            assert (root / "staticfiles.json").exists()  # the manifest storage's hashed names
            done.touch()
    return root
