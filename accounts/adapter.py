"""Glue between django-allauth and our User model."""

from urllib.parse import urlencode, urlsplit, urlunsplit

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# The query parameter of a confirmation link that remembers where the player was going when they
# signed up (an invite link, a game). Not "next": allauth would follow that before the player
# is told to log in.
THEN = "then"


class SiteName:
    """What allauth's emails call the site ("Hello from Saboteur!"), not the request's host."""

    name = gettext_lazy("Saboteur")

    @property
    def domain(self) -> str:
        return urlsplit(settings.SITE_URL).netloc or settings.SITE_URL


def on_site(url):
    """``url`` (an absolute link allauth built from the request) on SITE_URL's scheme and host;
    anything that is not an absolute link is left alone."""
    if not isinstance(url, str):
        return url
    parts, site = urlsplit(url), urlsplit(settings.SITE_URL)
    if not (parts.scheme and parts.netloc):
        return url
    return urlunsplit((site.scheme, site.netloc, parts.path, parts.query, parts.fragment))


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
        # Every link on SITE_URL's scheme and host, as the site's own emails (not the request's
        # host, nor allauth's https whatever the site is on).
        links = {k: on_site(v) for k, v in context.items() if k.endswith("_url") and v}
        with translation.override(language):
            super().send_mail(
                template_prefix, email, {**context, **links, "current_site": SiteName()}
            )

    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        url = super().get_email_confirmation_url(request, emailconfirmation)
        going = _safe_path(request, request.POST.get("next") or request.GET.get("next"))
        return f"{url}?{urlencode({THEN: going})}" if going else url

    def get_email_verification_redirect_url(self, email_address) -> str:
        """After confirming in a browser that is not logged in (the link opened on another device,
        or after the browser was closed): say so, and log in towards where they were going. In
        the browser that signed up, allauth logs the player in before this is asked."""
        if self.request.user.is_authenticated:
            return super().get_email_verification_redirect_url(email_address)
        messages.info(
            self.request, _("Your email address is confirmed. Log in to continue where you were.")
        )
        login = reverse("account_login")
        going = _safe_path(self.request, self.request.POST.get(THEN))
        return f"{login}?{urlencode({'next': going})}" if going else login


def _safe_path(request, url: str | None) -> str | None:
    """``url`` when it is a path on this site (never another host: open redirects)."""
    if request is None or not url:
        return None
    if not url.startswith("/") or not url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    return url
