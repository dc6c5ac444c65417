import pytest
from django.core.cache import cache

from tests.players import PASSWORD, create_player

__all__ = ["PASSWORD"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit counters live in the (real) cache; every test starts from zero.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_user(db):
    def make(name="ann", *, verified=True, password=PASSWORD):
        return create_player(name, verified=verified, password=password)

    return make


@pytest.fixture
def user(make_user):
    return make_user()


@pytest.fixture
def root(make_user):
    """A superuser (the admin tests' moderator)."""
    user = make_user("root")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.fixture
def admin_client(root):
    from django.test import Client

    client = Client()
    client.force_login(root)
    return client
