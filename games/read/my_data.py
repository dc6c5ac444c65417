"""A player's own data, as the download of their profile page gives it (GDPR: access and
portability): their profile and preferences, addresses, devices, games with their own moves,
chat and notes, the notices sent to them, their emailed replies, ratings, vacations, blocks,
follows and the reports they made.

Never another player's secrets: only the player's own moves (what they sent, not what the
engine told them back), no game's state, no one else's notes or marks, and of reports about
them nothing at all (who reported them stays with the moderators).
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress

from accounts.models import Ban, Block, Follow, PushSubscription
from games.models import (
    ChatMessage,
    ChatMute,
    InboundMail,
    Move,
    Notice,
    Rating,
    Report,
    Seat,
    Vacation,
)

# Fields of the user's row left out: secrets of the account itself, and what is only an index.
USER_LEFT_OUT = {"password", "display_name_key"}


def _user(user) -> dict[str, Any]:
    return {
        field.attname: getattr(user, field.attname)
        for field in user._meta.concrete_fields
        if field.attname not in USER_LEFT_OUT
    }


def _games(user) -> list[dict[str, Any]]:
    seats = Seat.objects.filter(user=user).select_related("game").order_by("game_id", "pk")
    moves: dict[int, list] = {}
    for move in Move.objects.filter(seat__user=user).order_by("game_id", "sequence"):
        moves.setdefault(move.seat_id, []).append(
            {
                "sequence": move.sequence,
                "move": move.payload,
                "made_by_the_site": move.automatic,
                "made_by_a_stand_in": move.stand_in,
                "at": move.created_at,
            }
        )
    chat: dict[int, list] = {}
    for line in ChatMessage.objects.filter(seat__user=user).order_by("pk"):
        chat.setdefault(line.seat_id, []).append({"text": line.text, "at": line.created_at})
    return [
        {
            "game": seat.game_id,
            "name": seat.game.name,
            "rule_set": seat.game.ruleset,
            "status": seat.game.status,
            "seat": None if seat.position is None else seat.position + 1,
            "seat_state": seat.state,
            "joined_at": seat.joined_at,
            "your_note": seat.note,
            "your_moves": moves.get(seat.pk, []),
            "your_chat": chat.get(seat.pk, []),
        }
        for seat in seats
    ]


def my_data(user) -> dict[str, Any]:
    """Everything the site holds about ``user`` that is theirs to know, ready for JSON."""
    return {
        "profile": _user(user),
        "email_addresses": list(
            EmailAddress.objects.filter(user=user).values("email", "verified", "primary")
        ),
        "devices": list(
            PushSubscription.objects.filter(user=user).values(
                "label", "created_at", "last_used_at", "last_push_at"
            )
        ),
        "games": _games(user),
        "notices": list(
            Notice.objects.filter(user=user)
            .order_by("pk")
            .values("kind", "status", "game_id", "due_at", "sent_at", "created_at")
        ),
        "emailed_replies": list(
            InboundMail.objects.filter(user=user)
            .order_by("pk")
            .values("game_id", "outcome", "received_at")
        ),
        "ratings": list(
            Rating.objects.filter(user=user).values(
                "ruleset", "kind", "mu", "sigma", "score", "rounds", "last_round_at"
            )
        ),
        "vacations": list(
            Vacation.objects.filter(user=user).values("starts_at", "ends_at", "ended_at", "stage")
        ),
        "blocked_players": [
            {"player": block.blocked.display_name, "since": block.created_at}
            for block in Block.objects.filter(blocker=user).select_related("blocked")
        ],
        "following": [
            {"player": follow.followed.display_name, "since": follow.created_at}
            for follow in Follow.objects.filter(follower=user).select_related("followed")
        ],
        "reports_made": [
            {
                "player": report.reported.display_name,
                "reason": report.reason,
                "text": report.text,
                "message": report.quoted,
                "game": report.game_id,
                "outcome": report.outcome,
                "at": report.created_at,
            }
            for report in Report.objects.filter(reporter=user).select_related("reported")
        ],
        "chat_mutes": list(ChatMute.objects.filter(user=user).values("until", "created_at")),
        "bans": list(Ban.objects.filter(user=user).values("created_at", "lifted_at")),
    }
