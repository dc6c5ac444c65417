"""Help for newcomers: what each card and role does, why a card cannot be played now, and the
rules page's context (issue 13). Pure functions over the catalogue and a seat's view."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from functools import lru_cache

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine.cards import CATALOGUE, PATH

from .drawing import card_svg, goal_back_svg
from .log import position_label, tool_label

RULES_LANGUAGES = ("en", "cs", "sk", "uk", "ro")

# What an action card does, by effect; "which tool" and "whom" are added from the catalogue.
EFFECT_HELP = {
    "break": gettext_lazy(
        "Lay it in front of any player, yourself included, to break their %(tools)s: "
        "while a tool is broken they cannot place path cards."
    ),
    "repair": gettext_lazy(
        "Repairs a broken %(tools)s lying in front of any player, yourself included."
    ),
    "rockfall": gettext_lazy(
        "Removes one path card from the maze (not the start or a goal). Targets a card, "
        "not a player."
    ),
    "map": gettext_lazy(
        "Look secretly at one face-down goal card: only you learn whether it holds the gold."
    ),
    "theft": gettext_lazy(
        "Lay it in front of yourself: after the round's gold is shared you may steal 1 gold "
        "from another player."
    ),
    "hands-off": gettext_lazy("Removes a Theft lying in front of any player."),
    "swap-hats": gettext_lazy(
        "Any player, yourself included, swaps their dwarf card for a new one at random."
    ),
    "trapped": gettext_lazy(
        "Traps another player: they cannot place path cards, and if still trapped when the "
        "round ends they win nothing."
    ),
    "free": gettext_lazy("Frees a trapped player, yourself included."),
    "swap-hand": gettext_lazy(
        "Swap your whole hand with another player's; they draw a card, you do not."
    ),
    "inspection": gettext_lazy("Look secretly at another player's dwarf card."),
}

ROLE_HELP = {
    "gold-digger": gettext_lazy(
        "You win when the path reaches the treasure. Winners share gold cards, picked in turn "
        "from the player who reached it."
    ),
    "saboteur": gettext_lazy(
        "You win when the treasure is not found before the cards run out. Saboteurs get 4, 3 "
        "or 2 gold each, fewer the more saboteurs there are."
    ),
    "blue-digger": gettext_lazy(
        "You win when the treasure is found and the blue team can reach it: no green door on "
        "the way. Winners share the gold: 5 for one, fewer the more winners."
    ),
    "green-digger": gettext_lazy(
        "You win when the treasure is found and the green team can reach it: no blue door on "
        "the way. Winners share the gold: 5 for one, fewer the more winners."
    ),
    "boss": gettext_lazy(
        "You win with whichever team wins, and alone when doors shut out both teams. You get "
        "1 gold less than the other winners."
    ),
    "profiteer": gettext_lazy(
        "You win with the diggers and with the saboteurs alike, but not when the boss wins "
        "alone. You get 2 gold less than the other winners."
    ),
    "geologist": gettext_lazy(
        "You never win the round, but you get 1 gold for each crystal in the maze (two "
        "geologists split it)."
    ),
}


def _tools(card_id: str) -> str:
    tools = [str(tool_label(tool)) for tool in CATALOGUE[card_id].tools]
    return _(" or ").join(tools)


def card_help(card_id: str) -> str:
    """One or two sentences on what the card does (translated)."""
    return _card_help(card_id, get_language())


@lru_cache(maxsize=512)
def _card_help(card_id: str, language: str | None) -> str:
    # Made once per card and language (``language`` is the active one: only the cache's key).
    card = CATALOGUE.get(card_id)
    if card is None:
        return ""
    if card.kind == "start":
        return _("Every path starts here.")
    if card.kind == "goal":
        if card_id == "goal-gold":
            return _("The treasure: the round ends when a path reaches it.")
        return _("A stone: no gold here, but the path may go on through it.")
    if card.kind == PATH:
        parts = [_("A path card: place it in the maze so that its tunnels fit its neighbours.")]
        if card.ladder:
            parts.append(_("Ladder: it joins the start by itself, but not next to a goal."))
        if card.door == "blue":
            parts.append(_("Blue door (round sign): the green team cannot pass it."))
        if card.door == "green":
            parts.append(_("Green door (triangle sign): the blue team cannot pass it."))
        if card.crystals:
            parts.append(_("Crystal: each one pays the geologists 1 gold."))
        if len(card.tunnels) > 1 and all(len(t) > 1 for t in card.tunnels):
            parts.append(_("Its two tunnels do not meet."))
        return " ".join(parts)
    text = EFFECT_HELP.get(card.effect or "")
    return str(text) % {"tools": _tools(card_id)} if text else ""


def role_help(role_id: str) -> str:
    text = ROLE_HELP.get(role_id)
    return str(text) if text else ""


def unplayable_reason(
    card_id: str, in_front: list[str], my_turn: bool, legal_cards: AbstractSet[str]
) -> str:
    """Why a card of my hand cannot be played now ('' when it can, or when it is not my turn)."""
    if not my_turn or card_id in legal_cards:
        return ""
    card = CATALOGUE[card_id]
    if card.kind == PATH:
        broken = [c.removeprefix("break-") for c in in_front if c.startswith("break-")]
        if broken:
            return _("Your %(tool)s is broken.") % {"tool": tool_label(broken[0])}
        if "trapped" in in_front:
            return _("You are trapped.")
        return _("No spot connects.")
    if card.effect == "repair":
        return _("Nobody has a broken %(tools)s.") % {"tools": _tools(card_id)}
    if card.effect == "free":
        return _("Nobody is trapped.")
    if card.effect == "hands-off":
        return _("Nobody has a Theft.")
    if card.effect == "theft":
        return _("You already have a Theft.")
    if card.effect == "map":
        return _("Every goal is already face up.")
    if card.effect == "rockfall":
        return _("There is no path card to remove.")
    return _("Nobody can receive it now.")


def rules_language() -> str:
    code = (get_language() or "en").split("-")[0].lower()
    return code if code in RULES_LANGUAGES else "en"


# The drawings the rules pages show (template keys use underscores).
RULES_CARDS = (
    "start", "goal-gold", "goal-stone-ne", "cross", "curve-ne", "dead-ne", "bridge",
    "ladder-es", "door-blue-ew", "door-green-ew", "crystal-t-esw", "break-pickaxe",
    "repair-pickaxe-lantern", "rockfall", "map", "theft", "hands-off", "swap-hats", "trapped",
    "free", "swap-hand", "inspection",
)  # fmt: skip


def rules_page() -> dict:
    cards = {card.replace("-", "_"): card_svg(card, size=48) for card in RULES_CARDS}
    cards["goal_back"] = goal_back_svg(size=48)
    return {"rules_template": f"rules/body.{rules_language()}.html", "cards": cards}


# -- The game page -----------------------------------------------------------------------------


def cell_names(cells: dict[tuple[int, int], tuple[str, bool]]) -> dict[tuple[int, int], str]:
    """Names for screen readers: each card of the maze and each legal spot (``cells``: by
    position, its label and whether it is a legal spot) says what it is, where, and what lies
    next to it."""
    # Translated once per page, not once per cell.
    empty, empty_spot = _("empty"), _("Empty spot")
    around_text = _("North: %(north)s; east: %(east)s; south: %(south)s; west: %(west)s.")
    at_text = _("%(card)s at %(where)s.")

    def what(x, y):
        label = cells.get((x, y), ("", False))[0]
        return label or empty

    names = {}
    for (x, y), (label, legal) in cells.items():
        if not (label or legal):
            continue
        around = around_text % {
            "north": what(x, y - 1),
            "east": what(x + 1, y),
            "south": what(x, y + 1),
            "west": what(x - 1, y),
        }
        where = position_label(x, y)  # as the maze's edge labels and the log name it
        names[(x, y)] = at_text % {"card": label or empty_spot, "where": where} + " " + around
    return names


# Choices that hurt the player making them (docs/rules.md 3.1, 6.3).
SELF_HARM = {
    "break": gettext_lazy(
        "This breaks your own tool: you cannot place path cards until it is repaired."
    ),
    "swap-hats": gettext_lazy("You give up your dwarf card and take a new one at random."),
}
