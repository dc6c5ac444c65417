"""Sessions read from the cache, kept in the database (saboteur_site/sessions.py)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_redis import get_redis_connection

from saboteur_site import sessions

from .test_game_pages import logged_in
from .test_unavailable import cache_away

pytestmark = pytest.mark.django_db


def cached_seconds(session_key: str) -> int:
    """Seconds the cache keeps the session's copy (-2: no copy)."""
    key = cache.make_and_validate_key(sessions.SessionStore.cache_key_prefix + session_key)
    return get_redis_connection("default").ttl(key)


def test_the_site_reads_sessions_through_the_short_lived_cache():
    assert settings.SESSION_ENGINE == "saboteur_site.sessions"


def test_a_logged_in_request_reads_its_session_from_the_cache_not_the_database(user):
    client = logged_in(user)
    assert client.get(reverse("lobby")).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("lobby"))
    assert response.status_code == 200 and response.context["user"] == user
    assert not [q["sql"] for q in queries if "django_session" in q["sql"]]
    # The database still holds it: the cache is a copy.
    assert Session.objects.filter(session_key=client.session.session_key).exists()


def test_the_cached_copy_lives_a_minute_at_most(user):
    client = logged_in(user)
    key = client.session.session_key
    assert 0 < cached_seconds(key) <= sessions.CACHED_SECONDS
    cache.delete(sessions.SessionStore.cache_key_prefix + key)
    client.get(reverse("lobby"))  # read from the database, then copied again
    assert 0 < cached_seconds(key) <= sessions.CACHED_SECONDS
    # The session itself keeps its two weeks, in the database.
    row = Session.objects.get(session_key=key)
    assert row.expire_date > timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE - 60)


def test_logging_out_ends_the_session_in_the_cache_and_the_database(user):
    client = logged_in(user)
    key = client.session.session_key
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert client.get(reverse("lobby")).status_code == 200
    client.post(reverse("account_logout"))
    assert cached_seconds(key) == -2
    assert not Session.objects.filter(session_key=key).exists()
    again = Client()
    again.cookies[settings.SESSION_COOKIE_NAME] = cookie
    response = again.get(reverse("lobby"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_with_redis_away_sessions_come_from_the_database(user, settings):
    cache_away(settings)
    client = logged_in(user)
    assert client.get(reverse("lobby")).context["user"] == user
    client.post(reverse("account_logout"))
    assert client.get(reverse("lobby")).status_code == 302


def test_a_logout_redis_missed_leaves_a_copy_for_a_minute_at_most(user, settings):
    """Redis away at the logout: the row goes, the copy cannot. Once Redis is back the copy
    would still let the old cookie in, for what is left of its minute (Django's own engine
    keeps it for the session's two weeks)."""
    client = logged_in(user)
    key = client.session.session_key
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    site_caches = settings.CACHES
    cache_away(settings)
    client.post(reverse("account_logout"))
    assert not Session.objects.filter(session_key=key).exists()
    settings.CACHES = site_caches  # Redis is back
    again = Client()
    again.cookies[settings.SESSION_COOKIE_NAME] = cookie
    assert again.get(reverse("lobby")).status_code == 200  # the copy, for now
    assert 0 < cached_seconds(key) <= sessions.CACHED_SECONDS
    cache.delete(sessions.SessionStore.cache_key_prefix + key)  # as its minute ends
    assert again.get(reverse("lobby")).status_code == 302
