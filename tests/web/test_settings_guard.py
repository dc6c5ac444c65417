"""Start-up configuration, checked in fresh processes with their own environment."""

import os
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

    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
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
