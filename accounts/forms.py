from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.utils.translation import gettext_lazy as _

from .models import DISPLAY_NAME_MAX_LENGTH, User


class SignupForm(AllauthSignupForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        help_text=_("The name other players see. Your email address stays private."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    field_order = ["display_name", "email", "password1", "password2"]

    def clean_display_name(self) -> str:
        name = " ".join(self.cleaned_data["display_name"].split())
        if not name:
            raise forms.ValidationError(_("Please choose a display name."))
        if User.objects.filter(display_name__iexact=name).exists():
            raise forms.ValidationError(_("This display name is taken. Please choose another."))
        return name
