"""Applying one move: turns (docs/rules.md 2, 3, 6.3) and the round's end (4.2, 4.3, 7).

``apply`` is the only way a state changes. Every check raises ``IllegalMove`` before anything is
changed, so a refused move leaves the state as it was.

Over 600 lines because it is the one rulebook: a turn and the round's end call each other (the
last card of a turn can end the round; a round's end hands the turn on and skips the seats with
no cards), and each card's check sits beside its change, in the order of docs/rules.md. Split,
the halves would import each other; ``board``, ``legal``, ``setup`` and ``view`` already hold what
stands on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from . import board as maze
from .cards import (
    ACTION,
    BASE,
    BLUE,
    BOSS,
    CATALOGUE,
    EXPANSION_SHARES,
    GEOLOGIST,
    GOAL_NAMES,
    GOLD_DIGGER,
    GREEN,
    MAX_GOLD_DRAWN,
    PATH,
    PROFITEER,
    SABOTEUR,
    SABOTEUR_PAY,
    TOOLS,
    TREASURE,
)
from .errors import IllegalMove
from .setup import card_known, deal_round
from .state import GAME_OVER, PICK_GOLD, STEAL, TURN, State
from .types import (
    ActionEvent,
    ActionMove,
    ClearedEvent,
    ClearMove,
    DiscardedEvent,
    DrewEvent,
    Event,
    GameEndedEvent,
    GoalRevealedEvent,
    GoldPickedEvent,
    GoldTakenEvent,
    HandReceivedEvent,
    InspectedEvent,
    Move,
    NewRoleEvent,
    PassedEvent,
    PassMove,
    PeekedEvent,
    PickGoldMove,
    PlacedEvent,
    PlaceMove,
    RepairedEvent,
    RoundEndedEvent,
    RoundResult,
    RoundStartedEvent,
    StealMove,
    StoleEvent,
)

MOVE_KINDS = {
    BASE: ("place", "action", "pass", "pick-gold"),
    "saboteur2": ("place", "action", "pass", "clear", "steal"),
}
DECISION_KINDS = {TURN: ("place", "action", "pass", "clear"), PICK_GOLD: ("pick-gold",)}
DECISION_KINDS[STEAL] = ("steal",)
PASS_COUNTS = {BASE: (1, 1), "saboteur2": (1, 3)}


def apply(state: State, seat: str, move: Mapping[str, Any]) -> tuple[State, list[Event]]:
    """Apply ``move`` by ``seat``; return the new state and the events it caused.

    ``move`` may come from anywhere (a form, a link, a file): only a well-formed ``Move`` that the
    rules allow now is accepted.

    Each event is a dict with ``kind`` and ``to``: None for everyone, or the one seat name that may
    see it. Raises ``IllegalMove`` (the state passed in is never changed).
    """
    new = state.clone()
    events = apply_in_place(new, seat, move)
    return new, events


def apply_in_place(state: State, seat: str, move: Mapping[str, Any]) -> list[Event]:
    """Like ``apply`` but changes ``state`` itself (replays use it to skip the copies).

    On ``IllegalMove`` the state is unchanged: every check runs before the first change.
    """
    check(state, seat, move)
    events: list[Event] = []
    index = state.seat_index(seat)
    assert index is not None  # check() refuses an unknown seat
    _handle(state, index, cast(Move, move), events)  # check() found it a well-formed Move
    state.version += 1
    return events


def _handle(state: State, index: int, move: Move, events: list[Event]) -> None:
    """The change a checked move makes, by its kind."""
    if move["move"] == "place":
        _do_place(state, index, move, events)
    elif move["move"] == "action":
        _do_action(state, index, move, events)
    elif move["move"] == "pass":
        _do_pass(state, index, move, events)
    elif move["move"] == "clear":
        _do_clear(state, index, move, events)
    elif move["move"] == "pick-gold":
        _do_pick(state, index, move, events)
    else:
        _do_steal(state, index, move, events)


# -- Checks ------------------------------------------------------------------------------------


def check(state: State, seat: str, move: Mapping[str, Any], joined=None) -> None:
    """Raise ``IllegalMove`` unless ``seat`` may make ``move`` now (any mapping, from anywhere:
    once it passes, it is a well-formed ``Move``).

    ``joined`` may pass a precomputed ``joined_nodes(state.board)`` (legal_moves does).
    """
    if not isinstance(move, dict) or move.get("move") not in MOVE_KINDS[state.ruleset]:
        raise IllegalMove("malformed", "Unknown move.")
    index = state.seat_index(seat)
    if index is None:
        raise IllegalMove("malformed", "Unknown player.")
    if state.finished or index != state.to_move:
        raise IllegalMove("not-your-decision")
    if move["move"] not in DECISION_KINDS[state.decision]:
        raise IllegalMove("not-your-decision")
    CHECKS[move["move"]](state, index, move, joined)


def _card_field(state: State, move: Mapping[str, Any], key: str = "card") -> str:
    card = move.get(key)
    if isinstance(card, str) and card_known(state.ruleset, card):
        return card
    raise IllegalMove("malformed", "Unknown card.")


def _in_hand(state: State, index: int, cards: list[str]) -> None:
    hand = Counter(state.hands[index])
    for card, count in Counter(cards).items():
        if hand[card] < count:
            raise IllegalMove("not-in-hand")


def _position(move: Mapping[str, Any], key: str = "at") -> tuple[int, int]:
    at = move.get(key)
    if not isinstance(at, (list, tuple)) or len(at) != 2 or not all(type(v) is int for v in at):
        raise IllegalMove("malformed", "A position is two whole numbers.")
    return at[0], at[1]


def _target(state: State, move: Mapping[str, Any]) -> int:
    name = move.get("target")
    if not isinstance(name, str):
        raise IllegalMove("malformed", "The move needs a target player.")
    index = state.seat_index(name)
    if index is None:
        raise IllegalMove("bad-target")
    return index


def broken_tools(state: State, index: int) -> list[str]:
    return [tool for tool in TOOLS if f"break-{tool}" in state.in_front[index]]


def is_trapped(state: State, index: int) -> bool:
    return "trapped" in state.in_front[index]


def _check_place(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    card = _card_field(state, move)
    position = _position(move)
    turned = move.get("turned", False)
    if type(turned) is not bool:
        raise IllegalMove("malformed", "'turned' is true or false.")
    goal_turned = move.get("goal_turned", {})
    if not isinstance(goal_turned, dict) or not all(
        name in GOAL_NAMES and type(value) is bool for name, value in goal_turned.items()
    ):
        raise IllegalMove("malformed", "'goal_turned' maps goal names to true or false.")
    _in_hand(state, index, [card])
    if CATALOGUE[card].kind != PATH:
        raise IllegalMove("wrong-card")
    if broken_tools(state, index):
        raise IllegalMove("tool-broken")
    if is_trapped(state, index):
        raise IllegalMove("trapped")
    if joined is None:
        joined = maze.joined_nodes(state.board)
    code = maze.placement_error(state.board, card, position, turned, joined)
    if code:
        raise IllegalMove(code)


def _check_action(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    card_id = _card_field(state, move)
    _in_hand(state, index, [card_id])
    card = CATALOGUE[card_id]
    if card.kind != ACTION:
        raise IllegalMove("wrong-card")
    ACTION_CHECKS[_effect(card)](state, index, move, card)


def _effect(card) -> str:
    """An action card's effect (every action card of the catalogue has one)."""
    assert card.effect is not None, card.id
    return card.effect


