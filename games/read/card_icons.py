"""The action cards' icons, each drawn around (0, 0) in a -20..20 box, and the action cards'
faces made of them (``_action_face``).

The tools' icons, with a crack, also show what lies in front of a player
(``drawing.in_front_svg``). Pure functions of our own catalogue, as all the card art.
"""

from __future__ import annotations

from collections.abc import Callable

from games.engine.cards import CATALOGUE

from .svg import (
    ACTION_FRAME,
    BACK,
    CARD_H,
    CARD_W,
    CX,
    CY,
    GOLD,
    GOLD_DARK,
    INK,
    OK_GREEN,
    PANEL,
    PANEL_BREAK,
    PANEL_REPAIR,
    RED,
    STEEL,
    STONE,
    STONE_DARK,
    WOOD,
    _circle,
    _g,
    _icon,
    _line,
    _n,
    _path,
    _poly,
    _rect,
)

# --- action icons (drawn around 0, 0 in a -20..20 box) ----------------------------------------


def _pickaxe() -> str:
    handle = _line(-12, 15, 7, -8, WOOD, 4, "round")
    head = _path("M-6 -16 Q9 -18 18 -2", "none", STEEL, 5)
    return handle + head + _circle(7, -8, 2.5, INK)


def _lantern() -> str:
    ring = _circle(0, -15, 3, "none", INK, 1.8)
    cap = _poly([(-8, -10), (8, -10), (5, -13), (-5, -13)], INK)
    glass = _rect(-7, -10, 14, 19, "#ffe27a", INK, 1.8)
    flame = _path("M0 -6 Q5 1 0 5 Q-5 1 0 -6 Z", "#f08a24", "#b3541e", 1)
    base = _rect(-9, 9, 18, 4, INK, rx=1)
    return ring + cap + glass + flame + base


def _cart() -> str:
    load = _circle(-5, -8, 4, GOLD, GOLD_DARK, 1) + _circle(3, -9, 5, STONE, STONE_DARK, 1)
    body = _poly([(-16, -7), (16, -7), (12, 8), (-12, 8)], STEEL, INK, 1.8)
    wheels = _circle(-7, 11, 4, INK) + _circle(7, 11, 4, INK)
    hubs = _circle(-7, 11, 1.3, "#cccccc") + _circle(7, 11, 1.3, "#cccccc")
    return load + body + wheels + hubs


TOOL_ICONS = {"pickaxe": _pickaxe, "lantern": _lantern, "cart": _cart}


def _crack() -> str:
    d = "M-15 -19 L-3 -5 L-9 -1 L5 9 L0 12 L14 20"
    return _path(d, "none", "#ffffff", 7) + _path(d, "none", RED, 3.5)


def _wrench() -> str:
    handle = _line(-11, 11, 5, -5, OK_GREEN, 6, "round")
    head = _circle(8, -8, 7, OK_GREEN)
    jaw = _rect(6, -18, 5, 9, PANEL_REPAIR, transform="rotate(45 8 -8)")
    return handle + head + jaw


def _rocks_falling() -> str:
    rocks = [
        [(-14, -16), (-8, -20), (-3, -15), (-7, -10), (-13, -11)],
        [(4, -12), (10, -15), (15, -9), (11, -4), (5, -6)],
        [(-6, 2), (0, -3), (6, 1), (4, 7), (-4, 7)],
    ]
    parts = [_poly(r, STONE, STONE_DARK, 1.5) for r in rocks]
    parts.append(_path("M-16 -4 v6 M12 4 v6 M-10 8 v5", "none", INK, 1.5))
    pile = _poly(
        [(-18, 20), (-12, 12), (-4, 14), (2, 10), (10, 13), (18, 20)], STONE_DARK, INK, 1.5
    )
    return "".join(parts) + pile


def _map() -> str:
    paper = _poly(
        [(-17, -12), (-6, -16), (6, -12), (17, -16), (17, 13), (6, 17), (-6, 13), (-17, 17)],
        "#f6e3ad",
        INK,
        1.8,
    )
    folds = _path("M-6 -16 V13 M6 -12 V17", "none", "#b59a5a", 1.2)
    route = _path("M-13 10 Q-8 -2 0 3 T8 -4", "none", INK, 1.4, stroke_dasharray="2 2")
    cross = _path("M6 -8 l6 6 M12 -8 l-6 6", "none", RED, 2.5)
    return paper + folds + route + cross


def _bag(x: float = 0, y: float = 0, s: float = 1.0) -> str:
    body = _path("M-6 -7 Q-16 2 -12 11 Q0 17 12 11 Q16 2 6 -7 Z", GOLD, GOLD_DARK, 1.8)
    neck = _path("M-6 -7 L-8 -13 Q0 -10 8 -13 L6 -7", "#d9a520", GOLD_DARK, 1.5)
    tie = _line(-7, -7, 7, -7, WOOD, 2.5, "round")
    coin = _circle(0, 4, 4, "none", GOLD_DARK, 1.5)
    transform = f"translate({_n(x)} {_n(y)})" + (f" scale({_n(s)})" if s != 1 else "")
    return _g(body + neck + tie + coin, transform)


