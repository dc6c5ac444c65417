"""Card art: pure functions that return SVG markup for cards and the maze.

Everything here is built from our own catalogue data; the only text (card names in ``<title>``) is
escaped. The markup never uses ``style`` attributes, ``<style>`` elements, scripts or event
handlers: the site's Content Security Policy allows styles from our own stylesheet only
(``static/css/board.css``).

Emails get whole drawings (``card_svg``: they become pictures). The game's pages draw each card as
a ``<use>`` of its face in ``static/cards.svg`` (``card_use``), every face drawn once in one file
the browser keeps: a hand or a maze cell is then a few hundred bytes rather than a couple of
kilobytes, and so is what an open page is sent after a move. ``manage.py draw_cards`` writes that
file from ``cards_sprite()``; a test checks that it is up to date.

A card face is 60 x 90 units (2:3 portrait); a maze cell is the same size, so tunnels of
neighbouring cards meet at the edge midpoints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from django.templatetags.static import static
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.engine.cards import CATALOGUE, EDGES, GOAL, PATH, START, TREASURE, tunnels_of

CARD_W, CARD_H = 60, 90
CX, CY = CARD_W / 2, CARD_H / 2
TUNNEL = 14  # tunnel width
OUTLINE = 3  # dark border on each side of a tunnel

# Palette: rock browns, sand tunnels, high-contrast ink.
ROCK = "#6e5843"
ROCK_DARK = "#4a3a2c"
ROCK_SPECK = "#846a52"
SAND = "#ecd3a0"
SAND_SHADE = "#c9a970"
TUNNEL_EDGE = "#3a2c20"
INK = "#2a211b"
STONE = "#9a958e"
STONE_DARK = "#5d5954"
GOLD = "#f4c430"
GOLD_DARK = "#9a7400"
WOOD = "#7a4a20"
STEEL = "#5b6770"
BLUE_DOOR = "#1f5fd1"
GREEN_DOOR = "#1a8c43"
GEM = "#b06ae0"
GEM_DARK = "#5a2380"
RED = "#c62828"
OK_GREEN = "#2e7d32"
PANEL = "#f3ead6"
PANEL_BREAK = "#f6d3cc"
PANEL_REPAIR = "#d5ecd0"
ACTION_FRAME = "#3b4452"
BACK = "#2d3a4b"
BACK_LINE = "#41536b"
BACK_MARK = "#f0dca8"

# Edge midpoints, and where a stub (dead end) stops short of the centre.
MID = {"N": (CX, 0), "E": (CARD_W, CY), "S": (CX, CARD_H), "W": (0, CY)}
STUB_END = {"N": (CX, 26), "E": (42, CY), "S": (CX, CARD_H - 26), "W": (18, CY)}

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


# --- small SVG helpers ------------------------------------------------------------------------


def _n(value: float) -> str:
    """A compact number: 30.0 -> '30', 2.5 -> '2.5'."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attrs(**attrs) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, float | int) and not isinstance(value, bool):
            value = _n(value)
        parts.append(f'{key.rstrip("_").replace("_", "-")}="{escape(value)}"')
    return " ".join(parts)


def _el(tag: str, **attrs) -> str:
    return f"<{tag} {_attrs(**attrs)}/>"


def _line(x1, y1, x2, y2, stroke, width, cap="butt", **extra) -> str:
    return _el(
        "line",
        x1=x1,
        y1=y1,
        x2=x2,
        y2=y2,
        stroke=stroke,
        stroke_width=width,
        stroke_linecap=cap,
        **extra,
    )


def _circle(cx, cy, r, fill, stroke=None, width=None, **extra) -> str:
    return _el("circle", cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, stroke_width=width, **extra)


def _rect(x, y, w, h, fill, stroke=None, width=None, rx=None, **extra) -> str:
    return _el(
        "rect",
        x=x,
        y=y,
        width=w,
        height=h,
        rx=rx,
        fill=fill,
        stroke=stroke,
        stroke_width=width,
        **extra,
    )


def _poly(points: Iterable[tuple[float, float]], fill, stroke=None, width=None, **extra) -> str:
    pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return _el("polygon", points=pts, fill=fill, stroke=stroke, stroke_width=width, **extra)


