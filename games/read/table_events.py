"""The moderators' table events as the log shows them: takeovers, pauses, extensions, aborts.

Read beside the move log (``games.read.log``); written by ``games.moderation``.
"""

from __future__ import annotations

from datetime import datetime

from django.core.cache import caches
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Game, TableEvent
from saboteur_site.cache import get_or_build

from . import durations
from .log import Entry

EVENTS_SECONDS = 600


def events_of(game: Game) -> list[TableEvent]:
    """The game's table events, oldest first.

    Kept per process under the game's revision: every moderation action that writes one bumps
    the revision in the same transaction, and none is ever changed or deleted (but with its
    game). Most games have none, and the game page and its parts ask on every view.
    """
    prefetched = getattr(game, "_prefetched_objects_cache", {}).get("table_events")
    if prefetched is not None:
        return list(prefetched)
    key = f"table-events:{game.pk}:{game.revision}"
    return get_or_build(caches["local"], key, lambda: list(game.table_events.all()), EVENTS_SECONDS)


def renames(game: Game) -> list[tuple[int, str, str]]:
    """Seat takeovers as (after_version, engine seat name, the earlier player's name)."""
    return [
        (event.after_version, str(event.data["seat"]), event.data["old"])
        for event in events_of(game)
        if event.kind == TableEvent.Kind.REPLACED
    ]


def table_entries(game: Game) -> list[Entry]:
    """The moderators' public log lines; ``Entry.sequence`` places each after that many moves."""
    return [Entry(event.after_version, describe(event), private=False) for event in events_of(game)]


def stop_reason(game: Game) -> str:
    """The moderators' reason for stopping ``game`` ("" when none was given)."""
    aborted = [e for e in events_of(game) if e.kind == TableEvent.Kind.ABORTED]
    return (aborted[-1].data.get("reason") or "") if aborted else ""


def describe(event: TableEvent) -> str:
    data = event.data
    if event.kind == TableEvent.Kind.REPLACED:
        return _("%(new)s took over from %(old)s.") % {"new": data["new"], "old": data["old"]}
    if event.kind == TableEvent.Kind.PAUSED:
        return _("The moderators paused the game: the clock stops until it resumes.")
    if event.kind == TableEvent.Kind.RESUMED:
        return _("The moderators resumed the game.")
    if event.kind == TableEvent.Kind.EXTENDED:
        return ngettext(
            "The moderators gave %(who)s %(hours)d more hour.",
            "The moderators gave %(who)s %(hours)d more hours.",
            data["hours"],
        ) % {"who": data["who"], "hours": data["hours"]}
    if event.kind == TableEvent.Kind.ABORTED:
        if data.get("reason"):
            return _("The moderators stopped the game: %(reason)s") % {"reason": data["reason"]}
        return _("The moderators stopped the game.")
    if event.kind == TableEvent.Kind.VACATION:
        return _("%(name)s is on vacation from %(starts)s until %(ends)s.") % {
            "name": data["name"],
            "starts": _day(data["starts"]),
            "ends": _day(data["ends"]),
        }
    if event.kind == TableEvent.Kind.RETURNED:
        if data.get("event") == "called-off":
            return _("%(name)s called off their vacation.") % {"name": data["name"]}
        return _("%(name)s is back from vacation.") % {"name": data["name"]}
    return str(event.get_kind_display())


def _day(moment: str) -> str:
    """A vacation's start or end in the viewer's time zone (the page's, the email's)."""
    return durations.moment(datetime.fromisoformat(moment))
