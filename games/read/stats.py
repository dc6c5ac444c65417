"""Player statistics for the public player page (read only).

Only what is public leaves this module: results of FINISHED games (in a running base game the
gold totals are secret) and facts about moves that every player saw happen (who moved when,
and whether the site moved for a player whose time ran out).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import F
from django.urls import reverse

from games.models import Game, Move, Seat
from saboteur_site.text import ascii_int

from . import durations
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
    vacation_days: float = (
        0.0  # days on vacation in the last 90 days (vacations.RELIABILITY_WINDOW)
    )

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

    my_seat_ids = {seat["pk"] for seat in seats}
    total = in_time = 0
    waits: list[float] = []
    previous: dict[int, object] = dict(
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
    return PlayerStats(
        games_played=len(game_ids),
        games_finished=len({seat["game_id"] for seat in finished_seats}),
        rounds_won=rounds_won,
        gold=gold,
        moves=total,
        moves_in_time=in_time,
        median_response=timedelta(seconds=statistics.median(waits)) if waits else None,
        vacation_days=vacation_days_used(user.pk),
    )


def _key(*path: str) -> F:
    """A key of the snapshot, read by the database (the rest of the snapshot stays there)."""
    return F("__".join(("snapshot", *path)))