def _check_break(state, index, move, card):
    target = _target(state, move)
    if card.id in state.in_front[target]:
        raise IllegalMove("already-has")


def _repair_tool(state: State, move: Mapping[str, Any], card) -> tuple[int, str]:
    """The target and the tool a repair card mends (3.1)."""
    target = _target(state, move)
    broken = [tool for tool in card.tools if tool in broken_tools(state, target)]
    tool = move.get("tool")
    if tool is not None:
        if tool not in card.tools:
            raise IllegalMove("malformed", "This card does not repair that tool.")
        if tool not in broken:
            raise IllegalMove("nothing-to-repair")
        return target, tool
    if not broken:
        raise IllegalMove("nothing-to-repair")
    if len(broken) > 1:
        raise IllegalMove("malformed", "Name the tool to repair.")
    return target, broken[0]


def _check_repair(state, index, move, card):
    _repair_tool(state, move, card)


def _check_rockfall(state, index, move, card):
    position = _position(move)
    placed = state.board.get(position)
    if placed is None or CATALOGUE[placed.card].kind != PATH:
        raise IllegalMove("bad-position")


def _check_map(state, index, move, card):
    goal = move.get("goal")
    if goal not in GOAL_NAMES:
        raise IllegalMove("malformed", "Name a goal: north, middle or south.")
    if not state.board[state.goals[goal]].face_down:
        raise IllegalMove("bad-goal")