def _path(d: str, fill="none", stroke=None, width=None, cap="round", join="round", **extra) -> str:
    return _el(
        "path",
        d=d,
        fill=fill,
        stroke=stroke,
        stroke_width=width,
        stroke_linecap=cap if stroke else None,
        stroke_linejoin=join if stroke else None,
        **extra,
    )


def _g(content: str, transform: str | None = None, **attrs) -> str:
    head = _attrs(transform=transform, **attrs)
    return f"<g {head}>{content}</g>" if head else f"<g>{content}</g>"


def _icon(content: str, x: float, y: float, scale: float = 1.0) -> str:
    """An icon drawn around (0, 0) in a -20..20 box, placed at (x, y)."""
    transform = f"translate({_n(x)} {_n(y)})" + (f" scale({_n(scale)})" if scale != 1 else "")
    return _g(content, transform)


# --- card backgrounds ---------------------------------------------------------------------------

_SPECKS = ((9, 10, 2.2), (48, 16, 1.6), (14, 72, 1.8), (50, 78, 2.4), (44, 60, 1.3), (8, 40, 1.2))


def _rock(fill=ROCK, speck=ROCK_SPECK) -> str:
    parts = [_rect(0.5, 0.5, CARD_W - 1, CARD_H - 1, fill, ROCK_DARK, 1, rx=3)]
    parts += [_circle(x, y, r, speck) for x, y, r in _SPECKS]
    return "".join(parts)


# --- tunnels -----------------------------------------------------------------------------------


def _segment(edge: str, end: tuple[float, float], color: str, width: float) -> str:
    x1, y1 = MID[edge]
    return _line(x1, y1, end[0], end[1], color, width)


def _joined(edges: frozenset[str], hub: float = TUNNEL / 2) -> tuple[str, str]:
    """Outline and fill layers of a tunnel whose edges meet in the centre."""
    ordered = [e for e in EDGES if e in edges]
    outline = "".join(_segment(e, (CX, CY), TUNNEL_EDGE, TUNNEL + 2 * OUTLINE) for e in ordered)
    outline += _circle(CX, CY, hub + OUTLINE, TUNNEL_EDGE)
    fill = "".join(_segment(e, (CX, CY), SAND, TUNNEL) for e in ordered)
    fill += _circle(CX, CY, hub, SAND)
    return outline, fill


def _rubble(x: float, y: float) -> str:
    """The rock that closes a dead end."""
    pts = [(-8, -2), (-5, -6), (0, -7), (5, -5), (8, -1), (6, 4), (0, 6), (-6, 4)]
    rock = _poly([(x + dx, y + dy) for dx, dy in pts], STONE, STONE_DARK, 1.5)
    crack = _path(
        f"M{_n(x - 3)} {_n(y - 3)} L{_n(x)} {_n(y)} L{_n(x + 3)} {_n(y - 1)}", "none", STONE_DARK, 1
    )
    return rock + crack


def _stub(edge: str) -> tuple[str, str]:
    end = STUB_END[edge]
    outline = _segment(edge, end, TUNNEL_EDGE, TUNNEL + 2 * OUTLINE)
    fill = _segment(edge, end, SAND, TUNNEL) + _rubble(*end)
    return outline, fill


def _double_curve(tunnels: tuple[frozenset[str], ...]) -> str:
    """Two separate curves hugging opposite corners."""
    corner = {
        frozenset("NW"): (0, 0),
        frozenset("NE"): (CARD_W, 0),
        frozenset("ES"): (CARD_W, CARD_H),
        frozenset("SW"): (0, CARD_H),
    }
    outlines, fills = [], []
    for tunnel in tunnels:
        ox, oy = corner[tunnel]
        a, b = (MID[e] for e in EDGES if e in tunnel)
        # Sweep so the arc bulges toward the card's centre.
        cross = (a[0] - ox) * (b[1] - oy) - (a[1] - oy) * (b[0] - ox)
        sweep = 1 if cross > 0 else 0
        d = f"M{_n(a[0])} {_n(a[1])} A{_n(CX)} {_n(CY)} 0 0 {sweep} {_n(b[0])} {_n(b[1])}"
        outlines.append(_path(d, "none", TUNNEL_EDGE, TUNNEL + 2 * OUTLINE, cap="butt"))
        fills.append(_path(d, "none", SAND, TUNNEL, cap="butt"))
    return "".join(outlines + fills)


