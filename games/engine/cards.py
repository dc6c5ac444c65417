"""The card catalogue as data (docs/rules.md 6.1).

Every card of both rule sets is one row of ``CATALOGUE``. A corrected card list is a one-line change
here; no other module names individual path cards.

Shapes are written upright. A tunnel is a frozenset of edges joined inside the card; a stub is a
tunnel with one edge. ``ladder`` marks a ladder card, ``door`` its colour, ``crystals`` the crystals
a geologist is paid for.
"""

from __future__ import annotations

from dataclasses import dataclass

N, E, S, W = "N", "E", "S", "W"
EDGES = (N, E, S, W)
STEP = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}
OPPOSITE = {N: S, S: N, E: W, W: E}

PATH, ACTION, START, GOAL = "path", "action", "start", "goal"
BASE, SABOTEUR2 = "base", "saboteur2"
RULESETS = (BASE, SABOTEUR2)

TOOLS = ("pickaxe", "lantern", "cart")


@dataclass(frozen=True)
class Card:
    id: str
    kind: str
    tunnels: tuple[frozenset[str], ...] = ()
    base_copies: int = 0
    expansion_copies: int = 0
    ladder: bool = False
    door: str | None = None
    crystals: int = 0
    # Action cards: what they do, and which tools they break or repair.
    effect: str | None = None
    tools: tuple[str, ...] = ()

    def copies(self, ruleset: str) -> int:
        """How many copies of this card the rule set's deck holds."""
        if ruleset == BASE:
            return self.base_copies
        return self.base_copies + self.expansion_copies


def _shape(spec: str) -> tuple[frozenset[str], ...]:
    """'NE+S' -> two tunnels {N, E} and {S}; '' -> no tunnel."""
    return tuple(frozenset(part) for part in spec.split("+") if part)


def _path(card_id, shape, copies, *, expansion=False, **extra):
    counts = {"expansion_copies": copies} if expansion else {"base_copies": copies}
    return Card(card_id, PATH, _shape(shape), **counts, **extra)


def _action(card_id, effect, copies, *, tools=(), expansion=False):
    counts = {"expansion_copies": copies} if expansion else {"base_copies": copies}
    return Card(card_id, ACTION, (), effect=effect, tools=tools, **counts)


_ROWS = (
    Card("start", START, _shape("NESW")),
    Card("goal-gold", GOAL, _shape("NESW")),
    Card("goal-stone-ne", GOAL, _shape("NE")),
    Card("goal-stone-nw", GOAL, _shape("NW")),
    # Base path cards (40).
    _path("cross", "NESW", 5),
    _path("t-nse", "NSE", 5),
    _path("t-new", "NEW", 5),
    _path("straight-ns", "NS", 4),
    _path("straight-ew", "EW", 3),
    _path("curve-nw", "NW", 4),
    _path("curve-ne", "NE", 5),
    _path("dead-nesw", "N+E+S+W", 1),
    _path("dead-nse", "N+S+E", 1),
    _path("dead-new", "N+E+W", 1),
    _path("dead-ns", "N+S", 1),
    _path("dead-ew", "E+W", 1),
    _path("dead-nw", "N+W", 1),
    _path("dead-ne", "N+E", 1),
    _path("dead-n", "N", 1),
    _path("dead-e", "E", 1),
    # Base action cards (27).
    _action("break-pickaxe", "break", 3, tools=("pickaxe",)),
    _action("break-lantern", "break", 3, tools=("lantern",)),
    _action("break-cart", "break", 3, tools=("cart",)),
    _action("repair-pickaxe", "repair", 2, tools=("pickaxe",)),
    _action("repair-lantern", "repair", 2, tools=("lantern",)),
    _action("repair-cart", "repair", 2, tools=("cart",)),
    _action("repair-pickaxe-lantern", "repair", 1, tools=("pickaxe", "lantern")),
    _action("repair-pickaxe-cart", "repair", 1, tools=("pickaxe", "cart")),
    _action("repair-lantern-cart", "repair", 1, tools=("lantern", "cart")),
    _action("rockfall", "rockfall", 3),
    _action("map", "map", 6),
    # Expansion path cards (24 identified of 30).
    _path("bridge", "NS+EW", 2, expansion=True),
    _path("double-curve", "NW+ES", 2, expansion=True),
    _path("ladder-s", "S", 1, expansion=True, ladder=True),
    _path("ladder-e", "E", 1, expansion=True, ladder=True),
    _path("ladder-es", "ES", 1, expansion=True, ladder=True),
    _path("ladder-en", "EN", 1, expansion=True, ladder=True),
    _path("door-blue-ns", "NS", 1, expansion=True, door="blue"),
    _path("door-blue-ew", "EW", 1, expansion=True, door="blue"),
    _path("door-blue-en", "EN", 1, expansion=True, door="blue"),
    _path("door-green-ns", "NS+E", 1, expansion=True, door="green"),
    _path("door-green-ew", "EW", 1, expansion=True, door="green"),
    _path("door-green-es", "ES", 1, expansion=True, door="green"),
    _path("crystal-cross", "NESW", 1, expansion=True, crystals=1),
    _path("crystal-t-esw", "ESW", 3, expansion=True, crystals=1),
    _path("crystal-t-nsw", "NSW", 1, expansion=True, crystals=1),
    _path("crystal-nsw-e", "NSW+E", 1, expansion=True, crystals=1),
    _path("crystal-esw-n", "ESW+N", 1, expansion=True, crystals=1),
    _path("crystal-ew-s", "EW+S", 1, expansion=True, crystals=1),
    _path("crystal-dead-s", "S", 1, expansion=True, crystals=1),
    _path("crystal-dead-e", "E", 1, expansion=True, crystals=1),
    # Expansion action cards (20 identified of 21).
    _action("theft", "theft", 4, expansion=True),
    _action("hands-off", "hands-off", 3, expansion=True),
    _action("swap-hand", "swap-hand", 2, expansion=True),
    _action("inspection", "inspection", 2, expansion=True),
    _action("swap-hats", "swap-hats", 2, expansion=True),
    _action("trapped", "trapped", 3, expansion=True),
    _action("free", "free", 4, expansion=True),
)

