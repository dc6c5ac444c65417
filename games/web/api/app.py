"""The API with all its calls: ``site``'s API object, the router of ``games`` and ``streams``
added (kept apart from ``site``, which the calls' modules import)."""

from __future__ import annotations

from . import games, streams
from .site import api

__all__ = ["api", "streams"]

api.add_router("/", games.router)