def _bridge(tunnels: tuple[frozenset[str], ...]) -> str:
    """Two straight tunnels: the north-south one passes under, the east-west one over it."""
    under, over = tunnels
    parts = []
    a, b = (MID[e] for e in EDGES if e in under)
    parts.append(_line(*a, *b, TUNNEL_EDGE, TUNNEL + 2 * OUTLINE))
    parts.append(_line(*a, *b, SAND, TUNNEL))
    a, b = (MID[e] for e in EDGES if e in over)
    half = TUNNEL / 2 + OUTLINE
    span = half + 5  # the deck reaches a little past the lower tunnel
    deck = [
        # Shadow cast on the lower tunnel beside the deck.
        _rect(CX - TUNNEL / 2, CY - half - 4, TUNNEL, 4, SAND_SHADE),
        _rect(CX - TUNNEL / 2, CY + half, TUNNEL, 4, SAND_SHADE),
        _line(*a, *b, TUNNEL_EDGE, TUNNEL + 2 * OUTLINE),
        _line(*a, *b, SAND, TUNNEL),
        _rect(CX - span, CY - TUNNEL / 2, 2 * span, TUNNEL, "#c08a52"),
    ]
    planks = " ".join(
        f"M{_n(CX + dx)} {_n(CY - TUNNEL / 2)} v{_n(TUNNEL)}" for dx in range(-12, 13, 4)
    )
    deck.append(_path(planks, "none", WOOD, 1, cap="butt"))
    for dy in (-half + 1, half - 1):
        deck.append(_line(CX - span - 1, CY + dy, CX + span + 1, CY + dy, INK, 3, "round"))
    return "".join(parts + deck)


def _tunnels(card_id: str, turned: bool, hub: float = TUNNEL / 2) -> str:
    """The tunnels of a path, start or revealed goal card, as drawn for the given orientation."""
    # A canonical order, so that a half turn of a symmetric card draws the very same markup.
    tunnels = tuple(
        sorted(tunnels_of(card_id, turned), key=lambda t: sorted(EDGES.index(e) for e in t))
    )
    if card_id == "bridge":
        # Draw the north-south tunnel under the east-west one, whatever the catalogue order.
        ordered = tuple(sorted(tunnels, key=lambda t: "N" not in t))
        return _bridge(ordered)
    if card_id == "double-curve":
        return _double_curve(tunnels)
    outlines, fills = [], []
    for tunnel in tunnels:
        if len(tunnel) == 1 and not CATALOGUE[card_id].ladder:
            (edge,) = tunnel
            outline, fill = _stub(edge)
        else:
            outline, fill = _joined(tunnel, hub)
        outlines.append(outline)
        fills.append(fill)
    return "".join(outlines + fills)


# --- decorations -------------------------------------------------------------------------------


def _ladder(x: float = CX, y: float = CY) -> str:
    rails = _line(x - 5, y - 12, x - 5, y + 12, WOOD, 2.5, "round")
    rails += _line(x + 5, y - 12, x + 5, y + 12, WOOD, 2.5, "round")
    rungs = "".join(_line(x - 5, y + dy, x + 5, y + dy, WOOD, 2) for dy in (-8, -3, 2, 7))
    return rails + rungs


def _shaft(x: float = CX, y: float = CY) -> str:
    """A pit with a ladder going down: the start card."""
    return _circle(x, y, 13, SAND_SHADE, TUNNEL_EDGE, 2) + _ladder(x, y)


def _tall_ladder() -> str:
    """Ladder cards: a dark hole where the tunnel ends and a long ladder standing up from it
    along the card's west side, unlike the start's round pit (issue 13)."""
    hole = _circle(CX, CY, 8, TUNNEL_EDGE, INK, 1.5)
    x, top, bottom = 13, 8, CARD_H - 8
    rails = _line(x - 5, top, x - 5, bottom, WOOD, 3, "round")
    rails += _line(x + 5, top, x + 5, bottom, WOOD, 3, "round")
    rungs = "".join(_line(x - 5, y, x + 5, y, WOOD, 2.2) for y in range(top + 6, bottom, 9))
    return hole + rails + rungs


