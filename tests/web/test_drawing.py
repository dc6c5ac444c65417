"""Card art (games/read/drawing.py, card_icons.py, maze_drawing.py, svg.py; the names,
card_names.py): well-formed, CSP-safe SVG; orientations; the board's extent."""

import re
import xml.etree.ElementTree as ET

import pytest

from games.engine.cards import CATALOGUE, GOAL_CARDS, ROLES, tunnels_of
from games.read import card_names, drawing, maze_drawing, svg

SVG = "{http://www.w3.org/2000/svg}"
EVENT_ATTR = re.compile(r"\son[a-z]+=", re.IGNORECASE)


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Overrides the web conftest's cache fixture: nothing here needs a database or cache.
    yield


def assert_safe(markup: str) -> None:
    assert "style=" not in markup
    assert "<style" not in markup
    assert "<script" not in markup.lower()
    assert "foreignObject" not in markup
    assert "href=" not in markup.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not EVENT_ATTR.search(markup)
    assert " id=" not in markup


def parse(markup: str) -> ET.Element:
    return ET.fromstring(str(markup))  # noqa: S314 - our own output


def shape(card_id: str, turned: bool) -> frozenset[frozenset[str]]:
    return frozenset(tunnels_of(card_id, turned))


FACE_CARDS = [cid for cid, card in CATALOGUE.items() if card.kind != "action"]


@pytest.mark.parametrize("card_id", list(CATALOGUE))
@pytest.mark.parametrize("turned", [False, True])
def test_every_card_renders_well_formed_safe_svg(card_id, turned):
    markup = drawing.card_svg(card_id, turned)
    root = parse(markup)
    assert root.tag == SVG + "svg"
    assert root.get("viewBox") == "0 0 60 90"
    assert root.get("width") == "60" and root.get("height") == "90"
    title = root.find(SVG + "title")
    assert title is not None and title.text == card_names.card_name(card_id)
    assert_safe(markup)
    group = drawing.card_group(card_id, turned, -120, 180)
    assert parse(group).get("transform") == "translate(-120 180)"
    assert_safe(group)


def test_size_scales_the_picture_not_the_viewbox():
    root = parse(drawing.card_svg("cross", size=90))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
        "90",
        "135",
        "0 0 60 90",
    )


@pytest.mark.parametrize("card_id", FACE_CARDS)
def test_turned_drawing_differs_exactly_when_the_shape_does(card_id):
    symmetric = shape(card_id, False) == shape(card_id, True)
    same_tunnels = drawing.tunnels_markup(card_id, False) == drawing.tunnels_markup(card_id, True)
    assert same_tunnels == symmetric
    if CATALOGUE[card_id].door is None:
        same_face = drawing.card_svg(card_id, False) == drawing.card_svg(card_id, True)
        assert same_face == symmetric


def test_known_symmetric_and_asymmetric_cards():
    for card_id in (
        "cross",
        "straight-ns",
        "straight-ew",
        "bridge",
        "dead-nesw",
        "double-curve",
        "start",
    ):
        assert drawing.card_svg(card_id, True) == drawing.card_svg(card_id, False)
    for card_id in ("curve-ne", "t-nse", "dead-n", "ladder-s", "crystal-dead-e"):
        assert drawing.tunnels_markup(card_id, True) != drawing.tunnels_markup(card_id, False)


def test_dead_ends_and_joined_tunnels_look_different():
    assert drawing.tunnels_markup("dead-ns") != drawing.tunnels_markup("straight-ns")
    assert drawing.tunnels_markup("bridge") != drawing.tunnels_markup("cross")
    assert drawing.tunnels_markup("double-curve") != drawing.tunnels_markup("cross")


