"""Start-up configuration, checked in fresh processes with their own environment."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_manage(args, **env_overrides):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(env_overrides)
    env = {k: v for k, v in env.items() if v is not None}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


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


def test_production_without_secret_key_stops_with_a_clear_message():
    result = run_manage(["check"], **production_env(DJANGO_SECRET_KEY=None))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


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
    result = run_manage(["check"], **production_env(**{variable: None}))
    assert result.returncode != 0
    assert message in result.stderr


def test_production_refuses_debug():
    result = run_manage(["check"], **production_env(DJANGO_DEBUG="1"))
    assert result.returncode != 0
    assert "DJANGO_DEBUG=1 is refused in production" in result.stderr


def test_development_starts_without_a_secret_key_and_debug_stays_off():
    result = run_manage(
        ["shell", "-c", "from django.conf import settings; print(settings.DEBUG)"],
        DJANGO_ENV="development",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "False"


def test_without_redis_the_cache_is_the_database_cache_not_the_dummy():
    code = (
        "from django.conf import settings; "
        "print(settings.CACHES['default']['BACKEND']); print(settings.CELERY_BROKER_URL)"
    )
    result = run_manage(["shell", "-c", code], DJANGO_ENV="development", REDIS_URL=None)
    assert result.returncode == 0, result.stderr
    backend, broker = result.stdout.split()[-2:]
    assert backend == "django.core.cache.backends.db.DatabaseCache"
    assert broker == "filesystem://"


def test_with_redis_the_cache_is_redis():
    from django.conf import settings

    assert settings.CACHES["default"]["BACKEND"] == "saboteur_site.cache.RedisCache"
    assert settings.CELERY_BROKER_URL == os.environ["REDIS_URL"]


def test_the_site_hashes_passwords_with_the_slow_default_hasher():
    # Tests run with MD5 (tests/conftest.py); the site itself must not.
    result = run_manage(
        ["shell", "-c", "from django.conf import settings; print(settings.PASSWORD_HASHERS[0])"],
        **production_env(),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == (
        "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    )


def test_production_refuses_to_start_without_a_broker():
    # Not the filesystem broker of `make run`: on several machines its emails would be stranded.
    result = run_manage(["check"], **production_env(REDIS_URL=None, CELERY_BROKER_URL=None))
    assert result.returncode != 0
    assert "REDIS_URL is not set" in result.stderr


def test_production_takes_an_explicit_broker_instead_of_redis_url():
    code = "from django.conf import settings; print(settings.CELERY_BROKER_URL)"
    broker = os.environ["REDIS_URL"]
    result = run_manage(
        ["shell", "-c", code], **production_env(REDIS_URL=None, CELERY_BROKER_URL=broker)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == broker


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
