"""The test suite touches only its own keys in Redis (tests/redis_space.py): a site or another
test run using the same database keeps its data and its tasks, whatever the suite does."""

import ast
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import redis
from django.conf import settings
from django.core.cache import cache

from games.tasks import ping
from tests.redis_space import RUN_PREFIX, RUN_QUEUE, clear_run_cache

ROOT = Path(__file__).resolve().parents[1]


def test_cleaning_up_the_cache_leaves_everyone_elses_keys():
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    # What a site on the same database keeps (the site's default prefix), and anything else.
    theirs = [f"saboteur:1:someone-{uuid.uuid4().hex}", f"not-ours-{uuid.uuid4().hex}"]
    try:
        for key in theirs:
            client.set(key, "precious", ex=600)
        cache.set("ours", "scratch")
        assert clear_run_cache() >= 1
        assert cache.get("ours") is None
        assert [client.get(key) for key in theirs] == [b"precious", b"precious"]
    finally:
        client.delete(*theirs)
        client.close()


def test_the_cache_and_the_processes_tests_start_share_the_runs_prefix():
    assert settings.CACHES["default"]["KEY_PREFIX"] == RUN_PREFIX
    assert settings.CACHES["default"]["LOCATION"] == os.environ["REDIS_URL"]
    code = "from django.conf import settings; print(settings.CACHES['default']['KEY_PREFIX'])"
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == RUN_PREFIX


def test_tasks_the_tests_start_go_to_the_runs_queue_not_the_sites():
    # A site's workers on the same database take from "celery": a test's task (an email about
    # a notice id of the test database) must never reach them.
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        before = client.llen(RUN_QUEUE), client.llen("celery")
        ping.apply_async(ignore_result=True)
        assert (client.llen(RUN_QUEUE), client.llen("celery")) == (before[0] + 1, before[1])
    finally:
        client.close()
    code = "from django.conf import settings; print(settings.CELERY_TASK_DEFAULT_QUEUE)"
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split()[-1] == RUN_QUEUE, result.stderr


# Emptying a database, or choosing one other than REDIS_URL's.
FORBIDDEN = [
    re.compile(r"\.flush(db|all)\b", re.IGNORECASE),
    re.compile(r"\bcache\.clear\(\)"),  # Django's RedisCache.clear() is FLUSHDB
    # A URL with a database number on the shared Redis (the default port, or none); a Redis of
    # the test's own on another port, or a closed one, is not shared.
    re.compile(r"redis://[^\s\"'/:]+(?::6379)?/\d+"),
    re.compile(r"\bdb\s*=\s*\d+"),
    re.compile(r"_DB\s*=\s*\d+"),
]


def test_no_test_empties_a_database_or_picks_its_own():
    offending = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if any(pattern.search(line) for pattern in FORBIDDEN):
                offending.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offending == []


def test_no_test_makes_its_celery_app_the_current_one():
    """A ``Celery(...)`` made in a test becomes the current app unless told otherwise, and the
    site's shared tasks then go through it for the rest of the run: to its broker and to the
    "celery" queue, where a site's workers would take them."""
    offending = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Celery":
                keywords = {k.arg: k.value for k in node.keywords}
                value = keywords.get("set_as_current")
                if not (isinstance(value, ast.Constant) and value.value is False):
                    offending.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offending == []
