import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.cache import cache

PASSWORD = "correct-horse-battery-staple"


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit counters live in the (real) cache; every test starts from zero.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_user(db):
    def make(name="ann", *, verified=True, password=PASSWORD):
        user = get_user_model().objects.create_user(
            username=name,
            email=f"{name}@example.com",
            display_name=name.capitalize(),
            password=password,
        )
        EmailAddress.objects.create(user=user, email=user.email, verified=verified, primary=True)
        return user

    return make


@pytest.fixture
def user(make_user):
    return make_user()
