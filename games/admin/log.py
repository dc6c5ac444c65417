"""The audit log: every change made through the admin, each moderation action with its reason."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.utils.translation import gettext_lazy as _

from games.admin.base import ReadOnlyAdmin
from saboteur_site.admin_display import zoned


@admin.register(LogEntry)
class LogEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "action_time_zoned", "user", "content_type", "object_repr", "action_flag", "message",
    )  # fmt: skip
    list_filter = ("action_flag", "content_type")
    search_fields = ("object_repr", "change_message", "user__username")
    date_hierarchy = "action_time"
    fields = (
        "action_time_zoned",
        "user",
        "content_type",
        "object_id",
        "object_repr",
        "action_flag",
        "message",
    )
    readonly_fields = fields
    action_time_zoned = zoned(LogEntry, "action_time")

    @admin.display(description=_("message"))
    def message(self, entry):
        return entry.get_change_message()