def _door(card_id: str, turned: bool) -> str:
    card = CATALOGUE[card_id]
    tunnel = next(t for t in tunnels_of(card_id, turned) if len(t) > 1)
    edge = next(e for e in EDGES if e in tunnel)
    mx, my = MID[edge]
    # Halfway between the edge and the centre, across the tunnel.
    x, y = (mx + CX) / 2, (my + CY) / 2
    across_x = edge in ("N", "S")
    length, thick = TUNNEL + 2 * OUTLINE + 6, 9
    w, h = (length, thick) if across_x else (thick, length)
    blue = card.door == "blue"
    color = BLUE_DOOR if blue else GREEN_DOOR
    # Colour-blind cue: the blue door is rounded with a round knob, the green one square with a
    # square knob.
    bar = _rect(x - w / 2, y - h / 2, w, h, color, INK, 1.5, rx=4.5 if blue else 0)
    if blue:
        knob = _circle(x, y, 3.2, "#ffffff", INK, 1)
    else:
        knob = _rect(x - 3, y - 3, 6, 6, "#ffffff", INK, 1)
    return bar + knob + _door_sign(blue)


def _door_sign(blue: bool) -> str:
    """A big sign in the top right corner, readable without colour: a disc on blue doors, a
    triangle on green ones (issue 13)."""
    x, y = CARD_W - 11, 12
    if blue:
        return _circle(x, y, 7.5, BLUE_DOOR, "#ffffff", 2) + _circle(x, y, 2.5, "#ffffff")
    points = [(x, y - 8), (x + 8.5, y + 6.5), (x - 8.5, y + 6.5)]
    return _poly(points, GREEN_DOOR, "#ffffff", 2)


def _gem(x: float, y: float) -> str:
    pts = [(x - 4, y - 5), (x + 4, y - 5), (x + 7, y - 1), (x, y + 7), (x - 7, y - 1)]
    facets = _path(
        f"M{_n(x - 7)} {_n(y - 1)} H{_n(x + 7)} M{_n(x - 2)} {_n(y - 5)} L{_n(x)} {_n(y + 7)}"
        f" L{_n(x + 2)} {_n(y - 5)}",
        "none",
        GEM_DARK,
        0.8,
    )
    return _poly(pts, GEM, GEM_DARK, 1.2) + facets + _circle(x - 2, y - 3, 1, "#ffffff")


def _gold_pile() -> str:
    nuggets = [
        [(-10, 4), (-6, -2), (0, -1), (2, 5), (-4, 8)],
        [(0, 2), (4, -6), (10, -4), (12, 3), (6, 7)],
        [(-6, -3), (-3, -10), (4, -9), (5, -3), (0, 0)],
    ]
    parts = [_circle(CX, CY, 15, SAND_SHADE, GOLD_DARK, 1.5)]
    for pts in nuggets:
        parts.append(_poly([(CX + x, CY + y) for x, y in pts], GOLD, GOLD_DARK, 1.2))
    sparkle = f"M{_n(CX + 9)} {_n(CY - 15)} v8 M{_n(CX + 5)} {_n(CY - 11)} h8"
    parts.append(_path(sparkle, "none", "#ffffff", 1.5))
    return "".join(parts)


def _stone_lump() -> str:
    """A big worthless boulder in a ring (bigger than the rubble that closes a dead end)."""
    pts = [(-12, -4), (-6, -12), (5, -11), (12, -3), (10, 8), (-1, 12), (-10, 7)]
    ring = _circle(CX, CY, 15, SAND_SHADE, STONE_DARK, 1.5)
    lump = _poly([(CX + x, CY + y) for x, y in pts], "#7f7a73", INK, 1.5)
    cracks = _path(
        f"M{_n(CX - 6)} {_n(CY - 3)} l5 4 l4 -3 M{_n(CX + 2)} {_n(CY + 1)} l-1 6",
        "none",
        INK,
        1,
    )
    shine = _path(f"M{_n(CX - 5)} {_n(CY - 8)} l5 -1", "none", "#c9c4bc", 1.5)
    return ring + lump + cracks + shine


