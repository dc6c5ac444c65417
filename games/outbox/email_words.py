"""What emails of several kinds say alike: the game's link, the decision waiting, a moment and a
span of time, in the reader's language and time zone (``emails.build_email`` sets both).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.models import Game
from games.read import durations

from .links import site_url


def _game_link(game: Game) -> str:
    return site_url(reverse("game", args=[game.pk]))


def decision_text(state: engine.State) -> str:
    """The decision waiting, in one sentence (emails and push notifications)."""
    if state.decision == engine.PICK_GOLD:
        return _("Pick one of the gold cards offered to you.")
    if state.decision == engine.STEAL:
        return _("Decide whom your Theft steals from.")
    return _("Play a card or pass.")


def when(moment) -> str:
    """A moment in the recipient's time zone and language (the caller overrides both)."""
    return durations.moment(moment)


def duration(span) -> str:
    """A time limit in words: "2 days", "1 day 6 hours", "3 hours"."""
    hours = int(span.total_seconds()) // 3600
    days, hours = divmod(hours, 24)
    parts = []
    if days:
        parts.append(ngettext("%(count)d day", "%(count)d days", days) % {"count": days})
    if hours or not days:
        parts.append(ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours})
    return " ".join(parts)
