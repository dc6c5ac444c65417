from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
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
    list_filter = ("is_active", "is_staff", "is_superuser")
    search_fields = ("username", "display_name", "email")
    # Deactivating goes through the actions below: they ask for a reason, log it and take the
    # player out of their lobbies. The checkbox would do none of that.
    readonly_fields = ("is_active", "last_login", "date_joined")
    actions = ["deactivate", "ban", "reactivate"]

    def _deactivate(self, request, queryset, *, ban: bool):
        def perform(user, data):
            outcomes = moderation.user_deactivate(user=user, by=request.user)
            text = gettext("Banned.") if ban else gettext("Deactivated.")
            if outcomes:
                text += " " + gettext("Lobbies: %(outcomes)s.") % {"outcomes": "; ".join(outcomes)}
            return text

        title = gettext("Ban users") if ban else gettext("Deactivate users")
        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=title, perform=perform
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