def _goal_frame(color: str) -> str:
    """Revealed goals get an inner frame, so they stand out in the maze."""
    return _rect(2.5, 2.5, CARD_W - 5, CARD_H - 5, "none", color, 2, rx=2)


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


# --- whole faces -------------------------------------------------------------------------------


def _title(text: str) -> str:
    return format_html("<title>{}</title>", text)


@lru_cache(maxsize=1)
def _goal_back_face() -> str:
    parts = [_rect(0.5, 0.5, CARD_W - 1, CARD_H - 1, BACK, INK, 1, rx=3)]
    diamonds = []
    for row, y in enumerate(range(6, CARD_H, 9)):
        for x in range(6 + (row % 2) * 6, CARD_W - 3, 12):
            diamonds.append(f"M{x} {y - 3}l3 3l-3 3l-3 -3z")
    parts.append(_path("".join(diamonds), BACK_LINE))
    parts.append(_rect(10, 14, 40, 62, BACK, BACK_MARK, 1.5, rx=6))
    question = "M21 35 Q21 24 30 24 Q39 24 39 33 Q39 39 33 42 Q30 44 30 49 V53"
    parts.append(_path(question, "none", BACK_MARK, 5))
    parts.append(_circle(30, 62, 3.3, BACK_MARK))
    return "".join(parts)


@lru_cache(maxsize=256)
def _face(card_id: str, turned: bool) -> str:
    """The inner drawing (no title) of a card face, in a 60 x 90 box."""
    card = CATALOGUE[card_id]
    if card.kind == "action":
        return _action_face(card_id)
    if card.kind == START:
        return _rock("#646b73", "#757d86") + _tunnels(card_id, turned) + _shaft()
    if card.kind == GOAL:
        if card_id == TREASURE:
            return _rock() + _goal_frame(GOLD) + _tunnels(card_id, turned) + _gold_pile()
        return _rock() + _goal_frame(STONE) + _tunnels(card_id, turned) + _stone_lump()
    parts = [_rock()]
    if card.ladder:
        parts.append(_tunnels(card_id, turned))
        parts.append(_tall_ladder())
    else:
        parts.append(_tunnels(card_id, turned))
    if card.door:
        parts.append(_door(card_id, turned))
    if card.crystals:
        parts.append(_gem(11, 13))
    return "".join(parts)


def tunnels_markup(card_id: str, turned: bool = False) -> str:
    """Only the tunnel layer of a card (useful to compare orientations)."""
    return _tunnels(card_id, turned)


def _svg(inner: str, title: str, size: float, css_class: str, *, alone=True) -> SafeString:
    """A card's ``<svg>``; ``alone``: a document of its own (a picture for an email), with its
    namespace, rather than inside a page's HTML, which needs none."""
    namespace = 'xmlns="http://www.w3.org/2000/svg" ' if alone else ""
    head = format_html(
        '<svg {}viewBox="0 0 {} {}" width="{}" height="{}" class="{}" role="img">',
        mark_safe(namespace),  # noqa: S308 - a constant
        CARD_W,
        CARD_H,
        _n(size),
        _n(size * CARD_H / CARD_W),
        css_class,
    )
    return mark_safe(head + _title(title) + inner + "</svg>")  # noqa: S308 - our own markup


def card_svg(card_id: str, turned: bool = False, *, size: float = 60) -> SafeString:
    """A complete ``<svg>`` of a card face, ``size`` pixels wide (2:3 portrait)."""
    return _card_svg(card_id, turned, size, get_language())


@lru_cache(maxsize=1024)
def _card_svg(card_id: str, turned: bool, size: float, language: str) -> SafeString:
    # Keyed by language too: the <title> is the card's translated name.
    return _svg(_face(card_id, turned), card_name(card_id), size, "card-svg")


SPRITE = "cards.svg"  # in static/, made by `manage.py draw_cards`


