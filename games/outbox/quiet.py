"""A player's clock: their time zone and quiet hours (emails that can wait are held in them),
and their vacations (their emails stop: held until they are back, a digest skipped)."""

from __future__ import annotations

import zoneinfo
from datetime import datetime

from games import clock
from games.models import Notice
from games.read import vacations


def user_zone(user) -> zoneinfo.ZoneInfo:
    """The user's time zone (UTC when unset or unknown)."""
    return zone_named(user.time_zone)


zone_named = clock.zone  # the zone of that name (UTC when empty or unknown)


def quiet_window(user, at: datetime) -> tuple[datetime, datetime] | None:
    """The user's quiet hours around ``at`` (start, end), if ``at`` is inside them; else None.

    The one clock's ``Quiet`` says it, so that the hours an email is held in are exactly those
    the clock does not count as the player's awake time (``clock.AWAKE_MINIMUM``)."""
    quiet = player_quiet(user)
    return quiet.window_at(at) if quiet is not None else None


def player_quiet(user) -> clock.Quiet | None:
    """The user's quiet hours (None when they have none)."""
    return clock.quiet_hours(user.quiet_from, user.quiet_until, user.time_zone)


def in_quiet_hours(user, now: datetime) -> datetime | None:
    """When the user's quiet hours end, if ``now`` is inside them; else None."""
    window = quiet_window(user, now)
    return window[1] if window else None


# What a player on vacation still gets: word of their own vacation's end, and the answer to an
# email they have just sent.
VACATION_SENDS = (Notice.Kind.VACATION_ENDING, Notice.Kind.ANSWER)

VACATION_SKIPS = (Notice.Kind.DIGEST,)  # a day's list is stale by the time they are back


def vacation_hold(notice: Notice, now: datetime) -> tuple[datetime | None, str]:
    """While the player is on vacation their emails stop: (when to hold it until, "") or, for
    a digest, (None, why it is skipped); (None, "") when it may go now."""
    if notice.user_id is None or notice.kind in VACATION_SENDS:
        return None, ""
    away = vacations.current(notice.user_id, now)
    if away is None:
        return None, ""
    if notice.kind in VACATION_SKIPS:
        return None, "on vacation"
    return away.end, ""
