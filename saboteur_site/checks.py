"""``manage.py check --deploy``: what the settings accept but a real deployment would regret.

The settings refuse what cannot work at all (saboteur_site/startup.py); these warn about what
works on one machine and fails with the world outside it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def push_subject(app_configs, **kwargs) -> list[Warning]:
    """A VAPID subject at a local address: py_vapid signs it, but it names nobody a push service
    can contact, and some (Apple's) refuse such a subject, so no push reaches their browsers."""
    if not settings.VAPID_PRIVATE_KEY:
        return []  # push is off
    subject = settings.VAPID_SUBJECT
    if subject.startswith("mailto:"):
        host = subject.rpartition("@")[2]
    else:
        host = urlsplit(subject).hostname or ""
    if host.lower() not in ("localhost", "127.0.0.1", "::1") and not host.endswith(".localhost"):
        return []
    return [
        Warning(
            f"VAPID_SUBJECT is {subject!r}, a local address push services may refuse.",
            hint="Set VAPID_SUBJECT to mailto: an address you read, or set DEFAULT_FROM_EMAIL "
            "to one (the subject defaults to a mailto: of it).",
            id="saboteur.W001",
        )
    ]
