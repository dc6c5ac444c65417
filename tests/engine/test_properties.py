"""Property tests of the rules engine over random games of both rule sets.

1. ``legal_moves`` is exact: every listed move is accepted, every other move (in canonical form) is
   refused with a known reason code and changes nothing.
2. Invariants hold after every move of random full games: cards and gold are conserved, the version
   counts moves, snapshots round-trip through JSON, replaying the moves rebuilds the state.
3. Views leak nothing (docs/rules.md 8): two states differing only in what a seat may not know
   give that seat the same view.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import hypothesis
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from games.engine import (
    GAME_OVER,
    PICK_GOLD,
    REASONS,
    STEAL,
    TURN,
    IllegalMove,
    State,
    apply,
    apply_in_place,
    legal_moves,
    replay,
    seed_hash,
    view_for,
)
from games.engine.cards import (
    BASE_GOLD,
    CATALOGUE,
    EXPANSION_ROLES,
    GOAL_CARDS,
    GOAL_NAMES,
    GOLD_DIGGER,
    OLD_MINE_GOLD,
    PATH,
    SABOTEUR,
    TOOLS,
    deck,
)
from tests.conftest import scaled_examples
from tests.engine.strategies import choose_move, game_specs, play, play_some

RULESETS = ("base", "saboteur2")
MOVE_KINDS = {
    "base": ("place", "action", "pass", "pick-gold"),
    "saboteur2": ("place", "action", "pass", "clear", "steal"),
}
rng_seeds = st.integers(min_value=0, max_value=2**64 - 1)
# Full random games are long: shrinking one replays it thousands of times, so the long tests skip
# that phase; the failing draws hypothesis prints (set-up and seed) reproduce the game exactly.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def key(move) -> str:
    """A move's identity as JSON text: 1 != True, and (1, 2) == [1, 2] as the engine reads them."""
    return json.dumps(move, sort_keys=True)


def mover(state: State) -> str:
    return state.seats[state.to_move]


def assert_refused(state: State, seat, move, codes=None) -> str:
    """``move`` by ``seat`` is refused with a known code and leaves ``state`` unchanged."""
    before = state.to_json()
    try:
        apply(state, seat, move)
    except IllegalMove as refusal:
        code = refusal.code
    else:
        raise AssertionError(f"accepted but not listed: {seat} {move}")
    assert code in REASONS, (code, move)
    if codes is not None:
        assert code in codes, (code, seat, move)
    assert state.to_json() == before, move
    # apply_in_place promises the same: every check runs before the first change.
    target = state.clone()
    with pytest.raises(IllegalMove) as refusal:
        apply_in_place(target, seat, move)
    assert refusal.value.code == code
    assert target.to_json() == before, move
    return code


# -- 1. Legal moves are exact --------------------------------------------------------------------

JUNK_CARDS = ("", "Cross", "cross ", "joker", "goal", None, 7, ["cross"], {"id": "map"})
JUNK_CELLS = ([1], [1, 2, 3], ["1", "0"], [True, 0], None, "1,0", [1.0, 0], {"x": 1})
JUNK_NAMES = ("nobody", "", "ANN", None, 3, ["ann"])
JUNK_KINDS = ("draw", "", "Place", None, 3, "rockfall", "map")


def random_card(state: State, rng: random.Random, hand: list[str]):
    roll = rng.random()
    if hand and roll < 0.55:
        return rng.choice(hand)
    if roll < 0.93:
        return rng.choice(list(CATALOGUE))  # other rule set, start and goals included
    return rng.choice(JUNK_CARDS)