def _symbol(card_id: str, turned: bool) -> str:
    """A face's id in the sprite: an action card looks the same either way round."""
    return f"{card_id}-t" if turned and CATALOGUE[card_id].kind != "action" else card_id


def cards_sprite() -> str:
    """Every card face (each way round) as a ``<symbol>``, the face-down goal as "back", and the
    icons of what lies in front of a player as "front-<card>"."""
    symbols = []
    for card_id, card in CATALOGUE.items():
        for turned in (False, True) if card.kind != "action" else (False,):
            symbols.append(
                f'<symbol id="{_symbol(card_id, turned)}" viewBox="0 0 {CARD_W} {CARD_H}">'
                f"{_face(card_id, turned)}</symbol>"
            )
    symbols.append(
        f'<symbol id="back" viewBox="0 0 {CARD_W} {CARD_H}">{_goal_back_face()}</symbol>'
    )
    symbols.extend(
        f'<symbol id="front-{card_id}" viewBox="-22 -22 44 44">{_in_front_face(card_id)}</symbol>'
        for card_id in IN_FRONT
    )
    return '<svg xmlns="http://www.w3.org/2000/svg">' + "".join(symbols) + "</svg>\n"


def card_use(card_id: str, turned: bool = False, *, size: float = 60) -> SafeString:
    """A card face for the game's pages: an ``<svg>`` with its name, using the face drawn once in
    ``static/cards.svg``."""
    return _card_use(_symbol(card_id, turned), card_name(card_id), size, "card-svg")


def card_picture(card_id: str) -> SafeString:
    """A card face beside its written name (a card of the hand, a choice of discard): the picture
    alone, hidden from screen readers, which read the name once."""
    href = escape(f"{static(SPRITE)}#{_symbol(card_id, False)}")
    return format_html(
        '<svg viewBox="0 0 {} {}" class="card-svg" aria-hidden="true"><use href="{}"/></svg>',
        CARD_W,
        CARD_H,
        href,
    )


def goal_back_use(*, size: float = 60) -> SafeString:
    """The face-down goal for the game's pages (as ``card_use``)."""
    return _card_use("back", str(GOAL_BACK_NAME), size, "card-svg card-svg--back")


def _card_use(symbol: str, title: str, size: float, css_class: str) -> SafeString:
    href = escape(f"{static(SPRITE)}#{symbol}")
    return _svg(f'<use href="{href}"/>', title, size, css_class, alone=False)


def goal_back_svg(*, size: float = 60) -> SafeString:
    """A complete ``<svg>`` of a face-down goal (identical for every goal)."""
    return _svg(_goal_back_face(), str(GOAL_BACK_NAME), size, "card-svg card-svg--back")


def card_group(card_id: str, turned: bool, x: float, y: float) -> SafeString:
    """The card face as a ``<g>`` translated to (x, y), for use inside a bigger ``<svg>``."""
    inner = _title(card_name(card_id)) + _face(card_id, turned)
    return mark_safe(f'<g transform="translate({_n(x)} {_n(y)})">{inner}</g>')  # noqa: S308


def goal_back_group(x: float, y: float) -> SafeString:
    """The face-down goal as a ``<g>`` translated to (x, y)."""
    inner = _title(str(GOAL_BACK_NAME)) + _goal_back_face()
    return mark_safe(f'<g transform="translate({_n(x)} {_n(y)})">{inner}</g>')  # noqa: S308


# --- the board ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellRect:
    """Where a grid position lies in the board drawing.

    ``x``/``y`` are SVG user units inside the viewBox (grid_x * 60, grid_y * 90); ``left``/``top``
    are pixels from the drawing's top-left corner at its natural size; the ``*_pct`` values are
    percentages of the drawing's width/height (valid at any scale).
    """

    grid_x: int
    grid_y: int
    x: int
    y: int
    left: int
    top: int
    width: int
    height: int
    left_pct: float
    top_pct: float
    width_pct: float
    height_pct: float