def test_doors_differ_by_colour_and_shape():
    blue = drawing.card_svg("door-blue-ew")
    green = drawing.card_svg("door-green-ew")
    assert svg.BLUE_DOOR in blue and svg.GREEN_DOOR not in blue
    assert svg.GREEN_DOOR in green and svg.BLUE_DOOR not in green
    # Without colour: a round knob on blue doors, a square one on green doors.
    assert blue.count("<circle") != green.count("<circle")


def test_face_down_goal_is_identical_for_every_goal():
    backs = {drawing.goal_back_group(480, 0) for _ in GOAL_CARDS}
    assert len(backs) == 1
    board = lambda goal: maze_drawing.board_svg([(0, 0, "start", False)], goal_backs=[(8, 0)])  # noqa: E731
    assert len({board(goal) for goal in GOAL_CARDS}) == 1
    back = drawing.goal_back_svg()
    parse(back)
    assert_safe(back)
    for goal in GOAL_CARDS:
        assert card_names.card_name(goal) not in back


def test_revealed_goals_differ():
    faces = {drawing.card_svg(goal) for goal in GOAL_CARDS}
    assert len(faces) == 3
    assert svg.GOLD in drawing.card_svg("goal-gold")


def test_action_cards_all_differ():
    actions = [cid for cid, card in CATALOGUE.items() if card.kind == "action"]
    faces = {drawing.card_svg(cid) for cid in actions}
    assert len(faces) == len(actions)


def viewbox(markup: str) -> list[float]:
    return [float(v) for v in parse(markup).get("viewBox").split()]


def test_board_has_one_empty_ring_and_grows_into_negative_coordinates():
    cells = [(0, 0, "start", False)]
    layout = maze_drawing.board_layout(cells, [(8, -2), (8, 0), (8, 2)])
    assert viewbox(layout.svg) == [-60, -270, 660, 630]
    assert (layout.min_x, layout.min_y, layout.columns, layout.rows) == (-1, -3, 11, 7)
    assert (layout.width, layout.height) == (660, 630)

    grown = maze_drawing.board_layout(cells + [(-3, -4, "curve-ne", True)], [(8, 0)])
    x, y, w, h = viewbox(grown.svg)
    assert (x, y) == (-4 * 60, -5 * 90)
    assert (w, h) == ((9 - -4 + 1) * 60, (1 - -5 + 1) * 90)
    assert (grown.min_x, grown.min_y) == (-4, -5)


def test_board_cell_rectangles():
    layout = maze_drawing.board_layout([(0, 0, "start", False), (2, 1, "cross", False)])
    rect = layout.rects[(0, 0)]
    assert (rect.left, rect.top, rect.width, rect.height) == (60, 90, 60, 90)
    assert (rect.x, rect.y) == (0, 0)
    assert rect.left_pct == pytest.approx(100 / 5)
    assert layout.rect(-1, -1).left == 0
    assert len(layout.rects) == layout.columns * layout.rows


def test_board_highlights_are_plain_outlined_rects():
    markup = maze_drawing.board_svg(
        [(0, 0, "start", False), (1, 0, "bridge", False)],
        highlights=[(2, 0), (-1, 0)],
        goal_backs=[(8, 0)],
    )
    root = parse(markup)
    assert_safe(markup)
    legal = [el for el in root.iter(SVG + "rect") if el.get("class") == "cell--legal"]
    assert sorted((el.get("data-x"), el.get("data-y")) for el in legal) == [("-1", "0"), ("2", "0")]
    assert {el.get("x") for el in legal} == {"122", "-58"}


def test_board_links_are_escaped_and_same_site():
    layout = maze_drawing.board_layout(
        [(0, 0, "start", False)], highlights=[(1, 0)], link=lambda x, y: f"/place?x={x}&y={y}"
    )
    root = parse(layout.svg)
    links = list(root.iter(SVG + "a"))
    assert [a.get("href") for a in links] == ["/place?x=1&y=0"]
    assert "&amp;" in layout.svg


def test_empty_board_still_renders():
    layout = maze_drawing.board_layout([])
    assert (layout.columns, layout.rows) == (3, 3)
    parse(layout.svg)


