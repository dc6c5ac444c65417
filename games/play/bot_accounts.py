"""Making an account a bot account (issue 54; docs/api.md "Bots"): by its owner, before it plays
any game, for good. A bot account then shows a bot mark wherever its name shows, joins only the
tables whose creator allows bot accounts (``lobby.seat_join``) and plays through the public API
with a token of scope ``bot`` (``accounts.tokens``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from games.models import Seat

from .errors import ServiceError


def bot_account_make(*, user) -> None:
    """Make ``user``'s account a bot; refused once it has sat at any table. The account's
    tokens with the scope ``play`` open no moves any more (a bot's moves need ``bot``)."""
    with transaction.atomic():
        locked = get_user_model().objects.select_for_update().get(pk=user.pk)
        if locked.is_bot:
            return
        if Seat.objects.filter(user=locked).exists():
            raise ServiceError(
                _("Only an account that has not played any game can become a bot."),
                code="has-played",
            )
        locked.is_bot = True
        locked.save(update_fields=["is_bot"])
    user.is_bot = True
