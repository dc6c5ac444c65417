"""Each part of the game page on its own (games/read/game_parts.py, bar_part.py, maze_part.py),
from the engine's view of a rigged deal: the players, the hand, the bar, the maze, the log and the
recaps; each is frozen once built, and each is what one part of the play area draws (what an
open page is sent when it alone changed, games/web/live_parts.py)."""

import dataclasses

import pytest
from django.template.loader import render_to_string

from games import engine
from games.engine.cards import GOAL_POSITIONS
from games.play.moves import move_submit
from games.read import bar_part, game_parts, maze_part, pages
from games.web import live_parts

NAMES = {"0": "Ann", "1": "Bob", "2": "Cid"}
DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "first": "0",
    "hands": {
        "0": ["break-pickaxe", "cross", "cross", "map", "rockfall", "dead-n"],
        "1": ["t-nse", "t-nse", "t-nse", "t-nse", "map", "map"],
        "2": ["t-new", "t-new", "t-new", "t-new", "map", "curve-ne"],
    },
}


def new_state(deal=DEAL):
    return engine.new_game(
        ruleset="base", seats=["0", "1", "2"], round_seeds=["parts"], rounds=1, deals=[deal]
    )


def moved(state, seat, **wanted):
    """``state`` after ``seat``'s legal move with the ``wanted`` fields; and its events."""
    move = next(
        m
        for m in engine.legal_moves(state, seat)
        if all(m.get(key) == value for key, value in wanted.items())
    )
    return engine.apply(state, seat, move)


def the_players(view, me="0"):
    return game_parts.players(view, NAMES, NAMES, me, {})


def deciding(state, seat, selected=None, **address):
    """The viewer's decision as the page builds it (``pages._decision``)."""
    table = pages._Table(
        state=state,
        view=engine.view_for(state, seat),
        me=seat,
        names=NAMES,
        labels=NAMES,
        live={},
    )
    return pages._decision(
        table,
        True,
        selected,
        address.get("turned", False),
        address.get("at"),
        address.get("target"),
        address.get("tool"),
    )


def built(state, seat="0", selected=None, moves=(), **address):
    """The players, hand and bar of ``seat``'s page."""
    view = engine.view_for(state, seat)
    decision = deciding(state, seat, selected, **address)
    players = the_players(view, seat)
    hand = game_parts.hand(
        view,
        playable=decision.playable,
        selected=decision.selected,
        cards_turn=view["to_move"] == seat,
        moves=list(moves),
        names=NAMES,
    )
    bar = bar_part.bar(view, decision, hand, players, list(moves), me=seat, title=True)
    return view, players, hand, bar


def test_every_part_is_frozen():
    view, players, hand, bar = built(new_state(), selected="cross")
    board = maze_part.board(view, bar, [], None)
    for part in (players, hand, bar, board, game_parts.Log(), game_parts.Recap()):
        field = dataclasses.fields(part)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, field, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.rows[0][0].svg = ""  # the cells too


def test_the_players_in_turn_order_with_what_lies_in_front_of_them():
    state, _events = moved(new_state(), "0", move="action", card="break-pickaxe", target="1")
    players = the_players(engine.view_for(state, "2"), me="2")
    assert [p["name"] for p in players.rows] == ["Ann", "Bob", "Cid"]
    assert players.my_seat == "seat 3 of 3" and players.to_move_name == "Bob"
    bob = players.rows[1]
    assert bob["to_move"] and bob["in_front"] == ["Broken pickaxe"]
    assert "#front-break-pickaxe" in bob["icons"][0]["svg"]
    assert [p["is_me"] for p in players.rows] == [False, False, True]
    assert players.name("1") == "Bob" and players.name("9") == "?"


def test_the_hand_says_what_each_card_does_and_why_it_cannot_be_played():
    view, _players, hand, _bar = built(new_state(), selected="cross")
    assert hand.role == "Gold digger" and "treasure" in hand.role_help
    assert [c.id for c in hand.cards] == [
        "cross",
        "cross",
        "dead-n",
        "break-pickaxe",
        "rockfall",
        "map",
    ]
    # Of two alike cards the first lights up, not both.
    assert [c.selected for c in hand.cards] == [True, False, False, False, False, False]
    rockfall = hand.cards[4]
    assert not rockfall.playable and rockfall.reason == "There is no path card to remove."
    assert all(c.playable and not c.reason for c in hand.cards if c is not rockfall)
    assert all(c.help for c in hand.cards) and 'aria-hidden="true"' in hand.cards[0].svg
    # Not their turn: no reasons (nothing is playable then).
    _view, _players, theirs, _bar = built(new_state(), seat="1")
    assert not any(c.playable or c.reason for c in theirs.cards)


