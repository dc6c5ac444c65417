"""Personal access tokens of the public API (issue 54; docs/api.md): made, listed, revoked,
and the token of a request found from its text.

A token is ``sab_`` and 43 random URL-safe characters (256 bits). Its text is shown to its player
once, on the answer of the form that made it; the database keeps only its SHA-256 (a token is
as random as a key, so no slow hash is needed to make guessing hopeless) and its first twelve
characters, to tell tokens apart in the list. Nothing logs it: the request log writes no
headers (saboteur_site/logs.py), and no page or email shows it again.

Scopes: ``read`` (the account, its games, their logs and deals, the streams), ``play`` (moves,
creating, joining and starting games), ``chat``; a bot account's tokens have ``bot`` instead of
``play`` (its moves and tables), and a person's cannot have ``bot``.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from saboteur_site.text import has_line_breaks

from .services import AccountError

if TYPE_CHECKING:
    from .models import ApiToken, User

PREFIX = "sab_"
NAME_MAX_LENGTH = 60
MAX_TOKENS = 20  # live tokens per player
# The last use is written at most this often per token: a bot's every call would otherwise be a
# write.
LAST_USE_EVERY = timedelta(minutes=1)
PERSON_SCOPES = ("read", "play", "chat")
BOT_SCOPES = ("read", "bot", "chat")


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def scopes_for(user: User) -> tuple[str, ...]:
    """The scopes a token of ``user`` may have."""
    return BOT_SCOPES if user.is_bot else PERSON_SCOPES


def token_create(*, user: User, name: str, scopes) -> tuple[ApiToken, str]:
    """A new token of ``user`` with ``scopes``; returns it and its text (shown once)."""
    from .models import ApiToken

    name = (name or "").strip()
    if not name:
        raise AccountError(_("Please give the token a name."))
    if len(name) > NAME_MAX_LENGTH or has_line_breaks(name):
        raise AccountError(
            _("A token's name is one line of at most %(count)d characters.")
            % {"count": NAME_MAX_LENGTH}
        )
    chosen = [scope for scope in scopes_for(user) if scope in set(scopes or ())]
    if not chosen or len(chosen) != len(set(scopes)):
        raise AccountError(_("Please choose the token's scopes from the list."))
    with transaction.atomic():
        live = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
        if len(live) >= MAX_TOKENS:
            raise AccountError(
                _("You have %(count)d tokens: revoke one before you make another.")
                % {"count": MAX_TOKENS}
            )
        text = PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(
            user=user, name=name, hint=text[:12], digest=digest_of(text), scopes=chosen
        )
    return token, text


def token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of ``user``'s tokens; False when they have no such live token."""
    from .models import ApiToken

    revoked = ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    return bool(revoked)


def tokens_of(user: User) -> list[ApiToken]:
    from .models import ApiToken

    return list(ApiToken.objects.filter(user=user))


def token_in_use(text: str) -> ApiToken | None:
    """The live token whose text this is, of an active account (its user loaded), its last use
    noted; None for anything else."""
    from .models import ApiToken

    if not text.startswith(PREFIX) or len(text) > 100:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest_of(text), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USE_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def allows(token: ApiToken, scope: str) -> bool:
    """Whether ``token`` may do what ``scope`` covers ("play": a person's ``play``, a bot
    account's ``bot``)."""
    if scope == "play":
        wanted = "bot" if token.user.is_bot else "play"
        return wanted in token.scopes
    return scope in token.scopes
