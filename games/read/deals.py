"""Deals anyone can check (issue 39, docs/fairness.md): what the game page shows of the seeds,
and each round's deal document once the round is over.

The game's server seeds are secret until their round ends (round 0's, the seating and the gold
supply, until the game ends); before that only their commitments, SHA-256 of each, are shown.
The players' seeds are public. A round's document recomputes what its deal drew from the
engine's configuration (``engine.round_draws``: the engine draws nothing else) and gives the
round seed the engine was really dealt from, so a verifier checks the site's word against the
committed seeds, not against itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.engine import documents, fairness
from games.models import Game, Seat

from .card_names import card_name, role_name
from .log import goal_label
from .seats import display_name

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


@dataclass(frozen=True)
class Commitment:
    number: int  # 0: the game's own draws (the seating, the gold supply); then each round
    label: str
    commitment: str
    revealed: bool  # its seed is public: its deal can be checked


@dataclass(frozen=True)
class SeatSeed:
    name: str
    seed: str
    mine: bool


@dataclass(frozen=True)
class Panel:
    """The game page's "Deals you can check" panel."""

    commitments: tuple[Commitment, ...]
    seeds: tuple[SeatSeed, ...]
    my_seed: str | None  # the viewer's own seed while they may still change it
    fixed: bool  # the game has started: the players' seeds are fixed


def revealed(game: Game, number: int, rounds_done: int) -> bool:
    """Whether seed ``number`` is public: a round's once it is over, round 0's (the seating,
    the gold supply: used all game long) once the game is."""
    if not game.joined_seeds or not 0 <= number <= min(game.rounds, len(game.server_seeds) - 1):
        return False  # dealt before deals were checkable, or no such round
    if number == fairness.GAME_ROUND:
        return game.status in OVER
    return number <= rounds_done


def panel(
    game: Game, seats: list[Seat], me_seat: Seat | None, view: engine.View | None
) -> Panel | None:
    """The commitments, the players' seeds and the viewer's own; None for a game dealt before
    deals were checkable."""
    if not game.server_seeds or (game.status != Game.Status.LOBBY and not game.joined_seeds):
        return None
    commitments = tuple(
        Commitment(
            number=number,
            label=_("Seating and gold")
            if number == fairness.GAME_ROUND
            else _("Round %(number)d") % {"number": number},
            commitment=fairness.commitment(bytes.fromhex(seed)),
            revealed=revealed(game, number, len(view["rounds_done"]) if view else 0),
        )
        for number, seed in enumerate(game.server_seeds[: game.rounds + 1])
    )
    lobby = game.status == Game.Status.LOBBY
    shown = [(seat, seat.seed) for seat in seats] if lobby else _joined(game, seats)
    return Panel(
        commitments=commitments,
        seeds=tuple(
            SeatSeed(display_name(seat), seed, me_seat is not None and seat.pk == me_seat.pk)
            for seat, seed in shown
        ),
        my_seed=me_seat.seed if lobby and me_seat is not None else None,
        fixed=not lobby,
    )


def _joined(game: Game, seats: list[Seat] | None = None) -> list[tuple[Seat, str]]:
    """The seats as they were when the game started, in the order they joined, each with the
    seed fixed then."""
    by_pk = {seat.pk: seat for seat in (seats or game.seats.select_related("user"))}
    return [(by_pk[pk], seed) for pk, seed in game.joined_seeds]


def document(game: Game, number: int) -> dict[str, Any] | None:
    """Round ``number``'s deal document (docs/fairness.md, "The deal document"), or None while
    its seed is secret or for a game dealt before deals were checkable."""
    if game.snapshot is None:
        return None
    state = engine.State.from_json(game.snapshot)
    if not revealed(game, number, len(state.rounds_done)):
        return None
    server = bytes.fromhex(game.server_seeds[number])
    joined = _joined(game)
    in_seats = sorted(joined, key=lambda pair: pair[0].position or 0)  # all seated at the start
    if number == fairness.GAME_ROUND:
        return documents.game_document(
            state.config,
            game.pk,
            server,
            [seed for _seat, seed in joined],
            [display_name(seat) for seat, _seed in joined],
            [display_name(seat) for seat, _seed in in_seats],
        )
    return documents.round_document(
        state.config,
        game.pk,
        number,
        server,
        [seed for _seat, seed in in_seats],
        [display_name(seat) for seat, _seed in in_seats],
    )


@dataclass(frozen=True)
class DealRow:
    name: str
    seed: str
    role: str
    hand: tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """A deal document in words, beside the browser's check of it."""

    round_seed: str
    commitment: str
    server_seed: str
    rows: tuple[DealRow, ...]  # seat by seat (round 0: the order they joined)
    goals: tuple[str, ...] = ()
    first: str | None = None
    pile: int = 0
    removed: int = 0
    seating: tuple[str, ...] = ()
    gold: tuple[int, ...] = ()


def summary(document: dict[str, Any]) -> Summary:
    deal = document["deal"]
    names = document["players"]
    head = {
        "round_seed": document["round_seed"],
        "commitment": document["commitment"],
        "server_seed": document["server_seed"],
    }
    if document["round"] == fairness.GAME_ROUND:
        return Summary(
            **head,
            rows=tuple(
                DealRow(name, seed, "", ())
                for name, seed in zip(names, document["player_seeds"], strict=True)
            ),
            seating=tuple(deal["seating"]),
            gold=tuple(deal.get("gold_supply", ())),
        )
    first = deal.get("first")
    return Summary(
        **head,
        rows=tuple(
            DealRow(name, seed, role_name(role), tuple(card_name(card) for card in hand))
            for name, seed, role, hand in zip(
                names, document["player_seeds"], deal["roles"], deal["hands"], strict=True
            )
        ),
        goals=tuple(
            _("%(place)s: %(card)s") % {"place": goal_label(place), "card": card_name(card)}
            for place, card in deal["goals"].items()
        ),
        first=names[first] if first is not None else None,
        pile=len(deal["pile"]),
        removed=len(deal["removed"]),
    )
