"""One way for every test to create a player: a verified user with a known password."""

import hashlib
import itertools
import secrets
from contextlib import contextmanager

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from games.engine import fairness

PASSWORD = "correct-horse-battery-staple"


def create_player(name="ann", *, verified=True, password=PASSWORD, **fields):
    """A user ``name`` (email name@example.com, display name Name) with a primary address."""
    user = get_user_model().objects.create_user(
        username=name,
        email=f"{name}@example.com",
        display_name=fields.pop("display_name", name.capitalize()),
        password=password,
        **fields,
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=verified, primary=True)
    return user


def seat_in_order(game, users) -> None:
    """Put ``users[i]`` at seat position i of a started game (for rigged deals)."""
    seats = {seat.user_id: seat for seat in game.seats.all()}
    for seat in seats.values():  # positions are unique: free them all first
        seat.position = None
        seat.save(update_fields=["position"])
    for position, user in enumerate(users):
        seats[user.pk].position = position
        seats[user.pk].save(update_fields=["position"])


@contextmanager
def the_same_deal(name: str):
    """Games created and started inside deal the same in every run: the site's seeds
    (``secrets.token_hex``, the server's and the seats') drawn from ``name``, and the game's id
    (the database's sequence, which differs from run to run) left out of the seating. For tests
    whose figures depend on the deal (sizes, counts): a random deal made them pass or fail by
    chance."""
    count = itertools.count()

    def token_hex(size=32):
        return hashlib.sha256(f"{name}:{next(count)}".encode()).hexdigest()[: 2 * size]

    seeds = fairness.game_seeds
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets, "token_hex", token_hex)
        patch.setattr(fairness, "game_seeds", lambda server, _id, joined: seeds(server, 0, joined))
        yield
