"""Players' vacations as others may see them: who is away now, their balance, and the vacation
days used (a public reliability figure). Written by ``games.play.vacations``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import F, Q
from django.utils import timezone

from games.models import Vacation
from saboteur_site.cache import get_or_build

DAY = timedelta(days=1)
YEAR = timedelta(days=365)

# The window of the reliability figure "vacation days used" (issue 28's hook).
RELIABILITY_WINDOW = timedelta(days=90)


def allowance() -> int:
    """Vacation days a player may take in any 365 days (the site's setting)."""
    return int(getattr(settings, "VACATION_DAYS_PER_YEAR", 14))


def not_called_off():
    """Vacations that were (or will be) taken: one called off before it began has no length."""
    return Vacation.objects.exclude(ended_at__isnull=False, ended_at__lte=F("starts_at"))


def spans(
    user_id: int, since: datetime, *, cached: bool = False
) -> list[tuple[datetime, datetime]]:
    """The player's vacations that end after ``since``, as (start, end): their clock stops.

    ``cached``: from the player's list kept in the shared cache (``invalidation`` drops it when
    one of their vacations is written), for what pages show; writers read the database."""
    if cached:
        every = get_or_build(cache, _spans_key(user_id), lambda: _spans(user_id), SPANS_SECONDS)
    else:
        every = _spans(user_id, since)
    return [(start, end) for start, end in every if end > since]


SPANS_SECONDS = 600  # a safety net: ``invalidation`` drops a player's list when it changes


def _spans(user_id: int, since: datetime | None = None) -> list[tuple[datetime, datetime]]:
    rows = not_called_off().filter(user_id=user_id)
    if since is not None:
        rows = rows.filter(ends_at__gt=since)
    return [(v.starts_at, v.end) for v in rows]


def _spans_key(user_id: int) -> str:
    return f"vacation-spans:{user_id}"


def vacations_changed(user_id: int) -> None:
    cache.delete(_spans_key(user_id))


def current(user_id: int, now: datetime | None = None) -> Vacation | None:
    """The player's vacation under way at ``now``, if any."""
    now = now or timezone.now()
    return (
        not_called_off()
        .filter(user_id=user_id, starts_at__lte=now, ends_at__gt=now)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=now))
        .first()
    )


def planned(user_id: int, now: datetime | None = None) -> Vacation | None:
    """The player's vacation under way or still to come, if any (one at a time)."""
    now = now or timezone.now()
    return (
        not_called_off()
        .filter(user_id=user_id, ends_at__gt=now)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=now))
        .order_by("starts_at")
        .first()
    )


def _days(duration: timedelta) -> float:
    return max(duration, timedelta(0)) / DAY


# A vacation ended within this long of its start (declared by mistake) costs no day.
GRACE = timedelta(hours=1)


def _days_counted(vacation: Vacation) -> int:
    """The days a vacation costs: each day begun counts, once past the grace hour."""
    length = vacation.end - vacation.starts_at
    if length <= GRACE:
        return 0
    return math.ceil(_days(length) - 1e-9)


def days_taken(user_id: int, now: datetime | None = None) -> int:
    """Vacation days counted against the balance: those of vacations begun in the last 365 days
    or still to come, each as long as planned, or as taken when its player came back early."""
    now = now or timezone.now()
    rows = not_called_off().filter(user_id=user_id, starts_at__gt=now - YEAR)
    return sum(_days_counted(v) for v in rows)


def balance(user_id: int, now: datetime | None = None) -> int:
    """Whole vacation days the player may still declare."""
    return max(allowance() - days_taken(user_id, now), 0)


def vacation_days_used(user_id: int, now: datetime | None = None, window=RELIABILITY_WINDOW):
    """Days the player spent on vacation in the last 90 days (``window``), to one decimal: the
    public reliability figure (issue 28 connects it to its ratings)."""
    now = now or timezone.now()
    start = now - window
    rows = not_called_off().filter(user_id=user_id, starts_at__lt=now, ends_at__gt=start)
    used = sum(_days(min(v.end, now) - max(v.starts_at, start)) for v in rows)
    return round(used, 1)


@dataclass(frozen=True)
class VacationState:
    """What the vacation page shows a player."""

    allowance: int
    balance: int
    planned: Vacation | None
    under_way: bool


def vacation_state(user, now: datetime | None = None) -> VacationState:
    now = now or timezone.now()
    upcoming = planned(user.pk, now)
    return VacationState(
        allowance=allowance(),
        balance=balance(user.pk, now),
        planned=upcoming,
        under_way=upcoming is not None and upcoming.starts_at <= now,
    )
