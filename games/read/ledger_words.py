"""The public ledger in words (issue 38): the counting is ``games/ledger.py`` (pure, shared
with the bots); here the phrases the pages and emails say it with.

- ``public(game_id, moves, seats)`` -> the game's public ledger after ``moves`` (its move log up
  to a version), kept per game and process and read on move by move (``games.ledger.read``):
  a page pays for the moves made since the process last read the game, not for the whole log.
- ``changes_since(moves, seats, names, after)`` -> one short line per player who did something
  after move ``after`` (for the "your turn" email).
- ``record_phrases(record, names)``, ``other_phrases``, ``did_lines``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from django.core.cache import caches
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import ledger as counting
from games.ledger import (
    CUT,
    DEAD_END,
    SIDEWAYS,
    TOWARDS,
    Kept,
    Ledger,
    Rockfall,
    SeatRecord,
    ToolHit,
    frontier,
    ledger,
    path_kind,
    start_board,
)

from .card_names import card_name
from .log import LoggedMove, goal_label, tool_label

__all__ = [
    "CUT",
    "DEAD_END",
    "SIDEWAYS",
    "TOWARDS",
    "Kept",
    "Ledger",
    "Rockfall",
    "SeatRecord",
    "ToolHit",
    "changes_since",
    "did_lines",
    "frontier",
    "ledger",
    "other_phrases",
    "path_kind",
    "public",
    "record_phrases",
    "start_board",
]


# -- Kept per game -----------------------------------------------------------------------------

KEPT_SECONDS = 3600


def public(game_id: int, moves: Sequence[LoggedMove], seats: Sequence[str]) -> Ledger:
    """The public ledger of game ``game_id`` after ``moves`` (``history.move_log``: its moves up
    to a version, oldest first) for its engine seats ``seats``."""
    return kept(game_id, moves, seats).ledger


def kept(game_id: int, moves: Sequence[LoggedMove], seats: Sequence[str]) -> Kept:
    """The ledger after ``moves`` as ``games.ledger.read`` keeps it, kept per process under
    the game and its version (``caches["local"]``), and the game's newest one besides: a new
    version reads on from the newest kept, so each move is read once per process. A move log
    never changes below its version, so what is kept for a version stays true."""
    cache = caches["local"]
    version = moves[-1][0] if moves else 0
    found = cache.get(f"ledger:{game_id}:{version}")
    if isinstance(found, Kept) and found.seats == tuple(seats):
        return found
    newest = cache.get(f"ledger:{game_id}:newest")
    going_on = newest if isinstance(newest, Kept) and newest.sequence <= version else None
    found = counting.read(moves, seats, going_on)
    cache.set(f"ledger:{game_id}:{version}", found, KEPT_SECONDS)
    if not isinstance(newest, Kept) or newest.sequence <= version:
        cache.set(f"ledger:{game_id}:newest", found, KEPT_SECONDS)
    return found


# -- In words -----------------------------------------------------------------------------------


def changes_since(
    moves: Iterable[LoggedMove], seats: Sequence[str], names: Mapping[str, str], after: int
) -> dict[str, str]:
    """One short line per seat that did something after move ``after``: seat -> line."""
    found = ledger(moves, seats, after)
    lines = {}
    for seat in found.seats:
        record = found.total(seat)
        if not record.empty:
            lines[seat] = _("%(who)s: %(what)s.") % {
                "who": names.get(seat, "?"),
                "what": ", ".join(record_phrases(record, names)),
            }
    return lines


def record_phrases(record: SeatRecord, names: Mapping[str, str]) -> list[str]:
    """The record as short phrases, in a fixed order."""
    return [
        *_path_phrases(record),
        *(_tool_phrase(record.seat, hit, names, broke=True) for hit in record.broke),
        *(_tool_phrase(record.seat, hit, names, broke=False) for hit in record.repaired),
        *(_rockfall_phrase(rockfall, names) for rockfall in record.rockfalls),
        *(_("map on the %(goal)s goal") % {"goal": goal_label(goal)} for goal in record.maps),
        *_count_phrases(record),
        *other_phrases(record, names),
    ]


def other_phrases(record: SeatRecord, names: Mapping[str, str]) -> list[str]:
    """Saboteur 2's acts besides paths, tools, rockfalls, maps and passes, as phrases (the
    ledger's table gives those their own columns)."""
    thefts = (
        ngettext("laid a theft card", "laid %(count)d theft cards", record.thefts)
        % {"count": record.thefts}
        if record.thefts
        else None
    )
    return [
        *([thefts] if thefts else []),
        *(_("cleared %(card)s") % {"card": card_name(card)} for card in record.cleared),
        *_target_phrases(record, names),
    ]


def did_lines(records: Mapping[str, SeatRecord], names: Mapping[str, str]) -> list[dict]:
    """What each seat did (``records``: one round's, or summed), in seat order: its name and its
    phrases joined ("" for a seat that did nothing everyone saw)."""
    return [
        {"seat": seat, "name": names.get(seat, "?"), "did": ", ".join(record_phrases(r, names))}
        for seat, r in records.items()
    ]


def _path_phrases(record: SeatRecord) -> list[str]:
    counted = (
        (record.towards, ngettext(
            "%(count)d path card towards a goal", "%(count)d path cards towards a goal",
            record.towards)),
        (record.cuts, ngettext(
            "%(count)d path card that cut the way", "%(count)d path cards that cut the way",
            record.cuts)),
        (record.dead_ends, ngettext(
            "%(count)d dead end", "%(count)d dead ends", record.dead_ends)),
        (record.sideways, ngettext(
            "%(count)d other path card", "%(count)d other path cards", record.sideways)),
        (record.doors, ngettext(
            "%(count)d door", "%(count)d doors", record.doors)),
    )  # fmt: skip
    return [text % {"count": count} for count, text in counted if count]


def _tool_phrase(seat: str, hit: ToolHit, names: Mapping[str, str], *, broke: bool) -> str:
    tool = tool_label(hit.tool)
    if hit.target == seat:
        text = _("broke their own %(tool)s") if broke else _("repaired their own %(tool)s")
        return text % {"tool": tool}
    text = _("broke %(target)s's %(tool)s") if broke else _("repaired %(target)s's %(tool)s")
    return text % {"target": names.get(hit.target, "?"), "tool": tool}


def _rockfall_phrase(rockfall: Rockfall, names: Mapping[str, str]) -> str:
    if rockfall.owner is None:
        return _("rockfall on %(card)s") % {"card": card_name(rockfall.card)}
    return _("rockfall on %(owner)s's %(card)s") % {
        "owner": names.get(rockfall.owner, "?"),
        "card": card_name(rockfall.card),
    }


def _count_phrases(record: SeatRecord) -> list[str]:
    if not record.passes:
        return []
    return [ngettext("passed", "passed %(count)d times", record.passes) % {"count": record.passes}]


def _target_phrases(record: SeatRecord, names: Mapping[str, str]) -> list[str]:
    texts = (
        (record.stole_from, _("stole from %(target)s")),
        (record.hands_off, _("hands off %(target)s's theft")),
        (record.trapped, _("trapped %(target)s")),
        (record.freed, _("freed %(target)s")),
        (record.inspected, _("inspected %(target)s")),
        (record.hat_swaps, _("swapped %(target)s's hat")),
        (record.hand_swaps, _("swapped hands with %(target)s")),
    )
    return [text % {"target": names.get(t, "?")} for targets, text in texts for t in targets]
