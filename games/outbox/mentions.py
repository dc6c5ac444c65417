"""Chat mentions: an email to each seated player a chat message names as "@Display name"."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from accounts.models import Block
from games.models import Game, Notice, Seat

# Mentions of one player in one game are emailed one at once, then at most one email an hour,
# which lists those of the hour (``sending.TOLD_TOGETHER``): 40 messages naming a player
# brought them 41 emails in 70 seconds (issue 36).
MENTIONS_EVERY = timedelta(hours=1)


def notices_for_mentions(*, game: Game, message, now: datetime) -> list[Notice]:
    """An email to each seated player named as "@Display name" in a chat message: at once
    when none was emailed to them in this game within ``MENTIONS_EVERY``, else with the next
    one due (an hour after the last), all of them in one email. A player who has blocked the
    author is sent nothing (``accounts.relations``)."""
    text = message.text.casefold()
    author_id = Seat.objects.filter(pk=message.seat_id).values_list("user_id", flat=True).first()
    blocking = set(Block.objects.filter(blocked_id=author_id).values_list("blocker_id", flat=True))
    rows = [
        Notice(
            key=f"mention:{message.pk}:{seat.pk}",
            kind=Notice.Kind.MENTION,
            user=seat.user,
            game=game,
            seat=seat,
            due_at=_next_mention_email(game, seat.user, now),
            data={"message": message.pk},
        )
        for seat in game.seats.select_related("user")
        if seat.user is not None
        and seat.pk != message.seat_id
        and seat.state != Seat.State.REPLACED
        and seat.user_id not in blocking
        and _mentions(text, seat.user.display_name)
    ]
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return rows


def _next_mention_email(game: Game, user, now: datetime) -> datetime:
    mentions = Notice.objects.filter(game=game, user=user, kind=Notice.Kind.MENTION)
    waiting = mentions.filter(status=Notice.Status.PENDING).order_by("due_at").first()
    if waiting is not None:
        return max(waiting.due_at, now)  # goes with the one waiting, in its email
    last = (
        mentions.filter(status=Notice.Status.SENT, sent_at__gt=now - MENTIONS_EVERY)
        .order_by("-sent_at")
        .values_list("sent_at", flat=True)
        .first()
    )
    return now if last is None else last + MENTIONS_EVERY


def _mentions(text: str, name: str) -> bool:
    """Whether ``text`` (casefolded) names "@name" as a whole: "@Al" is not in "@Alice"."""
    pattern = rf"@{re.escape(name.casefold())}(?![\w-])"
    return re.search(pattern, text) is not None
