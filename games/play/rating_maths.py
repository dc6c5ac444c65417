"""The maths of the ratings, pure Python (no Django): which rounds count, the teams and outcome a
finished round's roles and result define, and the Weng-Lin (openskill) update.

``games.play.ratings`` applies it to the database, live in a move's transaction and again in a
full rebuild; both call ``game_matches`` and ``updated`` with the same inputs, so they give the
same figures. docs/ratings.md explains the choices.

A round is a match between teams: the players of one *stake* (base: gold diggers, saboteurs;
Saboteur 2: blue diggers, green diggers, the boss, the profiteer, the geologists, the saboteurs)
with one *outcome* (won or lost) form a team; every team that won ranks first, every team that
lost second. A trapped blue digger of the winning colour is thus a team of one that lost, beside
the blue diggers who won. A geologist never counts among the winners (docs/rules.md 7.1) but
plays for crystals: they "won" when the crystals paid them (which everyone can tell once the
round's roles are public: the crystals in the maze, the geologists, who is trapped).

A team's strength is the mean of its players' skills, not their sum: the rule sets give the
sides unequal numbers on purpose (four diggers against one saboteur is a fair fight), and a sum
would call every such round for the larger side. openskill sums, so each player of a team of
``k`` enters it scaled by ``1/k`` (mu and sigma) and leaves it scaled back by ``k``: the team's
mu is the mean, its variance that of a mean, and a player of a large team moves less per round,
since they decided less of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from games import engine
from games.engine.cards import BLUE, BOSS, GEOLOGIST, GOLD_DIGGER, GREEN, PROFITEER, SABOTEUR
from games.engine.types import RoundResult

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
# Dynamics: each round a player's sigma grows by this much first (in their own units), so
# ratings keep following players whose play changes.
TAU = MU / 300

# What a rating is of: every round, or only the rounds played as a digger or as a saboteur.
ALL, DIGGER, SABOTEUR_KIND = "all", "digger", "saboteur"
KINDS = (ALL, DIGGER, SABOTEUR_KIND)

STAKES = {
    GOLD_DIGGER: "digger",
    BLUE: "blue",
    GREEN: "green",
    BOSS: "boss",
    PROFITEER: "profiteer",
    GEOLOGIST: "geologist",
    SABOTEUR: "saboteur",
}

_KIND_OF_ROLE = {GOLD_DIGGER: DIGGER, BLUE: DIGGER, GREEN: DIGGER, SABOTEUR: SABOTEUR_KIND}

# tau=0: the dynamics are added per player before the team scaling (above).
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)

Pair = tuple[float, float]  # mu, sigma
DEFAULT: Pair = (MU, SIGMA)


def kind_of(role: str) -> str | None:
    """The role's own rating besides the overall one: digger, saboteur, or none (boss,
    profiteer, geologist)."""
    return _KIND_OF_ROLE.get(role)


def conservative(mu: float, sigma: float) -> float:
    """The figure shown: the skill the player has with high confidence (mu - 3 sigma)."""
    return mu - 3 * sigma


def won(result: RoundResult, seat: str, role: str) -> bool:
    """Whether ``seat`` got what its role plays for in this finished round (``rounds_done``)."""
    if role == GEOLOGIST:
        return result.get("gained", {}).get(seat, 0) > 0
    return seat in result["winners"]


# -- Which rounds, and who played them ---------------------------------------------------------


@dataclass(frozen=True)
class SeatRow:
    """A seat of the game, as the rounds need it."""

    id: int
    position: int
    user: int | None
    bot: bool


@dataclass(frozen=True)
class MoveRow:
    """A stored move, in the game's order."""

    id: int
    seat: int
    stand_in: bool
    payload: Mapping[str, Any]  # an engine Move, as stored
    at: object = None  # when it was made


@dataclass(frozen=True)
class Player:
    """One position of a finished round."""

    position: int
    user: int | None  # whose rating stands for this position (None: a default rating)
    rated: bool  # whether this round changes that rating
    role: str
    won: bool

    @property
    def stake(self) -> str:
        return STAKES[self.role]


@dataclass(frozen=True)
class Match:
    """A rated round: ``key`` (the id of the move that completed it) orders every update."""

    key: int
    game: int
    number: int
    ruleset: str
    players: tuple[Player, ...]
    at: object = None  # when the completing move was made

    @property
    def rated_users(self) -> list[int]:
        return [p.user for p in self.players if p.rated and p.user is not None]


