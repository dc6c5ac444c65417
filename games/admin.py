"""The admins' tools for games, moves, chat and the email outbox.

Secrecy: no page here shows a running or paused game's secrets. The snapshot is never a field;
move payloads and events (face-down discards, private peeks) appear only once the game is
finished or aborted; seats show no role. Every custom action asks for a reason on an
intermediate page and writes an admin ``LogEntry`` naming what was done and why.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, Prefetch, Q
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from saboteur_site.fields import AsciiIntegerField, ascii_choice
from saboteur_site.text import ascii_int

from .models import ChatMessage, Game, Move, Notice, Seat, TableEvent, Vacation
from .moderation import tables
from .outbox.sending import verified_email
from .play.errors import ServiceError
from .read.clock import clock_of, rules_lines
from .read.durations import MINUTE, words
from .read.seats import seat_label, seat_number
from .read.table_events import describe

admin.site.site_header = _("Saboteur administration")
admin.site.site_title = _("Saboteur admin")

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)
MODERATION_BUTTONS = (
    ("pause", _("Pause")),
    ("resume", _("Resume")),
    ("extend_deadline", _("Extend the deadline")),
    ("replace_seat", _("Replace a seat")),
    ("abort", _("Abort")),
)
HIDDEN = _("hidden until the game is over")
SECRET_FIELDS = {"snapshot", "payload", "events", "data"}


class NoSecretLookups:
    """Refuse changelist filters into secret JSON fields (``?snapshot__roles__0=saboteur``
    would otherwise tell, by its result count, what a running game hides)."""

    def lookup_allowed(self, lookup, value, request=None):
        if lookup.split("__")[0] in SECRET_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)


# -- Actions with a reason ---------------------------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the admin log with the action."),
    )

    def __init__(self, *args, queryset=None, **kwargs):
        super().__init__(*args, prefix="moderation", **kwargs)
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
        self.fields["position"].choices = [
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
        data = super().clean()
        if not data.get("bot") and data.get("new_user") is None and "new_user" not in self.errors:
            self.add_error("new_user", gettext("Name the new player, or hand the seat to a bot."))
        return data


def seat_shown(seat: Seat) -> str:
    """A seat as the game page and the emails number it: "seat 1 of 4"."""
    live = Seat.objects.filter(game_id=seat.game_id).live().count()
    return seat_number(seat.position, live)


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


def _duration(duration) -> str:
    """A duration in words, as the rest of the site says it ("1 hour", "2 days, 3 hours"),
    never Django's "1:00:00"."""
    if duration is None:
        return "-"
    if duration < MINUTE:
        return gettext("none") if duration <= timedelta(0) else gettext("less than a minute")
    return words(duration)


def _clock_words(found, now) -> str:
    """What is left of a running decision, without the "Time left:" of the game page's
    sentence (the admin's label says it): "58 minutes, then 1 day from the time bank"."""
    left = found.left(now)
    if left <= timedelta(0):
        return gettext("none: the site plays a safe move shortly")
    if found.bank > timedelta(0) and left > found.bank:
        text = gettext("%(left)s, then %(bank)s from the time bank") % {
            "left": _duration(left - found.bank),
            "bank": _duration(found.bank),
        }
    elif found.bank > timedelta(0):
        text = gettext("%(left)s, from the time bank") % {"left": _duration(left)}
    else:
        text = _duration(left)
    stopped = found.stopped(now)
    if stopped == "vacation":
        text += " " + gettext("(clock stopped: the player is on vacation)")
    elif stopped == "weekend":
        text += " " + gettext("(clock stopped for the weekend)")
    return text


def _formatted(moment) -> str:
    """A moment as the admin reads it: localized in the site's time zone, which it names
    ("Nov. 3, 2026, 5 p.m. (UTC)"), never an ISO string."""
    if moment is None:
        return "-"
    local = timezone.localtime(moment)
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} ({local.tzname()})"


def _zoned(field) -> Callable[[Any], str]:
    @admin.display(description=field.verbose_name, ordering=field.name)
    def shown(obj):
        return _formatted(getattr(obj, field.name))

    return shown


