"""Glue between django-allauth and our User model."""

from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.translation import gettext_lazy as _


class SiteName:
    """What allauth's emails call the site ("Hello from Saboteur!"), not the request's host."""

    name = _("Saboteur")

    @property
    def domain(self) -> str:
        return urlsplit(settings.SITE_URL).netloc or settings.SITE_URL


def user_display(user) -> str:
    """What the site shows for a user: the display name, never the email address."""
    return user.display_name or user.username


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit=True):
        # Set before allauth's own save, so the row is never written without a display name.
        user.display_name = form.cleaned_data["display_name"]
        return super().save_user(request, user, form, commit=commit)

    def populate_username(self, request, user) -> None:
        # The username is internal (admin, uniqueness); build it from the public display
        # name rather than the email address, so nothing private leaks into it.
        if not user.username:
            user.username = self.generate_unique_username([user.display_name, "player"])

    def send_mail(self, template_prefix, email, context):
        """allauth's emails (verification, password reset) in the site's name and in the
        recipient's language (their profile's, else the language of the request)."""
        user = context.get("user")
        if user is None:
            user = get_user_model().objects.filter(email__iexact=email).first()
        language = (getattr(user, "language", "") or "") or translation.get_language()
        with translation.override(language):
            super().send_mail(template_prefix, email, {**context, "current_site": SiteName()})
