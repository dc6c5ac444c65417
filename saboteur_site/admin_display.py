"""How the admin says a moment: localized in the current time zone, which it names.

Read by the admin of both apps (``accounts.admin``: a user's last login; ``games.admin``: deadlines,
moves, the outbox), so it lives below both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db import models
from django.utils import formats, timezone


def formatted(moment) -> str:
    """A moment as the admin reads it: localized in the current time zone, which it names
    ("Nov. 3, 2026, 5 p.m. (UTC)"), never an ISO string."""
    if moment is None:
        return "-"
    local = timezone.localtime(moment)
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} ({local.tzname()})"


def zoned(model: type[models.Model], name: str) -> Callable[[Any, Any], str]:
    """A display method showing ``model``'s date-time field ``name`` through ``formatted``,
    labelled and sorted as the field itself; an admin class names it in its body
    (``deadline_zoned = zoned(Game, "deadline")``) and lists that name in its columns or fields.
    """
    field = model._meta.get_field(name)
    if not isinstance(field, models.DateTimeField):
        raise TypeError(f"{model.__name__}.{name} is not a date-time field")

    @admin.display(description=field.verbose_name, ordering=name)
    def shown(modeladmin, obj) -> str:
        return formatted(getattr(obj, name))

    return shown