def test_every_card_and_role_has_a_name():
    assert set(CATALOGUE) <= set(card_names.CARD_NAMES)
    roles = {role for ruleset in ROLES.values() for role in ruleset}
    assert roles <= set(card_names.ROLE_NAMES)
    for role in roles:
        assert card_names.role_name(role) == str(card_names.ROLE_NAMES[role])
    assert card_names.card_name("cross") == "Cross"
    assert card_names.role_name("gold-digger") == "Gold digger"


def test_titles_are_escaped(monkeypatch):
    monkeypatch.setitem(card_names.CARD_NAMES, "cross", "<b>&</b>")
    # Drawings are cached per card and language, and so are the names translated.
    drawing._card_svg.cache_clear()
    card_names._translated.clear()
    markup = drawing.card_svg("cross")
    drawing._card_svg.cache_clear()
    card_names._translated.clear()
    assert "<b>" not in markup
    assert parse(markup).find(SVG + "title").text == "<b>&</b>"


def _without_colour(markup: str) -> str:
    return re.sub(r'(fill|stroke)="[^"]*"', "", markup)


def test_doors_differ_without_colour_by_a_big_corner_sign():
    # Issue 13: with every colour removed, a blue door still differs from the green one.
    for blue, green in (("door-blue-ew", "door-green-ew"), ("door-blue-ns", "door-green-ns")):
        blue_svg, green_svg = drawing.card_svg(blue), drawing.card_svg(green)
        assert _without_colour(blue_svg).count("<circle") > _without_colour(green_svg).count(
            "<circle"
        )
        assert _without_colour(green_svg).count("<polygon") > _without_colour(blue_svg).count(
            "<polygon"
        )


def test_ladders_do_not_look_like_the_start():
    start = drawing.card_svg("start")
    shaft_ring = 'r="13"'
    assert shaft_ring in start
    for ladder in ("ladder-s", "ladder-e", "ladder-es", "ladder-en"):
        assert shaft_ring not in drawing.card_svg(ladder)


def test_the_pages_use_every_face_from_the_sprite_file_kept_up_to_date():
    """The game's pages draw a card as a <use> of its face in static/cards.svg (a few hundred
    bytes a card, sent once): the file is what ``manage.py draw_cards`` writes now, and holds
    every face a page can ask for."""
    from pathlib import Path

    from django.conf import settings

    sprite = (Path(settings.BASE_DIR) / "static" / drawing.SPRITE).read_text(encoding="utf-8")
    assert sprite == drawing.cards_sprite(), "static/cards.svg is stale: manage.py draw_cards"
    symbols = set(re.findall(r'<symbol id="([^"]+)"', sprite))
    for card_id, card in CATALOGUE.items():
        for turned in (False, True):
            used = drawing.card_use(card_id, turned)
            symbol = re.search(r'<use href="[^"#]*cards\.svg#([^"]+)"/>', used)[1]
            assert symbol in symbols
            assert f"<title>{card_names.card_name(card_id)}</title>" in used
            if card.kind != "action":  # the face drawn is the card's own, either way round
                assert symbol == (f"{card_id}-t" if turned else card_id)
    assert "#back" in drawing.goal_back_use() and "back" in symbols
    # What lies in front of a player: an icon of its own in the sprite, named on the page.
    for card_id in ("break-pickaxe", "break-lantern", "break-cart", "theft", "trapped"):
        icon = drawing.in_front_svg(card_id)
        assert f'cards.svg#front-{card_id}"' in icon and f"front-{card_id}" in symbols
        assert f"<title>{card_names.card_name(card_id)}</title>" in icon
    # A card beside its written name (the hand, the discard choices): the picture alone, which
    # screen readers skip (they read the name once).
    picture = drawing.card_picture("map")
    assert 'aria-hidden="true"' in picture and "<title>" not in picture and "#map" in picture
