"""Cache invalidation only (no game logic: docs/architecture.md): the open lobbies' version, the
players' "awaiting your decision" counts, the vacations the clocks on pages read, and the live
message that a game's revision changed.

The lobby page shows the open games waiting for players to everyone alike, so its list is
rendered once per version and language and kept per process (``templates/games/lobby.html``).
The version lives in the shared cache and changes whenever a save or delete may have changed
that list: any save of a game in the lobby (created, renamed, made private), a game leaving the
lobby (started, aborted), a game deleted, a seat taken or given up.

The header's count of games awaiting a player's decision is kept per player in the shared cache
(``lists.awaiting_count``); a save of a game that is not in the lobby (a move, a pause, the
end) drops the counts of everyone seated there, and a seat saved or deleted its player's.

A save that changes a game's revision publishes "game N is at revision V" after the commit
(``live.publish_after_commit``), and so does a deleted game (its open streams end); a rolled-back
change publishes nothing.

Ratings and reliability figures in the open games' list: a round that changes the rating of a
player seated in an open lobby drops the list at once (``ratings_changed``, called by the rating
writer); reliability moves with every turn, so the list shows it as it was when rendered (at most
the markup's cache time, ``templates/games/lobby.html``).

Signals catch every path (the play side, moderation, the admin) without each having to remember.
Each change acts at once (for this transaction's next reads, and for tests, whose transactions
never commit) and again after the commit, since another process may have cached what was there
before the commit in between.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_init, post_save
from django.dispatch import receiver

from games.models import Game, Seat, Vacation

from . import lists, live, vacations


def _now_and_after_commit(function, *args) -> None:
    function(*args)
    transaction.on_commit(lambda: function(*args), robust=True)


def _changed() -> None:
    _now_and_after_commit(lists.open_lobbies_changed)


@receiver(post_init, sender=Game)
def _remember_lobby(sender, instance: Game, **kwargs) -> None:
    # __dict__: never load a deferred field just for this.
    instance._was_lobby = instance.__dict__.get("status") == Game.Status.LOBBY
    instance._live_revision = instance.__dict__.get("revision")


@receiver(post_save, sender=Game)
def _game_saved(sender, instance: Game, created: bool, **kwargs) -> None:
    in_lobby = instance.status == Game.Status.LOBBY
    if created or in_lobby or getattr(instance, "_was_lobby", False):
        _changed()
    instance._was_lobby = in_lobby
    _publish_revision(instance, created, kwargs.get("update_fields"))
    if not in_lobby and kwargs.get("update_fields") != frozenset({"revision"}):  # not a chat
        players = Seat.objects.filter(game_id=instance.pk, user__isnull=False)
        _now_and_after_commit(
            lists.awaiting_changed, list(players.values_list("user_id", flat=True))
        )


def _publish_revision(game: Game, created: bool, update_fields) -> None:
    revision = game.__dict__.get("revision")
    if update_fields is not None and "revision" not in update_fields:
        return  # a changed revision not saved (yet) is published when it is
    if not created and revision is not None and revision != getattr(game, "_live_revision", None):
        live.publish_after_commit(game.pk, revision)
    game._live_revision = revision


@receiver(post_delete, sender=Game)
def _game_deleted(sender, instance: Game, **kwargs) -> None:
    """Open pages of a deleted lobby: their streams end (nobody may see it any more)."""
    live.publish_after_commit(instance.pk, (instance.__dict__.get("revision") or 0) + 1)
    _changed()


@receiver(post_save, sender=Seat)
@receiver(post_delete, sender=Seat)
def _lobby_maybe_changed(sender, instance, created: bool = True, **kwargs) -> None:
    """A seat taken, given up or changed."""
    if created:  # the lobby counts seats: not again when only a seat's state changes
        _changed()
    if sender is Seat and instance.user_id is not None:
        _now_and_after_commit(lists.awaiting_changed, [instance.user_id])


def ratings_changed(user_ids) -> None:
    """Ratings of these players changed (None: of anyone): the open games' list shows them."""
    if user_ids is not None:
        seated = Seat.objects.filter(user_id__in=list(user_ids), game__status=Game.Status.LOBBY)
        if not seated.exists():
            return
    _changed()


@receiver(post_save, sender=Vacation)
@receiver(post_delete, sender=Vacation)
def _vacation_changed(sender, instance: Vacation, **kwargs) -> None:
    """A player's vacations changed: the clocks pages show read them again."""
    _now_and_after_commit(vacations.vacations_changed, instance.user_id)
