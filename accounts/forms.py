import secrets

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.utils.translation import gettext_lazy as _

from saboteur_site.fields import choice_field

from .languages import native_choices
from .names import DISPLAY_NAME_MAX_LENGTH, display_name_error, normalize_display_name
from .services import PROFILE_FIELDS, reminder_hours_cleaned
from .zone_choices import picker_attrs, zone_choices


class SignupForm(AllauthSignupForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        help_text=_("The name other players see. Your email address stays private."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    field_order = ["display_name", "email", "password1", "password2"]

    def clean_display_name(self) -> str:
        name = normalize_display_name(self.cleaned_data["display_name"])
        error = display_name_error(name)
        if error:
            raise forms.ValidationError(error)
        return name


class ProfileForm(forms.Form):
    """The profile page. The rules themselves live in ``accounts.services``."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        help_text=_("The name other players see."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        help_text=_("The language of the site and of your emails."),
    )
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_("Deadlines and quiet hours are shown and counted in this time zone."),
    )
    email_turns = forms.BooleanField(label=_("Email me when it is my turn"), required=False)
    email_reminders = forms.BooleanField(
        label=_("Remind me before my time runs out"), required=False
    )
    reminder_hours = forms.CharField(
        label=_("Reminders: hours before the deadline"),
        required=False,
        max_length=20,
        help_text=_(
            "Up to three, for example 8, 4, 1. Empty: the usual reminders, when half and nine "
            "tenths of the time per turn have passed; so too in a game whose time per turn is "
            "shorter than all your hours. Quiet hours still apply: a reminder that would fall "
            "in them comes before they begin."
        ),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "placeholder": "8, 4, 1"}),
    )
    email_digest = forms.BooleanField(
        label=_("One daily summary instead of an email per game"), required=False
    )
    email_mentions = forms.BooleanField(
        label=_("Email me when I am mentioned in chat"), required=False
    )
    email_absent = forms.BooleanField(
        label=_("Email me when a player at my table is marked absent"), required=False
    )
    email_hand = forms.BooleanField(
        label=_("Show my hand, my role and one-tap moves in emails"),
        required=False,
        help_text=_("Turn this off if others can read your emails."),
    )
    quiet_from = forms.TimeField(
        label=_("Quiet hours from"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    quiet_until = forms.TimeField(
        label=_("Quiet hours until"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        help_text=_("No emails in these hours (your time zone). Give both times, or neither."),
    )

    email_waits_for_push = forms.BooleanField(
        label=_("Hold an email while a notification reached a device I use"),
        required=False,
        help_text=_(
            "When a push notification reached a device you used in the last 30 minutes, its "
            "email waits 30 minutes, and is not sent if you open the game meanwhile."
        ),
    )
    next_game_auto = forms.BooleanField(
        label=_("After my move, go to the next game waiting for me"),
        required=False,
        help_text=_("The one that has waited longest. Otherwise the game's page offers it."),
    )

    def __init__(self, *args, user, **kwargs):
        kwargs["initial"] = {name: getattr(user, name) for name in PROFILE_FIELDS}
        super().__init__(*args, **kwargs)
        self.user = user
        language = choice_field(self, "language")
        language.choices = [("", _("As my browser asks")), *native_choices()]
        field = choice_field(self, "time_zone")
        field.choices = zone_choices()
        # A player who never chose a zone has the model's default: their browser's is offered.
        default = user._meta.get_field("time_zone").default
        at_default = not self.is_bound and user.time_zone == default
        field.widget.attrs.update(picker_attrs(browser_default=default if at_default else None))

    def clean_display_name(self) -> str:
        name = normalize_display_name(self.cleaned_data["display_name"])
        error = display_name_error(name, exclude_pk=self.user.pk, current=self.user.display_name)
        if error:
            raise forms.ValidationError(error)
        return name

    def clean_reminder_hours(self) -> str:
        try:
            return reminder_hours_cleaned(self.cleaned_data["reminder_hours"])
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        quiet = (cleaned.get("quiet_from"), cleaned.get("quiet_until"))
        if not self.has_error("quiet_from") and not self.has_error("quiet_until"):
            if (quiet[0] is None) != (quiet[1] is None):
                self.add_error("quiet_from", _("Give both ends of your quiet hours, or neither."))
        return cleaned


class AccountDeleteForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("To be sure it is you."),
    )


class TokenForm(forms.Form):
    """A new API token: its name and scopes (the rules: ``accounts.tokens``)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=60,
        help_text=_("Where you will use it, for example “my bot” or “terminal”."),
    )
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"), widget=forms.CheckboxSelectMultiple, choices=()
    )
    # This form's own: the same form sent twice (a reload of the page that showed the new token)
    # makes one token (``accounts.views.api_tokens``).
    key = forms.CharField(widget=forms.HiddenInput, max_length=64, required=False)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.fields["key"].initial = secrets.token_urlsafe(16)
        from .models import ApiToken
        from .tokens import scopes_for

        allowed = set(scopes_for(user))
        field = self.fields["scopes"]
        if isinstance(field, forms.MultipleChoiceField):
            field.choices = [(v, label) for v, label in ApiToken.Scope.choices if v in allowed]
