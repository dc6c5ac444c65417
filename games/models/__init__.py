"""The games' tables in the database, one module per subject; every model is imported here, so
``from games.models import Game`` works and Django finds them all.

- ``tables``: a game (an append-only log of moves and a cached engine snapshot), its seats,
  moves, chat, table events and invitations;
- ``notices``: the email outbox, replies acted on, push deliveries, vacations;
- ``ratings``: ratings per rule set and the rounds that counted;
- ``reports``: players' reports to the moderators and the chat mutes they give.
- ``matchmaking``: play now's forming tables and the players' wishes that seated them;
- ``challenges``: challenges between friends to a game with the challenger's settings.
"""

from .challenges import Challenge
from .matchmaking import FormingTable, TableWish
from .notices import InboundMail, Notice, PushDelivery, Vacation
from .ratings import RatedRound, Rating
from .reports import ChatMute, Report
from .tables import (
    MAX_BANK,
    MAX_TURN_LIMIT,
    MIN_TURN_LIMIT,
    ChatMessage,
    Game,
    Invitation,
    Move,
    Seat,
    SeatQuerySet,
    TableEvent,
    new_invite_token,
)

__all__ = [
    "Challenge",
    "MAX_BANK",
    "MAX_TURN_LIMIT",
    "MIN_TURN_LIMIT",
    "Challenge",
    "ChatMessage",
    "ChatMute",
    "FormingTable",
    "Game",
    "InboundMail",
    "Invitation",
    "Move",
    "Notice",
    "PushDelivery",
    "RatedRound",
    "Rating",
    "Report",
    "Seat",
    "SeatQuerySet",
    "TableEvent",
    "TableWish",
    "Vacation",
    "new_invite_token",
]
