"""The table's chat: a message, and emails to the players it mentions."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import ChatMessage
from games.outbox import schedule, sending

from .errors import ServiceError
from .locking import lock_game, player_seat, touch


def chat_post(*, game_id: int, user, text: str) -> ChatMessage:
    text = text.strip()
    if not text:
        raise ServiceError(_("A message cannot be empty."))
    with transaction.atomic():
        game = lock_game(game_id)
        seat = player_seat(game, user)
        touch(game)
        message = ChatMessage.objects.create(game=game, seat=seat, text=text[:500])
        sending.enqueue_after_commit(
            schedule.notices_for_mentions(game=game, message=message, now=timezone.now())
        )
        return message
