"""A game's page and list: its seats and table log, its clock in words, its final state once it
is over, and the moderation actions (pause, resume, extend, replace a seat, abort).

Secrecy: the snapshot is never a field; seats show no role; the final state appears only once the
game is finished or aborted.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch, Q
from django.http import Http404
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.admin.actions import ExtendForm, ReasonForm, ReplaceSeatForm, action_with_form
from games.admin.base import HIDDEN, OVER, NoSecretLookups
from games.admin.display import clock_words, duration, seat_shown
from games.engine.types import RoundResult
from games.models import Game, Seat, TableEvent
from games.moderation import tables
from games.read.clock import clock_of, rules_lines
from games.read.seats import seat_label, seat_number
from games.read.table_events import describe
from saboteur_site.admin_display import formatted, zoned
from saboteur_site.text import ascii_int

MODERATION_BUTTONS = (
    ("pause", _("Pause")),
    ("resume", _("Resume")),
    ("extend_deadline", _("Extend the deadline")),
    ("replace_seat", _("Replace a seat")),
    ("abort", _("Abort")),
)


class SeatInline(admin.TabularInline):
    """Who sits where; never a role."""

    model = Seat
    fields = (
        "seat", "player", "state", "joined_at_zoned", "last_seen_at_zoned", "timeouts_in_a_row",
        "bank",
    )  # fmt: skip
    readonly_fields = fields
    joined_at_zoned = zoned(Seat, "joined_at")
    last_seen_at_zoned = zoned(Seat, "last_seen_at")

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
        return duration(seat.bank_left)

    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class TableEventInline(admin.TabularInline):
    model = TableEvent
    fields = ("created_at_zoned", "kind", "after_version", "line")
    readonly_fields = fields
    created_at_zoned = zoned(TableEvent, "created_at")
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("log line"))
    def line(self, event):
        return describe(event)


def _round_line(number: int, done: RoundResult, names: dict[str, str]) -> str:
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
class GameAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "name",
        "ruleset",
        "status",
        "players",
        "whose_turn",
        "round_number",
        "deadline_zoned",
        "time_left",
        "absent_seats",
        "version",
        "created_at_zoned",
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
        "decision_since_zoned",
        "deadline_zoned",
        "time_left",
        "paused_time_left",
        "paused_at_zoned",
        "created_at_zoned",
        "started_at_zoned",
        "finished_at_zoned",
        "final_state",
    )
    readonly_fields = fields[1:]
    inlines = [SeatInline, TableEventInline]
    decision_since_zoned = zoned(Game, "decision_since")
    deadline_zoned = zoned(Game, "deadline")
    paused_at_zoned = zoned(Game, "paused_at")
    created_at_zoned = zoned(Game, "created_at")
    started_at_zoned = zoned(Game, "started_at")
    finished_at_zoned = zoned(Game, "finished_at")

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
        return clock_words(found, timezone.now()) if found is not None else "-"

    @admin.display(description=_("time per turn"), ordering="turn_limit")
    def time_per_turn(self, game):
        return duration(game.turn_limit)

    @admin.display(description=_("time left when paused"))
    def paused_time_left(self, game):
        return duration(game.paused_remaining)

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
                "deadline": formatted(game.deadline)
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
