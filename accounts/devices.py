"""A player's devices for push notifications: turning push on in a browser, seeing the devices
and removing them (the profile), and noting when a device was last used.

The subscription a browser gives (endpoint and keys) is checked before it is kept: the site
posts to that endpoint, so it must be a push service's https address (``PUSH_SERVICE_HOSTS``;
development allows any, for the tests' local push service), and the keys must be a P-256 point
and a 16-byte secret. Sending is the outbox's (``games.outbox.push``).
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from datetime import timedelta

from cryptography.hazmat.primitives.asymmetric import ec
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from saboteur_site import push_endpoints

from .models import PushSubscription
from .services import AccountError

MAX_DEVICES = 20

COOKIE = "push_device"  # names this browser's subscription, for "last used"
COOKIE_AGE = 400 * 24 * 3600  # the most browsers keep a cookie

SEEN_EVERY = timedelta(minutes=1)  # how often a device's "last used" is written at most


def _decode(value) -> bytes | None:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value):
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def endpoint_error(endpoint) -> str | None:
    problem = push_endpoints.problem(endpoint)
    if problem == push_endpoints.UNKNOWN:
        return _("This browser's push service is not one the site knows, so it cannot be used.")
    if problem is not None:
        return _("This browser's push subscription cannot be used. Please try again.")
    return None


def _keys_error(p256dh, auth) -> str | None:
    point, secret = _decode(p256dh), _decode(auth)
    bad = _("This browser's push subscription cannot be used. Please try again.")
    if point is None or secret is None or len(point) != 65 or len(secret) != 16:
        return bad
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        return bad
    return None


def device_label(user_agent: str) -> str:
    """ "Firefox on Android", from the browser's User-Agent (for the list of devices)."""
    agent = user_agent or ""
    browser = next(
        (
            name
            for token, name in (
                ("Edg/", "Edge"),
                ("OPR/", "Opera"),
                ("Firefox/", "Firefox"),
                ("Chrome/", "Chrome"),
                ("Chromium/", "Chromium"),
                ("Safari/", "Safari"),
            )
            if token in agent
        ),
        _("A browser"),
    )
    system = next(
        (
            name
            for token, name in (
                ("Android", "Android"),
                ("iPhone", "iPhone"),
                ("iPad", "iPad"),
                ("Windows", "Windows"),
                ("Mac OS X", "macOS"),
                ("CrOS", "ChromeOS"),
                ("Linux", "Linux"),
            )
            if token in agent
        ),
        None,
    )
    if system is None:
        return browser
    return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}


def device_subscribe(*, user, subscription, user_agent: str = "", now=None) -> PushSubscription:
    """Keep this browser's push subscription for ``user`` (the last to subscribe owns it).

    Raises ``AccountError`` with a clear message for a malformed or foreign subscription, or when
    the player already has ``MAX_DEVICES`` devices; nothing is changed then.
    """
    now = now or timezone.now()
    if not isinstance(subscription, dict) or not isinstance(subscription.get("keys"), dict):
        raise AccountError(_("This browser's push subscription cannot be used. Please try again."))
    endpoint = subscription.get("endpoint")
    keys = subscription["keys"]
    error = endpoint_error(endpoint) or _keys_error(keys.get("p256dh"), keys.get("auth"))
    if error:
        raise AccountError(error)
    if not isinstance(endpoint, str):  # endpoint_error() refuses anything else
        raise AccountError(_("This browser's push subscription cannot be used. Please try again."))
    with transaction.atomic():
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        mine = PushSubscription.objects.filter(user=user)
        if existing is None or existing.user_id != user.pk:
            if mine.count() >= MAX_DEVICES:
                raise AccountError(
                    _("You have %(count)d devices for notifications. Remove one first.")
                    % {"count": MAX_DEVICES}
                )
        if existing is None:
            existing = PushSubscription(endpoint=endpoint, device_key=secrets.token_urlsafe(24))
        existing.user = user
        existing.p256dh, existing.auth = keys["p256dh"], keys["auth"]
        existing.label = device_label(user_agent)[:80]
        existing.last_used_at = now
        existing.save()
    return existing


def device_remove(*, user, device_id: int) -> bool:
    """Remove one of the player's own devices; False when it is not theirs (or gone)."""
    deleted, _rows = PushSubscription.objects.filter(user=user, pk=device_id).delete()
    return bool(deleted)


def devices_of(user) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user=user).order_by("created_at"))


def device_seen(*, user, device_key: str, now=None) -> None:
    """The player used the site on this device: note it (at most once a minute)."""
    if not device_key or len(device_key) > 40:
        return
    if not cache.add(f"device-seen:{device_key}", 1, int(SEEN_EVERY.total_seconds())):
        return
    now = now or timezone.now()
    PushSubscription.objects.filter(device_key=device_key, user=user).update(last_used_at=now)
