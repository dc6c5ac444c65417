"""The table's chat: a message, and emails to the players it mentions; a player muted by the
moderators (``ChatMute``) writes nothing until the mute ends."""

from __future__ import annotations

import math
from datetime import timedelta

from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import ChatMessage, ChatMute
from games.outbox import mentions, sending

from .errors import ServiceError
from .locking import lock_game, player_seat, touch

# What one player may write, over all their games: so many messages in so long (a player
# wrote 40 messages in 8 seconds mentioning another, who got 41 emails: issue 36). Mention
# emails are merged besides (``mentions.notices_for_mentions``).
CHAT_LIMITS = ((timedelta(minutes=1), 10), (timedelta(hours=1), 120))


class ChatTooFast(ServiceError):
    """Too many messages lately; ``retry_after`` is how many seconds until the next may go."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(
            ngettext(
                "You are writing faster than the table can read. You can send your next message "
                "in %(seconds)d second.",
                "You are writing faster than the table can read. You can send your next message "
                "in %(seconds)d seconds.",
                retry_after,
            )
            % {"seconds": retry_after},
            code="rate-limited",
        )


class ChatMuted(ServiceError):
    """The moderators muted the player in the chat until ``until``."""

    def __init__(self, until):
        self.until = until
        shown = formats.date_format(timezone.localtime(until), "DATETIME_FORMAT")
        super().__init__(
            _("A moderator has muted you in the chat until %(until)s. Your message was not sent.")
            % {"until": shown},
            code="muted",
        )


def muted_until(user, now=None):
    """The end of the player's chat mute, or None when they may write."""
    now = now or timezone.now()
    return (
        ChatMute.objects.filter(user=user, until__gt=now)
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )


def _wait_before_writing(user, now) -> int:
    """Seconds until ``user`` may write again (0: now), by the strictest of ``CHAT_LIMITS``."""
    wait = 0.0
    for window, limit in CHAT_LIMITS:
        recent = ChatMessage.objects.filter(seat__user=user, created_at__gt=now - window)
        times = list(recent.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:  # the oldest of the last ``limit`` must leave the window first
            wait = max(wait, (times[-1] + window - now).total_seconds())
    return math.ceil(wait)


def chat_post(*, game_id: int, user, text: str) -> ChatMessage:
    """A message at the table; refused while the player writes faster than ``CHAT_LIMITS``."""
    text = text.strip()
    if not text:
        raise ServiceError(_("A message cannot be empty."))
    with transaction.atomic():
        game = lock_game(game_id)
        seat = player_seat(game, user)
        now = timezone.now()
        until = muted_until(user, now)
        if until is not None:
            raise ChatMuted(until)
        wait = _wait_before_writing(user, now)
        if wait > 0:
            raise ChatTooFast(wait)
        touch(game)
        message = ChatMessage.objects.create(game=game, seat=seat, text=text[:500])
        sending.enqueue_after_commit(
            mentions.notices_for_mentions(game=game, message=message, now=now)
        )
        return message