class ZonedTimes:
    """Every date and time this admin shows (list columns, read-only fields) names its time
    zone: each date-time field is shown through ``_formatted`` by a display of its own."""

    def _zoned_fields(self) -> set[str]:
        return {
            f.name
            for f in self.model._meta.get_fields()
            if isinstance(f, models.DateTimeField) and not f.auto_created
        }

    def __getattr__(self, name):
        # "deadline_zoned": the deadline with its zone (looked up by the admin by name).
        if name.endswith(ZONED) and name[: -len(ZONED)] in self._zoned_fields():
            return _zoned(self.model._meta.get_field(name[: -len(ZONED)]))
        raise AttributeError(name)

    def _zone(self, names, only=None):
        times = self._zoned_fields()
        if only is not None:
            times &= set(only)
        return [f"{n}{ZONED}" if isinstance(n, str) and n in times else n for n in names]

    def get_list_display(self, request):
        return self._zone(super().get_list_display(request))

    def get_readonly_fields(self, request, obj=None):
        return self._zone(super().get_readonly_fields(request, obj))

    def get_fieldsets(self, request, obj=None):
        readonly = super().get_readonly_fields(request, obj)
        return [
            (name, {**options, "fields": self._zone_nested(options["fields"], readonly)})
            for name, options in super().get_fieldsets(request, obj)
        ]

    def _zone_nested(self, fields, readonly):
        return [
            tuple(self._zone(f, readonly))
            if isinstance(f, list | tuple)
            else self._zone([f], readonly)[0]
            for f in fields
        ]


ZONED = "_zoned"


class HasErrorFilter(admin.SimpleListFilter):
    title = _("has an error")
    parameter_name = "has_error"

    def lookups(self, request, model_admin):
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(last_error="")
        if self.value() == "no":
            return queryset.filter(last_error="")
        return queryset


# -- Games -------------------------------------------------------------------------------------


class SeatInline(ZonedTimes, admin.TabularInline):
    """Who sits where; never a role."""

    model = Seat
    fields = (
        "seat", "player", "state", "joined_at", "last_seen_at", "timeouts_in_a_row", "bank",
    )  # fmt: skip
    readonly_fields = fields

    @admin.display(description=_("seat"))
    def seat(self, seat):
        return seat_shown(seat)

    @admin.display(description=_("player"))
    def player(self, seat):
        """The seat's player as the game page names them: a bot by its name (a seat handed to a
        bot has no user), a person with a link to their account."""
        if seat.bot is None and seat.user is not None:
            url = reverse("admin:accounts_user_change", args=[seat.user.pk])
            return format_html('<a href="{}">{}</a>', url, seat_label(seat))
        return seat_label(seat)

    @admin.display(description=_("time bank left"))
    def bank(self, seat):
        return _duration(seat.bank_left)

    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class TableEventInline(ZonedTimes, admin.TabularInline):
    model = TableEvent
    fields = ("created_at", "kind", "after_version", "line")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("log line"))
    def line(self, event):
        return describe(event)


def _round_line(number: int, done: dict, names: dict[str, str]) -> str:
    def listed(pairs):
        return ", ".join(f"{names.get(seat, seat)}: {value}" for seat, value in pairs) or "-"

    return gettext(
        "Round %(number)d: treasure %(found)s; winners %(winners)s; roles %(roles)s; "
        "gold gained %(gained)s"
    ) % {
        "number": number,
        "found": gettext("found") if done["treasure_found"] else gettext("not found"),
        "winners": ", ".join(names.get(seat, seat) for seat in done["winners"]) or "-",
        "roles": listed(done["roles"].items()),
        "gained": listed(done["gained"].items()),
    }


