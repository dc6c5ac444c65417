"""The moderators' queue: players' reports, grouped by the reported player, with the reported
message and the chat around it, and the actions on them (dismiss, warn, mute in the chat, ban:
``games.moderation.reports``), each with a reason kept in the admin log.

Never a running game's secrets: a report shows the table's chat and a link to the game's admin
page, which hides them itself (``games.admin.base``)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.actions import ReasonForm, action_with_form
from games.admin.base import ReadOnlyAdmin
from games.models import ChatMute, Game, Report, Seat
from games.moderation import reports
from games.play.errors import ServiceError
from games.read.seats import display_name
from saboteur_site.admin_display import zoned
from saboteur_site.fields import AsciiIntegerField


class MuteForm(ReasonForm):
    hours = AsciiIntegerField(
        label=_("Mute for (hours)"), min_value=1, max_value=reports.MAX_MUTE_HOURS, initial=24
    )
    field_order = ["hours", "reason"]


class OutcomeFilter(admin.SimpleListFilter):
    """The queue opens on the reports waiting for a moderator; the handled ones, or all, are a
    click away (``?outcome=all``)."""

    title = _("outcome")
    parameter_name = "outcome"
    ALL = "all"

    def lookups(self, request, model_admin):
        return [*Report.Outcome.choices, (self.ALL, _("All"))]

    def chosen(self) -> str:
        return self.value() or Report.Outcome.OPEN

    def choices(self, changelist):
        # No Django "All" pointing at no parameter: no parameter means the open reports here.
        for value, label in self.lookup_choices:
            yield {
                "selected": self.chosen() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request, queryset):
        if self.chosen() == self.ALL:
            return queryset
        return queryset.filter(outcome=self.chosen())  # an unknown value: no report


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = (
        "reported_player", "open_about_player", "reason", "about", "created_at_zoned", "outcome",
    )  # fmt: skip
    list_filter = (OutcomeFilter, "reason")
    search_fields = ("reported__display_name", "reported__username", "text", "quoted")
    # Grouped by the reported player: their reports together, the newest first.
    ordering = ("reported__display_name", "reported_id", "-created_at")
    actions = ["dismiss", "warn", "mute", "ban"]
    fields = (
        "reporter", "reported", "reason", "text", "about", "game_link", "chat_around",
        "outcome", "handled_by", "handled_at_zoned", "created_at_zoned",
    )  # fmt: skip
    readonly_fields = fields
    created_at_zoned = zoned(Report, "created_at")
    handled_at_zoned = zoned(Report, "handled_at")

    def get_queryset(self, request):
        open_ones = (
            Report.objects.filter(reported=OuterRef("reported"), outcome=Report.Outcome.OPEN)
            .values("reported")
            .annotate(count=Count("pk"))
            .values("count")
        )
        return (
            super()
            .get_queryset(request)
            .select_related("reported", "reporter", "game", "handled_by")
            .annotate(open_about=Subquery(open_ones))
        )

    @admin.display(description=_("reported player"), ordering="reported__display_name")
    def reported_player(self, report):
        url = reverse("admin:accounts_user_change", args=[report.reported_id])
        return format_html('<a href="{}">{}</a>', url, report.reported.display_name)

    @admin.display(description=_("open reports about them"))
    def open_about_player(self, report):
        return report.open_about or 0

    @admin.display(description=_("about"))
    def about(self, report):
        if report.message_id is not None or report.quoted:
            return gettext("chat message: “%(text)s”") % {"text": report.quoted[:80]}
        if report.game_id is not None:
            return gettext("game: %(game)s") % {"game": report.game.name}
        return gettext("the player")

    @admin.display(description=_("game"))
    def game_link(self, report):
        if report.game is None:
            return "–"
        url = reverse("admin:games_game_change", args=[report.game_id])
        return format_html(
            '<a href="{}">{}</a> ({})', url, report.game.name, report.game.get_status_display()
        )

    @admin.display(description=_("the chat around it"))
    def chat_around(self, report):
        lines = reports.chat_context(report)
        if not lines:
            return "–"
        return format_html(
            '<ol class="report-chat">{}</ol>',
            format_html_join(
                "",
                "<li{}><time>{}</time> <strong>{}</strong>: {}</li>",
                (
                    (
                        format_html(' style="{}"', "font-weight:bold;background:#fff3cd")
                        if line.pk == report.message_id
                        else "",
                        line.created_at.strftime("%Y-%m-%d %H:%M"),
                        display_name(line.seat),
                        line.text,
                    )
                    for line in lines
                ),
            ),
        )

    def _handle(self, request, queryset, *, action, form_class, title):
        done: dict[int, str] = {}
        tried: list[bool] = []
        offered: set[int] = set()

        def perform(report, data):
            if not tried:  # once for all the selected reports: each player's action once
                tried.append(True)
                done.update(
                    reports.reports_handle(
                        report_ids=list(queryset.values_list("pk", flat=True)),
                        action=action,
                        by=request.user,
                        reason=data["reason"],
                        mute_hours=data.get("hours"),
                    )
                )
            if report.pk not in done:
                raise ServiceError(gettext("Handled already."))
            if action == "ban" and report.reported_id not in offered:
                offered.add(report.reported_id)
                self._offer_replacements(request, report.reported_id)
            return done[report.pk]

        return action_with_form(
            self, request, queryset, form_class=form_class, title=title, perform=perform
        )

    def _offer_replacements(self, request, user_id: int) -> None:
        """As the users' ban does: a link per running game to hand the banned seat over."""
        seats = list(
            Seat.objects.live()
            .select_related("game")
            .filter(
                user_id=user_id,
                state=Seat.State.ABSENT,
                game__status__in=(Game.Status.RUNNING, Game.Status.PAUSED),
            )
            .order_by("game_id")
        )
        if not seats:
            return
        links = format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            (
                (
                    reverse("admin:games_game_moderate", args=[seat.game_id, "replace_seat"])
                    + f"?position={seat.position}",
                    gettext("replace their seat in %(game)s") % {"game": seat.game.name},
                )
                for seat in seats
            ),
        )
        self.message_user(
            request, format_html("{} {}", gettext("Their running games:"), links), messages.WARNING
        )

    @admin.action(description=_("Dismiss the selected reports"))
    def dismiss(self, request, queryset):
        return self._handle(
            request, queryset, action="dismiss", form_class=ReasonForm,
            title=gettext("Dismiss reports"),
        )  # fmt: skip

    @admin.action(description=_("Warn the reported players"))
    def warn(self, request, queryset):
        return self._handle(
            request, queryset, action="warn", form_class=ReasonForm,
            title=gettext("Warn the reported players"),
        )  # fmt: skip

    @admin.action(description=_("Mute the reported players in the chat"))
    def mute(self, request, queryset):
        return self._handle(
            request, queryset, action="mute", form_class=MuteForm,
            title=gettext("Mute the reported players in the chat"),
        )  # fmt: skip

    @admin.action(description=_("Ban the reported players"))
    def ban(self, request, queryset):
        return self._handle(
            request, queryset, action="ban", form_class=ReasonForm,
            title=gettext("Ban the reported players"),
        )  # fmt: skip


@admin.register(ChatMute)
class ChatMuteAdmin(ReadOnlyAdmin):
    list_display = ("user", "until_zoned", "by", "reason")
    search_fields = ("user__display_name", "user__username")
    until_zoned = zoned(ChatMute, "until")

    def has_delete_permission(self, request, obj=None):
        return True  # lifting a mute early
