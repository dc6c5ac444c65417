"""Time zones by name, pure Python (no Django): a player's profile names one, and every place that
reads a name reads it here: the profile's choices and its check (``accounts.zone_choices``,
``accounts.services``), the pages' zone (``accounts.middleware``) and the games' clock
(``games.clock``, which imports it: pure like the clock, see the ``pure-rules`` contract).
"""

from __future__ import annotations

import functools
import zoneinfo


def zone(name: str) -> zoneinfo.ZoneInfo:
    """The zone of that name (UTC when empty or unknown)."""
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


@functools.cache
def zone_names() -> tuple[str, ...]:
    """The IANA time zones this machine knows, sorted."""
    return tuple(sorted(zoneinfo.available_timezones()))
