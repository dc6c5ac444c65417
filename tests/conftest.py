"""Settings shared by every test run.

Passwords: the production hasher (Django's PBKDF2 default) is deliberately slow; hashing with it
took about two thirds of the suite's time. Tests hash with MD5 instead; one test in
tests/web/test_settings_guard.py checks that the site itself still uses the slow one.
"""

import copy
import os
import secrets
import threading

import hypothesis
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import IntegrityError, connections, transaction
from django.test import TransactionTestCase
from django.test.utils import override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from saboteur_site.celery import app as celery_app
from tests.redis_space import RUN_PREFIX, RUN_QUEUE, clear_run_cache, forget_queue, redis_url

# Each failure named as it happens, not only in the final summary (tests/failures_at_once.py).
pytest_plugins = ["tests.failures_at_once"]

FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Hypothesis profiles: how many examples each property test tries (the tests' own @settings set
# only deadlines, phases and health checks). HYPOTHESIS_PROFILE picks one: `dev` (the default of a
# bare pytest run: quick, random, failures kept in .hypothesis/ and tried first next time), `ci`
# (`make test`, and the default where Hypothesis detects a CI service: the same examples every
# run, derandomized, no database, a blob to reproduce a failure) and `thorough` (five times ci's
# examples, random: `HYPOTHESIS_PROFILE=thorough make test`, before a release or after touching
# the engine). A test that needs more or fewer examples than the others asks for a multiple of
# the profile's count (scaled_examples), so every profile moves it in step.
HYPOTHESIS_PROFILE_ENV = "HYPOTHESIS_PROFILE"
HYPOTHESIS_EXAMPLES = {"dev": 10, "ci": 30, "thorough": 150}
# dev and thorough start from Hypothesis's plain defaults, not from the settings current at import:
# where Hypothesis detects a CI service those are its ci profile (derandomized, no database).
hypothesis.settings.register_profile(
    "dev", hypothesis.settings.get_profile("default"), max_examples=HYPOTHESIS_EXAMPLES["dev"]
)
hypothesis.settings.register_profile(
    "ci",
    # Hypothesis's own ci profile: derandomize, database=None, print_blob, deadline=None, too_slow.
    hypothesis.settings.get_profile("ci"),
    max_examples=HYPOTHESIS_EXAMPLES["ci"],
)
hypothesis.settings.register_profile(
    "thorough",
    hypothesis.settings.get_profile("default"),
    max_examples=HYPOTHESIS_EXAMPLES["thorough"],
    print_blob=True,
)


def hypothesis_profile(environ=os.environ) -> str:
    """The profile this run uses: HYPOTHESIS_PROFILE, else ci where Hypothesis found a CI service
    (it has loaded its ci profile on import), else dev."""
    name = environ.get(HYPOTHESIS_PROFILE_ENV, "").strip()
    if not name:
        return "ci" if hypothesis.settings.get_current_profile_name() == "ci" else "dev"
    if name not in HYPOTHESIS_EXAMPLES:
        raise pytest.UsageError(
            f"{HYPOTHESIS_PROFILE_ENV}={name!r}: choose one of {', '.join(HYPOTHESIS_EXAMPLES)}"
        )
    return name


# Loaded before any test module is imported: @settings(...) and scaled_examples read it then.
hypothesis.settings.load_profile(hypothesis_profile())


def scaled_examples(factor: float) -> int:
    """The active profile's max_examples times ``factor`` (at least one)."""
    return max(1, round(hypothesis.settings.default.max_examples * factor))


def pytest_report_header(config):
    active = hypothesis.settings.default
    return (
        f"hypothesis profile {hypothesis.settings.get_current_profile_name()!r} "
        f"({HYPOTHESIS_PROFILE_ENV}): max_examples={active.max_examples}, "
        f"derandomize={active.derandomize}"
    )


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        yield


# Django's own teardown of a test with ``transaction=True`` (QuickFlush below stands in for it).
DJANGO_FLUSH = TransactionTestCase._fixture_teardown


class QuickFlush:
    """What a test with ``transaction=True`` (or ``live_server``) leaves behind is emptied by
    Django's ``flush``: TRUNCATE of every table, then the post_migrate signal, which makes the
    content types and permissions again; about half a second a test, mostly post_migrate's. The
    state after it: every table empty but those two, which hold the rows post_migrate made.

    The same state, quicker: the first flush of a database is Django's own, and the two tables'
    rows after it are kept; every later one deletes every other table's rows in one transaction
    (PostgreSQL checks Django's foreign keys at the commit) and compares the two tables with the
    rows kept: equal (the test added or changed no content type or permission), done; else
    Django's flush, whose rows are kept in turn."""

    KEPT_TABLES = ("django_content_type", "auth_permission")
    ROWS = (
        "SELECT id, app_label, model FROM django_content_type ORDER BY id",
        "SELECT id, content_type_id, codename, name FROM auth_permission ORDER BY id",
    )

    def __init__(self):
        self.kept: dict[str, list] = {}  # database alias: the two tables' rows after a flush

    def rows(self, connection) -> list:
        with connection.cursor() as cursor:
            found = []
            for query in self.ROWS:
                cursor.execute(query)
                found.append(cursor.fetchall())
            return found

    def teardown(self, case: TransactionTestCase) -> None:
        if case.available_apps is not None or case.serialized_rollback:
            self.kept.clear()  # flushes of another kind: Django's own, as they are
            DJANGO_FLUSH(case)
            return
        for name in case._databases_names(include_mirrors=False):
            if not self.emptied(name):
                # Django's teardown, as it calls it for a test without available_apps.
                call_command(
                    "flush", verbosity=0, interactive=False, database=name, reset_sequences=False
                )
                self.kept[name] = self.rows(connections[name])

    def emptied(self, name: str) -> bool:
        """Every table but the kept two emptied, and those two as the last flush left them."""
        connection = connections[name]
        if name not in self.kept or connection.vendor != "postgresql":
            return False
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )  # the tables flush empties
        deletes = "; ".join(
            f"DELETE FROM {connection.ops.quote_name(table)}"  # noqa: S608 - Django's names
            for table in sorted(tables)
            if table not in self.KEPT_TABLES
        )
        try:
            with transaction.atomic(using=name), connection.cursor() as cursor:
                cursor.execute(deletes)
        except IntegrityError:
            return False  # a foreign key checked at once, not at the commit: Django's flush
        return self.rows(connection) == self.kept[name]


