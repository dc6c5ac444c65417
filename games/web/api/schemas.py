"""The shapes of what the API takes and answers (pydantic through django-ninja): what is sent is
checked here first (types, lengths, bounds), then by the services, which check every rule again."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema


class Error(Schema):
    code: str = Field(description="A stable code, e.g. `stale-version`, `not-your-turn`.")
    message: str = Field(description="What went wrong, in the account's language.")


class Account(Schema):
    id: int
    display_name: str
    is_bot: bool
    language: str
    time_zone: str
    scopes: list[str]


class Player(Schema):
    seat: str | None = Field(description="The engine's seat name, once the game started.")
    name: str
    is_bot: bool = Field(description="A bot: the site's own or a bot account.")
    me: bool


class GameRow(Schema):
    id: int
    name: str
    ruleset: str
    status: str
    practice: bool
    allows_bots: bool
    version: int
    revision: int
    my_turn: bool
    deadline: datetime | None
    players: list[Player]


class Game(GameRow):
    me: str | None = Field(description="My seat's engine name (None: I watch).")
    max_seats: int
    rounds: int
    to_move: str | None
    decision_since: datetime | None
    view: dict[str, Any] | None = Field(
        description="The game as my seat may see it (engine `view_for`), as the game page shows it."
    )
    my_bank_seconds: int | None = Field(
        description="What is left of my time bank, spent when a turn runs past its time."
    )
    ledger: list[dict[str, Any]] = Field(
        description="The public ledger: per round, what each seat was seen doing."
    )


class LegalMoves(Schema):
    version: int
    my_turn: bool
    moves: list[dict[str, Any]]


class LogEntry(Schema):
    sequence: int
    events: list[dict[str, Any]]
    text: list[str]
    by_site: str


class MoveIn(Schema):
    move: dict[str, Any] = Field(description="One move as `legal` lists them.")
    version: int = Field(ge=0, le=1_000_000, description="The game's version the move is for.")
    key: str | None = Field(
        default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.~-]+$",
        description="An idempotency key: the same key again answers the first result.",
    )  # fmt: skip


class MoveOut(Schema):
    sequence: int
    repeated: bool
    version: int


class ChatLine(Schema):
    author: str
    text: str
    at: datetime


class ChatIn(Schema):
    text: str = Field(min_length=1, max_length=2000)


class GameIn(Schema):
    name: str = Field(default="", max_length=80)
    ruleset: Literal["base", "saboteur2"] = "base"
    max_seats: int = Field(default=5, ge=2, le=12)
    rounds: int = Field(default=3, ge=1, le=3)
    variants: list[str] = Field(default_factory=list, max_length=10)
    private: bool = Field(default=False, description="By invitation only.")
    turn_hours: int | None = Field(default=None, ge=1, le=168)
    allows_bots: bool = Field(default=False, description="Bot accounts may join.")
    bots_rated_with_people: bool = Field(
        default=False,
        description="Rounds of bot accounts with people are rated (else only among bots).",
    )


class PracticeIn(Schema):
    ruleset: Literal["base", "saboteur2"] = "base"
    bots: int = Field(default=3, ge=1, le=11)
    rounds: int = Field(default=3, ge=1, le=3)


class ChallengeRow(Schema):
    id: int
    game: int
    game_name: str
    ruleset: str
    pace: str
    challenger: str = Field(description="Who sent it (a friend).")
    expires_at: datetime


class ChallengeAnswer(Schema):
    id: int
    game: int
    state: str = Field(description="`accepted` or `refused`.")