CATALOGUE: dict[str, Card] = {card.id: card for card in _ROWS}

GOAL_NAMES = ("north", "middle", "south")
GOAL_POSITIONS = {"north": (8, -2), "middle": (8, 0), "south": (8, 2)}
START_POSITION = (0, 0)
TREASURE = "goal-gold"
GOAL_CARDS = ("goal-gold", "goal-stone-ne", "goal-stone-nw")

# Cards that lie in front of a player after being played (the rest go to the discard pile).
IN_FRONT_EFFECTS = ("break", "theft", "trapped")


def deck(ruleset: str) -> list[str]:
    """Every playable card of the rule set, one entry per copy, in catalogue order."""
    return [card.id for card in _ROWS for _ in range(card.copies(ruleset))]


def turned_edges(edges: frozenset[str], turned: bool) -> frozenset[str]:
    """The edges of a tunnel after an optional half turn."""
    return frozenset(OPPOSITE[e] for e in edges) if turned else edges


# Every card's tunnels and open edges, both ways up, worked out once: the legal moves ask for
# them hundreds of thousands of times a game (every card at every free spot, both ways).
_TUNNELS = {
    (card.id, turned): tuple(turned_edges(t, turned) for t in card.tunnels)
    for card in _ROWS
    for turned in (False, True)
}
_EDGES_OPEN = {key: frozenset().union(*tunnels) for key, tunnels in _TUNNELS.items()}


def tunnels_of(card_id: str, turned: bool) -> tuple[frozenset[str], ...]:
    return _TUNNELS[card_id, bool(turned)]


def edges_of(card_id: str, turned: bool) -> frozenset[str]:
    """Every edge some tunnel of the card opens on."""
    return _EDGES_OPEN[card_id, bool(turned)]


# Roles (docs/rules.md 4.1 and 5).
GOLD_DIGGER, SABOTEUR = "gold-digger", "saboteur"
BLUE, GREEN, BOSS = "blue-digger", "green-digger", "boss"
GEOLOGIST, PROFITEER = "geologist", "profiteer"
EXPANSION_ROLES = {BLUE: 4, GREEN: 4, BOSS: 1, GEOLOGIST: 2, PROFITEER: 1, SABOTEUR: 3}
ROLES = {BASE: (GOLD_DIGGER, SABOTEUR), SABOTEUR2: tuple(EXPANSION_ROLES)}

# Base set-up by player count: saboteurs, gold diggers, hand size.
BASE_SETUP = {
    3: (1, 3, 6),
    4: (1, 4, 6),
    5: (2, 4, 6),
    6: (2, 5, 5),
    7: (3, 5, 5),
    8: (3, 6, 4),
    9: (3, 7, 4),
    10: (4, 7, 4),
}
EXPANSION_HAND_SIZE = 6
EXPANSION_REMOVED = 10
PLAYERS = {BASE: (3, 10), SABOTEUR2: (2, 12)}

BASE_GOLD = [3] * 4 + [2] * 8 + [1] * 16
OLD_MINE_GOLD = [3] * 4 + [2] * 8 + [1] * 10 + [0] * 6
MAX_GOLD_DRAWN = 9

VARIANTS = ("old-mine", "new-mine", "rivalry", "greedy-dwarf", "max-saboteurs")

# Saboteur 2 shares by number of winners (docs/rules.md 7.2); 5 or more get 1 each.
EXPANSION_SHARES = {1: 5, 2: 4, 3: 3, 4: 2}
# Base game: what each saboteur gets by number of saboteurs in play (docs/rules.md 4.3).
SABOTEUR_PAY = {1: 4, 2: 3, 3: 3, 4: 2}
