"""What players did at the tables: moves (read only, and secret while the game is under way),
chat (moderators may remove a message), vacations (read only; players declare and end them) and
the emailed replies the site acted on (read only: what each did, never its text).
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.admin.base import HIDDEN, OVER, NoSecretLookups, ReadOnlyAdmin
from games.models import ChatMessage, InboundMail, Move, Vacation
from games.moderation import tables
from saboteur_site.admin_display import zoned


@admin.register(Move)
class MoveAdmin(NoSecretLookups, ReadOnlyAdmin):
    list_display = ("game", "sequence", "player", "automatic", "stand_in", "created_at_zoned")
    list_filter = ("automatic", "stand_in", "game__status")
    search_fields = ("game__name",)
    list_select_related = ("game", "seat__user")
    fields = (
        "game",
        "sequence",
        "player",
        "automatic",
        "stand_in",
        "created_at_zoned",
        "shown_payload",
        "shown_events",
    )
    readonly_fields = fields
    created_at_zoned = zoned(Move, "created_at")

    @admin.display(description=_("player"))
    def player(self, move):
        return move.seat.bot_name or move.seat.user or gettext("deleted player")

    @admin.display(description=_("move"))
    def shown_payload(self, move):
        return move.payload if move.game.status in OVER else HIDDEN

    @admin.display(description=_("events"))
    def shown_events(self, move):
        return move.events if move.game.status in OVER else HIDDEN


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("created_at_zoned", "game", "author", "text")
    list_select_related = ("game", "seat__user")
    search_fields = ("text", "seat__user__display_name", "game__name")
    fields = ("game", "author", "text", "created_at_zoned")
    readonly_fields = fields
    created_at_zoned = zoned(ChatMessage, "created_at")

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


@admin.register(Vacation)
class VacationAdmin(ReadOnlyAdmin):
    list_display = ("user", "starts_at_zoned", "ends_at_zoned", "ended_at_zoned", "stage")
    list_select_related = ("user",)
    list_filter = ("stage",)
    search_fields = ("user__display_name",)
    fields = (
        "user", "starts_at_zoned", "ends_at_zoned", "ended_at_zoned", "stage", "created_at_zoned",
    )  # fmt: skip
    readonly_fields = fields
    starts_at_zoned = zoned(Vacation, "starts_at")
    ends_at_zoned = zoned(Vacation, "ends_at")
    ended_at_zoned = zoned(Vacation, "ended_at")
    created_at_zoned = zoned(Vacation, "created_at")


@admin.register(InboundMail)
class InboundMailAdmin(ReadOnlyAdmin):
    """Replies to game emails that made a move, went to the chat or were refused with an answer
    (mail dropped unanswered leaves no row; the inbound log says why)."""

    list_display = ("game", "user", "outcome", "received_at_zoned")
    list_select_related = ("game", "user")
    list_filter = ("outcome",)
    search_fields = ("game__name", "user__display_name")
    fields = ("game", "user", "outcome", "message_id", "received_at_zoned")
    readonly_fields = fields
    received_at_zoned = zoned(InboundMail, "received_at")