def _check_theft(state, index, move, card):
    if "target" in move and _target(state, move) != index:
        raise IllegalMove("bad-target")
    if "theft" in state.in_front[index]:
        raise IllegalMove("already-has")


def _check_remover(lying: str):
    def check_card(state, index, move, card):
        if lying not in state.in_front[_target(state, move)]:
            raise IllegalMove("nothing-to-repair")

    return check_card


def _other_target(state: State, index: int, move: Mapping[str, Any]) -> int:
    target = _target(state, move)
    if target == index:
        raise IllegalMove("bad-target")
    return target


def _check_trapped(state, index, move, card):
    if "trapped" in state.in_front[_other_target(state, index, move)]:
        raise IllegalMove("already-has")


def _check_other(state, index, move, card):
    _other_target(state, index, move)


def _check_any_target(state, index, move, card):
    _target(state, move)


def _discards(state: State, move: Mapping[str, Any]) -> list[str]:
    cards = move.get("discard")
    if not isinstance(cards, list) or not all(card_known(state.ruleset, c) for c in cards):
        raise IllegalMove("malformed", "'discard' lists cards from your hand.")
    return cards


def _check_pass(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    cards = _discards(state, move)
    low, high = PASS_COUNTS[state.ruleset]
    if not low <= len(cards) <= high:
        raise IllegalMove("wrong-count")
    _in_hand(state, index, cards)


def _check_clear(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    cards = _discards(state, move)
    remove = move.get("remove")
    if not card_known(state.ruleset, remove):
        raise IllegalMove("malformed", "'remove' names a card lying in front of you.")
    if len(cards) != 2:
        raise IllegalMove("wrong-count")
    _in_hand(state, index, cards)
    if remove not in state.in_front[index]:
        raise IllegalMove("not-in-front")


def _check_pick(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    value = move.get("value")
    if type(value) is not int:
        raise IllegalMove("malformed", "'value' is a whole number.")
    if value not in state.offer:
        raise IllegalMove("bad-pick")


def _check_steal(state: State, index: int, move: Mapping[str, Any], joined) -> None:
    if "victim" not in move:
        raise IllegalMove("malformed", "Name a victim, or none.")
    victim = move["victim"]
    if victim is None:
        return
    other = state.seat_index(victim) if isinstance(victim, str) else None
    if other is None:
        raise IllegalMove("malformed", "Unknown victim.")
    if other == index or state.gold[other] <= 0:
        raise IllegalMove("bad-victim")


# -- Changes -----------------------------------------------------------------------------------


def _draw(state: State, index: int, events: list[Event], count: int = 1) -> None:
    drawn = []
    for _ in range(count):
        if not state.pile:
            break
        card = state.pile.pop(0)
        state.hands[index].append(card)
        drawn.append(card)
    if drawn:
        events.append(DrewEvent(kind="drew", to=state.seats[index], cards=drawn))


def _discard_from_hand(state: State, index: int, cards: list[str]) -> None:
    for card in cards:
        state.hands[index].remove(card)
        state.discard.append(card)


def _do_place(state: State, index: int, move: PlaceMove, events: list[Event]) -> None:
    card, (x, y), turned = move["card"], move["at"], move.get("turned", False)
    state.hands[index].remove(card)
    state.board[(x, y)] = maze.Placed(card, turned)
    events.append(
        PlacedEvent(
            kind="placed", to=None, seat=state.seats[index], card=card, at=[x, y], turned=turned
        )
    )
    _reveal_goals(state, index, move.get("goal_turned", {}), events)
    _draw(state, index, events)
    _end_turn(state, index, events)


def _reveal_goals(state: State, index: int, choices: dict, events: list[Event]) -> None:
    """Turn every reached face-down goal face up, repeating through revealed stone goals (1.3)."""
    # Reveals repeat through revealed stone goals only: once the treasure shows, the round is over.
    while not state.treasure_found:
        joined = maze.joined_nodes(state.board)
        reached = []
        for name, position in state.goals.items():
            if state.board[position].face_down:
                edges = maze.reaching_edges(state.board, position, joined)
                if edges:
                    reached.append((name, position, edges))
        if not reached:
            return
        for name, position, edges in reached:
            placed = state.board[position]
            placed.face_down = False
            if placed.card != TREASURE:
                placed.turned = maze.goal_orientation(
                    state.board, position, placed.card, edges, choices.get(name)
                )
            else:
                # Decision D2: every reached goal is turned; the treasure ends the round.
                state.treasure_found = True
                state.finisher = index
            events.append(
                GoalRevealedEvent(
                    kind="goal-revealed", to=None, goal=name, card=placed.card, turned=placed.turned
                )
            )


def _do_action(state: State, index: int, move: ActionMove, events: list[Event]) -> None:
    card = CATALOGUE[move["card"]]
    state.hands[index].remove(card.id)
    event = ActionEvent(kind="action", to=None, seat=state.seats[index], card=card.id)
    # What everyone sees of the move: its target, tool, position and goal, in that order.
    if "target" in move:
        event["target"] = move["target"]
    if "tool" in move:
        event["tool"] = move["tool"]
    if "at" in move:
        event["at"] = move["at"]
    if "goal" in move:
        event["goal"] = move["goal"]
    events.append(event)
    draws = ACTIONS[_effect(card)](state, index, move, card, events)
    if draws:
        _draw(state, index, events)
    _end_turn(state, index, events)


def _act_break(state, index, move, card, events):
    state.in_front[_target(state, move)].append(card.id)
    return True


def _act_repair(state, index, move, card, events):
    target, tool = _repair_tool(state, move, card)
    state.in_front[target].remove(f"break-{tool}")
    state.discard += [f"break-{tool}", card.id]
    events.append(RepairedEvent(kind="repaired", to=None, target=state.seats[target], tool=tool))
    return True


def _act_rockfall(state, index, move, card, events):
    removed = state.board.pop(tuple(move["at"]))
    state.discard += [removed.card, card.id]
    return True


def _act_map(state, index, move, card, events):
    goal = move["goal"]
    seen = state.board[state.goals[goal]].card
    state.peeks[index][goal] = seen
    state.discard.append(card.id)
    events.append(PeekedEvent(kind="peeked", to=state.seats[index], goal=goal, card=seen))
    return True


def _act_theft(state, index, move, card, events):
    state.in_front[index].append(card.id)
    state.theft_laid[index] = state.version
    return True


def _remover(lying: str):
    def act(state, index, move, card, events):
        target = _target(state, move)
        state.in_front[target].remove(lying)
        state.discard += [lying, card.id]
        if lying == "theft":
            state.theft_laid.pop(target, None)
        return True

    return act


def _act_trapped(state, index, move, card, events):
    state.in_front[_target(state, move)].append(card.id)
    return True


def _act_swap_hats(state, index, move, card, events):
    target = _target(state, move)
    state.discard.append(card.id)
    if state.set_aside:
        state.role_discards.append(state.roles[target])
        state.roles[target] = state.set_aside.pop(0)
    events.append(NewRoleEvent(kind="new-role", to=state.seats[target], role=state.roles[target]))
    return True


def _act_swap_hand(state, index, move, card, events):
    target = _target(state, move)
    state.discard.append(card.id)
    state.hands[index], state.hands[target] = state.hands[target], state.hands[index]
    for seat in (index, target):
        events.append(
            HandReceivedEvent(
                kind="hand-received", to=state.seats[seat], cards=list(state.hands[seat])
            )
        )
    # Decision D9: the other player draws one card; the mover draws nothing.
    _draw(state, target, events)
    return False


def _act_inspection(state, index, move, card, events):
    target = _target(state, move)
    state.discard.append(card.id)
    role = state.roles[target]
    state.inspections[index][state.seats[target]] = role
    events.append(
        InspectedEvent(
            kind="inspected", to=state.seats[index], target=state.seats[target], role=role
        )
    )
    return True


def _do_pass(state: State, index: int, move: PassMove, events: list[Event]) -> None:
    cards = move["discard"]
    _discard_from_hand(state, index, cards)
    events.append(PassedEvent(kind="passed", to=None, seat=state.seats[index], count=len(cards)))
    events.append(DiscardedEvent(kind="discarded", to=state.seats[index], cards=list(cards)))
    _draw(state, index, events, len(cards))
    _end_turn(state, index, events)


def _do_clear(state: State, index: int, move: ClearMove, events: list[Event]) -> None:
    cards, remove = move["discard"], move["remove"]
    _discard_from_hand(state, index, cards)
    state.in_front[index].remove(remove)
    state.discard.append(remove)
    if remove == "theft":
        state.theft_laid.pop(index, None)
    events.append(ClearedEvent(kind="cleared", to=None, seat=state.seats[index], removed=remove))
    events.append(DiscardedEvent(kind="discarded", to=state.seats[index], cards=list(cards)))
    _draw(state, index, events)
    _end_turn(state, index, events)


def _end_turn(state: State, index: int, events: list[Event]) -> None:
    state.last_turn_seat = index
    if state.treasure_found or not any(state.hands):
        _end_round(state, events)
        return
    state.to_move = _next_with_cards(state, index + 1)


def _next_with_cards(state: State, start: int) -> int:
    """The first seat clockwise from ``start`` (included) holding cards (2: empty hands skip)."""
    n = len(state.seats)
    for step in range(n):
        seat = (start + step) % n
        if state.hands[seat]:
            return seat
    return start % n


# -- Round end ---------------------------------------------------------------------------------


def _end_round(state: State, events: list[Event]) -> None:
    names = state.seats
    state.result = {
        "treasure_found": state.treasure_found,
        "finisher": names[state.finisher] if state.finisher is not None else None,
        "winners": [],
        "gained": {},
        "thefts": [],
    }
    events.append(
        RoundEndedEvent(
            kind="round-ended",
            to=None,
            round=state.round,
            treasure_found=state.treasure_found,
            roles=dict(zip(names, state.roles, strict=True)),
            goals={name: state.board[pos].card for name, pos in state.goals.items()},
        )
    )
    if state.ruleset == BASE:
        _settle_base(state, events)
    else:
        _settle_expansion(state, events)


def _settling(state: State) -> RoundResult:
    """The result of the round being settled (``_end_round`` starts it)."""
    assert state.result is not None, "no round is being settled"
    return state.result


def _gain(state: State, index: int, value: int) -> None:
    state.gold[index] += value
    gained = _settling(state)["gained"]
    name = state.seats[index]
    gained[name] = gained.get(name, 0) + value


def _settle_base(state: State, events: list[Event]) -> None:
    n = len(state.seats)
    variants = state.config.variants
    if not state.treasure_found:
        saboteurs = [i for i in range(n) if state.roles[i] == SABOTEUR]
        _settling(state)["winners"] = [state.seats[i] for i in saboteurs]
        _pay_saboteurs(state, saboteurs)
        _finish_round(state, events)
        return
    finisher = state.finisher
    assert finisher is not None  # whoever reached the treasure
    diggers = [i for i in range(n) if state.roles[i] == GOLD_DIGGER]
    winners = [i for i in diggers if not (i == state.greedy and i != finisher)]
    _settling(state)["winners"] = [state.seats[i] for i in winners]
    eligible = [i for i in winners if not ("rivalry" in variants and broken_tools(state, i))]
    count = len(diggers) if "new-mine" in variants else n
    count = min(count, MAX_GOLD_DRAWN) if eligible else 0
    state.offer = state.gold_supply[:count]
    state.gold_supply = state.gold_supply[count:]
    # The pick goes round counter-clockwise from the finisher, or from the nearest eligible gold
    # digger counter-clockwise of them (Decision D6).
    order = [(finisher - step) % n for step in range(n)]
    state.pickers = [i for i in order if i in eligible]
    _next_pick(state, events)


def _next_pick(state: State, events: list[Event]) -> None:
    # Decision D7: when every offered card has the same value there is no choice to make.
    while state.offer and len(set(state.offer)) == 1:
        _take_gold(state, state.offer[0], events)
    if state.offer:
        state.decision = PICK_GOLD
        state.to_move = state.pickers[0]
    else:
        _finish_round(state, events)


def _take_gold(state: State, value: int, events: list[Event]) -> None:
    picker = state.pickers.pop(0)
    state.offer.remove(value)
    _gain(state, picker, value)
    events.append(GoldPickedEvent(kind="gold-picked", to=state.seats[picker], value=value))
    events.append(GoldTakenEvent(kind="gold-taken", to=None, seat=state.seats[picker]))
    state.pickers.append(picker)


def _pay_saboteurs(state: State, saboteurs: list[int]) -> None:
    """Each saboteur takes cards from the top until exactly their pay (Decision D8)."""
    if not saboteurs:
        return
    pay = SABOTEUR_PAY[min(len(saboteurs), 4)]
    supply = state.gold_supply
    for seat in saboteurs:  # in seat order from the table's first seat
        need = pay
        while need > 0 and any(value <= need for value in supply):
            value = supply.pop(0)
            if value <= need:
                need -= value
                _gain(state, seat, value)
            else:
                supply.append(value)


def _do_pick(state: State, index: int, move: PickGoldMove, events: list[Event]) -> None:
    _take_gold(state, move["value"], events)
    _next_pick(state, events)


def _settle_expansion(state: State, events: list[Event]) -> None:
    winners = _expansion_winners(state) if state.treasure_found else _saboteurs_win(state)
    _settling(state)["trapped"] = [state.seats[i] for i in winners if is_trapped(state, i)]
    winners = [i for i in winners if not is_trapped(state, i)]
    _settling(state)["winners"] = [state.seats[i] for i in winners]
    _pay_expansion_winners(state, winners)
    _pay_geologists(state)
    _queue_thieves(state)
    _next_steal(state, events)


def _saboteurs_win(state: State) -> list[int]:
    """Saboteur 2 without the treasure found: the saboteurs and the profiteers win."""
    return [i for i in range(len(state.seats)) if state.roles[i] in (SABOTEUR, PROFITEER)]


def _expansion_winners(state: State) -> list[int]:
    """Saboteur 2 with the treasure found: the teams that win, with the boss and profiteers."""
    roles = state.roles
    seats = range(len(state.seats))
    teams = _winning_teams(state)
    if teams:
        return [i for i in seats if roles[i] in teams or roles[i] in (BOSS, PROFITEER)]
    return [i for i in seats if roles[i] == BOSS]


def _winning_teams(state: State) -> list[str]:
    """Which teams win by the treasure (recorded with the doors it is reached through)."""
    treasure = next(pos for pos in state.goals.values() if state.board[pos].card == TREASURE)
    reach = {
        BLUE: (treasure, 0) in maze.joined_nodes(state.board, skip_door="green"),
        GREEN: (treasure, 0) in maze.joined_nodes(state.board, skip_door="blue"),
    }
    assert state.finisher is not None  # whoever reached the treasure
    finisher_role = state.roles[state.finisher]
    if finisher_role in (BLUE, GREEN):
        other = GREEN if finisher_role == BLUE else BLUE
        teams = [t for t in (finisher_role, other) if reach[t]][:1]
    else:
        # Decision D10: anyone else completing the path: every team that can reach wins.
        teams = [t for t in (BLUE, GREEN) if reach[t]]
    # What decided it, for the round's recap: which doors the treasure can be reached through.
    _settling(state)["reach"] = reach
    _settling(state)["teams"] = teams
    return teams


def _pay_expansion_winners(state: State, winners: list[int]) -> None:
    share = EXPANSION_SHARES.get(len(winners), 1)
    for i in winners:
        # Decision D11: the boss gets one less, the profiteer two less, never below 0.
        less = {BOSS: 1, PROFITEER: 2}.get(state.roles[i], 0)
        if share - less > 0:
            _gain(state, i, share - less)


def _pay_geologists(state: State) -> None:
    geologists = [i for i in range(len(state.seats)) if state.roles[i] == GEOLOGIST]
    crystals = maze.crystals_in_maze(state.board)
    for i in geologists:
        # Decision D12: two geologists halve (rounded down); a trapped one's half is lost.
        pay = crystals if len(geologists) == 1 else crystals // 2
        if pay and not is_trapped(state, i):
            _gain(state, i, pay)


def _queue_thieves(state: State) -> None:
    """The untrapped holders of a Theft steal in seat order, from whoever laid theirs last."""
    holders = [i for i in state.theft_laid if not is_trapped(state, i)]
    if holders:
        last = max(holders, key=lambda i: state.theft_laid[i])
        state.thieves = sorted(holders, key=lambda i: (i - last) % len(state.seats))


def _next_steal(state: State, events: list[Event]) -> None:
    while state.thieves:
        thief = state.thieves[0]
        if any(state.gold[i] > 0 for i in range(len(state.seats)) if i != thief):
            state.decision = STEAL
            state.to_move = thief
            return
        _record_steal(state, thief, None, events)
    _finish_round(state, events)


def _record_steal(state: State, thief: int, victim: int | None, events: list[Event]) -> None:
    state.thieves.pop(0)
    names = state.seats
    if victim is not None:
        state.gold[thief] += 1
        state.gold[victim] -= 1
    _settling(state)["thefts"].append(
        {"thief": names[thief], "victim": names[victim] if victim is not None else None}
    )
    events.append(
        StoleEvent(
            kind="stole",
            to=None,
            seat=names[thief],
            victim=names[victim] if victim is not None else None,
        )
    )


def _do_steal(state: State, index: int, move: StealMove, events: list[Event]) -> None:
    victim = move["victim"]
    _record_steal(state, index, state.seat_index(victim) if victim else None, events)
    _next_steal(state, events)


def _finish_round(state: State, events: list[Event]) -> None:
    result = _settling(state)
    result["gained"] = {k: v for k, v in result["gained"].items() if v > 0}
    # What becomes public now: the round's roles, goals, set-aside cards and seed (section 8).
    result["roles"] = dict(zip(state.seats, state.roles, strict=True))
    result["goals"] = {name: state.board[pos].card for name, pos in state.goals.items()}
    result["set_aside"] = list(state.set_aside)
    # The round's final maze, goals included (all public now), before the next deal clears it.
    result["board"] = [[x, y, p.card, p.turned] for (x, y), p in sorted(state.board.items())]
    result["seed"] = state.config.round_seeds[state.round - 1]
    state.rounds_done.append(result)
    state.result = None
    state.offer, state.pickers, state.thieves = [], [], []
    if state.round >= state.config.rounds:
        state.decision = GAME_OVER
        state.to_move = None
        state.finished = True
        events.append(
            GameEndedEvent(
                kind="game-ended", to=None, gold=dict(zip(state.seats, state.gold, strict=True))
            )
        )
        return
    n = len(state.seats)
    last = state.last_turn_seat
    first = (last + 1) % n if last is not None else (state.first_seat + 1) % n
    state.round += 1
    deal_round(state, previous_first=first)
    if not any(state.hands):
        _end_turn_without_cards(state, events)
        return
    assert state.to_move is not None  # deal_round() chose who starts
    state.to_move = _next_with_cards(state, state.to_move)
    events.append(
        RoundStartedEvent(
            kind="round-started", to=None, round=state.round, first=state.seats[state.to_move]
        )
    )


def _end_turn_without_cards(state: State, events: list[Event]) -> None:
    """A rigged round dealt no cards at all: it ends at once."""
    state.last_turn_seat = None
    _end_round(state, events)


def open_first_round(state: State) -> list[Event]:
    """Round 1 just dealt (``new_game``): skip empty hands; with every hand empty, the round ends
    at once even though the pile holds cards (docs/rules.md D17). Returns the events it caused."""
    events: list[Event] = []
    if not any(state.hands):
        _end_turn_without_cards(state, events)
    else:
        assert state.to_move is not None  # deal_round() chose who starts
        state.to_move = _next_with_cards(state, state.to_move)
    return events


CHECKS = {
    "place": _check_place,
    "action": _check_action,
    "pass": _check_pass,
    "clear": _check_clear,
    "pick-gold": _check_pick,
    "steal": _check_steal,
}
ACTION_CHECKS = {
    "break": _check_break,
    "repair": _check_repair,
    "rockfall": _check_rockfall,
    "map": _check_map,
    "theft": _check_theft,
    "hands-off": _check_remover("theft"),
    "free": _check_remover("trapped"),
    "trapped": _check_trapped,
    "swap-hats": _check_any_target,
    "swap-hand": _check_other,
    "inspection": _check_other,
}
ACTIONS = {
    "break": _act_break,
    "repair": _act_repair,
    "rockfall": _act_rockfall,
    "map": _act_map,
    "theft": _act_theft,
    "hands-off": _remover("theft"),
    "free": _remover("trapped"),
    "trapped": _act_trapped,
    "swap-hats": _act_swap_hats,
    "swap-hand": _act_swap_hand,
    "inspection": _act_inspection,
}