def test_the_hand_marks_the_cards_drawn_on_the_viewers_latest_turn():
    state = new_state()
    after, events = moved(state, "0", move="place", card="cross")
    moves = [(1, events, False, "0")]
    view = engine.view_for(after, "0")
    hand = game_parts.hand(
        view, playable=set(), selected=None, cards_turn=False, moves=moves, names=NAMES
    )
    drawn = [e["cards"] for e in events if e["kind"] == "drew" and e["to"] == "0"][0]
    assert sorted(c.id for c in hand.cards if c.new) == sorted(drawn)
    # Another player's draw marks nothing in mine; a new round forgets it.
    assert not any(c.new for c in built(after, seat="1", moves=moves)[2].cards)
    new_round = [(2, [{"kind": "round-started", "to": None}], False, "0")]
    hand = game_parts.hand(
        view, playable=set(), selected=None, cards_turn=False, moves=moves + new_round, names=NAMES
    )
    assert not any(c.new for c in hand.cards)


def test_the_bar_for_a_path_card_its_spots_and_the_one_chosen():
    state = new_state()
    spots = {
        tuple(m["at"])
        for m in engine.legal_moves(state, "0", card="cross")
        if m["move"] == "place" and not m["turned"]
    }
    at = sorted(spots)[0]
    _view, _players, _hand, bar = built(state, selected="cross", at=f"{at[0]},{at[1]}")
    assert bar.place_kind == "place" and bar.spots == spots and bar.chosen_at == at
    assert bar.title == "Confirm Cross on the chosen spot, or choose another."
    assert bar.discard_options and bar.pass_one and not bar.choices
    # A spot that is not legal is not chosen.
    _view, _players, _hand, bar = built(state, selected="cross", at="40,40")
    assert bar.chosen_at is None and bar.title == "Choose a highlighted spot for Cross."


def test_the_bar_for_an_action_on_a_player_asks_to_confirm_and_warns_of_self_harm():
    state = new_state()
    _view, _players, _hand, bar = built(state, selected="break-pickaxe")
    assert [c.label for c in bar.choices] == ["Play on yourself", "Play on Bob", "Play on Cid"]
    assert all(c.confirm for c in bar.choices) and bar.confirm is None
    assert bar.title == "Choose whom to play Broken pickaxe on."
    _view, _players, _hand, bar = built(state, selected="break-pickaxe", target="0")
    assert bar.confirm.pick == "0" and "breaks your own tool" in bar.confirm_warning
    assert bar.title == "Confirm your move, or choose again."
    _view, _players, _hand, bar = built(state, selected="break-pickaxe", target="2")
    assert bar.confirm.label == "Play on Cid" and bar.confirm_warning == ""
    # A target the engine does not offer is never shown for confirmation.
    assert built(state, selected="break-pickaxe", target="7")[3].confirm is None


def test_the_bar_and_the_maze_for_a_map_look_at_the_goal_chosen():
    state = new_state()
    view, _players, _hand, bar = built(state, selected="map", target="north")
    assert dict(bar.looks) == {at: goal for goal, at in GOAL_POSITIONS.items()}
    assert bar.looked == "north" and bar.confirm.fields["goal"] == "north"
    board = maze_part.board(view, bar, [], None)
    looked = [(c.x, c.y, c.look) for row in board.rows for c in row if c.looked]
    assert looked == [(*GOAL_POSITIONS["north"], "north")]


def test_the_maze_outlines_the_latest_act_until_a_new_round():
    state = new_state()
    after, events = moved(state, "0", move="place", card="cross")
    view, _players, _hand, bar = built(after, seat="1")
    moves = [(1, events, False, "0")]
    board = maze_part.board(view, bar, moves, None)
    placed = next(e for e in events if e["kind"] == "placed")
    assert board.last_move == 1 and board.last_act.at == tuple(placed["at"])
    lasts = [(c.x, c.y) for row in board.rows for c in row if c.last]
    assert lasts == [tuple(placed["at"])]
    moves.append((2, [{"kind": "round-started", "to": None}], False, "1"))
    board = maze_part.board(view, bar, moves, None)
    assert board.last_move == 0 and not any(c.last for row in board.rows for c in row)


