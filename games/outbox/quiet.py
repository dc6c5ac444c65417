"""A player's clock: their time zone and quiet hours (emails that can wait are held in them)."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta


def user_zone(user) -> zoneinfo.ZoneInfo:
    """The user's time zone (UTC when unset or unknown)."""
    return zone_named(user.time_zone)


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def quiet_window(user, at: datetime) -> tuple[datetime, datetime] | None:
    """The user's quiet hours around ``at`` (start, end), if ``at`` is inside them; else None."""
    if user.quiet_from is None or user.quiet_until is None or user.quiet_from == user.quiet_until:
        return None
    zone = user_zone(user)
    local = at.astimezone(zone)
    start, end, clock = user.quiet_from, user.quiet_until, local.time()
    inside = start <= clock < end if start < end else clock >= start or clock < end
    if not inside:
        return None
    end_day = local.date() if clock < end else local.date() + timedelta(days=1)
    start_day = local.date() if clock >= start else local.date() - timedelta(days=1)
    return (
        datetime.combine(start_day, start, tzinfo=zone),
        datetime.combine(end_day, end, tzinfo=zone),
    )


def in_quiet_hours(user, now: datetime) -> datetime | None:
    """When the user's quiet hours end, if ``now`` is inside them; else None."""
    window = quiet_window(user, now)
    return window[1] if window else None
