import pytest

from tests.players import PASSWORD, create_player
from tests.redis_space import clear_run_cache

__all__ = ["PASSWORD"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit counters live in the (real) cache; every test starts from zero. Only this run's
    # keys go (tests/redis_space.py): the database may hold someone else's.
    clear_run_cache()
    yield
    clear_run_cache()


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
