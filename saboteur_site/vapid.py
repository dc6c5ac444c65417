"""The site's VAPID key pair for Web Push (RFC 8292), from ``settings.VAPID_PRIVATE_KEY``.

Without a key (or with a malformed one) push is off and the site runs without it; ``status()``
says why (/health/). Both the outbox (sending) and the profile (subscribing) read it here.
"""

from __future__ import annotations

import functools

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from py_vapid import Vapid
from py_vapid.utils import b64urlencode


@functools.cache
def _vapid(private_key: str) -> Vapid | None:
    try:
        return Vapid.from_string(private_key)
    except Exception:  # any malformed key: push stays off, /health/ says why
        return None


def key() -> Vapid | None:
    """The site's VAPID key, or None when push is off."""
    private = settings.VAPID_PRIVATE_KEY
    return _vapid(private) if private else None


def status() -> str:
    """ "on", or "off" and why."""
    if not settings.VAPID_PRIVATE_KEY:
        return "off: VAPID_PRIVATE_KEY is not set"
    if key() is None:
        return "off: VAPID_PRIVATE_KEY is not a valid key"
    return "on"


def public_key() -> str | None:
    """The application server key browsers subscribe with (base64url, uncompressed P-256)."""
    if key() is None:
        return None
    return _public_key(settings.VAPID_PRIVATE_KEY)


@functools.cache
def _public_key(private_key: str) -> str:
    raw = _vapid(private_key).public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64urlencode(raw)


def generate() -> tuple[str, str]:
    """A new key pair: (private key, public key), both base64url (``make run`` keeps one)."""
    pair = Vapid()
    pair.generate_keys()
    number = pair.private_key.private_numbers().private_value.to_bytes(32, "big")
    raw = pair.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64urlencode(number), b64urlencode(raw)
