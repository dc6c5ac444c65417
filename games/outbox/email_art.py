"""Pictures for emails: the site's own SVG (``games.read.drawing``) rendered to PNG with CairoSVG.

Mail clients do not show SVG, and most do not load remote images; the emails attach these PNGs
inline (multipart/related, Content-ID). Everything drawn comes from one seat's ``view_for``, so a
picture holds no more than that seat's page shows.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from functools import lru_cache

from games.engine import View
from games.read.drawing import card_svg
from games.read.maze_drawing import board_svg

CARD_PIXELS = 48  # the width of a hand card in the email
MAZE_MAX_PIXELS = 640  # the widest a maze is drawn; a bigger maze is scaled down


def maze_png(
    view: View, changed: AbstractSet[tuple[int, int]] = frozenset()
) -> tuple[bytes, int, int]:
    """The maze as ``view`` shows it, the ``changed`` positions outlined: (png, width, height)."""
    cells = [(c["x"], c["y"], c["card"], c["turned"]) for c in view["board"]]
    backs = [(g["x"], g["y"]) for g in view["goals"] if g["face_down"]]
    shown = {(x, y) for x, y, _card, _turned in cells}
    # Labelled like the game page's maze: the email's text names places "column 3, row 0".
    svg = board_svg(cells, goal_backs=backs, highlights=sorted(changed & shown), labels=True)
    png = _png(svg)
    width, height = _png_size(png)
    if width > MAZE_MAX_PIXELS:
        height, width = round(height * MAZE_MAX_PIXELS / width), MAZE_MAX_PIXELS
    return png, width, height


@lru_cache(maxsize=128)
def card_png(card_id: str) -> bytes:
    """One card face, drawn twice the size it is shown (sharp on high-density screens)."""
    return _png(card_svg(card_id, size=CARD_PIXELS * 2))


def _png(svg) -> bytes:
    """The SVG rendered by CairoSVG. Imported here, when a picture is drawn: loading it (and
    libcairo through cairocffi) took a quarter of a second, a fifth of the start of every process
    that imports the outbox (each web server, worker, beat and manage.py command)."""
    import cairosvg

    return cairosvg.svg2png(bytestring=str(svg).encode())


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