def game_matches(
    *, game: int, config: engine.Config, seats: Mapping[int, SeatRow], moves: Sequence[MoveRow]
) -> list[Match]:
    """The rated rounds of one (rated: not practice, not aborted) game, from its stored moves.

    Replays the moves; each round completed by a move (its result in ``rounds_done``, so its
    roles are public) is a match unless a bot played in it, nobody in it is rated, or everyone
    had the same outcome (nothing to learn).
    """
    state = engine.replay(config, [])
    done = len(state.rounds_done)  # rounds over before any move (rigged deals only): not rated
    start = 0
    matches = []
    for index, move in enumerate(moves):
        engine.apply_in_place(state, str(seats[move.seat].position), move.payload)
        while done < len(state.rounds_done):
            result = state.rounds_done[done]
            done += 1
            match = _match(game, done, config.ruleset, result, seats, moves[start : index + 1])
            start = index + 1
            if match is not None:
                matches.append(match)
    return matches


def _match(
    game: int,
    number: int,
    ruleset: str,
    result: RoundResult,
    seats: Mapping[int, SeatRow],
    moves: Sequence[MoveRow],
) -> Match | None:
    if not moves or any(seats[m.seat].bot for m in moves):
        return None  # rounds with a bot are not rated
    players = _players(result, seats, moves)
    if not any(p.rated for p in players) or len({p.won for p in players}) < 2:
        return None
    players.sort(key=_by_position)
    return Match(moves[-1].id, game, number, ruleset, tuple(players), moves[-1].at)


def _players(
    result: RoundResult, seats: Mapping[int, SeatRow], moves: Sequence[MoveRow]
) -> list[Player]:
    """Every position of the round's result as a player. A position is its seat's when one seat
    alone moved there in the round; its account is rated unless the account moved at another
    position too or a stand-in bot moved for that seat."""
    movers: dict[int, set[int]] = {}  # position -> the seats that moved there in the round
    stood_in: set[int] = set()
    for move in moves:
        mover = seats[move.seat]
        movers.setdefault(mover.position, set()).add(mover.id)
        if move.stand_in:
            stood_in.add(mover.id)
    users = [seats[next(iter(ids))].user for ids in movers.values() if len(ids) == 1]
    twice = {user for user in users if user is not None and users.count(user) > 1}
    players = []
    for name, role in result["roles"].items():
        position = int(name)
        ids = movers.get(position, set())
        seat = seats[next(iter(ids))] if len(ids) == 1 else None
        user = seat.user if seat is not None and seat.user not in twice else None
        rated = seat is not None and user is not None and seat.id not in stood_in
        players.append(Player(position, user, rated, role, won(result, name, role)))
    return players


def _by_position(player: Player) -> int:
    return player.position


# -- The update --------------------------------------------------------------------------------


def updated(match: Match, ratings: Mapping[tuple[int, str], Pair]) -> dict[tuple[int, str], Pair]:
    """The new ratings of the match's rated players: ``(user, kind) -> (mu, sigma)``.

    ``ratings`` holds the current ones (missing: the default). The overall ratings are updated
    from a match of everyone's overall ratings; the digger and saboteur ratings from the same
    match where each player stands with their rating of the role they played (the boss, the
    profiteer and the geologists with their overall one, which that match leaves alone).
    """

    def current(user, kind) -> Pair:
        return ratings.get((user, kind), DEFAULT) if user is not None else DEFAULT

    teams = _teams(match.players)
    new: dict[tuple[int, str], Pair] = {}
    overall = _rate([[current(p.user, ALL) for p in team] for team in teams], teams)
    for team, pairs in zip(teams, overall, strict=True):
        for player, pair in zip(team, pairs, strict=True):
            if player.rated and player.user is not None:
                new[(player.user, ALL)] = pair
    by_role = _rate(
        [[current(p.user, kind_of(p.role) or ALL) for p in team] for team in teams], teams
    )
    for team, pairs in zip(teams, by_role, strict=True):
        for player, pair in zip(team, pairs, strict=True):
            kind = kind_of(player.role)
            if player.rated and player.user is not None and kind:
                new[(player.user, kind)] = pair
    return new


def _teams(players: Iterable[Player]) -> list[list[Player]]:
    """Players grouped by stake and outcome, winners first, in a fixed order."""
    groups: dict[tuple[bool, str], list[Player]] = {}
    for player in players:
        groups.setdefault((not player.won, player.stake), []).append(player)
    return [groups[key] for key in sorted(groups)]


def _rate(teams: list[list[Pair]], players: list[list[Player]]) -> list[list[Pair]]:
    """openskill's Plackett-Luce update of teams of mean strength (module docstring)."""
    scaled = []
    for team in teams:
        k = len(team)
        scaled.append(
            [_MODEL.rating(mu=mu / k, sigma=math.sqrt(sigma**2 + TAU**2) / k) for mu, sigma in team]
        )
    ranks: list[float] = [0 if group[0].won else 1 for group in players]
    rated = _MODEL.rate(scaled, ranks=ranks)
    return [
        [(r.mu * len(team), r.sigma * len(team)) for r in new]
        for team, new in zip(teams, rated, strict=True)
    ]
