"""The names of cards and roles in the active language, and the order a hand is shown in.

What pages, emails and replies call a card or a role and in which order they list a hand: words
and order only, apart from the card art (``drawing``), which uses the names as its titles.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.engine.cards import CATALOGUE, PATH

CARD_NAMES = {
    "start": _("Start"),
    "goal-gold": _("Treasure"),
    "goal-stone-ne": _("Stone (north-east curve)"),
    "goal-stone-nw": _("Stone (north-west curve)"),
    "cross": _("Cross"),
    "t-nse": _("T-junction (north, south, east)"),
    "t-new": _("T-junction (north, east, west)"),
    "straight-ns": _("Straight (north-south)"),
    "straight-ew": _("Straight (east-west)"),
    "curve-nw": _("Curve (north-west)"),
    "curve-ne": _("Curve (north-east)"),
    "dead-nesw": _("Dead end (four ways)"),
    "dead-nse": _("Dead end (north, south, east)"),
    "dead-new": _("Dead end (north, east, west)"),
    "dead-ns": _("Dead end (north, south)"),
    "dead-ew": _("Dead end (east, west)"),
    "dead-nw": _("Dead end (north, west)"),
    "dead-ne": _("Dead end (north, east)"),
    "dead-n": _("Dead end (north)"),
    "dead-e": _("Dead end (east)"),
    "break-pickaxe": _("Broken pickaxe"),
    "break-lantern": _("Broken lantern"),
    "break-cart": _("Broken cart"),
    "repair-pickaxe": _("Repair pickaxe"),
    "repair-lantern": _("Repair lantern"),
    "repair-cart": _("Repair cart"),
    "repair-pickaxe-lantern": _("Repair pickaxe or lantern"),
    "repair-pickaxe-cart": _("Repair pickaxe or cart"),
    "repair-lantern-cart": _("Repair lantern or cart"),
    "rockfall": _("Rockfall"),
    "map": _("Map"),
    "bridge": _("Bridge"),
    "double-curve": _("Double curve"),
    "ladder-s": _("Ladder (south)"),
    "ladder-e": _("Ladder (east)"),
    "ladder-es": _("Ladder (east-south curve)"),
    "ladder-en": _("Ladder (east-north curve)"),
    "door-blue-ns": _("Blue door (north-south)"),
    "door-blue-ew": _("Blue door (east-west)"),
    "door-blue-en": _("Blue door (east-north curve)"),
    "door-green-ns": _("Green door (north-south, dead end east)"),
    "door-green-ew": _("Green door (east-west)"),
    "door-green-es": _("Green door (east-south curve)"),
    "crystal-cross": _("Crystal cross"),
    "crystal-t-esw": _("Crystal T-junction (east, south, west)"),
    "crystal-t-nsw": _("Crystal T-junction (north, south, west)"),
    "crystal-nsw-e": _("Crystal T-junction (north, south, west), dead end east"),
    "crystal-esw-n": _("Crystal T-junction (east, south, west), dead end north"),
    "crystal-ew-s": _("Crystal straight (east-west), dead end south"),
    "crystal-dead-s": _("Crystal dead end (south)"),
    "crystal-dead-e": _("Crystal dead end (east)"),
    "theft": _("Theft"),
    "hands-off": _("Hands off"),
    "swap-hand": _("Swap hands"),
    "inspection": _("Inspection"),
    "swap-hats": _("Swap hats"),
    "trapped": _("Trapped"),
    "free": _("Free"),
}

ROLE_NAMES = {
    "gold-digger": _("Gold digger"),
    # The role, told apart from the game's name (Romanian: "Sabotor" vs the game "Saboteur").
    "saboteur": pgettext_lazy("role", "Saboteur"),
    "blue-digger": _("Blue gold digger"),
    "green-digger": _("Green gold digger"),
    "boss": _("Boss"),
    "geologist": _("Geologist"),
    "profiteer": _("Profiteer"),
}

GOAL_BACK_NAME = _("Face-down goal")


# The names translated once per language and process (a game page names ~100 cards; each
# lazy string would ask gettext again).
_translated: dict[tuple[str | None, int], dict[str, str]] = {}


def translated(names: dict) -> dict[str, str]:
    """``names`` (id -> lazy translation) in the active language, made once per language."""
    key = (get_language(), id(names))
    found = _translated.get(key)
    if found is None:
        found = _translated[key] = {card: str(name) for card, name in names.items()}
    return found


def card_name(card_id: str) -> str:
    """The card's human name in the active language (the id itself if unknown)."""
    return translated(CARD_NAMES).get(card_id, card_id)


def role_name(role_id: str) -> str:
    """The role's human name in the active language (the id itself if unknown)."""
    return translated(ROLE_NAMES).get(role_id, role_id)


_RANK = {card: index for index, card in enumerate(CATALOGUE)}


def hand_key(card: str) -> tuple[bool, int]:
    """The order of a hand as every page and email shows it: path cards first, then actions,
    each in the catalogue's order (stable from turn to turn)."""
    return CATALOGUE[card].kind != PATH, _RANK[card]


def hand_order(hand: Iterable[str]) -> list[str]:
    """A hand as shown; posted discards are positions in this order."""
    return sorted(hand, key=hand_key)
