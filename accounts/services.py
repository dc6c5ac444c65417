"""Account services: the only code that changes a player's profile.

Plain keyword-only functions named noun_verb, as in ``games.play``. Views stay thin: they
validate the request with a form and call these, which check every rule again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import time
from typing import TYPE_CHECKING

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from . import signals
from .names import display_name_error, normalize_display_name
from .zones import zone_names

if TYPE_CHECKING:
    from .models import User

PROFILE_FIELDS = (
    "display_name",
    "language",
    "time_zone",
    "email_turns",
    "email_reminders",
    "reminder_hours",
    "email_digest",
    "email_mentions",
    "email_absent",
    "email_hand",
    "quiet_from",
    "quiet_until",
    "email_waits_for_push",
    "next_game_auto",
)


# A player's clock: changing one of these places their held emails and reminders again.
CLOCK_FIELDS = ("time_zone", "quiet_from", "quiet_until", "email_reminders", "reminder_hours")

MAX_REMINDERS = 3  # "N hours before the deadline", up to three

MAX_REMINDER_HOURS = 7 * 24  # the longest time per turn


def reminder_hours_cleaned(text) -> str:
    """ "8, 4, 1" as stored ("8,4,1": the largest first), "" for the site's schedule; raises
    ``ValueError`` with a message to show."""
    parts = [part.strip() for part in str(text or "").replace(";", ",").split(",")]
    parts = [part for part in parts if part]
    if not parts:
        return ""
    if not all(part.isascii() and part.isdigit() for part in parts):
        raise ValueError(_("Give whole hours, separated by commas (for example 8, 4, 1)."))
    hours = sorted({int(part) for part in parts}, reverse=True)
    if len(hours) > MAX_REMINDERS:
        raise ValueError(_("Up to three reminders."))
    if not all(1 <= n <= MAX_REMINDER_HOURS for n in hours):
        raise ValueError(
            _("Each reminder comes 1 to %(max)d hours before the deadline.")
            % {"max": MAX_REMINDER_HOURS}
        )
    return ",".join(str(n) for n in hours)


class AccountError(Exception):
    """A request the service refuses; ``message`` is translated and safe to show."""

    def __init__(self, message: str, *, code: str = "refused"):
        self.message = message
        self.code = code
        super().__init__(message)


time_zones = zone_names  # the IANA time zones this machine knows, sorted (the profile's choices)


def language_codes() -> set[str]:
    return {code for code, _name in settings.LANGUAGES}


def _validate_profile(user, values: dict) -> dict:
    """Check the profile rules; return the cleaned values or raise ``ValidationError``."""
    errors: dict[str, str] = {}
    values = dict(values)
    if "display_name" in values:
        name = normalize_display_name(values["display_name"])
        values["display_name"] = name
        error = display_name_error(name, exclude_pk=user.pk, current=user.display_name)
        if error:
            errors["display_name"] = error
    if "language" in values:
        values["language"] = values["language"] or ""
        if values["language"] and values["language"] not in language_codes():
            errors["language"] = _("Please choose one of the listed languages.")
    if "reminder_hours" in values:
        try:
            values["reminder_hours"] = reminder_hours_cleaned(values["reminder_hours"])
        except ValueError as error:
            errors["reminder_hours"] = str(error)
    if "time_zone" in values and values["time_zone"] not in time_zones():
        errors["time_zone"] = _("Please choose a time zone from the list.")
    quiet_from = values.get("quiet_from", user.quiet_from)
    quiet_until = values.get("quiet_until", user.quiet_until)
    for value in (quiet_from, quiet_until):
        if value is not None and not isinstance(value, time):
            errors["quiet_from"] = _("Quiet hours are times of day.")
    if "quiet_from" not in errors:
        if (quiet_from is None) != (quiet_until is None):
            errors["quiet_from"] = _("Give both ends of your quiet hours, or neither.")
        elif quiet_from is not None and quiet_from == quiet_until:
            errors["quiet_from"] = _("Quiet hours must start and end at different times.")
    unknown = set(values) - set(PROFILE_FIELDS)
    if unknown:
        raise ValueError(f"not profile fields: {sorted(unknown)}")
    if errors:
        raise ValidationError(errors)
    return values


def profile_update(*, user, **values):
    """Change the given profile fields of ``user`` (all rules checked); returns the user.

    Raises ``ValidationError`` with a message per field: a display name taken by someone else
    (ignoring case), an unknown language or time zone, quiet hours with only one end.
    """
    values = _validate_profile(user, values)
    clock = [getattr(user, name) for name in CLOCK_FIELDS]
    old_name = user.display_name
    for name, value in values.items():
        setattr(user, name, value)
    try:
        with transaction.atomic():
            user.save(update_fields=list(values))
    except IntegrityError:
        # Two people claimed the same name at once: the database constraint decided.
        raise ValidationError(
            {"display_name": _("This display name is taken. Please choose another.")}
        ) from None
    if clock != [getattr(user, name) for name in CLOCK_FIELDS]:
        # What quiet hours held, and the reminders of the player's turns, follow the new clock
        # (after the save: the games are locked before anything of theirs is written).
        signals.clock_changed.send(sender=type(user), user=user)
    if user.display_name != old_name:
        signals.renamed.send(sender=type(user), user=user)
    return user


def display_name_changed(*, user) -> None:
    """The admin saved a new display name: the games show it at once (as ``profile_update``)."""
    signals.renamed.send(sender=type(user), user=user)


def language_set(*, user, language: str) -> None:
    """Remember a language chosen elsewhere (the footer switcher) in the profile."""
    if language in language_codes() and user.language != language:
        user.language = language
        user.save(update_fields=["language"])


def guide_dismiss(*, user) -> None:
    """The player has read the first-game guide: the game page stops showing it."""
    if not user.guide_dismissed:
        user.guide_dismissed = True
        user.save(update_fields=["guide_dismissed"])


# -- Administrators ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AdminAccount:
    user: User
    created: bool
    password: str | None  # the password made for the account, None when it was given or kept


def admin_create(*, email: str, display_name: str = "", password: str = "") -> AdminAccount:
    """An administrator who can log in at once: staff and superuser, with a verified primary
    address (no confirmation email to wait for, as for accounts made in the admin).

    A new account needs a display name that passes the usual rules; ``password`` must pass the
    site's password validators, and without one a random password is made and returned. An
    existing account with that address is made an administrator instead; its password changes
    only when one is given. Raises ``AccountError`` with the reason.
    """
    from .adapter import AccountAdapter  # allauth's username helper, through our adapter

    email = (email or "").strip()
    try:
        validate_email(email)
    except ValidationError:
        raise AccountError(_("Please enter a valid email address.")) from None
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.select_for_update().filter(email__iexact=email).first()
        created = user is None
        if user is None:
            display_name = normalize_display_name(display_name)
            error = display_name_error(display_name)
            if error:
                raise AccountError(error, code="display_name")
            user = User(email=email, display_name=display_name)
            user.username = AccountAdapter().generate_unique_username([display_name, "admin"])
        made = None
        if password or created:
            new_password = password or secrets.token_urlsafe(12)
            made = None if password else new_password
            try:
                validate_password(new_password, user)
            except ValidationError as error:
                raise AccountError(" ".join(error.messages), code="password") from None
            user.set_password(new_password)
        user.is_staff = user.is_superuser = user.is_active = True
        user.save()
        EmailAddress.objects.filter(user=user).exclude(email__iexact=user.email).update(
            primary=False
        )
        EmailAddress.objects.update_or_create(
            user=user, email__iexact=user.email,
            defaults={"email": user.email, "verified": True, "primary": True},
        )  # fmt: skip
    return AdminAccount(user=user, created=created, password=made)
