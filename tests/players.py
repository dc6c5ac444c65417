"""One way for every test to create a player: a verified user with a known password."""

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

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
