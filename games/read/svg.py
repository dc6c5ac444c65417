"""The card art's pens: a card's size, the palette, and helpers that each write one SVG element.

Shared by the card faces (``drawing``), the action cards' icons (``card_icons``) and the maze
(``maze_drawing``). The helpers keep their leading underscore: they are for those modules alone,
never for pages or emails, which ask for whole drawings. Every element is written by
``format_html`` (each attribute value escaped); what a group holds is the helpers' own markup.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

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


# --- small SVG helpers ------------------------------------------------------------------------


def _n(value: float) -> str:
    """A compact number: 30.0 -> '30', 2.5 -> '2.5'."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attrs(**attrs) -> SafeString:
    """Attributes as ``name="value"``, each value escaped by ``format_html_join``; numbers
    compact, None left out."""
    pairs = (
        (key.rstrip("_").replace("_", "-"), _value(value))
        for key, value in attrs.items()
        if value is not None
    )
    return format_html_join(" ", '{}="{}"', pairs)


def _value(value) -> str:
    """The text of an attribute's value (a plain str: format_html escapes it whatever it is)."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return _n(value)
    return f"{value}"


def _el(tag: str, **attrs) -> SafeString:
    return format_html("<{} {}/>", tag, _attrs(**attrs))


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


def _g(content: str, transform: str | None = None, **attrs) -> SafeString:
    """A group of elements this module's helpers drew (``content``, our own markup)."""
    head = _attrs(transform=transform, **attrs)
    inner = mark_safe(content)  # noqa: S308 - elements drawn by these helpers, values escaped
    return format_html("<g {}>{}</g>", head, inner) if head else format_html("<g>{}</g>", inner)


def _icon(content: str, x: float, y: float, scale: float = 1.0) -> str:
    """An icon drawn around (0, 0) in a -20..20 box, placed at (x, y)."""
    transform = f"translate({_n(x)} {_n(y)})" + (f" scale({_n(scale)})" if scale != 1 else "")
    return _g(content, transform)
