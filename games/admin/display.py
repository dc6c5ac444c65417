"""How the admin says durations, clocks and seats: as the rest of the site says them (moments with
their zone: ``saboteur_site.admin_display``, which the accounts' admin reads too)."""

from __future__ import annotations

from datetime import timedelta

from django.utils.translation import gettext

from games.models import Seat
from games.read.durations import MINUTE, words
from games.read.seats import seat_number


def duration(span) -> str:
    """A duration in words, as the rest of the site says it ("1 hour", "2 days, 3 hours"),
    never Django's "1:00:00"."""
    if span is None:
        return "-"
    if span < MINUTE:
        return gettext("none") if span <= timedelta(0) else gettext("less than a minute")
    return words(span)


def clock_words(found, now) -> str:
    """What is left of a running decision, without the "Time left:" of the game page's
    sentence (the admin's label says it): "58 minutes, then 1 day from the time bank"."""
    left = found.left(now)
    if left <= timedelta(0):
        return gettext("none: the site plays a safe move shortly")
    if found.bank > timedelta(0) and left > found.bank:
        text = gettext("%(left)s, then %(bank)s from the time bank") % {
            "left": duration(left - found.bank),
            "bank": duration(found.bank),
        }
    elif found.bank > timedelta(0):
        text = gettext("%(left)s, from the time bank") % {"left": duration(left)}
    else:
        text = duration(left)
    return text + found.stopped_note(now)


def seat_shown(seat: Seat) -> str:
    """A seat as the game page and the emails number it: "seat 1 of 4"."""
    live = Seat.objects.filter(game_id=seat.game_id).live().count()
    return seat_number(seat.position, live)
