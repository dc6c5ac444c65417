"""Links in emails: the site's address, and signed one-click unsubscribe tokens (RFC 8058)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing

UNSUBSCRIBE_SALT = "games.unsubscribe"

UNSUBSCRIBE_KINDS = {
    "turns": "email_turns",
    "reminders": "email_reminders",
    "digest": "email_digest",
    "mentions": "email_mentions",
    "absent": "email_absent",
}


def unsubscribe_token(user, what: str) -> str:
    return signing.dumps({"u": user.pk, "w": what}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str, max_age=timedelta(days=90)) -> tuple[int, str] | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT, max_age=max_age)
    except signing.BadSignature:  # includes an expired signature
        return None
    if not isinstance(data, dict) or data.get("w") not in UNSUBSCRIBE_KINDS:
        return None
    user = data.get("u")
    if not isinstance(user, int):
        return None
    return user, data["w"]


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe(*, user_id: int, what: str) -> bool:
    """Turn one kind of email off for a user (the signed link's POST)."""
    field = UNSUBSCRIBE_KINDS[what]
    return bool(get_user_model().objects.filter(pk=user_id).update(**{field: False}))
