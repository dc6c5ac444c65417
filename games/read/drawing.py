"""Card art: pure functions that return SVG markup for the cards (their faces, the face-down goal,
what lies in front of a player, the sprite of them all).

The maze as one picture is ``maze_drawing``; the action cards' icons ``card_icons``; the palette
and the helpers that write one element each ``svg``; the cards' and roles' names ``card_names``.

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

from functools import lru_cache

from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from games.engine.cards import CATALOGUE, EDGES, GOAL, START, TREASURE, tunnels_of

from .card_icons import ACTION_ICONS, TOOL_ICONS, _action_face, _crack
from .card_names import GOAL_BACK_NAME, card_name
from .svg import (
    ACTION_FRAME,
    BACK,
    BACK_LINE,
    BACK_MARK,
    BLUE_DOOR,
    CARD_H,
    CARD_W,
    CX,
    CY,
    GEM,
    GEM_DARK,
    GOLD,
    GOLD_DARK,
    GREEN_DOOR,
    INK,
    OUTLINE,
    PANEL,
    PANEL_BREAK,
    ROCK,
    ROCK_DARK,
    ROCK_SPECK,
    SAND,
    SAND_SHADE,
    STONE,
    STONE_DARK,
    TUNNEL,
    TUNNEL_EDGE,
    WOOD,
    _circle,
    _line,
    _n,
    _path,
    _poly,
    _rect,
)

# Edge midpoints, and where a stub (dead end) stops short of the centre.
MID = {"N": (CX, 0), "E": (CARD_W, CY), "S": (CX, CARD_H), "W": (0, CY)}
STUB_END = {"N": (CX, 26), "E": (42, CY), "S": (CX, CARD_H - 26), "W": (18, CY)}


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
    drawn = mark_safe(inner)  # noqa: S308 - drawn by this module's helpers, values escaped
    return format_html("{}{}{}</svg>", head, _title(title), drawn)


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
            symbols.append(_symbol_of(_symbol(card_id, turned), _face(card_id, turned)))
    symbols.append(_symbol_of("back", _goal_back_face()))
    symbols.extend(
        _symbol_of(f"front-{card_id}", _in_front_face(card_id), "-22 -22 44 44")
        for card_id in IN_FRONT
    )
    return '<svg xmlns="http://www.w3.org/2000/svg">' + "".join(symbols) + "</svg>\n"


def _symbol_of(name: str, face: str, view_box: str = f"0 0 {CARD_W} {CARD_H}") -> SafeString:
    """One ``<symbol>`` of the sprite: ``face``, drawn by the helpers (our own markup)."""
    inner = mark_safe(face)  # noqa: S308 - drawn by this module's helpers, values escaped
    return format_html('<symbol id="{}" viewBox="{}">{}</symbol>', name, view_box, inner)


def card_use(card_id: str, turned: bool = False, *, size: float = 60) -> SafeString:
    """A card face for the game's pages: an ``<svg>`` with its name, using the face drawn once in
    ``static/cards.svg``."""
    return _card_use(_symbol(card_id, turned), card_name(card_id), size, "card-svg")


def card_picture(card_id: str) -> SafeString:
    """A card face beside its written name (a card of the hand, a choice of discard): the picture
    alone, hidden from screen readers, which read the name once."""
    href = f"{static(SPRITE)}#{_symbol(card_id, False)}"
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
    use = format_html('<use href="{}"/>', f"{static(SPRITE)}#{symbol}")
    return _svg(use, title, size, css_class, alone=False)


def goal_back_svg(*, size: float = 60) -> SafeString:
    """A complete ``<svg>`` of a face-down goal (identical for every goal)."""
    return _svg(_goal_back_face(), str(GOAL_BACK_NAME), size, "card-svg card-svg--back")


def card_group(card_id: str, turned: bool, x: float, y: float) -> SafeString:
    """The card face as a ``<g>`` translated to (x, y), for use inside a bigger ``<svg>``."""
    return _placed(_title(card_name(card_id)) + _face(card_id, turned), x, y)


def goal_back_group(x: float, y: float) -> SafeString:
    """The face-down goal as a ``<g>`` translated to (x, y)."""
    return _placed(_title(str(GOAL_BACK_NAME)) + _goal_back_face(), x, y)


def _placed(inner: str, x: float, y: float) -> SafeString:
    """``inner`` (drawn by this module, its title escaped) as a ``<g>`` translated to (x, y)."""
    drawn = mark_safe(inner)  # noqa: S308 - drawn by this module's helpers, values escaped
    return format_html('<g transform="translate({} {})">{}</g>', _n(x), _n(y), drawn)


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
    href = f"{static(SPRITE)}#front-{card_id}"
    return format_html(
        '<svg width="{}" height="{}" class="icon-svg" role="img"><title>{}</title>'
        '<use href="{}"/></svg>',
        _n(size),
        _n(size),
        card_name(card_id),
        href,
    )
