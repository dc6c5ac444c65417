"""The maze as one SVG picture (``board_svg``: emails draw it, ``games.outbox.email_art``) and
where each grid position lies in it (``board_layout``).

Each card is a ``<g>`` of its face (``drawing.card_group``); the game's pages draw the maze as
cells of their own instead (``games.templatetags.maze``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from .drawing import card_group, goal_back_group
from .svg import CARD_H, CARD_W, _n, _path, _rect

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