@dataclass(frozen=True)
class BoardLayout:
    svg: SafeString
    width: int  # natural size in pixels (= viewBox size)
    height: int
    columns: int
    rows: int
    min_x: int  # grid coordinates of the top-left cell of the drawing
    min_y: int
    rects: dict[tuple[int, int], CellRect] = field(default_factory=dict)

    def rect(self, grid_x: int, grid_y: int) -> CellRect:
        """The rectangle of any grid position (inside the drawing or not)."""
        return _cell_rect(grid_x, grid_y, self.min_x, self.min_y, self.columns, self.rows)


def _cell_rect(gx: int, gy: int, min_x: int, min_y: int, columns: int, rows: int) -> CellRect:
    left, top = (gx - min_x) * CARD_W, (gy - min_y) * CARD_H
    return CellRect(
        gx,
        gy,
        gx * CARD_W,
        gy * CARD_H,
        left,
        top,
        CARD_W,
        CARD_H,
        round(100 * (gx - min_x) / columns, 4),
        round(100 * (gy - min_y) / rows, 4),
        round(100 / columns, 4),
        round(100 / rows, 4),
    )


def board_layout(
    cells: Iterable[tuple[int, int, str, bool]],
    goal_backs: Iterable[tuple[int, int]] = (),
    highlights: Iterable[tuple[int, int]] = (),
    *,
    link: Callable[[int, int], str] | None = None,
    scale: float = 1.0,
    labels: bool = False,
) -> BoardLayout:
    """Draw the maze. ``cells`` are (grid_x, grid_y, card_id, turned) of face-up cards,
    ``goal_backs`` the positions of face-down goals, ``highlights`` positions to outline as legal.

    The drawing covers every card plus one empty ring around them. Its viewBox is in grid units
    times 60 x 90, so it starts at negative coordinates when the maze grows west or north.
    If ``link`` is given, each highlighted cell is wrapped in ``<a href="link(x, y)">`` (a
    same-site URL) so it can be focused and followed without scripts. ``labels`` adds the
    column numbers above and the row numbers left of the maze, as the game page's table and
    every text ("column 3, row 0") name them (for pictures, which have no table around them).
    """
    cells = list(cells)
    goal_backs = list(goal_backs)
    highlights = list(highlights)
    points = [(c[0], c[1]) for c in cells] + goal_backs + highlights
    if not points:
        points = [(0, 0)]
    min_x = min(p[0] for p in points) - 1
    max_x = max(p[0] for p in points) + 1
    min_y = min(p[1] for p in points) - 1
    max_y = max(p[1] for p in points) + 1
    columns, rows = max_x - min_x + 1, max_y - min_y + 1
    vx, vy, vw, vh = min_x * CARD_W, min_y * CARD_H, columns * CARD_W, rows * CARD_H
    band = LABEL_BAND if labels else 0
    box = (vx - band, vy - band, vw + band, vh + band)

    parts = [
        format_html(
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {} {}" width="{}" height="{}" '
            'class="board__svg" role="{}" aria-label="{}">',
            *box,
            _n(box[2] * scale),
            _n(box[3] * scale),
            # A picture, unless it holds links (role="img" would hide them from screen readers).
            "img" if link is None else "group",
            _("Maze"),
        ),
        _rect(*box, "#241d17"),
    ]
    if labels:
        parts += _edge_labels(vx, vy, min_x, min_y, columns, rows)
    grid = [f"M{vx + i * CARD_W} {vy} v{vh}" for i in range(columns + 1)]
    grid += [f"M{vx} {vy + j * CARD_H} h{vw}" for j in range(rows + 1)]
    parts.append(_path(" ".join(grid), "none", "#4a3d31", 1, cap="butt", class_="board__grid"))
    for gx, gy, card_id, turned in cells:
        parts.append(card_group(card_id, bool(turned), gx * CARD_W, gy * CARD_H))
    for gx, gy in goal_backs:
        parts.append(goal_back_group(gx * CARD_W, gy * CARD_H))
    for gx, gy in highlights:
        rect = format_html(
            '<rect class="cell--legal" x="{}" y="{}" width="{}" height="{}" rx="4" '
            'fill="#ffd400" fill-opacity="0.12" stroke="#ffd400" stroke-width="3" '
            'data-x="{}" data-y="{}"/>',
            gx * CARD_W + 2,
            gy * CARD_H + 2,
            CARD_W - 4,
            CARD_H - 4,
            gx,
            gy,
        )
        if link is not None:
            label = _("Place at column {x}, row {y}").format(x=gx, y=gy)
            rect = format_html(
                '<a href="{}" class="cell-link" aria-label="{}">{}</a>', link(gx, gy), label, rect
            )
        parts.append(rect)
    parts.append("</svg>")
    rects = {
        (gx, gy): _cell_rect(gx, gy, min_x, min_y, columns, rows)
        for gx in range(min_x, max_x + 1)
        for gy in range(min_y, max_y + 1)
    }
    return BoardLayout(
        svg=mark_safe("".join(parts)),  # noqa: S308 - built from our own data, text escaped
        width=vw,
        height=vh,
        columns=columns,
        rows=rows,
        min_x=min_x,
        min_y=min_y,
        rects=rects,
    )