@pytest.fixture(autouse=True, scope="session")
def _quick_flush():
    flush = QuickFlush()
    with pytest.MonkeyPatch.context() as patch:
        # A function, not the bound method: called on the test case, it is given the case.
        patch.setattr(TransactionTestCase, "_fixture_teardown", lambda case: flush.teardown(case))
        yield


# WhiteNoise's own listing of the static files the finders know (StaticFilesListing below).
WHITENOISE_LISTING = WhiteNoiseMiddleware.add_files_from_finders


class StaticFilesListing:
    """Every test client builds the middleware chain at its first request (Django's test
    ``Client`` has a handler of its own), and WhiteNoise's middleware then lists and stats every
    static file the finders know (ours, the admin's, htmx's, the API docs'): 14 ms of CPU a
    client, and a run makes about 2,500 clients. A server process does it once. Here the listing
    is made once per process for the settings it depends on; a test that changes them (another
    STATIC_ROOT does not count: WhiteNoise reads that folder itself, every time) gets a listing
    of its own. The files the listing holds (headers, sizes, compressed variants) are WhiteNoise's
    own ``StaticFile`` objects, only read."""

    def __init__(self):
        self.kept: dict[str, dict] = {}  # settings as repr: the files the finders added

    @staticmethod
    def key(middleware) -> str:
        names = ("STATIC_URL", "STATICFILES_DIRS", "STATICFILES_FINDERS", "INSTALLED_APPS")
        names += tuple(name for name in dir(settings) if name.startswith("WHITENOISE_"))
        return repr([middleware.static_prefix, [(n, getattr(settings, n)) for n in names]])

    def add_files_from_finders(self, middleware) -> None:
        key = self.key(middleware)
        if key not in self.kept:
            before = dict(middleware.files)
            WHITENOISE_LISTING(middleware)
            files = middleware.files.items()
            self.kept[key] = {url: file for url, file in files if before.get(url) is not file}
        middleware.files.update(self.kept[key])


