"""A player's friends page (issue 52): whom they follow, who follows them, their friends (both
ways) with the friends' open tables and the games in progress a watcher may see (open games
only: an invite-only table stays its players'), and the challenges received and sent."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.utils import timezone

from accounts.models import Follow
from accounts.players import player_url
from accounts.relations import apart_ids
from games.models import Challenge, Game, Seat

from .seats import LIVE_SEAT


@dataclass(frozen=True)
class Person:
    pk: int
    name: str
    url: str


@dataclass(frozen=True)
class FriendGame:
    pk: int
    name: str
    ruleset_label: str
    status_label: str
    seats_taken: int
    max_seats: int
    friends: list[str]


@dataclass(frozen=True)
class ChallengeRow:
    token: str
    game_id: int
    game_name: str
    other: str  # the challenger (received) or the challenged (sent)
    state: str
    state_label: str
    expires_at: object


@dataclass(frozen=True)
class FriendsPage:
    friends: list[Person]
    following: list[Person]  # followed, not following back
    followers: list[Person]  # following, not followed back (the player may remove them)
    open_tables: list[FriendGame]
    in_progress: list[FriendGame]
    received: list[ChallengeRow]
    sent: list[ChallengeRow]


def _person(user) -> Person:
    return Person(pk=user.pk, name=user.display_name, url=player_url(user))


def friends_page(user) -> FriendsPage:
    """Everything of the page in a fixed number of queries."""
    follows = list(Follow.objects.filter(followed=user).values_list("follower_id", flat=True))
    followed = list(Follow.objects.filter(follower=user).values_list("followed_id", flat=True))
    apart = apart_ids(user)
    users = {
        u.pk: u
        for u in get_user_model().objects.filter(
            pk__in=set(follows) | set(followed), is_active=True
        )
    }
    friend_ids = (set(follows) & set(followed)) - apart

    def people(ids) -> list[Person]:
        chosen = [users[pk] for pk in ids if pk in users]
        return [_person(u) for u in sorted(chosen, key=lambda u: u.display_name.lower())]

    return FriendsPage(
        friends=people(friend_ids),
        following=people(set(followed) - set(follows)),
        followers=people(set(follows) - set(followed)),
        open_tables=_games(friend_ids, users, [Game.Status.LOBBY], user),
        in_progress=_games(friend_ids, users, [Game.Status.RUNNING, Game.Status.PAUSED], user),
        received=_challenges(Challenge.objects.filter(challenged=user), received=True),
        sent=_challenges(Challenge.objects.filter(challenger=user), received=False),
    )


def _games(friend_ids: set[int], users: dict, statuses: list[str], viewer) -> list[FriendGame]:
    """The open games (any watcher may see them) where friends sit, newest first."""
    if not friend_ids:
        return []
    seats = list(
        Seat.objects.filter(
            user_id__in=friend_ids,
            state__in=LIVE_SEAT,
            game__status__in=statuses,
            game__visibility=Game.Visibility.OPEN,
        )
        .select_related("game")
        .order_by("-game__created_at")[:60]
    )
    games: dict[int, tuple[Game, list[str]]] = {}
    for seat in seats:
        games.setdefault(seat.game_id, (seat.game, []))[1].append(users[seat.user_id].display_name)
    counts = dict(
        Seat.objects.filter(game_id__in=games, state__in=LIVE_SEAT)
        .values_list("game_id")
        .annotate(n=Count("pk"))
    )
    return [
        FriendGame(
            pk=game.pk,
            name=game.name,
            ruleset_label=game.get_ruleset_display(),
            status_label=game.get_status_display(),
            seats_taken=counts.get(game.pk, 0),
            max_seats=game.max_seats,
            friends=names,
        )
        for game, names in games.values()
    ][:30]


def _challenges(challenges, *, received: bool) -> list[ChallengeRow]:
    rows = challenges.select_related("game", "challenger", "challenged").order_by("-created_at")
    now = timezone.now()
    return [
        ChallengeRow(
            token=c.token if received else "",
            game_id=c.game_id,
            game_name=c.game.name,
            other=(c.challenger if received else c.challenged).display_name,
            state=c.state if c.expires_at > now or c.state != c.State.PENDING else c.State.EXPIRED,
            state_label=c.get_state_display(),
            expires_at=c.expires_at,
        )
        for c in rows[:20]
    ]
