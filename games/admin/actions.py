"""Actions with a reason: each custom action shows a form on an intermediate page, asks why and
writes an admin ``LogEntry`` naming what was done and why (games here, users in accounts)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.template.response import TemplateResponse
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.display import seat_shown
from games.models import Seat
from games.moderation import tables
from games.outbox.sending import verified_email
from games.play.errors import ServiceError
from saboteur_site.fields import AsciiIntegerField, ascii_choice, choice_field


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the admin log with the action."),
    )

    prefix = "moderation"

    def __init__(self, *args, queryset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.queryset = queryset


class ExtendForm(ReasonForm):
    hours = AsciiIntegerField(
        label=_("Extend by (hours)"), min_value=1, max_value=tables.MAX_EXTENSION_HOURS
    )
    field_order = ["hours", "reason"]


def find_user(text: str):
    """An account by username, email or display name (case-insensitive), or None."""
    text = text.strip()
    if not text:
        return None
    return (
        get_user_model()
        .objects.filter(
            Q(username__iexact=text) | Q(email__iexact=text) | Q(display_name__iexact=text)
        )
        .first()
    )


class ReplaceSeatForm(ReasonForm):
    position = forms.TypedChoiceField(label=_("Seat"), coerce=ascii_choice)
    new_user = forms.CharField(
        label=_("New player"),
        max_length=254,
        required=False,
        help_text=_("Their username, email address or display name."),
    )
    bot = forms.BooleanField(label=_("Hand it to a bot instead"), required=False)
    field_order = ["position", "new_user", "bot", "reason"]

    def __init__(self, *args, queryset=None, **kwargs):
        super().__init__(*args, queryset=queryset, **kwargs)
        game = queryset.first() if queryset is not None else None
        seats = []
        if game is not None:
            seats = game.seats.select_related("user").live()
        choice_field(self, "position").choices = [
            (seat.position, _seat_label(seat)) for seat in seats if seat.position is not None
        ]

    def clean_new_user(self):
        if not self.cleaned_data["new_user"].strip():
            return None  # allowed only with "Hand it to a bot instead" (clean)
        user = find_user(self.cleaned_data["new_user"])
        if user is None:
            raise forms.ValidationError(gettext("No account has that name or address."))
        if not user.is_active:
            raise forms.ValidationError(gettext("That account is not active."))
        if verified_email(user) is None:
            raise forms.ValidationError(
                gettext(
                    "That account has no verified email address: they must confirm it before "
                    "they can take over a seat."
                )
            )
        return user

    def clean(self):
        super().clean()
        data = self.cleaned_data
        if not data.get("bot") and data.get("new_user") is None and "new_user" not in self.errors:
            self.add_error("new_user", gettext("Name the new player, or hand the seat to a bot."))
        return data


def _seat_label(seat: Seat) -> str:
    """A seat in the replace form, marked when its player is absent, banned or unverified."""
    user = seat.user
    label = gettext("%(seat)s: %(name)s") % {
        "seat": capfirst(seat_shown(seat)),
        "name": seat.bot_name or user or gettext("deleted player"),
    }
    marks = []
    if seat.state == Seat.State.ABSENT:
        marks.append(gettext("absent"))
    if user is not None and user.bans.filter(lifted_at__isnull=True).exists():
        marks.append(gettext("banned"))
    elif user is not None and not user.is_active:
        marks.append(gettext("inactive"))
    if user is not None and verified_email(user) is None and user.is_active:
        marks.append(gettext("unverified address"))
    if marks:
        label += " (" + ", ".join(marks) + ")"
    return label


def action_with_form(modeladmin, request, queryset, *, form_class, title, perform, single=False):
    """Show ``form_class`` for the selected objects; once valid, ``perform(obj, data)`` each.

    ``perform`` returns the log message (without the reason) or raises ``ServiceError``. Every
    success is written to the admin log as a change with "<message> Reason: <reason>".
    """
    if single and queryset.count() != 1:
        modeladmin.message_user(
            request, gettext("Select exactly one item for this action."), messages.WARNING
        )
        return None
    if "moderation-apply" in request.POST:
        form = form_class(request.POST, queryset=queryset)
        if form.is_valid():
            done = 0
            for obj in queryset:
                try:
                    message = perform(obj, form.cleaned_data)
                except ServiceError as refused:
                    modeladmin.message_user(request, f"{obj}: {refused.message}", messages.ERROR)
                    continue
                reason = form.cleaned_data["reason"].strip()
                text = gettext("%(message)s Reason: %(reason)s") % {
                    "message": message,
                    "reason": reason,
                }
                modeladmin.log_change(request, obj, text)
                modeladmin.message_user(request, f"{obj}: {message}", messages.SUCCESS)
                done += 1
            return None
    else:
        # A link may preselect fields (?position=2 from a ban's list of seats).
        initial = {name: value for name, value in request.GET.items() if name != "reason"}
        form = form_class(queryset=queryset, initial=initial)
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "queryset": queryset,
        "opts": opts,
        "action_name": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/moderation_action.html", context)
