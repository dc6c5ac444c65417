"""Durations in words a player reads: "just now", "less than a minute", "2 days, 3 hours".

Django's ``timesince`` says "0 minutes" under a minute; nobody has waited "0 minutes".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import formats, timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

MINUTE = timedelta(minutes=1)


def moment(when: datetime | None) -> str:
    """A moment as every page, email and push says it: in the reader's time zone (the active
    one: their profile's on pages (accounts.middleware), theirs in their emails and pushes) and
    language, the zone named by its IANA name: "3 November 2026, 10:00 (Europe/Prague)". Emails
    said "(Europe/Prague)", others "(CET)", pushes "(EET)", the vacation page UTC unnamed."""
    if when is None:
        return "-"
    local = timezone.localtime(when)
    return (
        f"{formats.date_format(local, 'DATETIME_FORMAT')} ({timezone.get_current_timezone_name()})"
    )


def words(duration: timedelta) -> str:
    """A duration of at least a minute in words, at most two units ("2 days, 3 hours")."""
    start = datetime(2000, 1, 1, tzinfo=UTC)
    return timesince(start, now=start + duration, depth=2)


def waiting(since: datetime | None, now: datetime | None = None) -> str:
    """How long something has waited: "waiting since just now" / "waiting for 2 hours"."""
    if since is None:
        return ""
    waited = (now or timezone.now()) - since
    if waited < MINUTE:
        return _("waiting since just now")
    return _("waiting for %(duration)s") % {"duration": words(waited)}


def last_move(when: datetime | None, now: datetime | None = None) -> str:
    """When a game's last move was made: "last move just now" / "last move 2 hours ago"."""
    if when is None:
        return ""
    ago = (now or timezone.now()) - when
    if ago < MINUTE:
        return _("last move just now")
    return _("last move %(duration)s ago") % {"duration": words(ago)}


def time_left(deadline: datetime | None, now: datetime | None = None) -> str:
    """ "Time left: 2 days, 3 hours", "Time left: less than a minute", or "Time is up"."""
    if deadline is None:
        return ""
    left = deadline - (now or timezone.now())
    if left <= timedelta(0):
        return _("Time is up: the site will play a safe move shortly.")
    if left < MINUTE:
        return _("Time left: less than a minute")
    return _("Time left: %(duration)s") % {"duration": words(left)}


def response_time(duration: timedelta) -> str:
    """A median response time: "under a minute" or "3 hours, 20 minutes"."""
    if duration < MINUTE:
        return _("under a minute")
    return words(duration)
