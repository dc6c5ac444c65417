"""The card catalogue (docs/rules.md 6.1): every row, the decks and the turned tunnels.

``cards.py`` builds its catalogue once, when it is imported. The tests read a copy of the module
run afresh (``fresh_cards``), so that what they check is what its rows build now: under mutation
testing, a changed row builder shows in that copy (the module in use was built before).
"""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from games.engine import cards

# id, kind, tunnels (upright; "+" between tunnels, "-" for none), base/expansion copies, extras.
ROWS = [
    "start start NESW 0/0",
    "goal-gold goal NESW 0/0",
    "goal-stone-ne goal NE 0/0",
    "goal-stone-nw goal NW 0/0",
    "cross path NESW 5/0",
    "t-nse path NES 5/0",
    "t-new path NEW 5/0",
    "straight-ns path NS 4/0",
    "straight-ew path EW 3/0",
    "curve-nw path NW 4/0",
    "curve-ne path NE 5/0",
    "dead-nesw path N+E+S+W 1/0",
    "dead-nse path N+S+E 1/0",
    "dead-new path N+E+W 1/0",
    "dead-ns path N+S 1/0",
    "dead-ew path E+W 1/0",
    "dead-nw path N+W 1/0",
    "dead-ne path N+E 1/0",
    "dead-n path N 1/0",
    "dead-e path E 1/0",
    "break-pickaxe action - 3/0 effect=break tools=pickaxe",
    "break-lantern action - 3/0 effect=break tools=lantern",
    "break-cart action - 3/0 effect=break tools=cart",
    "repair-pickaxe action - 2/0 effect=repair tools=pickaxe",
    "repair-lantern action - 2/0 effect=repair tools=lantern",
    "repair-cart action - 2/0 effect=repair tools=cart",
    "repair-pickaxe-lantern action - 1/0 effect=repair tools=pickaxe,lantern",
    "repair-pickaxe-cart action - 1/0 effect=repair tools=pickaxe,cart",
    "repair-lantern-cart action - 1/0 effect=repair tools=lantern,cart",
    "rockfall action - 3/0 effect=rockfall",
    "map action - 6/0 effect=map",
    "bridge path NS+EW 0/2",
    "double-curve path NW+ES 0/2",
    "ladder-s path S 0/1 ladder",
    "ladder-e path E 0/1 ladder",
    "ladder-es path ES 0/1 ladder",
    "ladder-en path NE 0/1 ladder",
    "door-blue-ns path NS 0/1 door=blue",
    "door-blue-ew path EW 0/1 door=blue",
    "door-blue-en path NE 0/1 door=blue",
    "door-green-ns path NS+E 0/1 door=green",
    "door-green-ew path EW 0/1 door=green",
    "door-green-es path ES 0/1 door=green",
    "crystal-cross path NESW 0/1 crystals=1",
    "crystal-t-esw path ESW 0/3 crystals=1",
    "crystal-t-nsw path NSW 0/1 crystals=1",
    "crystal-nsw-e path NSW+E 0/1 crystals=1",
    "crystal-esw-n path ESW+N 0/1 crystals=1",
    "crystal-ew-s path EW+S 0/1 crystals=1",
    "crystal-dead-s path S 0/1 crystals=1",
    "crystal-dead-e path E 0/1 crystals=1",
    "theft action - 0/4 effect=theft",
    "hands-off action - 0/3 effect=hands-off",
    "swap-hand action - 0/2 effect=swap-hand",
    "inspection action - 0/2 effect=inspection",
    "swap-hats action - 0/2 effect=swap-hats",
    "trapped action - 0/3 effect=trapped",
    "free action - 0/4 effect=free",
]


def fresh_cards():
    spec = importlib.util.spec_from_file_location(cards.__name__, cards.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(card) -> str:
    tunnels = "+".join("".join(e for e in "NESW" if e in t) for t in card.tunnels) or "-"
    extra = []
    if card.ladder:
        extra.append("ladder")
    if card.door:
        extra.append(f"door={card.door}")
    if card.crystals:
        extra.append(f"crystals={card.crystals}")
    if card.effect:
        extra.append(f"effect={card.effect}")
    if card.tools:
        extra.append("tools=" + ",".join(card.tools))
    return " ".join(
        [card.id, card.kind, tunnels, f"{card.base_copies}/{card.expansion_copies}", *extra]
    )


@pytest.fixture(scope="module")
def fresh():
    return fresh_cards()


def test_every_card_of_the_catalogue_row_by_row(fresh):
    assert [row(card) for card in fresh.CATALOGUE.values()] == ROWS
    assert all(card.id == key for key, card in fresh.CATALOGUE.items())


def test_the_tunnels_are_sets_of_edges_and_a_stub_is_a_tunnel_of_one(fresh):
    catalogue = fresh.CATALOGUE
    assert catalogue["dead-nse"].tunnels == (frozenset("N"), frozenset("S"), frozenset("E"))
    assert catalogue["bridge"].tunnels == (frozenset("NS"), frozenset("EW"))
    assert catalogue["cross"].tunnels == (frozenset("NESW"),)
    assert catalogue["map"].tunnels == () and catalogue["map"].tools == ()
    assert all(type(card.tunnels) is tuple for card in catalogue.values())


def test_the_decks_hold_every_copy(fresh):
    base, expansion = fresh.deck("base"), fresh.deck("saboteur2")
    assert len(base) == 67 and len(expansion) == 111
    assert Counter(base)["map"] == 6 and Counter(base)["cross"] == 5
    assert "bridge" not in base and Counter(expansion)["crystal-t-esw"] == 3
    assert Counter(expansion)["map"] == 6  # the expansion adds to the base cards
    assert "start" not in expansion and "goal-gold" not in expansion
    assert base == sorted(base, key=list(fresh.CATALOGUE).index)  # in catalogue order


def test_copies_per_rule_set():
    assert cards.CATALOGUE["map"].copies("base") == 6
    assert cards.CATALOGUE["theft"].copies("base") == 0
    assert cards.CATALOGUE["theft"].copies("saboteur2") == 4
    assert cards.CATALOGUE["cross"].copies("saboteur2") == 5


def test_a_half_turn_turns_every_tunnel():
    assert cards.turned_edges(frozenset("NE"), True) == frozenset("SW")
    assert cards.turned_edges(frozenset("NE"), False) == frozenset("NE")
    assert cards.tunnels_of("dead-nse", True) == (frozenset("S"), frozenset("N"), frozenset("W"))
    assert cards.tunnels_of("curve-nw", False) == (frozenset("NW"),)