def random_cell(state: State, rng: random.Random):
    roll = rng.random()
    if roll < 0.6:
        x, y = rng.choice(list(state.board))
        dx, dy = rng.choice(((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (2, 1)))
        return [x + dx, y + dy]
    if roll < 0.95:
        return [rng.randint(-12, 20), rng.randint(-12, 12)]
    return rng.choice(JUNK_CELLS)


def random_name(state: State, rng: random.Random):
    return rng.choice(state.seats) if rng.random() < 0.85 else rng.choice(JUNK_NAMES)


def random_cards(state: State, rng: random.Random, hand: list[str]):
    if rng.random() < 0.05:
        return rng.choice(("cross", None, {"cross": 1}, [None], [3]))
    count = rng.choice((0, 1, 1, 2, 2, 3, 3, 4))
    if hand and rng.random() < 0.7:
        return rng.sample(hand, min(count, len(hand)))
    return [random_card(state, rng, hand) for _ in range(count)]


def random_candidate(state: State, rng: random.Random, seat_index: int) -> dict:
    """A random move in the canonical form ``legal_moves`` uses (see its docstring)."""
    hand = state.hands[seat_index]
    kind = rng.choice(
        ("place", "place", "action", "action", "action", "pass", "clear", "pick-gold", "steal")
        + (rng.choice(JUNK_KINDS),)
    )
    move = {"move": kind}
    if kind == "place":
        turned = (
            rng.choice((False, True)) if rng.random() < 0.95 else rng.choice((0, 1, None, "no"))
        )
        move.update(card=random_card(state, rng, hand), at=random_cell(state, rng), turned=turned)
        if rng.random() < 0.05:
            # A malformed goal orientation (a valid one is a non-canonical extra, tested apart).
            move["goal_turned"] = rng.choice(({"east": True}, {"north": 1}, [], "north", None))
    elif kind == "action":
        card_id = random_card(state, rng, hand)
        move["card"] = card_id
        card = CATALOGUE.get(card_id) if isinstance(card_id, str) else None
        effect = (
            card.effect if card is not None else rng.choice(("repair", "map", "rockfall", None))
        )
        if effect == "rockfall":
            move["at"] = random_cell(state, rng)
        elif effect == "map":
            move["goal"] = rng.choice(GOAL_NAMES + ("east", None, 0))
        elif effect == "theft":
            move["target"] = random_name(state, rng)
        elif effect == "repair" and card is not None and len(card.tools) > 1:
            move["target"] = random_name(state, rng)
            # (no ``None``: the engine reads ``"tool": None`` as no tool, a non-canonical form)
            move["tool"] = rng.choice(TOOLS + ("hammer", "", 1))
        else:
            move["target"] = random_name(state, rng)
    elif kind == "pass":
        move["discard"] = random_cards(state, rng, hand)
    elif kind == "clear":
        move["discard"] = random_cards(state, rng, hand)
        lying = state.in_front[seat_index]
        move["remove"] = (
            rng.choice(lying) if lying and rng.random() < 0.6 else random_card(state, rng, hand)
        )
    elif kind == "pick-gold":
        offered = state.offer
        if offered and rng.random() < 0.5:
            move["value"] = rng.choice(offered)
        else:
            move["value"] = rng.choice((-1, 0, 1, 2, 3, 4, 10, "3", None, True, 2.0))
    elif kind == "steal":
        move["victim"] = random_name(state, rng) if rng.random() < 0.85 else None
    else:
        if rng.random() < 0.5:
            move["card"] = random_card(state, rng, hand)
    cards = move.get("discard")
    if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
        move["discard"] = sorted(cards)  # canonical: legal_moves lists discards sorted
    if rng.random() < 0.03:
        return rng.choice((None, [], "place", 0))  # not even a dict
    return move


def check_exactness(state: State, rng: random.Random, candidates: int = 60) -> None:
    seats = state.seats
    if state.finished:
        for seat in seats:
            assert legal_moves(state, seat) == []
            code = assert_refused(state, seat, random_candidate(state, rng, 0))
            assert code in ("not-your-decision", "malformed")
        return
    seat = mover(state)
    listed = legal_moves(state, seat)
    hypothesis.event(f"exactness checked at a {state.decision} decision")
    assert listed, "the seat to move always has a legal move"
    keys = {key(m) for m in listed}
    assert len(keys) == len(listed), "legal_moves lists a move twice"
    for other in seats:
        if other != seat:
            assert legal_moves(state, other) == []
    # Every listed move is accepted, and apply never changes the state passed in.
    before = state.to_json()
    for move in rng.sample(listed, min(len(listed), 80)):
        text = key(move)
        new, events = apply(state, seat, move)
        assert key(move) == text, "apply changed the move it was given"
        assert new.version == state.version + 1
        assert isinstance(events, list)
    assert state.to_json() == before
    # Anything else is refused with a reason code and changes nothing.
    for _ in range(candidates):
        move = random_candidate(state, rng, state.to_move)
        if isinstance(move, dict) and key(move) in keys:
            continue
        assert_refused(state, seat, move)
    # Moves by anyone else: not their decision (malformed for unknown kinds or movers).
    for _ in range(10):
        move = rng.choice(listed) if rng.random() < 0.5 else random_candidate(state, rng, 0)
        other = rng.choice([s for s in seats if s != seat] + ["zed", None, 0])
        if other == seat:
            continue
        kind_known = isinstance(move, dict) and move.get("move") in MOVE_KINDS[state.ruleset]
        expected = "not-your-decision" if kind_known and other in seats else "malformed"
        assert_refused(state, other, move, (expected,))


def discard_sorted(state: State) -> dict:
    """The snapshot, discard pile order ignored (a pass may list its cards in any order)."""
    data = state.to_json()
    data["discard"].sort()
    return data


def alternative_forms(state: State, move: dict) -> list[dict]:
    """Non-canonical spellings of a listed move that the engine accepts as the same move."""
    forms = []
    card = CATALOGUE.get(move.get("card", ""))
    if move["move"] == "place" and move["turned"] is False:
        forms.append({k: v for k, v in move.items() if k != "turned"})
    if move["move"] == "place":
        forms.append({**move, "at": tuple(move["at"])})
    if card is not None and card.effect == "repair" and len(card.tools) == 1:
        forms.append({**move, "tool": card.tools[0]})
    if move["move"] in ("pass", "clear") and len(set(move["discard"])) > 1:
        forms.append({**move, "discard": move["discard"][::-1]})
    if card is not None and card.effect == "repair" and len(card.tools) == 2:
        target = state.seat_index(move["target"])
        broken = [t for t in card.tools if f"break-{t}" in state.in_front[target]]
        if len(broken) == 1:  # only one of the two is broken: that one, no need to name it
            forms.append({k: v for k, v in move.items() if k != "tool"})
    if card is not None and card.effect == "theft":
        forms.append({k: v for k, v in move.items() if k != "target"})
    return forms


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.parametrize("ruleset", RULESETS)
@settings(deadline=None, phases=NO_SHRINK)
@given(data=st.data())
def test_legal_moves_are_exact(ruleset, data):
    """At random points of random games (every gold pick and steal included)."""
    spec = data.draw(game_specs(ruleset=ruleset, rounds=2))
    rng = random.Random(data.draw(rng_seeds))
    state = spec.build()
    eager = rng.random() < 0.6
    checks = 0
    while not state.finished and checks < 400:
        checks += 1
        if state.decision != TURN or rng.random() < 0.06:
            check_exactness(state, rng)
            seat = mover(state)
            for move in rng.sample(listed := legal_moves(state, seat), min(3, len(listed))):
                expected = discard_sorted(apply(state, seat, move)[0])
                for form in alternative_forms(state, move):
                    assert discard_sorted(apply(state, seat, form)[0]) == expected, form
                if move["move"] == "place":
                    # A valid goal orientation choice never makes a legal placement illegal.
                    choice = {rng.choice(GOAL_NAMES): rng.random() < 0.5}
                    apply(state, seat, {**move, "goal_turned": choice})
        apply_in_place(state, *choose_move(state, rng, eager))
    check_exactness(state, rng, candidates=10)


@pytest.mark.parametrize("ruleset", RULESETS)
# A few moves into a game: a tenth of a long test's cost, so half as many examples again.
@settings(max_examples=scaled_examples(1.5), deadline=None)
@given(data=st.data())
def test_legal_moves_exact_at_start(ruleset, data):
    """Cheap and many: right after the deal and a few moves in."""
    spec = data.draw(game_specs(ruleset=ruleset, rounds=1))
    rng = random.Random(data.draw(rng_seeds))
    state = spec.build()
    play_some(state, rng, rng.randint(0, 12), eager=True)
    check_exactness(state, rng, candidates=120)


# -- 2. Invariants after every move --------------------------------------------------------------


def initial_gold(state: State) -> int:
    return sum(OLD_MINE_GOLD if "old-mine" in state.config.variants else BASE_GOLD)


def cards_everywhere(state: State) -> Counter:
    """Every card of the rule set's deck, wherever it lies (start and goals are not in the deck)."""
    where = Counter(state.pile) + Counter(state.discard) + Counter(state.removed)
    for hand in state.hands:
        where.update(hand)
    for lying in state.in_front:
        where.update(lying)
    where.update(p.card for p in state.board.values() if CATALOGUE[p.card].kind == PATH)
    return where


def role_deck(state: State) -> Counter:
    n = len(state.seats)
    if state.ruleset == "saboteur2":
        return Counter(EXPANSION_ROLES)
    from games.engine.cards import BASE_SETUP

    saboteurs, diggers, _ = BASE_SETUP[n]
    if "max-saboteurs" in state.config.variants:
        diggers -= 1
    return Counter({SABOTEUR: saboteurs, GOLD_DIGGER: diggers})


def gained_so_far(state: State) -> int:
    total = sum(sum(r["gained"].values()) for r in state.rounds_done)
    if state.result is not None:
        total += sum(state.result["gained"].values())
    return total


def check_invariants(state: State, previous: State | None, moves: int) -> None:
    n = len(state.seats)
    # Cards: every card of the deck is in exactly one place.
    assert cards_everywhere(state) == Counter(deck(state.ruleset))
    # The maze: start at (0, 0), three goals at their names' positions.
    assert state.board[(0, 0)].card == "start"
    assert sorted(state.goals) == sorted(GOAL_NAMES)
    assert sorted(state.board[pos].card for pos in state.goals.values()) == sorted(GOAL_CARDS)
    # Roles: dealt + set aside (+ swapped away) is the role deck.
    roles = Counter(state.roles) + Counter(state.set_aside) + Counter(state.role_discards)
    assert roles == role_deck(state)
    assert len(state.roles) == len(state.hands) == len(state.in_front) == len(state.gold) == n
    # No two action cards of one kind in front of a player (docs/rules.md 3).
    for lying in state.in_front:
        assert all(count == 1 for count in Counter(lying).values()), lying
    # Gold.
    assert all(g >= 0 for g in state.gold)
    if state.ruleset == "base":
        assert sum(state.gold) + sum(state.gold_supply) + sum(state.offer) == initial_gold(state)
        assert sum(state.gold) == gained_so_far(state)
    else:
        assert state.gold_supply == [] and state.offer == []
        assert sum(state.gold) == gained_so_far(state)
    if previous is not None:
        assert state.version == previous.version + 1
        # Gold only grows by the rounds' gains (a steal moves gold without creating it).
        grew = sum(state.gold) - sum(previous.gold)
        assert grew == gained_so_far(state) - gained_so_far(previous)
        if state.ruleset == "base":
            assert all(a >= b for a, b in zip(state.gold, previous.gold, strict=True))
    assert state.version == moves
    # Decisions.
    assert state.finished == (state.decision == GAME_OVER) == (state.to_move is None)
    if state.finished:
        assert len(state.rounds_done) == state.config.rounds
    else:
        assert len(state.rounds_done) == state.round - 1
        assert state.decision in (TURN, PICK_GOLD, STEAL)
        if state.decision == TURN:
            assert state.hands[state.to_move], "the seat to move holds cards"
        if state.decision == PICK_GOLD:
            assert state.offer and len(set(state.offer)) > 1
        if state.decision == STEAL:
            assert state.thieves and state.thieves[0] == state.to_move
    # Snapshots: JSON-serialisable and exact round trips.
    data = state.to_json()
    text = json.dumps(data, sort_keys=True)
    assert json.loads(text) == data
    again = State.from_json(json.loads(text))
    assert again == state
    assert again.to_json() == data


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.parametrize("ruleset", RULESETS)
@settings(deadline=None, phases=NO_SHRINK)
@given(data=st.data())
def test_invariants_hold_after_every_move(ruleset, data):
    spec = data.draw(game_specs(ruleset=ruleset))
    rng = random.Random(data.draw(rng_seeds))
    state = spec.build()
    check_invariants(state, None, 0)
    log = []
    history = {"previous": state.clone(), "midpoint": None}
    midpoint = rng.randint(1, 150)

    def on_move(after, seat, move, events):
        log.append((seat, move))
        for event in events:
            assert event["to"] is None or event["to"] in after.seats, event
            if event["to"] is None:
                # Public events name no drawn, discarded or peeked card, role or gold value
                # (roles and gold only once public: at round end and game end).
                assert not {"cards", "role", "value"} & set(event), event
                if "card" in event:
                    assert event["kind"] in ("placed", "action", "goal-revealed"), event
            hypothesis.event(f"event {event['kind']} to {'all' if event['to'] is None else 'one'}")
        json.dumps(events)
        check_invariants(after, history["previous"], len(log))
        if move["move"] == "steal" and move["victim"] is not None:
            thief, victim = after.seat_index(seat), after.seat_index(move["victim"])
            change = [a - b for a, b in zip(after.gold, history["previous"].gold, strict=True)]
            gained = gained_so_far(after) - gained_so_far(history["previous"])
            if gained == 0:  # the steal is the last decision of the round when nothing else moved
                expected = [0] * len(change)
                expected[thief], expected[victim] = 1, -1
                assert change == expected
        history["previous"] = after.clone()
        if len(log) == midpoint:
            history["midpoint"] = (after.clone(), list(log))

    play(state, rng, eager=rng.random() < 0.6, on_move=on_move)
    assert state.finished
    for seat in state.seats:
        assert legal_moves(state, seat) == []
    # Replaying the moves from the seeds rebuilds the snapshot, at the end and at a midpoint.
    assert replay(state.config, log) == state
    assert replay(State.from_json(state.to_json()).config, log).to_json() == state.to_json()
    if history["midpoint"] is not None:
        snapshot, prefix = history["midpoint"]
        assert replay(state.config, prefix) == snapshot


# -- 3. Views leak nothing -----------------------------------------------------------------------
#
# Each edit changes, on a clone, only what ``me`` may not know (docs/rules.md 8); ``me`` None is a
# spectator, for whom every seat is "another seat". An edit returns False when it does not apply.


def others(state: State, me: int | None) -> list[int]:
    return [i for i in range(len(state.seats)) if i != me]


def running(state: State) -> bool:
    """The round is under way: its roles, goals and seed are still secret."""
    return not state.finished and state.decision == TURN


def edit_hand_with_pile(state, me, rng):
    """Swap a card of another hand with a card of the pile (hand sizes and deck kept)."""
    holders = [i for i in others(state, me) if state.hands[i]]
    if not holders or not state.pile:
        return False
    i = rng.choice(holders)
    a, b = rng.randrange(len(state.hands[i])), rng.randrange(len(state.pile))
    state.hands[i][a], state.pile[b] = state.pile[b], state.hands[i][a]
    rng.shuffle(state.hands[i])
    return True


def edit_hands_between_others(state, me, rng):
    holders = [i for i in others(state, me) if state.hands[i]]
    if len(holders) < 2:
        return False
    i, j = rng.sample(holders, 2)
    a, b = rng.randrange(len(state.hands[i])), rng.randrange(len(state.hands[j]))
    state.hands[i][a], state.hands[j][b] = state.hands[j][b], state.hands[i][a]
    return True


def edit_pile_order(state, me, rng):
    if len(set(state.pile)) < 2:
        return False
    rng.shuffle(state.pile)
    return True


def edit_discard_and_removed(state, me, rng):
    """Face-down discards and the 10 removed cards: swap one with a pile card."""
    if not state.pile or not (state.discard or state.removed):
        return False
    lst = rng.choice([x for x in (state.discard, state.removed) if x])
    a, b = rng.randrange(len(lst)), rng.randrange(len(state.pile))
    lst[a], state.pile[b] = state.pile[b], lst[a]
    return True


def edit_roles(state, me, rng):
    """Permute the roles of the other seats (and move the greedy dwarf among them)."""
    if not running(state):
        return False
    seats = others(state, me)
    roles = [state.roles[i] for i in seats]
    rng.shuffle(roles)
    for i, role in zip(seats, roles, strict=True):
        state.roles[i] = role
    if state.greedy is not None and state.greedy != me:
        diggers = [i for i in seats if state.roles[i] == GOLD_DIGGER]
        state.greedy = rng.choice(diggers) if diggers else None
    return True


def edit_set_aside(state, me, rng):
    """Exchange a set-aside (or swapped-away) dwarf card with another seat's role, or reorder."""
    if not running(state) or not (state.set_aside or state.role_discards):
        return False
    pool = rng.choice([x for x in (state.set_aside, state.role_discards) if x])
    if rng.random() < 0.5 and len(set(pool)) > 1:
        rng.shuffle(pool)
        return True
    i = rng.choice(others(state, me))
    a = rng.randrange(len(pool))
    pool[a], state.roles[i] = state.roles[i], pool[a]
    if state.greedy == i and state.roles[i] != GOLD_DIGGER:
        state.greedy = None
    return True


def edit_goals(state, me, rng):
    """Swap the cards of two face-down goals that ``me`` has not peeked."""
    if not running(state):
        return False
    seen = state.peeks[me] if me is not None else {}
    names = [
        name for name, pos in state.goals.items() if state.board[pos].face_down and name not in seen
    ]
    if len(names) < 2:
        return False
    a, b = rng.sample(names, 2)
    pa, pb = state.board[state.goals[a]], state.board[state.goals[b]]
    pa.card, pb.card = pb.card, pa.card
    for peeks in state.peeks:  # keep the other seats' maps truthful
        for name in (a, b):
            if name in peeks:
                peeks[name] = state.board[state.goals[name]].card
    return True


def edit_gold(state, me, rng):
    """Other seats' gold totals: secret in base; in saboteur2 only "has gold" is public."""
    if state.finished:
        return False
    for i in others(state, me):
        if state.ruleset == "base":
            state.gold[i] = rng.randint(0, 30)
        elif state.gold[i] > 0:
            state.gold[i] = rng.randint(1, 30)
    return True


def edit_knowledge(state, me, rng):
    """Other seats' map peeks and inspections."""
    for i in others(state, me):
        state.peeks[i] = {name: rng.choice(GOAL_CARDS) for name in GOAL_NAMES if rng.random() < 0.5}
        state.inspections[i] = {
            state.seats[j]: rng.choice(sorted(role_deck(state)))
            for j in range(len(state.seats))
            if j != i and rng.random() < 0.3
        }
    return True


def edit_offer(state, me, rng):
    """The gold cards offered to another picker (only their count is public)."""
    if state.decision != PICK_GOLD or state.to_move == me:
        return False
    state.offer = [rng.choice((1, 2, 3)) for _ in state.offer]
    return True


def edit_future_seeds(state, me, rng):
    """Seeds of later rounds: nobody knows them yet."""
    seeds = list(state.config.round_seeds)
    if len(seeds) <= state.round:
        return False
    for r in range(state.round, len(seeds)):
        seeds[r] = f"{rng.getrandbits(64):016x}"
    state.config = dataclasses.replace(state.config, round_seeds=seeds)
    return True


SECRET_EDITS = (
    edit_hand_with_pile,
    edit_hands_between_others,
    edit_pile_order,
    edit_discard_and_removed,
    edit_roles,
    edit_set_aside,
    edit_goals,
    edit_gold,
    edit_knowledge,
    edit_offer,
    edit_future_seeds,
)


def check_views(state: State, rng: random.Random) -> None:
    seats = state.seats
    viewers = [None, *rng.sample(range(len(seats)), min(3, len(seats)))]
    if state.to_move is not None and state.to_move not in viewers:
        viewers.append(state.to_move)
    for me in viewers:
        name = seats[me] if me is not None else None
        view = view_for(state, name)
        json.dumps(view)
        if me is None:
            assert view["me"] is None
        else:
            assert view["me"]["seat"] == name
            assert Counter(view["me"]["hand"]) == Counter(state.hands[me])
            assert view["me"]["role"] == state.roles[me]
        # Each edit alone (to name the leak), then all of them at once.
        twin_all = state.clone()
        for edit in SECRET_EDITS:
            twin = state.clone()
            if edit(twin, me, rng):
                assert view_for(twin, name) == view, f"{edit.__name__} shows to {name}"
                edit(twin_all, me, rng)
        assert view_for(twin_all, name) == view
        # The round's seed: only its hash is public while the round runs.
        if not state.finished:
            twin = state.clone()
            seeds = list(state.config.round_seeds)
            seeds[state.round - 1] = f"{rng.getrandbits(64):016x}"
            twin.config = dataclasses.replace(state.config, round_seeds=seeds)
            other = view_for(twin, name)
            assert other["seed_hash"] == seed_hash(seeds[state.round - 1]) != view["seed_hash"]
            assert without_seed_hash(other) == without_seed_hash(view)
    # A seat's view is the public view plus its own "me" part and its own gains.
    public = strip_private(view_for(state, None))
    for name in seats:
        assert strip_private(view_for(state, name)) == public


def without_seed_hash(view: dict) -> dict:
    """The view less the running round's seed hash (also in a round that ended but whose gold
    is still being shared)."""
    view = {**view, "seed_hash": None}
    if view["round_ending"] is not None:
        view["round_ending"] = {**view["round_ending"], "seed_hash": None}
    return view


def strip_private(view: dict) -> dict:
    view = {**view, "me": None}
    view["rounds_done"] = [{**r, "gained": None} for r in view["rounds_done"]]
    if view["round_ending"] is not None:
        view["round_ending"] = {**view["round_ending"], "gained": None}
    return view


def check_tokens(state: State) -> None:
    """No role, face-down goal card or round seed that a viewer may not know appears in the text
    of their view (round 1 only, until it ends: an ended round publishes its roles and goals)."""
    if state.rounds_done or state.round != 1 or state.result is not None:
        return
    hidden_goals = {
        state.board[pos].card for pos in state.goals.values() if state.board[pos].face_down
    }
    shown_goals = {
        state.board[pos].card for pos in state.goals.values() if not state.board[pos].face_down
    }
    seed = state.config.round_seeds[0]
    for me in [None, *range(len(state.seats))]:
        text = json.dumps(view_for(state, state.seats[me] if me is not None else None))
        known_roles = set()
        known_goals = set(shown_goals)
        if me is not None:
            known_roles = {state.roles[me], *state.inspections[me].values()}
            known_goals |= set(state.peeks[me].values())
        for role in role_deck(state):
            if role not in known_roles:
                assert f'"{role}"' not in text, (role, me)
        for card in hidden_goals - known_goals:
            assert f'"{card}"' not in text, (card, me)
        assert seed not in text


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(deadline=None, phases=NO_SHRINK)
@given(data=st.data())
def test_views_leak_nothing(ruleset, data):
    spec = data.draw(game_specs(ruleset=ruleset, rounds=data.draw(st.sampled_from((1, 2)))))
    rng = random.Random(data.draw(rng_seeds))
    state = spec.build()
    eager = rng.random() < 0.6
    check_views(state, rng)
    check_tokens(state)
    while not state.finished:
        apply_in_place(state, *choose_move(state, rng, eager))
        if state.decision != TURN or rng.random() < 0.08:
            check_views(state, rng)
        check_tokens(state)
    check_views(state, rng)


# -- Saboteur 2's private effects ----------------------------------------------------------------

PRIVATE_CARDS = ("swap-hats", "inspection", "swap-hand")


def check_private_effect(before: State, seat: str, move: dict, after: State, events) -> None:
    names = before.seats
    m = before.seat_index(seat)
    t = before.seat_index(move["target"])
    card = move["card"]
    views = {name: view_for(after, name) for name in names}
    if card == "swap-hats":
        new_role = before.set_aside[0] if before.set_aside else before.roles[t]
        assert after.roles[t] == new_role
        assert views[names[t]]["me"]["role"] == new_role
        # Nobody else can tell which role the target took: put the old one back, same views.
        twin = after.clone()
        twin.roles[t] = before.roles[t]
        twin.set_aside, twin.role_discards = list(before.set_aside), list(before.role_discards)
        for i, name in enumerate(names):
            if i != t:
                assert view_for(twin, name) == views[name], name
                assert views[name]["me"]["role"] == before.roles[i]
    elif card == "inspection":
        assert views[seat]["me"]["inspections"][names[t]] == before.roles[t]
        twin = after.clone()
        twin.inspections[m] = dict(before.inspections[m])
        for name in names:
            if name != seat:
                assert view_for(twin, name) == views[name], name
    elif card == "swap-hand":
        old_mover_hand = list(before.hands[m])
        old_mover_hand.remove("swap-hand")
        drawn = before.pile[:1]
        assert Counter(views[seat]["me"]["hand"]) == Counter(before.hands[t])
        assert Counter(views[names[t]]["me"]["hand"]) == Counter(old_mover_hand + drawn)
        # Anyone else sees sizes only: another content of the same sizes gives the same view.
        twin = after.clone()
        pool = twin.hands[m] + twin.hands[t] + twin.pile
        random.Random(len(pool)).shuffle(pool)
        sizes = len(twin.hands[m]), len(twin.hands[t])
        twin.hands[m], twin.hands[t] = pool[: sizes[0]], pool[sizes[0] : sum(sizes)]
        twin.pile = pool[sum(sizes) :]
        for i, name in enumerate(names):
            if i not in (m, t):
                assert view_for(twin, name) == views[name], name
                players = views[name]["players"]
                assert players[m]["hand_size"] == len(after.hands[m])
                assert players[t]["hand_size"] == len(after.hands[t])
    # Events: the private detail goes to its one seat; the public ones carry no role or hand.
    private = {"swap-hats": "new-role", "inspection": "inspected", "swap-hand": "hand-received"}
    details = [e for e in events if e["kind"] == private[card]]
    assert details
    for event in events:
        if event["to"] is None:
            assert "role" not in event and "cards" not in event, event
    for event in details:
        expected = {"new-role": names[t], "inspected": seat}.get(event["kind"])
        assert event["to"] in ((expected,) if expected else (seat, names[t])), event


@settings(deadline=None, phases=NO_SHRINK)
@given(spec=game_specs(ruleset="saboteur2", rounds=1), seed=rng_seeds)
def test_saboteur2_private_effects(spec, seed):
    rng = random.Random(seed)
    state = spec.build()
    while not state.finished:
        seat = mover(state)
        moves = legal_moves(state, seat)
        private = [m for m in moves if m.get("card") in PRIVATE_CARDS]
        if private and rng.random() < 0.8:
            move = rng.choice(private)
            after, events = apply(state, seat, move)
            check_private_effect(state, seat, move, after, events)
            hypothesis.event(move["card"])
            state = after
        else:
            apply_in_place(state, *choose_move(state, rng, eager=rng.random() < 0.5))
