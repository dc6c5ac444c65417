"""The user's page as admins see it, with what is about games: the player's seats and games,
their email outbox, and deactivating, banning and reactivating them (``games.moderation.players``:
each asks for a reason and logs it).

``accounts.admin.UserAdmin`` has the account's own parts; ``PlayerAdmin`` adds these and takes
its place in the admin (``accounts`` imports nothing of games).
"""

from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import EmailAddressInline, ReadOnlyInline, UserAdmin
from accounts.models import User
from games.admin.actions import ReasonForm, action_with_form
from games.admin.display import seat_shown
from games.models import Notice, Seat
from games.moderation import players
from saboteur_site.admin_display import zoned


class UserSeatInline(ReadOnlyInline):
    """The player's seats and games (never a role)."""

    model = Seat
    fk_name = "user"
    fields = ("game", "game_status", "seat", "state", "joined_at_zoned", "last_seen_at_zoned")
    readonly_fields = fields
    joined_at_zoned = zoned(Seat, "joined_at")
    last_seen_at_zoned = zoned(Seat, "last_seen_at")
    show_change_link = False
    verbose_name_plural = _("seats and games")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("game").order_by("-joined_at")

    @admin.display(description=_("game status"))
    def game_status(self, seat):
        return seat.game.get_status_display()

    @admin.display(description=_("seat"))
    def seat(self, seat):
        return seat_shown(seat)


class UserNoticeInline(ReadOnlyInline):
    """Their outbox rows, newest first (the latest 50)."""

    model = Notice
    fk_name = "user"
    fields = ("kind", "status", "game", "due_at_zoned", "sent_at_zoned", "reason", "last_error")
    readonly_fields = fields
    due_at_zoned = zoned(Notice, "due_at")
    sent_at_zoned = zoned(Notice, "sent_at")
    verbose_name_plural = _("email outbox")

    def get_queryset(self, request):
        latest = Notice.objects.filter(user=OuterRef("user")).order_by("-created_at")
        return (
            super()
            .get_queryset(request)
            .select_related("game")
            .filter(pk__in=Subquery(latest.values("pk")[:50]))
            .order_by("-created_at")
        )


class PlayerAdmin(UserAdmin):
    """The user's page with their seats and outbox, and the moderators' actions on players."""

    inlines = [EmailAddressInline, UserSeatInline, UserNoticeInline]
    actions = ["deactivate", "ban", "reactivate"]

    def _deactivate(self, request, queryset, *, ban: bool):
        def perform(user, data):
            seats: list[Seat] = []
            if ban:
                outcomes, seats = players.user_ban(
                    user=user, by=request.user, reason=data["reason"]
                )
            else:
                outcomes = players.user_deactivate(user=user, by=request.user)
            text = gettext("Banned.") if ban else gettext("Deactivated.")
            if outcomes:
                text += " " + gettext("Lobbies: %(outcomes)s.") % {"outcomes": "; ".join(outcomes)}
            if seats:
                text += " " + gettext("Seats marked absent in: %(games)s.") % {
                    "games": ", ".join(seat.game.name for seat in seats)
                }
                self._offer_replacements(request, seats)
            return text

        title = gettext("Ban users") if ban else gettext("Deactivate users")
        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=title, perform=perform
        )

    def _offer_replacements(self, request, seats):
        """A link per running game to hand the banned player's seat to someone else."""
        links = format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            (
                (
                    reverse("admin:games_game_moderate", args=[seat.game.pk, "replace_seat"])
                    + f"?position={seat.position}",
                    gettext("replace their seat in %(game)s") % {"game": seat.game.name},
                )
                for seat in seats
            ),
        )
        self.message_user(
            request,
            format_html("{} {}", gettext("Their running games:"), links),
            messages.WARNING,
        )

    @admin.action(description=_("Deactivate the selected users"))
    def deactivate(self, request, queryset):
        return self._deactivate(request, queryset, ban=False)

    @admin.action(description=_("Ban the selected users"))
    def ban(self, request, queryset):
        return self._deactivate(request, queryset, ban=True)

    @admin.action(description=_("Reactivate the selected users"))
    def reactivate(self, request, queryset):
        def perform(user, data):
            players.user_reactivate(user=user)
            return gettext("Reactivated.")

        return action_with_form(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            title=gettext("Reactivate users"),
            perform=perform,
        )


# Importing accounts.admin (above) registered its UserAdmin: this one replaces it.
admin.site.unregister(User)
admin.site.register(User, PlayerAdmin)