@admin.register(Game)
class GameAdmin(ZonedTimes, NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "name",
        "ruleset",
        "status",
        "players",
        "whose_turn",
        "round_number",
        "deadline",
        "time_left",
        "absent_seats",
        "version",
        "created_at",
    )
    list_filter = ("status", "ruleset", "visibility")
    search_fields = ("name", "seats__user__display_name", "=seats__user__email")
    date_hierarchy = "created_at"
    # Only the name may be edited (an offensive name); everything else goes through actions.
    fields = (
        "name",
        "ruleset",
        "variants",
        "rounds",
        "max_seats",
        "visibility",
        "time_per_turn",
        "min_reliability",
        "clock_rules",
        "creator",
        "status",
        "version",
        "revision",
        "whose_turn",
        "decision_since",
        "deadline",
        "time_left",
        "paused_time_left",
        "paused_at",
        "created_at",
        "started_at",
        "finished_at",
        "final_state",
    )
    readonly_fields = fields[1:]
    inlines = [SeatInline, TableEventInline]

    def save_model(self, request, obj, form, change):
        if not change:
            raise PermissionError("games are created by players, not in the admin")
        # Only the name, under the game's lock: saving the whole row could write back an older
        # snapshot and version than a move committed meanwhile.
        tables.game_rename(game_id=obj.pk, name=obj.name)

    actions = ["pause", "resume", "extend_deadline", "abort", "replace_seat"]

    def get_queryset(self, request):
        seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
        return (
            super()
            .get_queryset(request)
            # The seats at the table: a replaced seat's player is no longer one of them.
            .annotate(
                seat_count=Count(
                    "seats", filter=~Q(seats__state=Seat.State.REPLACED), distinct=True
                )
            )
            .prefetch_related(seats)
        )

    def has_add_permission(self, request):
        return False  # games begin in the lobby, through the site

    def get_urls(self):
        moderate = path(
            "<int:pk>/moderate/<str:action>/",
            self.admin_site.admin_view(self.moderate_view),
            name="games_game_moderate",
        )
        return [moderate, *super().get_urls()]

    def moderate_view(self, request, pk, action):
        """One moderation action for this game, from a button on its own page."""
        if action not in self.actions or not self.has_change_permission(request):
            raise PermissionDenied
        queryset = self.get_queryset(request).filter(pk=pk)
        if not queryset.exists():
            raise Http404
        response = getattr(self, action)(request, queryset)
        if response is None:  # done (or refused, with a message): back to the game
            return redirect("admin:games_game_change", pk)
        return response

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Only for a game's id: Django's own page answers any other address ("no such game").
        pk = ascii_int(object_id)
        buttons = MODERATION_BUTTONS if pk is not None and pk >= 0 else []
        extra_context = {
            **(extra_context or {}),
            "moderation_buttons": [
                (reverse("admin:games_game_moderate", args=[object_id, name]), label)
                for name, label in buttons
            ],
        }
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description=_("seats"), ordering="seat_count")
    def players(self, game):
        return game.seat_count

    @admin.display(description=_("time left"))
    def time_left(self, game):
        """The running decision's clock in words (the deciding seat from the seats the list
        fetched: no query per row); the label says "time left", so the words do not."""
        seat = next((s for s in self._live_seats(game) if s.position == game.to_move), None)
        found = clock_of(game, seat=seat)
        return _clock_words(found, timezone.now()) if found is not None else "-"

    @admin.display(description=_("time per turn"), ordering="turn_limit")
    def time_per_turn(self, game):
        return _duration(game.turn_limit)

    @admin.display(description=_("time left when paused"))
    def paused_time_left(self, game):
        return _duration(game.paused_remaining)

    @admin.display(description=_("clock"))
    def clock_rules(self, game):
        return " ".join(rules_lines(game))

    def get_search_results(self, request, queryset, search_term):
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return results.distinct(), False

    def _live_seats(self, game) -> list[Seat]:
        return [s for s in game.seats.all() if s.state != Seat.State.REPLACED]

    @admin.display(description=_("whose turn"))
    def whose_turn(self, game):
        if game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
            return "-"
        live = self._live_seats(game)
        seat = next((s for s in live if s.position == game.to_move), None)
        if seat is None:
            return "-"
        name = seat.bot_name or seat.user or gettext("deleted player")
        return f"{name} ({seat_number(seat.position, len(live))})"

    @admin.display(description=_("round"))
    def round_number(self, game):
        """The round under way (public: every player sees it)."""
        if game.snapshot is None:
            return "-"
        return f"{game.snapshot.get('round', '-')} / {game.rounds}"

    @admin.display(description=_("absent seats"))
    def absent_seats(self, game):
        names = [str(s.user) for s in self._live_seats(game) if s.state == Seat.State.ABSENT]
        return ", ".join(names) or "-"

    def has_delete_permission(self, request, obj=None):
        """A running or paused game is aborted, never deleted (its players keep its page)."""
        if obj is not None and obj.status in (Game.Status.RUNNING, Game.Status.PAUSED):
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request, queryset):
        underway = queryset.filter(status__in=(Game.Status.RUNNING, Game.Status.PAUSED))
        if underway.exists():
            self.message_user(
                request,
                gettext(
                    "Running or paused games cannot be deleted: abort them instead (%(names)s)."
                )
                % {"names": ", ".join(g.name for g in underway)},
                messages.ERROR,
            )
        queryset.exclude(pk__in=underway.values("pk")).delete()

    @admin.display(description=_("final state"))
    def final_state(self, game):
        """Rounds and gold, once the game is over; nothing while it runs."""
        if game.status not in OVER or game.snapshot is None:
            return HIDDEN
        state = game.engine_state()
        names = {
            seat.engine_name: str(seat.bot_name or seat.user or gettext("deleted player"))
            for seat in game.seats.select_related("user").live()
        }
        lines = [(_round_line(n, done, names),) for n, done in enumerate(state.rounds_done, 1)]
        rounds = format_html_join("", "<li>{}</li>", lines)
        gold = format_html_join(
            "",
            "<li>{}: {}</li>",
            (
                (names.get(seat, seat), amount)
                for seat, amount in zip(state.seats, state.gold, strict=True)
            ),
        )
        return format_html(
            '<div data-testid="final-state"><p>{}</p><ul>{}</ul><p>{}</p><ul>{}</ul></div>',
            gettext("Rounds played"),
            rounds,
            gettext("Gold totals"),
            gold,
        )

    @admin.action(description=_("Pause the selected games (deadlines stop)"))
    def pause(self, request, queryset):
        def perform(game, data):
            tables.game_pause(game_id=game.pk)
            return gettext("Paused the game.")

        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=gettext("Pause games"),
            perform=perform,
        )  # fmt: skip

    @admin.action(description=_("Resume the selected paused games"))
    def resume(self, request, queryset):
        def perform(game, data):
            game = tables.game_resume(game_id=game.pk)
            return gettext("Resumed the game; deadline %(deadline)s.") % {
                "deadline": _formatted(game.deadline)
            }

        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=gettext("Resume games"),
            perform=perform,
        )  # fmt: skip

    @admin.action(description=_("Extend the current deadline"))
    def extend_deadline(self, request, queryset):
        def perform(game, data):
            tables.game_extend(game_id=game.pk, hours=data["hours"])
            return ngettext(
                "Extended the deadline by %(hours)d hour.",
                "Extended the deadline by %(hours)d hours.",
                data["hours"],
            ) % {"hours": data["hours"]}

        return action_with_form(
            self, request, queryset, form_class=ExtendForm, title=gettext("Extend deadlines"),
            perform=perform,
        )  # fmt: skip

    @admin.action(description=_("Abort the selected games (no more moves)"))
    def abort(self, request, queryset):
        def perform(game, data):
            tables.game_abort(game_id=game.pk, reason=data["reason"])
            return gettext("Aborted the game.")

        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=gettext("Abort games"),
            perform=perform,
        )  # fmt: skip

    @admin.action(description=_("Replace a seat's player"))
    def replace_seat(self, request, queryset):
        def perform(game, data):
            old = game.seats.select_related("user").filter(position=data["position"]).live().first()
            old_name = str(old.user) if old and old.user else gettext("deleted player")
            if old and old.bot_name:
                old_name = old.bot_name
            new_user = None if data["bot"] else data["new_user"]
            seat = tables.seat_replace(
                game_id=game.pk,
                position=data["position"],
                new_user=new_user,
                reason=data["reason"],
            )
            return gettext("%(seat)s: %(new)s took over from %(old)s.") % {
                "seat": capfirst(seat_shown(seat)),
                "new": seat.user or gettext("a bot"),
                "old": old_name,
            }

        return action_with_form(
            self, request, queryset, form_class=ReplaceSeatForm,
            title=gettext("Replace a seat's player"), perform=perform, single=True,
        )  # fmt: skip