LABEL_BAND = 30  # the strip above and left of a labelled maze, in viewBox units


def _edge_labels(vx, vy, min_x, min_y, columns, rows) -> list[SafeString]:
    """Column numbers above the maze and row numbers left of it, centred on their cells."""
    text = (
        '<text x="{}" y="{}" font-family="DejaVu Sans, sans-serif" font-size="18" '
        'fill="#d8c9a8" text-anchor="middle">{}</text>'
    )
    middle = LABEL_BAND / 2 + 6  # the baseline that centres an 18-unit digit in the band
    return [
        format_html(text, vx + i * CARD_W + CARD_W / 2, vy - LABEL_BAND + middle, min_x + i)
        for i in range(columns)
    ] + [
        format_html(text, vx - LABEL_BAND / 2, vy + j * CARD_H + CARD_H / 2 + 6, min_y + j)
        for j in range(rows)
    ]


def board_svg(
    cells: Iterable[tuple[int, int, str, bool]],
    *,
    highlights: Iterable[tuple[int, int]] = (),
    goal_backs: Iterable[tuple[int, int]] = (),
    labels: bool = False,
) -> SafeString:
    """The maze as a complete ``<svg>`` (see ``board_layout``)."""
    return board_layout(cells, goal_backs, highlights, labels=labels).svg


_RANK = {card: index for index, card in enumerate(CATALOGUE)}


def hand_key(card: str) -> tuple[bool, int]:
    """The order of a hand as every page and email shows it: path cards first, then actions,
    each in the catalogue's order (stable from turn to turn)."""
    return CATALOGUE[card].kind != PATH, _RANK[card]


def hand_order(hand: Iterable[str]) -> list[str]:
    """A hand as shown; posted discards are positions in this order."""
    return sorted(hand, key=hand_key)


def in_front_svg(card_id: str, *, size: float = 24) -> SafeString:
    """A square icon of a card lying in front of a player (a broken tool, a Theft, a trap), for
    the players around the table; its title is the card's name."""
    return _in_front_svg(card_id, size, get_language())


# What can lie in front of a player: broken tools, a Theft, a trap.
IN_FRONT = tuple(c for c, card in CATALOGUE.items() if card.effect in {"break", "theft", "trapped"})


def _in_front_face(card_id: str) -> str:
    """The icon's drawing (in a -22..22 square): a broken tool, a Theft, a trap."""
    card = CATALOGUE[card_id]
    if card.effect == "break":
        inner = TOOL_ICONS[card.tools[0]]() + _crack()
        background = PANEL_BREAK
    else:
        inner = ACTION_ICONS[card.effect]() if card.effect in ACTION_ICONS else ""
        background = PANEL
    return _rect(-21, -21, 42, 42, background, ACTION_FRAME, 2, rx=6) + inner


@lru_cache(maxsize=64)
def _in_front_svg(card_id: str, size: float, language: str) -> SafeString:
    """A ``<use>`` of the icon drawn once in ``static/cards.svg`` (as ``front-<card>``)."""
    href = escape(f"{static(SPRITE)}#front-{card_id}")
    return format_html(
        '<svg width="{}" height="{}" class="icon-svg" role="img"><title>{}</title>'
        '<use href="{}"/></svg>',
        _n(size),
        _n(size),
        card_name(card_id),
        href,
    )