@pytest.fixture(autouse=True, scope="session")
def _static_files_listed_once():
    listing = StaticFilesListing()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            WhiteNoiseMiddleware,
            "add_files_from_finders",
            lambda middleware: listing.add_files_from_finders(middleware),
        )
        yield


def pytest_collection_modifyitems(items):
    """The slow tests first, shared among the processes (`make test`): a long one left for last
    would keep one process busy after the others end.

    pytest-xdist's worksteal hands each process a run of the list at the start (the first
    process the first len // n tests, the next a run of the rest, ...), then moves tests from the
    end of a busy process's run to an idle one. A list that simply began with every slow test
    gave them all to the first process, one after the other; here each run begins with its share
    of them (round robin), the other tests after them in their order."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    rest = [item for item in items if item.get_closest_marker("slow") is None]
    processes = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    ordered, left = [], len(items)
    for run in range(processes):
        size = left // (processes - run)  # as worksteal counts the run it sends
        share = slow[run::processes]
        ordered += share + rest[: max(0, size - len(share))]
        rest = rest[max(0, size - len(share)) :]
        left -= size
    items[:] = ordered + rest


# Processes the tests start (Celery workers, manage.py) use this run's part of Redis too.
os.environ["CACHE_KEY_PREFIX"] = RUN_PREFIX
os.environ["CELERY_QUEUE"] = RUN_QUEUE


@pytest.fixture(autouse=True, scope="session")
def _run_redis_space():
    """This test run's cache keys carry its own prefix and the tasks it starts go to its own
    queue (tests/redis_space.py); at the end the run deletes those keys, and only them."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = RUN_PREFIX
    with override_settings(CACHES=caches, CELERY_TASK_DEFAULT_QUEUE=RUN_QUEUE):
        saved = celery_app.conf.task_default_queue
        celery_app.conf.task_default_queue = RUN_QUEUE
        celery_app.__dict__.pop("amqp", None)  # its queues are built from the setting above
        try:
            yield
        finally:
            celery_app.conf.task_default_queue = saved
            celery_app.__dict__.pop("amqp", None)
            clear_run_cache()
            if settings.CELERY_BROKER_URL.startswith("redis"):
                forget_queue(redis_url(), RUN_QUEUE)


@pytest.fixture(autouse=True, scope="session")
def _own_live_channel():
    """Redis pub/sub ignores database numbers: each test run gets live channels of its own, so
    that runs sharing a Redis never hear each other's games (tests/web/test_live.py passes it to
    the servers it starts)."""
    with override_settings(LIVE_CHANNEL=f"saboteur:test-live:{secrets.token_hex(6)}"):
        yield


@pytest.fixture(autouse=True)
def _fresh_local_cache():
    # The per-process cache (lobby markup, the games-to-watch list) starts empty in every test.
    from django.core.cache import caches

    caches["local"].clear()
    yield


@pytest.fixture(autouse=True)
def _no_live_hub_left():
    """A test that served live streams (a live server's pages) leaves no hub thread behind to
    query a database the next test has flushed, or that is dropped at the end.

    The hub's thread waits for a Redis message up to a second before it looks whether it must
    stop: while stop_hub waits for it, a message about a game that does not exist (pk 0, which
    no stream listens to) wakes it at once (half a second a test saved, a tenth of the browser
    tests' time)."""
    yield
    if not any(thread.name == "live-hub" for thread in threading.enumerate()):
        return
    from games.read import live

    stopping = threading.Thread(target=live.stop_hub, name="stop-live-hub")
    stopping.start()
    while stopping.is_alive():
        live.publish(0, 0)
        stopping.join(0.02)


@pytest.fixture(autouse=True)
def _one_shot_live_streams(request):
    """Django's test client reads a whole response: under it a game's live stream answers its
    first event and ends (LIVE_STREAM_SECONDS=0), so that tests walking every route finish.
    Tests with a real server (``live_server``) and tests/web/test_live.py keep real streams."""
    if "live_server" in request.fixturenames or request.node.get_closest_marker("real_streams"):
        yield
        return
    with override_settings(LIVE_STREAM_SECONDS=0):
        yield
