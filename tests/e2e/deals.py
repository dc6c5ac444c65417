"""Rigged deals for the browser tests (see the ``rigged_game`` fixture): every click has a
known outcome."""

# Base game, 3 players: Ann (0) and Cid (2) dig, Bob (1) is the saboteur. Ann turns a T at 1,0,
# Bob looks at the north goal, Cid passes, then the three lay a straight row to the middle goal;
# Cid finishes, keeps 3 gold, Ann keeps 2, the last 1 goes to Cid.
BASE_DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "set_aside": ["gold-digger"],
    "goals": {"north": "goal-stone-ne", "middle": "goal-gold", "south": "goal-stone-nw"},
    "first": "0",
    "hands": {
        "0": ["t-new", "straight-ew", "cross", "curve-ne", "curve-ne", "curve-ne"],
        "1": ["map", "cross", "straight-ew", "break-lantern", "break-lantern", "rockfall"],
        "2": ["dead-n", "straight-ew", "cross", "curve-nw", "curve-nw", "curve-nw"],
    },
    "pile": ["t-nse", "t-nse", "t-nse", "t-nse", "t-nse", "straight-ns", "straight-ns"],
    "gold": [3, 2, 1],
}

# BASE_DEAL's straight row to the middle goal after its first three moves: (seat, card, column
# of row 0), in turn order; Cid's cross at 7 reaches the treasure.
BASE_ROW = [
    (0, "straight-ew", 2),
    (1, "cross", 3),
    (2, "straight-ew", 4),
    (0, "cross", 5),
    (1, "straight-ew", 6),
    (2, "cross", 7),
]

# Saboteur 2, 3 players: Ann blue digger (0), Bob green digger (1), Cid saboteur (2). Cid lays a
# Theft on himself and a blue door in the row; Bob (green) completes the path, but the blue door
# shuts green out: blue wins alone (Ann 5 gold), then Cid steals one gold from Ann.
SABOTEUR2_DEAL = {
    "roles": {"0": "blue-digger", "1": "green-digger", "2": "saboteur"},
    "set_aside": [
        "blue-digger",
        "blue-digger",
        "blue-digger",
        "green-digger",
        "green-digger",
        "green-digger",
        "boss",
        "geologist",
        "geologist",
        "profiteer",
        "saboteur",
        "saboteur",
    ],
    "first": "0",
    "treasure": "middle",
    "hands": {
        "0": ["cross", "cross", "t-new", "curve-ne", "curve-ne", "curve-ne"],
        "1": ["straight-ew", "straight-ew", "cross", "curve-nw", "curve-nw", "curve-nw"],
        "2": ["theft", "door-blue-ew", "break-cart", "break-cart", "map", "map"],
    },
    "pile": ["straight-ns", "straight-ns", "straight-ns", "straight-ns", "map", "map", "map"],
}


# Saboteur 2, 3 players: Ann (0, blue) holds two Swap Hats and the cards of a straight row; Bob (1,
# green) and Cid (2, saboteur) hold nothing (tests/scenarios/saboteur2/swap_hats_takes_pool_top).
SWAP_DEAL = {
    "roles": {"0": "blue-digger", "1": "green-digger", "2": "saboteur"},
    "set_aside": [
        "blue-digger",
        "boss",
        "blue-digger",
        "blue-digger",
        "green-digger",
        "green-digger",
        "green-digger",
        "geologist",
        "geologist",
        "profiteer",
        "saboteur",
        "saboteur",
    ],
    "first": "0",
    "hands": {
        "0": ["swap-hats", "swap-hats", "cross", "cross", "straight-ew", "straight-ew"],
        "1": [],
        "2": [],
    },
    "pile": ["t-new", "t-new", "cross", "map", "map", "map", "map", "map"],
    "treasure": "middle",
}
