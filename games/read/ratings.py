"""Ratings as players see them: the conservative figure (mu - 3 sigma), "provisional" until
``Rating.PROVISIONAL_ROUNDS`` rated rounds, per rule set, overall and as a digger or saboteur,
and the leaderboards (docs/ratings.md).

Only ``games.play.ratings`` writes ratings, and only once a round's result is complete: its
roles are public by then (docs/rules.md 8), so any figure here may be shown to anyone. Nothing
shows a change between two figures.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.core.cache import caches
from django.urls import reverse
from django.utils.translation import get_language

from accounts.players import player_url
from games.models import Game, Rating
from saboteur_site.cache import get_or_build

RULESET_LABELS = dict(Game.Ruleset.choices)


@dataclass(frozen=True)
class Figure:
    score: float
    rounds: int

    @property
    def provisional(self) -> bool:
        return self.rounds < Rating.PROVISIONAL_ROUNDS

    @property
    def text(self) -> str:
        return f"{self.score:.1f}"


@dataclass(frozen=True)
class RulesetRatings:
    ruleset: str
    label: str
    overall: Figure
    digger: Figure | None
    saboteur: Figure | None
    leaderboard_url: str


def player_ratings(user) -> list[RulesetRatings]:
    """The player's ratings, one entry per rule set they were rated in (one query)."""
    figures: dict[str, dict[str, Figure]] = {}
    rows = Rating.objects.filter(user=user).values_list("ruleset", "kind", "score", "rounds")
    for ruleset, kind, score, rounds in rows:
        figures.setdefault(ruleset, {})[kind] = Figure(score, rounds)
    return [
        RulesetRatings(
            ruleset=ruleset,
            label=str(RULESET_LABELS[ruleset]),
            overall=figures[ruleset][Rating.Kind.ALL],
            digger=figures[ruleset].get(Rating.Kind.DIGGER),
            saboteur=figures[ruleset].get(Rating.Kind.SABOTEUR),
            leaderboard_url=reverse("leaderboard", args=[ruleset]),
        )
        for ruleset in Game.Ruleset.values
        if Rating.Kind.ALL in figures.get(ruleset, {})
    ]


def overall_figures(user_ids) -> dict[tuple[int, str], Figure]:
    """(player, rule set) -> the overall figure, of these players (one query)."""
    rows = Rating.objects.filter(user_id__in=list(user_ids), kind=Rating.Kind.ALL).values_list(
        "user_id", "ruleset", "score", "rounds"
    )
    return {(user, ruleset): Figure(score, rounds) for user, ruleset, score, rounds in rows}


LEADERBOARD_LENGTH = 100


@dataclass(frozen=True)
class Leader:
    rank: int
    name: str
    url: str
    figure: Figure
    digger: Figure | None
    saboteur: Figure | None


@dataclass(frozen=True)
class Leaderboard:
    ruleset: str
    label: str
    leaders: list[Leader]
    others: list[tuple[str, str]]  # (label, url) of the other rule sets' boards
    min_rounds: int
    # Names this build of the board: the template keeps the table's markup under it.
    key: str = field(default_factory=lambda: uuid.uuid4().hex)


# How old a leaderboard may be (the page says its ratings may be a few minutes old): each
# process builds a rule set's board (two queries, a hundred players' rows) at most this often.
LEADERBOARD_SECONDS = 60


def leaderboard(ruleset: str) -> Leaderboard:
    """The best players of ``ruleset`` with enough rated rounds, as built in the last
    ``LEADERBOARD_SECONDS`` by this process (in the viewer's language)."""
    key = leaderboard_key(ruleset, get_language())
    return get_or_build(caches["local"], key, lambda: _leaderboard(ruleset), LEADERBOARD_SECONDS)


def leaderboard_key(ruleset: str, language: str) -> str:
    """The per-process cache's key of a rule set's board in ``language``."""
    return f"leaderboard:{ruleset}:{language}"


def _leaderboard(ruleset: str) -> Leaderboard:
    """The best players of ``ruleset`` with enough rated rounds (two queries)."""
    best = list(
        Rating.objects.filter(
            ruleset=ruleset,
            kind=Rating.Kind.ALL,
            rounds__gte=Rating.PROVISIONAL_ROUNDS,
            user__is_active=True,
            user__is_bot=False,  # bot accounts have a pool of their own (play/ratings.py)
        )
        .select_related("user")
        .only("score", "rounds", "user__display_name", "user__id")
        .order_by("-score", "user_id")[:LEADERBOARD_LENGTH]
    )
    by_role: dict[tuple[int, str], Figure] = {}
    rows = Rating.objects.filter(
        ruleset=ruleset, user_id__in=[r.user_id for r in best], kind__in=["digger", "saboteur"]
    ).values_list("user_id", "kind", "score", "rounds")
    for user, kind, score, rounds in rows:
        by_role[(user, kind)] = Figure(score, rounds)
    leaders = [
        Leader(
            rank=rank,
            name=row.user.display_name,
            url=player_url(row.user),
            figure=Figure(row.score, row.rounds),
            digger=by_role.get((row.user_id, Rating.Kind.DIGGER)),
            saboteur=by_role.get((row.user_id, Rating.Kind.SABOTEUR)),
        )
        for rank, row in enumerate(best, start=1)
    ]
    return Leaderboard(
        ruleset=ruleset,
        label=str(RULESET_LABELS[ruleset]),
        leaders=leaders,
        others=[
            (str(label), reverse("leaderboard", args=[value]))
            for value, label in Game.Ruleset.choices
            if value != ruleset
        ],
        min_rounds=Rating.PROVISIONAL_ROUNDS,
    )
