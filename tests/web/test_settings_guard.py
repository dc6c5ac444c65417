"""Start-up configuration: what the settings make of an environment, and how each entry point
(``manage.py``, Celery, gunicorn) refuses one it will not start with.

What the settings read from the environment and what they refuse is checked in this process
(``settings_for``: the settings module run anew under the given environment, as a fresh process
would run it); how a refusal reaches the terminal, and what needs Django set up with those
settings, in fresh processes (``run_manage``): each costs a Django start, about a second of CPU.
"""

import os
import re
import runpy
import secrets
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from saboteur_site.startup import Refused, one_line

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "saboteur_site" / "settings.py"


def fresh_environment(**env_overrides) -> dict[str, str]:
    """This process's environment without its ``DJANGO_`` variables, with ``env_overrides``
    (None removes a variable): what a fresh process of these tests starts with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(env_overrides)
    return {k: v for k, v in env.items() if v is not None}


def run_manage(args, **env_overrides):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=fresh_environment(**env_overrides),
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_for(**env_overrides) -> dict:
    """The settings a fresh process started with ``env_overrides`` would have
    (``fresh_environment``, as ``run_manage`` gives): ``saboteur_site/settings.py`` run anew in
    a namespace of its own. Raises ``Refused`` as the module does at a process's start."""
    with mock.patch.dict(os.environ, fresh_environment(**env_overrides), clear=True):
        return runpy.run_path(str(SETTINGS), run_name="settings_for")


def refused_lines(**env_overrides) -> list[str]:
    """The lines an entry point prints for the refusal of these settings (``one_line``)."""
    with pytest.raises(Refused) as refused:
        settings_for(**env_overrides)
    return one_line(refused.value).splitlines()


def production_env(**overrides):
    env = {
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "saboteur.example",
        "DATABASE_URL": os.environ["DATABASE_URL"],
        "REDIS_URL": os.environ["REDIS_URL"],
        "SITE_URL": "https://saboteur.example",
    }
    env.update(overrides)
    return env


def test_check_deploy_passes_with_production_variables():
    result = run_manage(["check", "--deploy", "--fail-level", "WARNING"], **production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def one_line_refusal(result) -> str:
    """The refusal's message: exit status 1 and exactly one line on stderr, no traceback."""
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def refusal_lines(result) -> list[str]:
    """Every line of a refusal: exit status 1, each line on stderr an ``error: ``, no traceback."""
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith("error: ") for line in lines), result.stderr
    return lines


def test_production_names_every_missing_variable_at_once_a_line_each():
    env = production_env(
        DJANGO_SECRET_KEY=None,
        DJANGO_ALLOWED_HOSTS=None,
        DATABASE_URL=None,
        REDIS_URL=None,
        SITE_URL=None,
    )
    lines = refusal_lines(run_manage(["check"], **env))
    assert [line.split(" is not set.")[0] for line in lines] == [
        "error: DJANGO_SECRET_KEY",
        "error: DJANGO_ALLOWED_HOSTS",
        "error: DATABASE_URL",
        "error: REDIS_URL",
        "error: SITE_URL",
    ]
    assert sum("DJANGO_ENV is 'production'" in line for line in lines) == 1  # said once


def test_missing_and_wrong_variables_are_refused_together():
    env = production_env(
        DJANGO_SECRET_KEY=None,
        DJANGO_HSTS_SECONDS="a year",
        DJANGO_BEHIND_TLS_PROXY="maybe",
        DJANGO_LOG_FORMAT="xml",
        VAPID_SUBJECT="https://saboteur.example:8443",
    )
    lines = refused_lines(**env)
    assert len(lines) == 5, lines
    for expected in (
        "DJANGO_SECRET_KEY is not set",
        "DJANGO_HSTS_SECONDS must be an integer; got 'a year'",
        "DJANGO_BEHIND_TLS_PROXY must be one of 1/0",
        "DJANGO_LOG_FORMAT must be 'json' or 'text'; got 'xml'",
        "VAPID_SUBJECT is refused by the push library",
    ):
        assert any(expected in line for line in lines), (expected, lines)


@pytest.mark.parametrize("database", ["sqlite:///tmp/site.sqlite3", "mysql://u:secret@db/site"])
def test_production_refuses_a_database_other_than_postgresql(database):
    [line] = refused_lines(**production_env(DATABASE_URL=database))
    assert "DATABASE_URL must be a PostgreSQL address in production" in line
    assert "secret" not in line  # the address's password is never printed


@pytest.mark.parametrize(
    "subject",
    ["http://saboteur.example", "https://saboteur.example:8443", "https://saboteur.example/x",
     "webmaster@saboteur.example", "mailto:nobody"],
)  # fmt: skip
def test_production_refuses_a_vapid_subject_push_services_refuse(subject):
    [line] = refused_lines(**production_env(VAPID_SUBJECT=subject))
    assert line.startswith("error: VAPID_SUBJECT ") and repr(subject) in line