# -- Moves: read only, and secret while the game is under way -----------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Move)
class MoveAdmin(ZonedTimes, NoSecretLookups, ReadOnlyAdmin):
    list_display = ("game", "sequence", "player", "automatic", "stand_in", "created_at")
    list_filter = ("automatic", "stand_in", "game__status")
    search_fields = ("game__name",)
    list_select_related = ("game", "seat__user")
    fields = (
        "game",
        "sequence",
        "player",
        "automatic",
        "stand_in",
        "created_at",
        "shown_payload",
        "shown_events",
    )
    readonly_fields = fields

    @admin.display(description=_("player"))
    def player(self, move):
        return move.seat.bot_name or move.seat.user or gettext("deleted player")

    @admin.display(description=_("move"))
    def shown_payload(self, move):
        return move.payload if move.game.status in OVER else HIDDEN

    @admin.display(description=_("events"))
    def shown_events(self, move):
        return move.events if move.game.status in OVER else HIDDEN


# -- Chat: moderators may remove a message --------------------------------------------------------


@admin.register(ChatMessage)
class ChatMessageAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("created_at", "game", "author", "text")
    list_select_related = ("game", "seat__user")
    search_fields = ("text", "seat__user__display_name", "game__name")
    fields = ("game", "author", "text", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("author"))
    def author(self, message):
        return message.seat.user or gettext("deleted player")

    # Deleting goes through moderation: the game gets a new revision, so open pages and the
    # game page's per-revision cache of the chat drop the lines.
    def delete_model(self, request, obj):
        tables.chat_delete(message_ids=[obj.pk])

    def delete_queryset(self, request, queryset):
        tables.chat_delete(message_ids=list(queryset.values_list("pk", flat=True)))


