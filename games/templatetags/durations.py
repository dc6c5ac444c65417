"""Template filters for durations in words (see games.read.durations)."""

from django import template

from games.read import durations

register = template.Library()


@register.filter
def waiting(since):
    return durations.waiting(since)


@register.filter
def clock_text(clock):
    """A running decision's "time left" (``games.read.clock.Clock``), as every view says it."""
    return clock.text() if clock else ""


@register.filter
def moment(when):
    """A moment in the reader's zone, the zone named (``durations.moment``)."""
    return durations.moment(when)


@register.filter
def last_move(when):
    return durations.last_move(when)