@pytest.mark.parametrize(
    ("site_url", "sender", "subject"),
    [
        # A port: the site cannot be the subject (py_vapid refuses it), the sender's address is.
        ("https://saboteur.example:8443", "Saboteur <play@saboteur.example>",
         "mailto:play@saboteur.example"),
        ("http://127.0.0.1:8000", "", "mailto:noreply@localhost"),
        # A local sender on a public https site: the site is the better contact.
        ("https://saboteur.example", "Saboteur <noreply@localhost>", "https://saboteur.example"),
        ("https://saboteur.example", "play@saboteur.example", "mailto:play@saboteur.example"),
    ],
)  # fmt: skip
def test_the_default_vapid_subject_is_one_push_services_take(site_url, sender, subject):
    env = production_env(SITE_URL=site_url, DEFAULT_FROM_EMAIL=sender or None)
    env["DJANGO_SECURE_SSL_REDIRECT"] = "0"
    assert settings_for(**env)["VAPID_SUBJECT"] == subject
    from saboteur_site.vapid import subject_problem

    assert subject_problem(subject) is None


def test_check_deploy_warns_about_a_local_push_subject():
    from saboteur_site import vapid

    key, _public = vapid.generate()
    env = production_env(VAPID_PRIVATE_KEY=key, VAPID_SUBJECT="mailto:webmaster@localhost")
    result = run_manage(["check", "--deploy", "--fail-level", "WARNING"], **env)
    assert result.returncode == 1
    assert "saboteur.W001" in result.stderr + result.stdout
    env = production_env(VAPID_PRIVATE_KEY=key, VAPID_SUBJECT="mailto:ops@saboteur.example")
    result = run_manage(["check", "--deploy", "--fail-level", "WARNING"], **env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_without_secret_key_stops_with_one_clear_line():
    result = run_manage(["check"], **production_env(DJANGO_SECRET_KEY=None))
    assert "DJANGO_SECRET_KEY is not set" in one_line_refusal(result)


@pytest.mark.parametrize(
    "command",
    [["migrate", "--noinput"], ["runserver", "--noreload"], ["seed_demo"], ["createsuperuser"]],
)
def test_every_management_command_refuses_in_one_line(command):
    result = run_manage(command, **production_env(DJANGO_SECRET_KEY=None))
    assert "DJANGO_SECRET_KEY is not set" in one_line_refusal(result)


@pytest.mark.parametrize("program", ["worker", "beat"])
def test_celery_refuses_in_one_line(program, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "saboteur_site", program, "--loglevel=info"],
        cwd=tmp_path,  # beat would write its schedule file here if it started
        env={**production_env(), "PYTHONPATH": str(ROOT), "DJANGO_SECRET_KEY": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "DJANGO_SECRET_KEY is not set" in one_line_refusal(result)


def test_gunicorn_prints_the_refusal_once_and_stops():
    env = {**os.environ, **production_env(), "DJANGO_SECRET_KEY": ""}
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "saboteur_site.wsgi", "--bind", "127.0.0.1:0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    # gunicorn's own log lines stay, but no traceback, no endless restarts of the worker.
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert output.count("error: DJANGO_SECRET_KEY is not set") == 1, output
    assert "App failed to load" in output


@pytest.mark.parametrize(
    ("site_url", "message"),
    [
        ("saboteur.example", "SITE_URL must be the site's full address"),
        ("//saboteur.example", "SITE_URL must be the site's full address"),
        ("ftp://saboteur.example", "SITE_URL must be the site's full address"),
        ("https://", "SITE_URL must be the site's full address"),
        ("http://saboteur.example", "SITE_URL must start with https://"),
    ],
)
def test_production_refuses_a_weak_site_url(site_url, message):
    [line] = refused_lines(**production_env(SITE_URL=site_url))
    assert message in line


def test_behind_a_tls_proxy_http_is_refused_even_without_the_redirect():
    env = production_env(
        SITE_URL="http://saboteur.example",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_BEHIND_TLS_PROXY="1",
    )
    [line] = refused_lines(**env)
    assert "SITE_URL must start with https://" in line


def test_plain_http_is_accepted_when_tls_is_off():
    # A production-mode trial on a machine without TLS: explicitly no redirect, no proxy.
    env = production_env(SITE_URL="http://saboteur.example", DJANGO_SECURE_SSL_REDIRECT="0")
    result = run_manage(["check"], **env)
    assert result.returncode == 0, result.stderr


def test_production_is_the_default_mode():
    env = production_env(DJANGO_SECRET_KEY=None)
    del env["DJANGO_ENV"]
    result = run_manage(["check"], **env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        ("DJANGO_ALLOWED_HOSTS", "DJANGO_ALLOWED_HOSTS is not set"),
        ("DATABASE_URL", "DATABASE_URL is not set"),
        ("SITE_URL", "SITE_URL is not set"),
    ],
)
def test_production_requires_hosts_and_database(variable, message):
    [line] = refused_lines(**production_env(**{variable: None}))
    assert message in line


def test_production_refuses_debug():
    [line] = refused_lines(**production_env(DJANGO_DEBUG="1"))
    assert "DJANGO_DEBUG=1 is refused in production" in line


def test_development_starts_without_a_secret_key_and_debug_stays_off():
    settings = settings_for(DJANGO_ENV="development")
    assert settings["DEBUG"] is False
    assert settings["SECRET_KEY"]  # a development key of its own


def test_without_redis_the_cache_is_the_database_cache_not_the_dummy():
    settings = settings_for(DJANGO_ENV="development", REDIS_URL=None)
    backend = settings["CACHES"]["default"]["BACKEND"]
    assert backend == "django.core.cache.backends.db.DatabaseCache"
    assert settings["CELERY_BROKER_URL"] == "filesystem://"


def test_with_redis_the_cache_is_redis():
    from django.conf import settings

    assert settings.CACHES["default"]["BACKEND"] == "django_redis.cache.RedisCache"
    assert settings.CACHES["default"]["OPTIONS"]["IGNORE_EXCEPTIONS"]  # Redis away is a miss
    # A burst waits for a connection rather than failing at redis-py's 100 (bench/live.py).
    from django_redis import get_redis_connection
    from redis import BlockingConnectionPool

    assert isinstance(get_redis_connection("default").connection_pool, BlockingConnectionPool)
    assert settings.CELERY_BROKER_URL == os.environ["REDIS_URL"]


def test_the_site_hashes_passwords_with_the_slow_default_hasher():
    # Tests run with MD5 (tests/conftest.py); the site itself must not.
    from django.conf import global_settings

    # What the settings module leaves unset is Django's default, as django.conf would take it.
    hashers = settings_for(**production_env()).get(
        "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS
    )
    assert hashers[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"


def test_production_refuses_to_start_without_a_broker():
    # Not the filesystem broker of `make run`: on several machines its emails would be stranded.
    lines = refused_lines(**production_env(REDIS_URL=None, CELERY_BROKER_URL=None))
    assert any("REDIS_URL is not set" in line for line in lines), lines


def test_production_takes_an_explicit_broker_instead_of_redis_url():
    broker = os.environ["REDIS_URL"]
    env = production_env(REDIS_URL=None, CELERY_BROKER_URL=broker)
    assert settings_for(**env)["CELERY_BROKER_URL"] == broker


def test_production_talks_to_postgresql_through_psycopgs_pool():
    code = (
        "from django.conf import settings; from django.db import connection; "
        "db = settings.DATABASES['default']; print(db['CONN_MAX_AGE'], db['OPTIONS']['pool']); "
        "connection.ensure_connection(); print(type(connection.pool).__name__)"
    )
    # The maintenance database always exists (the test database is not the URL's database).
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    env = production_env(DATABASE_URL=database, DATABASE_POOL_MAX_SIZE="6")
    result = run_manage(["shell", "-c", code], **env)
    assert result.returncode == 0, result.stderr
    *_, options, pool = result.stdout.strip().splitlines()
    assert options == "0 {'min_size': 2, 'max_size': 6, 'timeout': 10, 'reconnect_timeout': 10}"
    assert pool == "ConnectionPool"


def test_development_keeps_persistent_connections_without_the_pool():
    from django.conf import settings

    assert "pool" not in settings.DATABASES["default"].get("OPTIONS", {})


ENV_READ = re.compile(
    r"""(?:env_str|env_bool|env_int|env_list|require|os\.environ\.get|os\.getenv)\(\s*"""
    r"""["']([A-Z][A-Z0-9_]*)["']"""
)


def test_every_environment_variable_the_settings_read_is_in_the_readme():
    settings_source = (ROOT / "saboteur_site" / "settings.py").read_text()
    read = set(ENV_READ.findall(settings_source)) | {"DATABASE_URL"}  # dj_database_url reads it
    assert {"DJANGO_ENV", "SITE_URL", "DATABASE_POOL", "EMAIL_TIMEOUT"} <= read  # the scan works
    table = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("|")]
    documented = set(
        re.findall(r"`([A-Z][A-Z0-9_]*)`", "\n".join(line.split("|")[1] for line in table))
    )
    assert read - documented == set()


LANGUAGE_COOKIE_PROBE = """
from django.test import Client
response = Client(HTTP_HOST="saboteur.example").post(
    "/i18n/setlang/", {"language": "cs", "next": "/"}, secure=True
)
cookie = response.cookies["django_language"]
print(response.status_code, bool(cookie["secure"]), cookie["samesite"])
"""


def test_language_cookie_is_secure_and_same_site_lax_in_production():
    result = run_manage(["shell", "-c", LANGUAGE_COOKIE_PROBE], **production_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "302 True Lax"
