"""The email outbox: every notice, when it is due and what went wrong; one may be queued again."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.actions import ReasonForm, action_with_form
from games.admin.base import NoSecretLookups
from games.models import Notice
from games.moderation import tables
from saboteur_site.admin_display import zoned


class HasErrorFilter(admin.SimpleListFilter):
    title = _("has an error")
    parameter_name = "has_error"

    def lookups(self, request, model_admin):
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(last_error="")
        if self.value() == "no":
            return queryset.filter(last_error="")
        return queryset


@admin.register(Notice)
class NoticeAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "kind", "status", "recipient", "game", "due_at_zoned", "attempts", "reason", "last_error",
    )  # fmt: skip
    list_filter = ("status", "kind", HasErrorFilter)
    search_fields = ("user__email", "user__display_name", "email", "key")
    list_select_related = ("user", "game")
    date_hierarchy = "due_at"
    fields = (
        "key",
        "kind",
        "status",
        "user",
        "email",
        "game",
        "version",
        "due_at_zoned",
        "attempts",
        "last_error",
        "reason",
        "created_at_zoned",
        "sent_at_zoned",
    )
    readonly_fields = fields
    due_at_zoned = zoned(Notice, "due_at")
    created_at_zoned = zoned(Notice, "created_at")
    sent_at_zoned = zoned(Notice, "sent_at")
    actions = ["resend"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("recipient"))
    def recipient(self, notice):
        return notice.user.email if notice.user else notice.email

    @admin.action(description=_("Resend the selected emails"))
    def resend(self, request, queryset):
        def perform(notice, data):
            tables.notices_resend(notice_ids=[notice.pk])
            return gettext("Queued the email again.")

        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=gettext("Resend emails"),
            perform=perform,
        )  # fmt: skip
