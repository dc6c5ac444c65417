"""Glue between django-allauth and our User model."""

from allauth.account.adapter import DefaultAccountAdapter


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
