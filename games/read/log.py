"""The move log in plain words: public events for everyone, private details for their owner."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import Event, ViewMe
from games.engine.types import ActionEvent

from .card_names import card_name, role_name, translated

GOAL_LABELS = {"north": gettext_lazy("north"), "middle": gettext_lazy("middle")}
GOAL_LABELS["south"] = gettext_lazy("south")
TOOL_LABELS = {"pickaxe": gettext_lazy("pickaxe"), "lantern": gettext_lazy("lantern")}
TOOL_LABELS["cart"] = gettext_lazy("cart")


def goal_label(goal: str) -> str:
    return translated(GOAL_LABELS).get(goal, goal)


def tool_label(tool: str) -> str:
    return translated(TOOL_LABELS).get(tool, tool)


POSITION = {"at": gettext_lazy("column %(x)d, row %(y)d")}


def position_label(x: int, y: int) -> str:
    """A maze position as the labels on the maze's edges name it (its words translated once
    per language: a game page names some 25 positions)."""
    return translated(POSITION)["at"] % {"x": x, "y": y}


# One move of the log: (sequence, its events as stored, by the site, seat position), as
# ``history.move_log`` gives it. By the site: "" for the player's own move, "timeout" or
# "stand-in" (a bool is read as "timeout").
LoggedMove = tuple[int, Sequence[Event], str | bool, int]
# Seat takeovers: (after_version, engine seat name, name before) (``table_events.renames``).
Renames = Sequence[tuple[int, str, str]]


@dataclass(frozen=True)
class Entry:
    sequence: int
    text: str
    private: bool


def knowledge_lines(mine: ViewMe, names: dict[str, str]) -> list[str]:
    """What a seat learnt this round (its own view's ``me``), as the game page says it."""
    known = [_("You are the greedy dwarf this round.")] if mine.get("greedy") else []
    for goal, card in sorted(mine["peeks"].items()):
        known.append(
            _("You saw: the %(goal)s goal is %(card)s.")
            % {"goal": goal_label(goal), "card": card_name(card)}
        )
    for target, role in sorted(mine["inspections"].items()):
        known.append(
            _("You saw: %(target)s is %(role)s.")
            % {"target": names.get(target, "?"), "role": role_name(role)}
        )
    return known


def entries_for(
    moves: Iterable[LoggedMove],
    names: dict[str, str],
    me: str | None,
    renames: Renames = (),
) -> list[Entry]:
    """Log lines for the viewer ``me`` (an engine seat name, or None for a spectator).

    ``moves`` yields (sequence, events, by the site, seat position) as ``history.move_log``
    gives them (by the site: "" for the player's own move, "timeout" or "stand-in"; a bool is
    read as "timeout"); ``names`` maps engine seat names to display names. ``renames`` lists
    seat takeovers as (after_version, engine seat name, name before): a move up to that version
    keeps the name of the player who made it.
    """
    entries = []
    current = names
    for sequence, events, automatic, position in moves:
        if renames:
            names = names_at(current, renames, sequence)
        if automatic:
            who = names.get(str(position), "?")
            if automatic == "stand-in":
                text = _("A bot played for %(who)s.") % {"who": who}
            else:
                text = _("Time ran out for %(who)s: the site decided for them.") % {"who": who}
            entries.append(Entry(sequence, text, private=False))
        for event in events:
            to = event.get("to")
            if to is not None and to != me:
                continue
            line = describe(event, names, me)
            if line:
                entries.append(Entry(sequence, line, private=to is not None))
    return entries


def names_at(names: dict[str, str], renames: Renames, sequence: int) -> dict[str, str]:
    """The seat names as they were when move ``sequence`` was made."""
    earlier = dict(names)
    # The earliest takeover after the move names who sat there then.
    for after_version, seat, old in sorted(renames, reverse=True):
        if sequence <= after_version:
            earlier[seat] = old
    return earlier


def describe(event: Event, names: dict[str, str], me: str | None) -> str | None:
    """One event (an engine ``Event``, as stored) as a sentence, or None for events not worth a
    line."""
    who = names.get(_actor(event), "?")
    if event["kind"] == "placed":
        return _("%(who)s placed %(card)s at %(where)s.") % {
            "who": who,
            "card": card_name(event["card"]),
            "where": position_label(*event["at"]),
        }
    if event["kind"] == "goal-revealed":
        return _("The %(goal)s goal is revealed: %(card)s.") % {
            "goal": goal_label(event["goal"]),
            "card": card_name(event["card"]),
        }
    if event["kind"] == "action":
        return _action(event, who, names)
    if event["kind"] == "repaired":
        return _("%(target)s's %(tool)s is repaired.") % {
            "target": names.get(event["target"], "?"),
            "tool": tool_label(event["tool"]),
        }
    if event["kind"] == "passed":
        return ngettext(
            "%(who)s passed and discarded %(count)d card face down.",
            "%(who)s passed and discarded %(count)d cards face down.",
            event["count"],
        ) % {
            "who": who,
            "count": event["count"],
        }
    if event["kind"] == "cleared":
        return _("%(who)s discarded two cards to remove %(card)s.") % {
            "who": who,
            "card": card_name(event["removed"]),
        }
    if event["kind"] == "gold-taken":
        return _("%(who)s took a gold card.") % {"who": who}
    if event["kind"] == "stole":
        if event["victim"] is None:
            return _("%(who)s stole nothing.") % {"who": who}
        return _("%(who)s stole one gold from %(victim)s.") % {
            "who": who,
            "victim": names.get(event["victim"], "?"),
        }
    if event["kind"] == "round-ended":
        found = event["treasure_found"]
        return (
            _("Round %(round)d is over: the treasure was found.")
            if found
            else _("Round %(round)d is over: the treasure was not found.")
        ) % {"round": event["round"]}
    if event["kind"] == "round-started":
        return _("Round %(round)d begins; %(who)s starts.") % {
            "round": event["round"],
            "who": names.get(event["first"], "?"),
        }
    if event["kind"] == "game-ended":
        return _("The game is over.")
    return _private(event, names)


def _actor(event: Event) -> str:
    """The seat that acted, for the events that name one ("" for the others)."""
    seat = event.get("seat", "")
    return seat if isinstance(seat, str) else ""


def _action(event: ActionEvent, who: str, names: dict[str, str]) -> str:
    card = card_name(event["card"])
    if "goal" in event:
        return _("%(who)s used a map on the %(goal)s goal.") % {
            "who": who,
            "goal": goal_label(event["goal"]),
        }
    if "at" in event:
        return _("%(who)s played %(card)s at %(where)s.") % {
            "who": who,
            "card": card,
            "where": position_label(*event["at"]),
        }
    if "target" in event:
        return _("%(who)s played %(card)s on %(target)s.") % {
            "who": who,
            "card": card,
            "target": names.get(event["target"], "?"),
        }
    return _("%(who)s played %(card)s.") % {"who": who, "card": card}


def _private(event: Event, names: dict[str, str]) -> str | None:
    if event["kind"] == "drew":
        return _("You drew %(cards)s.") % {"cards": _cards(event["cards"])}
    if event["kind"] == "discarded":
        return _("You discarded %(cards)s.") % {"cards": _cards(event["cards"])}
    if event["kind"] == "peeked":
        return _("You saw: the %(goal)s goal is %(card)s.") % {
            "goal": goal_label(event["goal"]),
            "card": card_name(event["card"]),
        }
    if event["kind"] == "inspected":
        return _("You saw: %(target)s is %(role)s.") % {
            "target": names.get(event["target"], "?"),
            "role": role_name(event["role"]),
        }
    if event["kind"] == "new-role":
        return _("Your new role: %(role)s.") % {"role": role_name(event["role"])}
    if event["kind"] == "hand-received":
        return _("Your hand is now: %(cards)s.") % {"cards": _cards(event["cards"])}
    if event["kind"] == "gold-picked":
        return _("You kept a gold card worth %(value)d.") % {"value": event["value"]}
    return None


def _cards(cards: list[str]) -> str:
    return ", ".join(str(card_name(card)) for card in cards) or _("nothing")
