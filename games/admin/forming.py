"""Play now's forming tables (issue 52): which tables form, who waits at each and what they
asked for, and closing a table (with a reason; its players are told)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.actions import ReasonForm, action_with_form
from games.admin.base import ReadOnlyAdmin
from games.models import FormingTable, TableWish
from games.play import matchmaking
from games.play.errors import ServiceError
from saboteur_site.admin_display import zoned


class WishInline(admin.TabularInline):
    model = TableWish
    fields = (
        "user", "waiting", "min_players", "max_players", "languages", "min_reliability",
        "bots_ok", "created_at_zoned",
    )  # fmt: skip
    readonly_fields = fields
    created_at_zoned = zoned(TableWish, "created_at")
    extra = 0
    can_delete = False
    verbose_name_plural = _("who waits, and what they asked for")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(FormingTable)
class FormingTableAdmin(ReadOnlyAdmin):
    list_display = (
        "game", "state", "kind", "language", "seated", "min_players", "start_at_zoned",
        "postponed",
    )  # fmt: skip
    list_filter = ("state", "language", "pace")
    search_fields = ("game__name", "wishes__user__display_name")
    list_select_related = ("game",)
    fields = (
        "game", "state", "kind", "language", "min_players", "created_at_zoned",
        "start_at_zoned", "postponed",
    )  # fmt: skip
    readonly_fields = fields
    inlines = [WishInline]
    actions = ["close"]
    start_at_zoned = zoned(FormingTable, "start_at")
    created_at_zoned = zoned(FormingTable, "created_at")

    @admin.display(description=_("seated"))
    def seated(self, table):
        return table.wishes.filter(waiting=True).count()

    @admin.action(description=_("Close the selected forming tables (their players are told)"))
    def close(self, request, queryset):
        def perform(table, data):
            if not matchmaking.cancel(table_id=table.pk):
                raise ServiceError(gettext("This table has already started or closed."))
            return gettext("Closed the forming table.")

        return action_with_form(
            self, request, queryset, form_class=ReasonForm,
            title=gettext("Close forming tables"), perform=perform,
        )  # fmt: skip
