"""The accounts' admin: users with their addresses, names and dates.

The user's page as admins see it also shows the player's seats and outbox and offers
deactivating, banning and reactivating: those parts are about games, and ``games.admin.players``
adds them to ``UserAdmin`` (registering its subclass in this one's place).
"""

from functools import partial
from importlib import import_module

from allauth.account.models import EmailAddress, EmailConfirmation
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from saboteur_site.admin_display import zoned

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


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    inlines = [EmailAddressInline]

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
    # Deactivating goes through the actions of the games' admin (games.admin.players): they ask
    # for a reason, log it and take the player out of their lobbies. The checkbox would do none.
    readonly_fields = ("is_active", "last_login_zoned", "date_joined_zoned")
    last_login_zoned = zoned(User, "last_login")
    date_joined_zoned = zoned(User, "date_joined")
