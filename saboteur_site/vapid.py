"""The site's VAPID key pair for Web Push (RFC 8292), from ``settings.VAPID_PRIVATE_KEY``.

Without a key (or with a malformed one) push is off and the site runs without it; ``status()``
says why (/health/). Both the outbox (sending) and the profile (subscribing) read it here.

The subject (``VAPID_SUBJECT``, the JWT's ``sub``: whom a push service may contact) is checked by
the library that signs it (``subject_problem``): one it refuses would fail every push, so the
settings refuse it at start, and the default (``default_subject``) is always one it takes.
"""

from __future__ import annotations

import functools
from email.utils import parseaddr
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from py_vapid import Vapid, VapidException
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
    vapid = _vapid(private_key)
    if vapid is None:  # public_key() asks only for a key that reads
        raise ValueError("The VAPID private key does not read.")
    raw = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64urlencode(raw)


def generate() -> tuple[str, str]:
    """A new key pair: (private key, public key), both base64url (``make run`` keeps one)."""
    pair = Vapid()
    pair.generate_keys()
    number = pair.private_key.private_numbers().private_value.to_bytes(32, "big")
    raw = pair.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64urlencode(number), b64urlencode(raw)


@functools.cache
def _probe() -> Vapid:
    """A throwaway key, to ask py_vapid whether it signs a subject."""
    pair = Vapid()
    pair.generate_keys()
    return pair


def subject_problem(subject: str) -> str | None:
    """Why ``subject`` cannot be the VAPID subject, or None: it must be a ``mailto:`` or an
    ``https:`` address (RFC 8292) that py_vapid, which signs every push, accepts (it refuses an
    https address with a port or a path, for one)."""
    if not subject.startswith(("mailto:", "https://")):
        return "must be a mailto: address or an https:// address (RFC 8292)"
    try:
        _probe().sign({"sub": subject, "aud": "https://push.example"})
    except VapidException:
        return (
            "is refused by the push library: use a mailto: address (mailto:you@example.com) or "
            "an https:// address without port or path (https://saboteur.example)"
        )
    return None


def default_subject(sender: str, site_url: str) -> str:
    """The subject when ``VAPID_SUBJECT`` is not set: a mailto: of the site's sender address
    (``DEFAULT_FROM_EMAIL``), unless that is only a local address and the site is on https
    without a port, then the site. Always one push services take (``subject_problem``)."""
    address = parseaddr(sender)[1]
    mailto = f"mailto:{address}" if address else ""
    local = address.rpartition("@")[2].lower() in ("", "localhost")
    site = urlsplit(site_url)
    https = ""
    if site.scheme == "https" and site.hostname and site.port is None:
        https = f"https://{site.hostname}"
    for candidate in (mailto, https) if not local else (https, mailto):
        if candidate and subject_problem(candidate) is None:
            return candidate
    return "mailto:webmaster@localhost"
