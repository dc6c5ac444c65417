"""Who follows whom and who keeps away from whom: the one place matchmaking, challenges, chat and
mentions ask (accounts imports nothing of games; games asks here).

Following is one-way; *friends* are two players who follow each other. A block is one-way too,
but it keeps both apart where the site seats or invites: ``apart(a, b)`` is true if either
blocked the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Q

from .models import Block, Follow


def follow(follower, followed) -> bool:
    """``follower`` follows ``followed``; False if it was already so, or is not allowed (oneself,
    or either has blocked the other)."""
    if follower.pk == followed.pk or apart(follower, followed):
        return False
    try:
        with transaction.atomic():
            Follow.objects.create(follower=follower, followed=followed)
    except IntegrityError:
        return False
    return True


def unfollow(follower, followed) -> bool:
    return Follow.objects.filter(follower=follower, followed=followed).delete()[0] > 0


def remove_follower(user, follower) -> bool:
    """The followed player refuses or removes a follower."""
    return unfollow(follower, user)


def follows(follower, followed) -> bool:
    return Follow.objects.filter(follower=follower, followed=followed).exists()


def friend_ids(user) -> set[int]:
    """Ids of the players who follow ``user`` and whom ``user`` follows."""
    mine = Follow.objects.filter(follower=user).values_list("followed_id", flat=True)
    return set(
        Follow.objects.filter(followed=user, follower_id__in=mine).values_list(
            "follower_id", flat=True
        )
    )


def block(blocker, blocked) -> bool:
    """``blocker`` blocks ``blocked``; any following between the two ends. False if already so."""
    if blocker.pk == blocked.pk:
        return False
    with transaction.atomic():
        Follow.objects.filter(
            Q(follower=blocker, followed=blocked) | Q(follower=blocked, followed=blocker)
        ).delete()
        _, created = Block.objects.get_or_create(blocker=blocker, blocked=blocked)
    return created


def unblock(blocker, blocked) -> bool:
    return Block.objects.filter(blocker=blocker, blocked=blocked).delete()[0] > 0


def blocked_ids(user) -> set[int]:
    """Ids of the players ``user`` has blocked (their chat is hidden for ``user``)."""
    return set(Block.objects.filter(blocker=user).values_list("blocked_id", flat=True))


def blocks_of(user) -> list[Block]:
    """The blocks ``user`` made, with the blocked players, by name (their profile's list)."""
    return list(
        Block.objects.filter(blocker=user)
        .select_related("blocked")
        .order_by("blocked__display_name", "pk")
    )


def is_blocked(blocker, blocked) -> bool:
    return Block.objects.filter(blocker=blocker, blocked=blocked).exists()


def apart_ids(user) -> set[int]:
    """Ids of the players ``user`` must never be seated with or invited by: those ``user`` blocked
    and those who blocked ``user``."""
    pairs = Block.objects.filter(Q(blocker=user) | Q(blocked=user)).values_list(
        "blocker_id", "blocked_id"
    )
    return {b if a == user.pk else a for a, b in pairs}


def apart(a, b) -> bool:
    return Block.objects.filter(Q(blocker=a, blocked=b) | Q(blocker=b, blocked=a)).exists()


def any_apart(user_ids: Iterable[int]) -> bool:
    """Whether any two of ``user_ids`` are kept apart by a block (a table's seats)."""
    ids = list(user_ids)
    return Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).exists()
