from functools import partial
from importlib import import_module

from allauth.account.models import EmailAddress, EmailConfirmation
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin import ReasonForm, action_with_form, seat_shown, zoned
from games.models import Notice, Seat
from games.moderation import players

from . import services
from .models import User

# Addresses are shown on each user's page (one "Accounts" section in the admin index).
# allauth's admin module registers them whenever it is imported: import it first.
import_module("allauth.account.admin")
for model in (EmailAddress, EmailConfirmation):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


# Django's user page, whose last set of fields, "Important dates" (its label translated by Django),
# shows the two times with their zone here.
DJANGO_USER_SETS = BaseUserAdmin.fieldsets or ()
IMPORTANT_DATES = DJANGO_USER_SETS[-1][0]


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class EmailAddressInline(ReadOnlyInline):
    model = EmailAddress
    fields = ("email", "verified", "primary")
    readonly_fields = fields
    show_change_link = False
    verbose_name_plural = _("email addresses")


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


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    inlines = [EmailAddressInline, UserSeatInline, UserNoticeInline]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []  # not on the "add user" form

    fieldsets = (
        *DJANGO_USER_SETS[:-1],
        (IMPORTANT_DATES, {"fields": ("last_login_zoned", "date_joined_zoned")}),
        (_("Player"), {"fields": ("display_name",)}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("username", "email", "display_name", "password1", "password2"),
            },
        ),
    )
    list_display = (
        "username", "display_name", "email", "is_staff", "is_active", "last_login_zoned",
    )  # fmt: skip

    def save_model(self, request, obj, form, change):
        """An account an admin creates has its address verified: the admin vouches for it
        (seating a player needs a verified address, and mail goes only to verified ones)."""
        super().save_model(request, obj, form, change)
        if change and "display_name" in form.changed_data:
            # After the admin's transaction: the games are locked before a user row (the lock
            # order), and this one holds the user's row until it commits.
            transaction.on_commit(partial(services.display_name_changed, user=obj))
        if not change and obj.email:
            EmailAddress.objects.update_or_create(
                user=obj, email=obj.email, defaults={"verified": True, "primary": True}
            )

    list_filter = ("is_active", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    # Deactivating goes through the actions below: they ask for a reason, log it and take the
    # player out of their lobbies. The checkbox would do none of that.
    readonly_fields = ("is_active", "last_login_zoned", "date_joined_zoned")
    last_login_zoned = zoned(User, "last_login")
    date_joined_zoned = zoned(User, "date_joined")
    actions = ["deactivate", "ban", "reactivate"]

    def _deactivate(self, request, queryset, *, ban: bool):
        def perform(user, data):
            seats = []
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