# -- Vacations: what players declared (read only; players declare and end them) ----------------


@admin.register(Vacation)
class VacationAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("user", "starts_at", "ends_at", "ended_at", "stage")
    list_select_related = ("user",)
    list_filter = ("stage",)
    search_fields = ("user__display_name",)
    fields = ("user", "starts_at", "ends_at", "ended_at", "stage", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# -- The email outbox ---------------------------------------------------------------------------


@admin.register(Notice)
class NoticeAdmin(ZonedTimes, NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "kind", "status", "recipient", "game", "due_at", "attempts", "reason", "last_error",
    )  # fmt: skip
    list_filter = ("status", "kind", HasErrorFilter)
    search_fields = ("user__email", "user__display_name", "email", "key")
    list_select_related = ("user", "game")
    date_hierarchy = "due_at"
    fields = (
        "key",
        "kind",
        "status",
        "user",
        "email",
        "game",
        "version",
        "due_at",
        "attempts",
        "last_error",
        "reason",
        "created_at",
        "sent_at",
    )
    readonly_fields = fields
    actions = ["resend"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("recipient"))
    def recipient(self, notice):
        return notice.user.email if notice.user else notice.email

    @admin.action(description=_("Resend the selected emails"))
    def resend(self, request, queryset):
        def perform(notice, data):
            tables.notices_resend(notice_ids=[notice.pk])
            return gettext("Queued the email again.")

        return action_with_form(
            self, request, queryset, form_class=ReasonForm, title=gettext("Resend emails"),
            perform=perform,
        )  # fmt: skip


# -- The audit log ------------------------------------------------------------------------------


@admin.register(LogEntry)
class LogEntryAdmin(ZonedTimes, ReadOnlyAdmin):
    list_display = ("action_time", "user", "content_type", "object_repr", "action_flag", "message")
    list_filter = ("action_flag", "content_type")
    search_fields = ("object_repr", "change_message", "user__username")
    date_hierarchy = "action_time"
    fields = (
        "action_time",
        "user",
        "content_type",
        "object_id",
        "object_repr",
        "action_flag",
        "message",
    )
    readonly_fields = fields

    @admin.display(description=_("message"))
    def message(self, entry):
        return entry.get_change_message()
