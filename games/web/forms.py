"""Forms: turn posted fields into an engine move, or into lobby settings."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.zone_choices import picker_attrs, zone_choices
from games.engine.cards import PLAYERS
from games.models import Game, Report
from games.models.matchmaking import PACE_NAMES
from games.play.lobby import GAME_NAME_ONE_LINE
from games.play.matchmaking import Wish
from games.read.card_names import hand_order
from games.read.lists import LobbyFilter
from saboteur_site.fields import AsciiIntegerField, ascii_choice, choice_field
from saboteur_site.text import ascii_int, has_line_breaks

MOVE_KINDS = ("place", "action", "pass", "clear", "pick-gold", "steal")


class MoveForm(forms.Form):
    """The posted fields of any move. Only shapes are checked here; the rules are the engine's."""

    version = AsciiIntegerField(min_value=0)
    key = forms.CharField(max_length=64, required=False)
    kind = forms.ChoiceField(choices=[(k, k) for k in MOVE_KINDS])
    card = forms.CharField(max_length=40, required=False)
    at = forms.RegexField(r"^-?[0-9]{1,3},-?[0-9]{1,3}$", required=False)  # not \d: "١"
    turned = forms.BooleanField(required=False)
    target = forms.CharField(max_length=10, required=False)
    tool = forms.CharField(max_length=10, required=False)
    goal = forms.CharField(max_length=10, required=False)
    discard = forms.MultipleChoiceField(required=False)
    remove = forms.CharField(max_length=40, required=False)
    value = AsciiIntegerField(required=False, min_value=0, max_value=9)
    victim = forms.CharField(max_length=10, required=False)

    def __init__(self, *args, hand: Sequence[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        # Discards are posted as positions in the hand as the page shows it, so two copies of a
        # card can be told apart; anything else is refused by the form.
        self.hand = hand_order(hand)
        discard = self.fields["discard"]
        if not isinstance(discard, forms.MultipleChoiceField):
            raise TypeError("MoveForm.discard is a MultipleChoiceField")
        discard.choices = [(str(i), str(i)) for i in range(len(self.hand))]

    def request_digest(self) -> str:
        """A digest of the posted move fields as sent (not as read against today's hand): a
        double click sends the same digest, a different move under the same key does not."""
        fields = sorted(
            (name, self.data.getlist(name) if hasattr(self.data, "getlist") else [self.data[name]])
            for name in self.fields
            if name != "key" and name in self.data
        )
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    def move(self) -> dict[str, Any]:
        """The engine move these fields describe (call after ``is_valid``): its shape only, for
        the engine to check (a place without a position is the engine's to refuse)."""
        data = self.cleaned_data
        kind = data["kind"]
        move: dict[str, Any] = {"move": kind}
        if kind == "place":
            move.update(card=data["card"], at=_position(data["at"]), turned=data["turned"])
        elif kind == "action":
            move["card"] = data["card"]
            for key in ("target", "tool", "goal"):
                if data[key]:
                    move[key] = data[key]
            if data["at"]:
                move["at"] = _position(data["at"])
        elif kind in ("pass", "clear"):
            move["discard"] = [self.hand[_digits(i)] for i in data["discard"]]
            if kind == "clear":
                move["remove"] = data["remove"]
        elif kind == "pick-gold":
            move["value"] = data["value"]
        elif kind == "steal":
            move["victim"] = data["victim"] or None
        return move


def _position(text: str | None) -> list[int] | None:
    if not text:
        return None
    x, y = text.split(",")  # the field's pattern took ASCII digits only
    return [_digits(x), _digits(y)]


def _digits(text: str) -> int:
    """A number whose field (a pattern, the choices) took ASCII digits only."""
    number = ascii_int(text)
    if number is None:
        raise ValueError(f"{text!r} is not a number in ASCII digits.")
    return number


TURN_LIMITS = [
    (timedelta(hours=1), _("1 hour")),
    (timedelta(hours=6), _("6 hours")),
    (timedelta(hours=12), _("12 hours")),
    (timedelta(days=1), _("1 day")),
    (timedelta(days=2), _("2 days")),
    (timedelta(days=3), _("3 days")),
    (timedelta(days=7), _("7 days")),
]


def _reliability_at_least(percent: int):
    """ "Reliability of 90 % or more", in the language of the request that renders it."""
    return lazy(
        lambda: gettext("Reliability of %(percent)d %% or more") % {"percent": percent}, str
    )()


VARIANT_CHOICES = [
    ("old-mine", _("Old mine: gold cards 4×3, 8×2, 10×1, 6×0")),
    ("new-mine", _("New mine: as many gold cards as gold diggers")),
    ("rivalry", _("Rivalry: a broken tool at round end means no gold")),
    ("greedy-dwarf", _("Greedy dwarf: one gold digger wins only by finding the gold")),
    ("max-saboteurs", _("Every saboteur in play")),
]

BANKS = [
    (timedelta(0), _("No time bank")),
    (timedelta(hours=6), _("6 hours")),
    (timedelta(hours=12), _("12 hours")),
    (timedelta(days=1), _("1 day")),
    (timedelta(days=2), _("2 days")),
    (timedelta(days=3), _("3 days")),
]


class GameCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if has_line_breaks(name):
            raise forms.ValidationError(GAME_NAME_ONE_LINE)
        return name

    ruleset = forms.ChoiceField(label=_("Rule set"), choices=Game.Ruleset.choices)
    max_seats = AsciiIntegerField(
        label=_("Number of players"), min_value=2, max_value=12, initial=4
    )
    variants = forms.MultipleChoiceField(
        label=_("Variants (base game only)"),
        required=False,
        # static/js/lobby.js disables these while Saboteur 2 is chosen; the server refuses them too.
        widget=forms.CheckboxSelectMultiple(attrs={"data-base-only": ""}),
        choices=VARIANT_CHOICES,
    )
    rounds = forms.TypedChoiceField(
        label=_("Rounds"),
        choices=[("3", _("3 rounds (the full game)")), ("2", _("2 rounds")), ("1", _("1 round"))],
        coerce=ascii_choice,
        initial="3",
        required=False,
        empty_value=3,  # type: ignore[arg-type]  # stubs say str | None; Django takes any value
    )
    visibility = forms.ChoiceField(
        label=_("Who may join"), choices=Game.Visibility.choices, initial="open"
    )
    turn_limit = forms.TypedChoiceField(
        label=_("Time per turn"),
        choices=[(str(int(d.total_seconds())), label) for d, label in TURN_LIMITS],
        coerce=lambda seconds: timedelta(seconds=ascii_choice(seconds)),
        initial=str(int(timedelta(days=2).total_seconds())),
    )
    min_reliability = forms.TypedChoiceField(
        label=_("Who may join, by reliability"),
        choices=[("", _("Anyone"))]
        + [(str(percent), _reliability_at_least(percent)) for percent in (50, 75, 90, 95)],
        coerce=ascii_choice,
        empty_value=None,
        required=False,
        help_text=_(
            "Reliability: the share of turns played before the deadline in the last 90 days, "
            "times the share of games not abandoned. Players new to the site may always join."
        ),
    )
    bot_stand_ins = forms.BooleanField(
        label=_("A bot plays for absent players"),
        required=False,
        help_text=_(
            "Instead of the safe default move, a bot plays the seat of a player whose time ran "
            "out, until they come back."
        ),
    )

    allows_bots = forms.BooleanField(
        label=_("Bot accounts may join"),
        required=False,
        help_text=_(
            "Programs that play through the site's API from accounts marked as bots (docs/api.md)."
        ),
    )

    bots_rated_with_people = forms.BooleanField(
        label=_("Bot accounts are rated with people"),
        required=False,
        help_text=_("Else the rounds where bot accounts play with people are not rated."),
    )

    # The clock (games.clock): a time bank, weekends off, a daily deadline, vacations.
    bank = forms.TypedChoiceField(
        label=_("Time bank per player"),
        choices=[(str(int(d.total_seconds())), label) for d, label in BANKS],
        coerce=lambda seconds: timedelta(seconds=ascii_choice(seconds)),
        initial="0",
        required=False,
        empty_value=timedelta(0),  # type: ignore[arg-type]  # stubs: str | None; Django: any
        help_text=_(
            "Extra thinking time for the whole game, spent when a turn runs past its time, "
            "before the site plays for the player."
        ),
    )
    daily_at = forms.TimeField(
        label=_("Daily deadline"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        help_text=_(
            "Instead of the time per turn: every turn ends at this time of day, at least an "
            "hour after it begins (else the next day)."
        ),
    )
    weekends_off = forms.BooleanField(
        label=_("Clocks stop at weekends"),
        required=False,
        help_text=_("No time runs on Saturdays and Sundays."),
    )
    clock_zone = forms.ChoiceField(
        label=_("Time zone of the clock"),
        required=False,
        help_text=_("For the weekends and the daily deadline."),
    )
    vacations_pause = forms.BooleanField(
        label=_("A player's vacation stops their clock"),
        required=False,
        initial=True,
        help_text=_(
            "Otherwise, while a player is on vacation a bot plays for them if bots play for "
            "absent players, else their clock runs."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = choice_field(self, "clock_zone")
        field.choices = [("", _("My time zone")), *zone_choices()]
        field.widget.attrs.update(picker_attrs())

    def clean(self):
        super().clean()
        data = self.cleaned_data
        ruleset, seats = data.get("ruleset"), data.get("max_seats")
        if ruleset and seats:
            low, high = PLAYERS[ruleset]
            if not low <= seats <= high:
                self.add_error(
                    "max_seats",
                    _("This rule set is for %(low)d to %(high)d players.")
                    % {"low": low, "high": high},
                )
        if ruleset != Game.Ruleset.BASE and data.get("variants"):
            self.add_error("variants", _("Variants belong to the base game."))
        return data


class PracticeForm(forms.Form):
    """A game against bots: the rule set and how many bots (prefixed: the lobby shows it next to
    the game creation form)."""

    prefix = "practice"

    # Labels unlike the creation form's on the same page ("Rule set", "Rounds").
    ruleset = forms.ChoiceField(label=_("Game to practise"), choices=Game.Ruleset.choices)
    bots = AsciiIntegerField(label=_("Number of bots"), min_value=2, max_value=11, initial=3)
    rounds = forms.TypedChoiceField(
        label=_("Game length"),
        choices=[(1, _("1 round")), (2, _("2 rounds")), (3, _("3 rounds"))],
        coerce=ascii_choice,
        initial=3,
    )

    def clean(self):
        super().clean()
        data = self.cleaned_data
        ruleset, bots = data.get("ruleset"), data.get("bots")
        if ruleset and bots:
            low, high = PLAYERS[ruleset]
            low, high = max(2, low - 1), min(11, high - 1)
            if not low <= bots <= high:
                self.add_error(
                    "bots",
                    _("This rule set is for %(low)d to %(high)d bots.")
                    % {"low": low, "high": high},
                )
        return data


class InvitationForm(forms.Form):
    email = forms.EmailField(label=_("Friend's email address"))


class VacationForm(forms.Form):
    """Declare a vacation: from today or a later day, for whole days (the rules are the play
    side's, ``games.play.vacations``)."""

    starts_on = forms.DateField(
        label=_("From"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("Leave empty to begin now."),
    )
    days = AsciiIntegerField(label=_("Days"), min_value=1, max_value=365, initial=7)


class ReportForm(forms.Form):
    """A report to the moderators: a reason and a few words; of a game, the player reported."""

    player = forms.TypedChoiceField(label=_("Player"), coerce=ascii_choice, required=False)
    reason = forms.ChoiceField(
        label=_("Reason"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=_("What happened"),
        max_length=500,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "maxlength": 500}),
        help_text=_("A few words for the moderators (up to 500 characters)."),
    )

    def __init__(self, *args, people: Sequence | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if people is None:
            del self.fields["player"]
        else:
            field = choice_field(self, "player")
            field.required = True
            field.choices = [("", "—"), *((user.pk, user.display_name) for user in people)]


class PlayNowForm(forms.Form):
    """A player's wish for "Play now" (games/play/matchmaking.py checks it again)."""

    rulesets = forms.MultipleChoiceField(
        label=_("Rule sets"),
        choices=Game.Ruleset.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Game.Ruleset.BASE],
    )
    min_players = AsciiIntegerField(label=_("At least this many players"), min_value=2, initial=3)
    max_players = AsciiIntegerField(label=_("At most this many players"), max_value=12, initial=6)
    pace = forms.ChoiceField(label=_("Pace"), choices=list(PACE_NAMES.items()), initial="2d")
    languages = forms.MultipleChoiceField(
        label=_("Languages spoken at the table"),
        choices=settings.LANGUAGES,
        widget=forms.CheckboxSelectMultiple,
    )
    variants = forms.MultipleChoiceField(
        label=_("Variants (base game only)"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=VARIANT_CHOICES,
    )
    min_reliability = forms.TypedChoiceField(
        label=_("Other players' reliability"),
        choices=[("", _("Anyone"))]
        + [(str(percent), _reliability_at_least(percent)) for percent in (50, 75, 90, 95)],
        coerce=ascii_choice,
        empty_value=None,
        required=False,
    )
    bots_ok = forms.BooleanField(
        label=_("Bots may fill the empty seats at the start time"),
        required=False,
        help_text=_("Only if every player at the table agrees."),
    )

    def wish(self) -> Wish:
        data = self.cleaned_data
        return Wish(
            rulesets=tuple(data["rulesets"]),
            min_players=data["min_players"],
            max_players=data["max_players"],
            pace=data["pace"],
            languages=tuple(data["languages"]),
            variants=tuple(data["variants"]),
            min_reliability=data["min_reliability"],
            bots_ok=data["bots_ok"],
        )


class LobbyFilterForm(forms.Form):
    """The lobby list's filters (GET; anything it does not know is left out, never an error)."""

    ruleset = forms.ChoiceField(
        label=_("Rule set"), required=False, choices=[("", _("Any"))] + Game.Ruleset.choices
    )
    pace = forms.ChoiceField(
        label=_("Pace"), required=False, choices=[("", _("Any")), *PACE_NAMES.items()]
    )
    seats = AsciiIntegerField(
        label=_("Number of players"), required=False, min_value=2, max_value=12
    )
    language = forms.ChoiceField(
        label=_("Creator's language"), required=False, choices=[("", _("Any")), *settings.LANGUAGES]
    )
    free = AsciiIntegerField(
        label=_("At least this many free seats"), required=False, min_value=1, max_value=11
    )

    def __init__(self, *args, **kwargs):
        # Its own ids: the lobby's creation form has a rule set and a size too.
        kwargs.setdefault("auto_id", "filter-%s")
        super().__init__(*args, **kwargs)

    def narrowed(self) -> LobbyFilter:
        """The filter the valid fields make (an invalid one counts as "any")."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return LobbyFilter(
            ruleset=data.get("ruleset") or None,
            pace=data.get("pace") or None,
            seats=data.get("seats"),
            language=data.get("language") or None,
            free=data.get("free"),
        )


class ChallengeForm(forms.Form):
    """Challenging friends (games/play/challenges.py checks it again): whom, and the game."""

    friends = forms.TypedMultipleChoiceField(
        label=_("Friends to challenge"), widget=forms.CheckboxSelectMultiple, coerce=ascii_choice
    )
    ruleset = forms.ChoiceField(label=_("Rule set"), choices=Game.Ruleset.choices)
    pace = forms.ChoiceField(label=_("Pace"), choices=list(PACE_NAMES.items()), initial="2d")
    rounds = forms.TypedChoiceField(
        label=_("Rounds"),
        choices=[("3", _("3 rounds (the full game)")), ("2", _("2 rounds")), ("1", _("1 round"))],
        coerce=ascii_choice,
        initial="3",
    )

    def __init__(self, *args, friends=(), **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["friends"]
        if not isinstance(field, forms.TypedMultipleChoiceField):
            raise TypeError("ChallengeForm.friends is a TypedMultipleChoiceField")
        field.choices = [(str(person.pk), person.name) for person in friends]
