"""Private suspicions as the pages show them (issue 38): the viewer's own marks of the running
round (to them alone), and once a round is over everyone's last marks of that round beside the
true roles, with a running count of good guesses per player.

The marks and the note live on the seat row (``Seat.marks``: round -> target seat -> mark;
``Seat.note``), which every page reads anyway. A round's marks are read only when its roles are
public (``view["rounds_done"]``, or the round being settled, ``view["round_ending"]``); the
running round's marks only for their author. Notes are read for their author alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import View
from games.engine.cards import BLUE, GOLD_DIGGER, GREEN, SABOTEUR, SABOTEUR2
from games.models import Seat

DIGGER_MARK, SABOTEUR_MARK, BLUE_MARK, GREEN_MARK, UNSURE = (
    "digger", "saboteur", "blue", "green", "unsure",
)  # fmt: skip
LABELS = {
    DIGGER_MARK: gettext_lazy("Gold digger"),
    SABOTEUR_MARK: gettext_lazy("Saboteur"),
    BLUE_MARK: gettext_lazy("Blue team"),
    GREEN_MARK: gettext_lazy("Green team"),
    UNSURE: gettext_lazy("Not sure"),
}
# The marks a player can give, by ruleset.
MARKS = {
    "base": (DIGGER_MARK, SABOTEUR_MARK, UNSURE),
    SABOTEUR2: (BLUE_MARK, GREEN_MARK, SABOTEUR_MARK, UNSURE),
}
# The mark that guesses a role right (the other roles of Saboteur 2 are guessed by none).
RIGHT = {GOLD_DIGGER: DIGGER_MARK, SABOTEUR: SABOTEUR_MARK, BLUE: BLUE_MARK, GREEN: GREEN_MARK}


def marks_for(ruleset: str) -> tuple[str, ...]:
    """The marks a player can give in a game of ``ruleset``."""
    return MARKS.get(ruleset, MARKS["base"])


def mark_choices(ruleset: str) -> tuple[tuple[str, str], ...]:
    """The marks with their labels, in the page's language."""
    return tuple((mark, str(LABELS[mark])) for mark in marks_for(ruleset))


def my_marks(seat: Seat | None, number: int) -> dict[str, str]:
    """The viewer's own marks of round ``number``: target seat -> mark."""
    if seat is None:
        return {}
    return dict((seat.marks or {}).get(str(number), {}))


def my_note(seat: Seat | None) -> str:
    """The viewer's own note on the game ("" for none)."""
    return seat.note if seat is not None else ""


def public_roles(view: View) -> dict[int, Mapping[str, str]]:
    """The rounds whose roles are public, and those roles: every finished round, and the round
    being settled (its gold shared)."""
    roles: dict[int, Mapping[str, str]] = {
        n: done["roles"] for n, done in enumerate(view["rounds_done"], start=1)
    }
    ending = view["round_ending"]
    if ending:
        roles[view["round"]] = ending["roles"]
    return roles


class Revealed:
    """Per public round, each author's marks (``lines[round][author seat]``) and the good
    guesses per author over those rounds."""

    def __init__(self, lines: dict[int, dict[str, list[dict]]], good: dict[str, int]):
        self.lines = lines
        self.good = good

    def of_round(self, number: int, names: Mapping[str, str]) -> list[str]:
        """Round ``number``'s marks in sentences: "Ann guessed Bob: Saboteur (right), ..."."""
        return [
            _("%(author)s guessed %(marks)s.") % {"author": names.get(author, "?"), "marks": said}
            for author, said in self.by_author(number, names).items()
        ]

    def by_author(self, number: int, names: Mapping[str, str]) -> dict[str, str]:
        """Round ``number``'s marks per author seat, each in words ("Bob: Saboteur (right),
        Cid: Gold digger (wrong)"): what the results show beside the author's true role."""
        return {
            author: ", ".join(
                _("%(target)s: %(mark)s (%(verdict)s)")
                % {
                    "target": names.get(m["target"], "?"),
                    "mark": LABELS[m["mark"]],
                    "verdict": _verdict(m),
                }  # fmt: skip
                for m in marks
            )
            for author, marks in self.lines.get(number, {}).items()
        }

    def tally(self, names: Mapping[str, str], *, final: bool = False) -> str:
        """The good guesses so far, per player ("" when nobody guessed); ``final``: the game is
        over, and so are the guesses (not "so far")."""
        if not self.lines:
            return ""
        counts = ", ".join(
            f"{names.get(seat, '?')} {count}" for seat, count in sorted(self.good.items())
        )
        if final:
            return _("Good guesses: %(counts)s") % {"counts": counts}
        return _("Good guesses so far: %(counts)s") % {"counts": counts}


def _verdict(mark: dict) -> str:
    if mark["mark"] == UNSURE:
        return _("not sure")
    return _("right") if mark["right"] else _("wrong")


def revealed(seats: Iterable[Seat], view: View) -> Revealed:
    """Everyone's marks of the rounds whose roles are public (``seats``: the game's seats, as
    loaded for the page)."""
    roles = public_roles(view)
    lines: dict[int, dict[str, list[dict]]] = {}
    good: Counter[str] = Counter()
    for seat in sorted(seats, key=lambda s: (s.position is None, s.position or 0, s.pk)):
        if seat.position is None:
            continue
        author = seat.engine_name
        for number, marks in sorted((int(n), m) for n, m in (seat.marks or {}).items()):
            if number not in roles:
                continue  # a round still under way: its marks are its author's alone
            for target, mark in sorted(marks.items()):
                right = mark != UNSURE and RIGHT.get(roles[number].get(target, "")) == mark
                good[author] += right
                entry = {"target": target, "mark": mark, "right": right}
                lines.setdefault(number, {}).setdefault(author, []).append(entry)
    return Revealed(lines, {author: good[author] for author in sorted(good)})