def _theft() -> str:
    grab = _path("M6 -4 Q16 -8 18 -18", "none", INK, 2.5)
    arrow = _poly([(18, -20), (13, -14), (20, -13)], INK)
    return _bag(-3, 3) + grab + arrow


def _no_sign() -> str:
    return _circle(0, 0, 17, "none", RED, 4) + _line(-12, 12, 12, -12, RED, 4, "round")


def _hands_off() -> str:
    return _bag(0, 1, 0.8) + _no_sign()


def _card_shape(x: float, y: float, fill: str) -> str:
    return _rect(x, y, 12, 18, fill, INK, 1.5, rx=2)


def _swap_hand() -> str:
    cards = _card_shape(-16, -6, "#9ec1e8") + _card_shape(4, -6, "#e8b39e")
    top = _path("M-10 -10 Q0 -20 10 -10", "none", INK, 2)
    top += _poly([(12, -12), (6, -11), (10, -6)], INK)
    bottom = _path("M10 16 Q0 24 -10 16", "none", INK, 2)
    bottom += _poly([(-12, 14), (-6, 13), (-10, 8)], INK)
    return cards + top + bottom


def _hat(x: float = 0, y: float = 0, fill: str = "#c0392b") -> str:
    cone = _poly([(x - 9, y + 6), (x + 9, y + 6), (x + 3, y - 10), (x - 1, y - 14)], fill, INK, 1.5)
    brim = _rect(x - 12, y + 5, 24, 4, fill, INK, 1.5, rx=2)
    return cone + brim


def _inspection() -> str:
    card = _card_shape(-14, -14, BACK) + _hat(-8, -3, "#8d99ae")
    glass = _circle(4, 2, 9, "#ffffff", INK, 3, fill_opacity="0.55")
    handle = _line(10, 9, 17, 17, INK, 4.5, "round")
    return card + glass + handle


def _swap_hats() -> str:
    hats = _hat(-8, 2, "#c0392b") + _hat(9, 2, "#2e6da4")
    arc = _path("M-10 -12 Q0 -22 10 -12", "none", INK, 2)
    arc += _poly([(12, -14), (6, -13), (10, -8)], INK)
    arc2 = _path("M10 16 Q0 24 -10 16", "none", INK, 2)
    arc2 += _poly([(-12, 14), (-6, 13), (-10, 8)], INK)
    return hats + arc + arc2


def _trapped() -> str:
    frame = _rect(-15, -17, 30, 34, "#d8cfc0", INK, 2.5, rx=2)
    hat = _hat(0, 4, "#c0392b")
    bars = "".join(_line(x, -17, x, 17, INK, 2.5) for x in (-8, -1, 6, 12))
    rail = _line(-15, -8, 15, -8, INK, 2.5)
    return frame + hat + bars + rail


def _free() -> str:
    shackle = _path("M-8 -2 V-10 Q-8 -18 0 -18 Q8 -18 8 -10 V-6", "none", STEEL, 4)
    body = _rect(-12, -2, 24, 20, GOLD, GOLD_DARK, 2, rx=3)
    keyhole = _circle(0, 6, 2.5, INK) + _rect(-1, 7, 2, 6, INK)
    return _g(shackle, "translate(-6 -2) rotate(-20)") + body + keyhole


ACTION_ICONS: dict[str, Callable[[], str]] = {
    "rockfall": _rocks_falling,
    "map": _map,
    "theft": _theft,
    "hands-off": _hands_off,
    "swap-hand": _swap_hand,
    "inspection": _inspection,
    "swap-hats": _swap_hats,
    "trapped": _trapped,
    "free": _free,
}


def _action_face(card_id: str) -> str:
    card = CATALOGUE[card_id]
    panel = {"break": PANEL_BREAK, "repair": PANEL_REPAIR}.get(card.effect or "", PANEL)
    parts = [
        _rect(0.5, 0.5, CARD_W - 1, CARD_H - 1, ACTION_FRAME, INK, 1, rx=3),
        _rect(4, 4, CARD_W - 8, CARD_H - 8, panel, rx=2),
    ]
    if card.effect == "break":
        parts.append(_icon(TOOL_ICONS[card.tools[0]]() + _crack(), CX, CY, 1.15))
    elif card.effect == "repair":
        if len(card.tools) == 1:
            parts.append(_icon(TOOL_ICONS[card.tools[0]](), CX, 36, 1.05))
            parts.append(_icon(_wrench(), CX, 69, 0.7))
        else:
            parts.append(_icon(TOOL_ICONS[card.tools[0]](), CX, 22, 0.72))
            parts.append(_icon(TOOL_ICONS[card.tools[1]](), CX, 49, 0.72))
            parts.append(_icon(_wrench(), CX, 74, 0.55))
    else:
        parts.append(_icon(ACTION_ICONS[card.effect or ""](), CX, CY, 1.15))
    return "".join(parts)
