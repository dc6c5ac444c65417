"""Player statistics for the public player page (read only).

Only what is public leaves this module: results of FINISHED games (in a running base game the
gold totals are secret) and facts about moves that every player saw happen (who moved when,
and whether the site moved for a player whose time ran out).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.players import player_by_key, player_url
from games.models import Game, Move, Seat

from . import durations
from .ratings import player_ratings

# What the player page (games.web.players) reads, besides the statistics below; the page's
# key and address are the account's (accounts.players).
__all__ = ["player_by_key", "player_ratings", "player_stats", "player_url"]
from .vacations import vacation_days_used


@dataclass(frozen=True)
class PlayerStats:
    games_played: int  # games started (running or finished) with a seat of the player
    games_finished: int
    rounds_won: int  # in finished games
    gold: int  # the gold held at the end of finished games
    moves: int  # every move of the player's seats
    moves_in_time: int  # ... made by the player, not by the site at the deadline
    median_response: timedelta | None  # from the move before to the player's own move

    @property
    def reliability(self) -> float | None:
        """The share of turns played before the deadline (0..1), None before any move."""
        return self.moves_in_time / self.moves if self.moves else None

    @property
    def median_response_words(self) -> str:
        """The median response time in words ("3 hours, 20 minutes"), translated."""
        if self.median_response is None:
            return ""
        return durations.response_time(self.median_response)

    @property
    def reliability_percent(self) -> int | None:
        share = self.reliability
        return None if share is None else round(share * 100)


def player_stats(user) -> PlayerStats:
    """Three queries: the player's seats in started games, the finished games' results (read
    from the snapshot's public ``rounds_done`` and final ``gold`` only) and the moves of those
    games."""
    seats = list(
        Seat.objects.filter(user=user, game__status__in=[Game.Status.RUNNING, Game.Status.FINISHED])
        .exclude(game__practice=True)  # games against bots are practice, not a record
        .values("pk", "game_id", "position", "state", "game__status")
    )
    game_ids = {seat["game_id"] for seat in seats}
    finished_seats = [
        seat
        for seat in seats
        if seat["game__status"] == Game.Status.FINISHED
        and seat["state"] != Seat.State.REPLACED
        and seat["position"] is not None
    ]
    rounds_won, gold = _rounds_and_gold(finished_seats)
    total, in_time, waits = _moves_and_waits(game_ids, {seat["pk"] for seat in seats})
    return PlayerStats(
        games_played=len(game_ids),
        games_finished=len({seat["game_id"] for seat in finished_seats}),
        rounds_won=rounds_won,
        gold=gold,
        moves=total,
        moves_in_time=in_time,
        median_response=timedelta(seconds=statistics.median(waits)) if waits else None,
    )


def _rounds_and_gold(finished_seats: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """The rounds won and the gold held at the end over these seats of finished games, from the
    games' public results (one query)."""
    results = {
        row["pk"]: row
        for row in Game.objects.filter(
            pk__in={seat["game_id"] for seat in finished_seats}, status=Game.Status.FINISHED
        ).values(
            "pk",
            engine_seats=_key("config", "seats"),
            gold=_key("gold"),
            rounds_done=_key("rounds_done"),
        )
    }
    rounds_won = gold = 0
    for seat in finished_seats:
        result = results.get(seat["game_id"])
        if not result or not result["engine_seats"]:
            continue
        name = str(seat["position"])
        if name not in result["engine_seats"]:
            continue
        index = result["engine_seats"].index(name)
        gold += (result["gold"] or [0] * len(result["engine_seats"]))[index]
        rounds_won += sum(1 for done in result["rounds_done"] or [] if name in done["winners"])
    return rounds_won, gold


def _moves_and_waits(game_ids: set[int], my_seat_ids: set[int]) -> tuple[int, int, list[float]]:
    """The moves of these seats in these games, those the player made in time (not the site at
    the deadline), and how long each of those came after the move before, in seconds (two
    queries: the games' starts, their moves)."""
    total = in_time = 0
    waits: list[float] = []
    previous: dict[int, datetime | None] = dict(
        Game.objects.filter(pk__in=game_ids).values_list("pk", "started_at")
    )
    rows = (
        Move.objects.filter(game_id__in=game_ids)
        .order_by("game_id", "sequence")
        .values_list("game_id", "seat_id", "automatic", "created_at")
    )
    for game_id, seat_id, automatic, created_at in rows.iterator():
        if seat_id in my_seat_ids:
            total += 1
            if not automatic:
                in_time += 1
                before = previous.get(game_id)
                if before is not None:
                    waits.append((created_at - before).total_seconds())
        previous[game_id] = created_at
    return total, in_time, waits


def _key(*path: str) -> F:
    """A key of the snapshot, read by the database (the rest of the snapshot stays there)."""
    return F("__".join(("snapshot", *path)))


# -- Reliability ---------------------------------------------------------------------------------

RELIABILITY_DAYS = 90

# Seats a player left behind: taken over by someone else, or absent (three timeouts in a row)
# when the game ended or now.
DROPPED = (Seat.State.REPLACED, Seat.State.ABSENT)


@dataclass(frozen=True)
class Reliability:
    """How a player kept their games over the last ``RELIABILITY_DAYS`` (rated or not; never
    practice): all of it public (who moved, when, and whether the site moved for them)."""

    turns: int  # moves of their seats
    ran_out: int  # ... made by the site: their time ran out (or a bot stood in for them)
    games: int  # games they sat in, running or ended in the window
    dropped: int  # ... of which they abandoned (absent at the end, or now) or were replaced
    median_response: timedelta | None  # from the move before to their own move, in time
    vacation_days: float  # days on vacation in the window (games.read.vacations)

    @property
    def ran_out_percent(self) -> int | None:
        return round(100 * self.ran_out / self.turns) if self.turns else None

    @property
    def percent(self) -> int | None:
        """The reliability figure (0..100): ``reliability_percent`` of the counts."""
        return reliability_percent(self.turns, self.ran_out, self.games, self.dropped)

    @property
    def median_response_words(self) -> str:
        if self.median_response is None:
            return ""
        return durations.response_time(self.median_response)


def reliability_percent(turns: int, ran_out: int, games: int, dropped: int) -> int | None:
    """The share of turns played in time times the share of games kept, in percent; None for
    a player without a turn or a game in the window (nothing known yet: anyone may join)."""
    if not turns and not games:
        return None
    in_time = (turns - ran_out) / turns if turns else 1.0
    kept = (games - dropped) / games if games else 1.0
    return round(100 * in_time * kept)


def _window(now=None):
    return (now or timezone.now()) - timedelta(days=RELIABILITY_DAYS)


def _window_seats(since):
    return Seat.objects.filter(
        game__practice=False, game__started_at__isnull=False, user__isnull=False
    ).filter(Q(game__finished_at__isnull=True) | Q(game__finished_at__gte=since))


def _window_moves(since):
    return Move.objects.filter(game__practice=False, created_at__gte=since)


def reliability(user, now=None) -> Reliability:
    """The player's reliability over the last 90 days (two queries)."""
    since = _window(now)
    games = (
        _window_seats(since)
        .filter(user=user)
        .aggregate(
            games=Count("game", distinct=True),
            dropped=Count("game", distinct=True, filter=Q(state__in=DROPPED)),
        )
    )
    before = Subquery(
        Move.objects.filter(game=OuterRef("game"), sequence=OuterRef("sequence") - 1).values(
            "created_at"
        )[:1]
    )
    rows = (
        _window_moves(since)
        .filter(seat__user=user)
        .annotate(before=Coalesce(before, F("game__started_at")))
        .values_list("automatic", "created_at", "before")
    )
    turns = ran_out = 0
    waits = []
    for automatic, created_at, previous in rows:
        turns += 1
        if automatic:
            ran_out += 1
        elif previous is not None:
            waits.append((created_at - previous).total_seconds())
    return Reliability(
        turns=turns,
        ran_out=ran_out,
        games=games["games"],
        dropped=games["dropped"],
        median_response=timedelta(seconds=statistics.median(waits)) if waits else None,
        vacation_days=vacation_days_used(user.pk, now, window=timedelta(days=RELIABILITY_DAYS)),
    )


RELIABILITY_CACHE_SECONDS = 600


def reliability_percents(user_ids) -> dict[int, int | None]:
    """Each player's reliability figure, for lists (the lobby): kept in the shared cache for
    ``RELIABILITY_CACHE_SECONDS``, the missing ones counted in two queries for all of them."""
    ids = sorted(set(user_ids))
    keys = {pk: f"reliability:{pk}" for pk in ids}
    found = cache.get_many(list(keys.values()))
    known = {pk: found[key][0] for pk, key in keys.items() if key in found}
    missing = [pk for pk in ids if pk not in known]
    if missing:
        since = _window()
        counts = {pk: [0, 0, 0, 0] for pk in missing}
        seats = (
            _window_seats(since)
            .filter(user_id__in=missing)
            .values("user_id")
            .annotate(
                games=Count("game", distinct=True),
                dropped=Count("game", distinct=True, filter=Q(state__in=DROPPED)),
            )
        )
        for row in seats:
            counts[row["user_id"]][2:] = [row["games"], row["dropped"]]
        moves = (
            _window_moves(since)
            .filter(seat__user_id__in=missing)
            .values("seat__user_id")
            .annotate(turns=Count("pk"), ran_out=Count("pk", filter=Q(automatic=True)))
        )
        for row in moves:
            counts[row["seat__user_id"]][:2] = [row["turns"], row["ran_out"]]
        fresh = {pk: reliability_percent(*numbers) for pk, numbers in counts.items()}
        # Wrapped in a tuple: None (no record) is a value worth keeping too.
        cache.set_many(
            {keys[pk]: (value,) for pk, value in fresh.items()}, RELIABILITY_CACHE_SECONDS
        )
        known.update(fresh)
    return known
