"""Play now's forming tables as their players see them (issue 52): where they sit, how many sit
there, what the table waits for and when it starts. A forming table has no secret: its seats are
its players' names, its settings what they asked for."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from games.models import FormingTable, Game, TableWish
from games.models.matchmaking import PACE_NAMES


@dataclass(frozen=True)
class FormingSeat:
    """One forming table a player sits at."""

    table_id: int
    game_id: int
    name: str
    ruleset_label: str
    pace: str
    language_label: str
    seated: int
    max_seats: int
    min_players: int
    start_at: datetime
    opened_at: datetime
    postponed: int
    bots_ok: bool  # every seated player agreed to bots in the empty seats

    @property
    def missing(self) -> int:
        """Players still needed to start at the start time (0: it starts then, or when full)."""
        return max(0, self.min_players - self.seated)

    @property
    def free(self) -> int:
        return self.max_seats - self.seated


def pace_label(pace: str) -> str:
    return str(PACE_NAMES.get(pace, pace))


def seats_at(tables: list[FormingTable]) -> list[FormingSeat]:
    """The forming tables of the home page's list (``lists.dashboard_for`` found them with the
    player's other lobbies), the soonest start first (a query only when there are some)."""
    return _seats(sorted(tables, key=lambda table: (table.start_at, table.pk)))


def my_tables(user) -> list[FormingSeat]:
    """The forming tables ``user`` waits at, the soonest start first (two queries)."""
    rows = list(
        TableWish.objects.filter(user=user, waiting=True, table__game__status=Game.Status.LOBBY)
        .select_related("table__game")
        .order_by("table__start_at", "pk")
    )
    return _seats([row.table for row in rows])


def _seats(tables: list[FormingTable]) -> list[FormingSeat]:
    if not tables:
        return []
    waiting: dict[int, list[bool]] = {}
    for table_id, bots_ok in TableWish.objects.filter(table__in=tables, waiting=True).values_list(
        "table_id", "bots_ok"
    ):
        waiting.setdefault(table_id, []).append(bots_ok)
    languages = dict(settings.LANGUAGES)
    return [
        FormingSeat(
            table_id=table.pk,
            game_id=table.game_id,
            name=table.game.name,
            ruleset_label=str(Game.Ruleset(table.game.ruleset).label),
            pace=pace_label(table.pace),
            language_label=str(languages.get(table.language, table.language)),
            seated=len(waiting.get(table.pk, [])),
            max_seats=table.game.max_seats,
            min_players=table.min_players,
            start_at=table.start_at,
            opened_at=table.created_at,
            postponed=table.postponed,
            bots_ok=all(waiting.get(table.pk, [False])),
        )
        for table in tables
    ]
