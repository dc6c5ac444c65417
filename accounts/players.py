"""Which player a player page (/players/<key>/) shows, and its address: by display name or id."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from saboteur_site.text import ascii_int


def player_by_key(key: str):
    """The user shown at /players/<key>/: a display name (any case), else a numeric id (ASCII
    digits only: "²" or "①" are names, never ids)."""
    users = get_user_model().objects.filter(is_active=True)
    user = users.filter(display_name__iexact=key).first()
    pk = ascii_int(key)
    if user is None and pk is not None:
        user = users.filter(pk=pk).first()
    return user


def player_url(user) -> str:
    """The player page's address: by display name when that is unambiguous, else by id."""
    name = user.display_name
    if not name or name.isdigit() or "/" in name or name != name.strip():
        return reverse("player", args=[str(user.pk)])
    return reverse("player", args=[name])
