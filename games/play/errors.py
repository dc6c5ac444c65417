"""What the play side answers when it refuses: one exception family, messages safe to show."""

from __future__ import annotations

from django.utils.translation import gettext

from games import engine


class ServiceError(Exception):
    """A request the service refuses; ``message`` is translated and safe to show."""

    def __init__(self, message: str, *, code: str = "refused"):
        self.message = message
        self.code = code
        super().__init__(message)


class StaleVersion(ServiceError):
    """The player acted on an old page: someone moved first."""


class IdempotencyConflict(ServiceError):
    """An idempotency key already used for a different move."""


class MoveRefused(ServiceError):
    """The engine refused the move; ``code`` is its reason code."""


def reason_message(code: str) -> str:
    """The engine's reason code as a translated sentence for players (translated when called)."""
    return gettext(engine.REASONS.get(code, engine.REASONS["malformed"]))
