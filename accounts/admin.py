from allauth.account.models import EmailAddress
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import moderation
from games.admin import ReasonForm, action_with_form

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
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
    list_display = ("username", "display_name", "email", "is_staff", "is_active", "last_login")

    def save_model(self, request, obj, form, change):
        """An account an admin creates has its address verified: the admin vouches for it
        (seating a player needs a verified address, and mail goes only to verified ones)."""
        super().save_model(request, obj, form, change)
        if not change and obj.email:
            EmailAddress.objects.update_or_create(
                user=obj, email=obj.email, defaults={"verified": True, "primary": True}
            )

    list_filter = ("is_active", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    # Deactivating goes through the actions below: they ask for a reason, log it and take the
    # player out of their lobbies. The checkbox would do none of that.
    readonly_fields = ("is_active", "last_login", "date_joined")
    actions = ["deactivate", "ban", "reactivate"]

    def _deactivate(self, request, queryset, *, ban: bool):
        def perform(user, data):
            seats = []
            if ban:
                outcomes, seats = moderation.user_ban(
                    user=user, by=request.user, reason=data["reason"]
                )
            else:
                outcomes = moderation.user_deactivate(user=user, by=request.user)
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
            moderation.user_reactivate(user=user)
            return gettext("Reactivated.")

        return action_with_form(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            title=gettext("Reactivate users"),
            perform=perform,
        )
