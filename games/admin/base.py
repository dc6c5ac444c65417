"""What every page of this admin shares: the secrets it never shows nor filters on, and the
read-only pages."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.models import Game

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)
HIDDEN = _("hidden until the game is over")
SECRET_FIELDS = {"snapshot", "payload", "events", "data"}


class NoSecretLookups(admin.ModelAdmin):
    """Refuse changelist filters into secret JSON fields (``?snapshot__roles__0=saboteur``
    would otherwise tell, by its result count, what a running game hides)."""

    def lookup_allowed(self, lookup, value, request=None):
        if lookup.split("__")[0] in SECRET_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
