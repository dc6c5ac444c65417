"""Cache invalidation only (no game logic here, DESIGN.md): the open lobbies' version.

The lobby page shows the open games waiting for players to everyone alike, so its list is
rendered once per version and language and kept per process (``templates/games/lobby.html``).
The version lives in the shared cache and changes, after the commit, whenever a save or delete
may have changed that list: any save of a game in the lobby (created, renamed, made private),
a game leaving the lobby (started, aborted), a game deleted, a seat taken or given up. Signals
catch every path (services, moderation, the admin) without each having to remember.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_init, post_save
from django.dispatch import receiver

from . import selectors
from .models import Game, Seat


def _changed() -> None:
    # Now, for what this transaction shows next (and for tests, whose transactions never
    # commit); and again after the commit, since another process may have cached the list as
    # it was before this commit under the first new version.
    selectors.open_lobbies_changed()
    transaction.on_commit(selectors.open_lobbies_changed, robust=True)


@receiver(post_init, sender=Game)
def _remember_lobby(sender, instance: Game, **kwargs) -> None:
    # __dict__: never load a deferred field just for this.
    instance._was_lobby = instance.__dict__.get("status") == Game.Status.LOBBY


@receiver(post_save, sender=Game)
def _game_saved(sender, instance: Game, created: bool, **kwargs) -> None:
    in_lobby = instance.status == Game.Status.LOBBY
    if created or in_lobby or getattr(instance, "_was_lobby", False):
        _changed()
    instance._was_lobby = in_lobby


@receiver(post_delete, sender=Game)
@receiver(post_save, sender=Seat)
@receiver(post_delete, sender=Seat)
def _lobby_maybe_changed(sender, instance, created: bool = True, **kwargs) -> None:
    """A game deleted, or a seat taken or given up (seats are not counted again when only a
    seat's state or its last visit changes)."""
    if created:
        _changed()