def test_the_maze_names_its_cards_and_spots_for_screen_readers_and_previews_the_card():
    state = new_state()
    view, _players, _hand, bar = built(state, selected="cross")
    board = maze_part.board(view, bar, [], None)
    cells = {(c.x, c.y): c for row in board.rows for c in row}
    start = cells[(0, 0)]
    assert start.card == "start" and start.help and start.name.startswith("Start at ")
    spot = next(c for c in cells.values() if c.legal)
    assert spot.name.startswith("Empty spot at ") and "#cross" in spot.svg  # the preview
    goals = [c for c in cells.values() if c.face_down]
    assert len(goals) == 3 and all("face down" in c.help for c in goals)
    assert all(c.blank for c in cells.values() if not (c.svg or c.legal))


def test_the_log_gives_each_line_an_id_that_stays_and_marks_the_unseen():
    state = new_state()
    after, events = moved(state, "0", move="place", card="cross")
    moves = [(1, events, False, "0")]
    view = engine.view_for(after, "1")
    entries = pages.entries_for(moves, NAMES, "1", [])[::-1]
    log = game_parts.log(entries, view, moves, NAMES, "1", since=0)
    lines = [line for group in log.rounds for line in group["lines"]]
    assert lines and all(line["new"] and "log__new" in line["css"] for line in lines)
    assert [line["id"] for line in lines][-1] == "l1-0"
    seen = game_parts.log(entries, view, moves, NAMES, "1", since=1)
    assert not any(line["new"] for group in seen.rounds for line in group["lines"])


def test_players_with_the_same_gold_share_a_rank():
    rows = tuple(
        {"seat": str(i), "name": n, "gold": g}
        for i, (n, g) in enumerate((("Ann", 3), ("Bob", 5), ("Cid", 3), ("Dan", 1)))
    )
    ranked = game_parts.standings(game_parts.Players(rows=rows))
    assert [(r["name"], r["rank"]) for r in ranked] == [
        ("Bob", 1),
        ("Ann", 2),
        ("Cid", 2),
        ("Dan", 4),
    ]


# -- Each part is what one part of the play area draws -----------------------------------------


def play_area(page) -> dict[str, str]:
    """The play area's parts as the page draws them (their digests)."""
    html = render_to_string(
        "games/game.html#play",
        {"page": page, "move_key": "key", "page_token": live_parts.TOKEN_PLACEHOLDER},
    )
    found = live_parts.Play.of(live_parts.compact(html))
    assert found is not None
    return {key: live_parts.digest(markup) for key, markup in found.parts.items()}


@pytest.mark.django_db
def test_a_changed_part_changes_only_its_own_markup(make_user):
    from .test_learn import rigged

    users = [make_user(name) for name in ("ann", "bob", "cid")]
    game = rigged(users, ruleset="base", deal=DEAL)
    state = engine.State.from_json(game.snapshot)
    place = next(m for m in engine.legal_moves(state, "0", card="cross") if m["move"] == "place")
    move_submit(game_id=game.pk, user=users[0], move=place, expected_version=game.version)
    game.refresh_from_db()
    bob = users[1]
    page = pages.game_page(game, bob)
    after = pages.game_page(game, bob, selected="t-nse")
    before = play_area(page)
    # Each data part swapped for another drawing of it: only its own parts of the markup change
    # (the players draw the strip, their cards and the bar's "seat 1 of 3").
    cases = {
        "players": (
            dataclasses.replace(page, players=pages.game_page(game, users[2]).players),
            {"seats", "cards", "bar-me"},
        ),
        "hand": (dataclasses.replace(page, hand=after.hand), {"hand"}),
        "log": (dataclasses.replace(page, log=game_parts.Log()), {"log"}),
        "chat": (
            dataclasses.replace(
                page, chat=({"author": "Bob", "text": "hi", "at": None, "unread": True},)
            ),
            {"chat"},
        ),
    }
    for name, (changed, expected) in cases.items():
        now = play_area(changed)
        assert {key for key in now if now[key] != before[key]} == expected, name
    # The bar's decision draws the turn line, the bar's actions and the maze's spots (and the
    # poll keeps the choice under way).
    now = play_area(dataclasses.replace(page, bar=after.bar, board=after.board))
    assert {key for key in now if now[key] != before[key]} <= {
        "bar-head",
        "bar-actions",
        "maze",
        "maze-fields",
        "poll",
    }
