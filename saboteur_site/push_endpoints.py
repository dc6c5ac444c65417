"""Which push endpoints the site posts to (``PUSH_SERVICE_HOSTS``, ``PUSH_ANY_HOST``).

A browser gives the endpoint of its push subscription and the site posts there, so it must be a
push service's https address, read exactly as the sender will connect to it. Both the profile
(accounts/devices.py, when a browser subscribes) and the outbox (games/outbox/push.py, before
each push) ask here.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

MALFORMED = "malformed"
UNKNOWN = "unknown"  # well formed, but not on a push service the site knows


def address(endpoint: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) that the sender will connect to for ``endpoint``, or None when the
    address is not plain enough to be sure of that.

    pywebpush posts through requests, which parses the address with urllib3's ``parse_url``: the
    host is checked as that parser sees it, and only when the standard library's ``urlsplit``
    (pywebpush's own reading, for the VAPID audience) agrees. An address with userinfo, a
    backslash or anything but printable ASCII is refused: ``https://127.0.0.1:8113\\@fcm...``
    is fcm.googleapis.com to ``urlsplit`` and 127.0.0.1:8113 to urllib3.
    """
    if any(not 33 <= ord(char) <= 126 or char in "\\@" for char in endpoint):
        return None
    try:
        split, parsed = urlsplit(endpoint), parse_url(endpoint)
        seen = (split.scheme.lower(), (split.hostname or "").lower(), split.port)
    except (ValueError, LocationParseError):
        return None
    connects = (parsed.scheme or "", (parsed.host or "").lower(), parsed.port)
    if parsed.auth is not None or split.username is not None or seen != connects:
        return None
    return seen


def problem(endpoint) -> str | None:
    """None when the site may post to ``endpoint``; else ``MALFORMED`` or ``UNKNOWN``."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > 1000:
        return MALFORMED
    parts = address(endpoint)
    if parts is None:
        return MALFORMED
    scheme, host, port = parts
    if settings.PUSH_ANY_HOST:
        return None if scheme in ("https", "http") and host else MALFORMED
    known = any(host == h or host.endswith("." + h) for h in settings.PUSH_SERVICE_HOSTS)
    if scheme != "https" or not known or port not in (None, 443):
        return UNKNOWN
    return None
