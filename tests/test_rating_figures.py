"""The rating figures of games/play/rating_maths.py, pinned against values worked out by hand
from openskill's Plackett-Luce model (issue 41). Pure Python: no database.

For two teams, a winner W and a loser L (Weng and Lin 2011, algorithm 4, as openskill 6 has
it, with gamma = sigma_team / c): each player enters their team with mu/k and
sqrt(sigma^2 + tau^2)/k (k: the team's size; docs/ratings.md), the team has the sum of its
players' mus and variances, c^2 = var(W) + var(L) + 2 beta^2, p = e^(mu_W/c) /
(e^(mu_W/c) + e^(mu_L/c)) and q = 1 - p. Then the winner's team gains omega = q var(W) / c and
the loser's loses omega = q var(L) / c (p for the loser in openskill's sum is e^(mu_L/c) over the
same total, q); each player's mu moves by (their variance / the team's) * omega, their sigma
shrinks by sqrt(1 - (their variance / the team's) * delta), with delta = p q var / c^2 *
sqrt(var) / c. The player leaves the team scaled back by k.
"""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce

from games import engine
from games.bots import choose_move
from games.engine.cards import BLUE, BOSS, GEOLOGIST, GOLD_DIGGER, GREEN, PROFITEER, SABOTEUR
from games.play import rating_maths as maths

MU, SIGMA = 25.0, 25.0 / 3
BETA, TAU = SIGMA / 2, 25.0 / 300


def by_hand(winners: list[tuple[float, float]], losers: list[tuple[float, float]]):
    """New (mu, sigma) of every player of a two-team round, from the formulas above."""
    teams = []
    for team in (winners, losers):
        k = len(team)
        teams.append([(mu / k, math.sqrt(sigma**2 + TAU**2) / k) for mu, sigma in team])
    mu_w, mu_l = (sum(mu for mu, _ in team) for team in teams)
    var_w, var_l = (sum(sigma**2 for _, sigma in team) for team in teams)
    c = math.sqrt(var_w + var_l + 2 * BETA**2)
    p = math.exp(mu_w / c) / (math.exp(mu_w / c) + math.exp(mu_l / c))
    q = 1 - p
    out = []
    for team, var, sign in ((teams[0], var_w, 1), (teams[1], var_l, -1)):
        omega = sign * q * var / c
        delta = p * q * var / c**2 * math.sqrt(var) / c
        k = len(team)
        out.append(
            [
                (
                    (mu + sigma**2 / var * omega) * k,
                    sigma * math.sqrt(max(1 - sigma**2 / var * delta, 0.0001)) * k,
                )
                for mu, sigma in team
            ]
        )
    return out


def match(*players: tuple[int, str, bool], ruleset="base", rated=None) -> maths.Match:
    """A rated round of (user, role, won), seated in that order."""
    rated = rated or {}
    return maths.Match(
        key=1,
        game=1,
        number=1,
        ruleset=ruleset,
        players=tuple(
            maths.Player(i, user, rated.get(user, True), role, won)
            for i, (user, role, won) in enumerate(players)
        ),
    )


def close(got: dict, want: dict) -> bool:
    assert set(got) == set(want)
    for key, (mu, sigma) in want.items():
        assert got[key] == pytest.approx((mu, sigma), rel=1e-12, abs=1e-12), key
    return True


def test_the_model_is_openskills_plackett_luce_with_the_documented_constants():
    assert (maths.MU, maths.SIGMA, maths.BETA, maths.TAU) == (MU, SIGMA, BETA, TAU)
    assert maths.DEFAULT == (MU, SIGMA)
    assert maths.conservative(30.0, 2.0) == 24.0


def test_a_first_round_of_three_diggers_and_a_saboteur():
    """Everyone new; the diggers win. The figures, to the last digit, and as numbers."""
    (diggers, (saboteur,)) = by_hand([(MU, SIGMA)] * 3, [(MU, SIGMA)])
    round_ = match((1, GOLD_DIGGER, True), (2, GOLD_DIGGER, True), (3, SABOTEUR, False),
                   (4, GOLD_DIGGER, True))  # fmt: skip
    new = maths.updated(round_, {})
    want = {(u, "all"): diggers[0] for u in (1, 2, 4)} | {(3, "all"): saboteur}
    want |= {(u, "digger"): diggers[0] for u in (1, 2, 4)} | {(3, "saboteur"): saboteur}
    assert close(new, want)
    # Worked out on paper: var(W) = (sigma^2 + tau^2) / 3 = 23.1505, var(L) = 69.4514,
    # c = sqrt(23.1505 + 69.4514 + 34.7222) = 11.2838, p = q = 1/2 (equal means). The saboteur
    # loses q var(L) / c = 3.0775 points, each digger gains a third of that (they decided a
    # third of it); delta(L) = 0.100715, delta(W) = 0.019383 (a third of it per digger).
    assert saboteur == pytest.approx((25 - 3.0775, 8.33375 * math.sqrt(1 - 0.100715)), abs=1e-4)
    assert diggers[0] == pytest.approx(
        (25 + 1.02581, 8.33375 * math.sqrt(1 - 0.019383 / 3)), abs=1e-4
    )


def test_every_prior_rating_counts_and_each_kind_keeps_its_own():
    """Round after round, the figures of the round before go in: the overall ratings from the
    overall ones, the digger and saboteur ratings from the rating of the role played."""
    ratings: dict[tuple[int, str], tuple[float, float]] = {}
    rounds = [
        # (user, role, won): a saboteur who wins, then loses, then digs.
        [(1, GOLD_DIGGER, False), (2, GOLD_DIGGER, False), (3, SABOTEUR, True)],
        [(1, SABOTEUR, False), (2, GOLD_DIGGER, True), (3, GOLD_DIGGER, True)],
        [(1, GOLD_DIGGER, True), (2, SABOTEUR, False), (3, GOLD_DIGGER, True)],
    ]
    for players in rounds:
        kind = {user: "digger" if role == GOLD_DIGGER else "saboteur" for user, role, _ in players}
        winners = [u for u, _, won in players if won]
        losers = [u for u, _, won in players if not won]

        def prior(user, what, table=ratings):
            return table.get((user, what), (MU, SIGMA))

        overall = by_hand([prior(u, "all") for u in winners], [prior(u, "all") for u in losers])
        role = by_hand([prior(u, kind[u]) for u in winners], [prior(u, kind[u]) for u in losers])
        want = {}
        for users, all_pairs, role_pairs in zip((winners, losers), overall, role, strict=True):
            for user, pair, role_pair in zip(users, all_pairs, role_pairs, strict=True):
                want[(user, "all")] = pair
                want[(user, kind[user])] = role_pair
        new = maths.updated(match(*players), ratings)
        assert close(new, want)
        ratings |= new
    # Three rounds on: the saboteur of round 1 won as a saboteur, lost as one, then won digging.
    assert set(ratings) == {(u, k) for u in (1, 2, 3) for k in ("all", "digger", "saboteur")}
    assert ratings[(3, "saboteur")][0] > MU > ratings[(1, "saboteur")][0]
    # Sigma only shrinks over rounds in which one plays, by less than it would without tau.
    assert all(sigma < SIGMA for _, sigma in ratings.values())


def test_a_strong_loser_loses_more_than_a_new_one():
    """The priors decide how much a round moves: an upset costs a favourite more."""
    favourite = {(1, "all"): (35.0, 3.0), (1, "saboteur"): (35.0, 3.0)}
    round_ = match((1, SABOTEUR, False), (2, GOLD_DIGGER, True), (3, GOLD_DIGGER, True))
    upset = maths.updated(round_, favourite)
    plain = maths.updated(round_, {})
    (_, (fav,)) = by_hand([(MU, SIGMA)] * 2, [(35.0, 3.0)])
    assert upset[(1, "all")] == pytest.approx(fav, rel=1e-12)
    assert upset[(1, "saboteur")] == pytest.approx(fav, rel=1e-12)
    assert 35.0 - upset[(1, "all")][0] != pytest.approx(MU - plain[(1, "all")][0])
    # The diggers' role ratings start from their digger figure, not from the saboteur's.
    diggers = by_hand([(MU, SIGMA)] * 2, [(35.0, 3.0)])[0]
    assert upset[(2, "digger")] == pytest.approx(diggers[0], rel=1e-12)


def test_an_unrated_player_counts_with_their_rating_but_keeps_it():
    ratings = {(9, "all"): (30.0, 4.0), (9, "digger"): (28.0, 5.0)}
    round_ = match(
        (1, GOLD_DIGGER, True), (9, GOLD_DIGGER, True), (3, SABOTEUR, False), rated={9: False}
    )
    new = maths.updated(round_, ratings)
    overall = by_hand([(MU, SIGMA), (30.0, 4.0)], [(MU, SIGMA)])
    role = by_hand([(MU, SIGMA), (28.0, 5.0)], [(MU, SIGMA)])
    assert close(
        new,
        {
            (1, "all"): overall[0][0],
            (3, "all"): overall[1][0],
            (1, "digger"): role[0][0],
            (3, "saboteur"): role[1][0],
        },
    )


def test_a_seat_nobody_holds_plays_at_the_default_rating():
    """A position whose user is unknown (None) stands at the default whatever the table says."""
    ratings = {(None, "all"): (40.0, 1.0), (1, "all"): (20.0, 6.0)}
    round_ = match((1, SABOTEUR, True), (None, GOLD_DIGGER, False), rated={None: False})
    new = maths.updated(round_, ratings)
    overall = by_hand([(20.0, 6.0)], [(MU, SIGMA)])
    role = by_hand([(MU, SIGMA)], [(MU, SIGMA)])
    assert close(new, {(1, "all"): overall[0][0], (1, "saboteur"): role[0][0]})


def test_saboteur2_stakes_make_several_teams_ranked_by_outcome():
    """Blue diggers won; green diggers, the boss and the saboteur lost; a geologist paid by the
    crystals won too. Teams: one per stake and outcome, winners ranked first, each player at
    1/k of a team of k, rated with openskill's own model (ties among the winners and among the
    losers as openskill shares them)."""
    players = [
        (1, BLUE, True),
        (2, BLUE, True),
        (3, GREEN, False),
        (4, BOSS, False),
        (5, SABOTEUR, False),
        (6, GEOLOGIST, True),
        (7, PROFITEER, False),
    ]
    ratings = {(1, "all"): (27.0, 7.0), (3, "digger"): (22.0, 6.5), (4, "all"): (31.0, 5.0)}
    new = maths.updated(match(*players, ruleset="saboteur2"), ratings)
    model = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)

    def rate(kinds):
        # Teams in the order of (lost, stake): won first, then by stake name.
        order = [
            [p for p in players if p[2]and p[1] == BLUE],
            [p for p in players if p[2] and p[1] == GEOLOGIST],
            [p for p in players if not p[2] and p[1] == BOSS],
            [p for p in players if not p[2] and p[1] == GREEN],
            [p for p in players if not p[2] and p[1] == PROFITEER],
            [p for p in players if not p[2] and p[1] == SABOTEUR],
        ]  # fmt: skip
        teams = []
        for team in order:
            k = len(team)
            teams.append(
                [
                    model.rating(
                        mu=ratings.get((u, kinds(role)), (MU, SIGMA))[0] / k,
                        sigma=math.sqrt(ratings.get((u, kinds(role)), (MU, SIGMA))[1] ** 2
                                        + TAU**2) / k,
                    )
                    for u, role, _ in team
                ]
            )  # fmt: skip
        out = model.rate(teams, ranks=[0, 0, 1, 1, 1, 1])
        return {
            u: (r.mu * len(team), r.sigma * len(team))
            for team, rated in zip(order, out, strict=True)
            for (u, _, _), r in zip(team, rated, strict=True)
        }

    overall = rate(lambda role: "all")
    by_role = rate(lambda role: maths.kind_of(role) or "all")
    want = {(u, "all"): pair for u, pair in overall.items()}
    want |= {(u, "digger"): by_role[u] for u in (1, 2, 3)} | {(5, "saboteur"): by_role[5]}
    assert close(new, want)


def test_roles_stakes_and_who_won():
    assert [maths.kind_of(r) for r in (GOLD_DIGGER, BLUE, GREEN, SABOTEUR)] == [
        "digger",
        "digger",
        "digger",
        "saboteur",
    ]
    assert [maths.kind_of(r) for r in (BOSS, PROFITEER, GEOLOGIST)] == [None, None, None]
    result = {"winners": ["1"], "gained": {"2": 3, "3": 0, "5": 1}}
    assert maths.won(result, "1", GOLD_DIGGER) and not maths.won(result, "2", GOLD_DIGGER)
    assert maths.won(result, "2", GEOLOGIST) and not maths.won(result, "3", GEOLOGIST)
    assert maths.won(result, "5", GEOLOGIST)  # one crystal is a win
    assert not maths.won({"winners": ["4"]}, "4", GEOLOGIST)  # crystals, not the winners
    assert maths.Player(0, 1, True, GEOLOGIST, True).stake == "geologist"
    assert match((1, SABOTEUR, True), (2, GOLD_DIGGER, False), rated={2: False}).rated_users == [1]


# -- Which rounds count, from a game's stored moves (game_matches) ----------------------------


def played(ruleset="base", players=4, rounds=2, seed="r"):
    """A game between bots (the engine's seats "0", "1"...): its config and its moves, each
    as (position, move), and the index of the move that completed each round."""
    state = engine.new_game(
        ruleset=ruleset,
        seats=[str(p) for p in range(players)],
        round_seeds=[f"{seed}{r}" for r in range(rounds)],
        rounds=rounds,
    )
    config, rng, moves, completing = state.config, random.Random(seed), [], []
    while not state.finished:
        name = state.seats[state.to_move]
        move = choose_move(engine.view_for(state, name), engine.legal_moves(state, name), rng)
        done = len(state.rounds_done)
        state, _ = engine.apply(state, name, move)
        moves.append((int(name), move))
        if len(state.rounds_done) > done:
            completing.append(len(moves) - 1)
    return config, moves, completing, state.rounds_done


def rows(moves, seat_of=lambda index, position: position + 100, stand_in=()):
    return [
        maths.MoveRow(id=index + 1, seat=seat_of(index, position), stand_in=index in stand_in,
                      payload=move, at=f"t{index}")
        for index, (position, move) in enumerate(moves)
    ]  # fmt: skip


def seats(players, users=None, bots=()):
    users = users or {p: p + 10 for p in range(players)}
    return {
        p + 100: maths.SeatRow(id=p + 100, position=p, user=users[p], bot=p in bots)
        for p in range(players)
    }


def expected(results, completing, users, rated=lambda position, number: True, ruleset="base"):
    """The matches the rounds make: each with its roles and outcomes, unless nobody lost or
    nobody won."""
    matches = []
    for number, (result, index) in enumerate(zip(results, completing, strict=True), start=1):
        players = tuple(
            maths.Player(
                int(name),
                users.get(int(name)),
                users.get(int(name)) is not None and rated(int(name), number),
                role,
                maths.won(result, name, role),
            )
            for name, role in sorted(result["roles"].items(), key=lambda item: int(item[0]))
        )
        if len({p.won for p in players}) == 2:
            matches.append(maths.Match(index + 1, 7, number, ruleset, players, f"t{index}"))
    return matches


@pytest.mark.parametrize(("ruleset", "players", "seed"), [("base", 4, "c"), ("saboteur2", 5, "b")])
def test_each_round_with_a_winner_and_a_loser_is_a_match_of_its_roles(ruleset, players, seed):
    config, moves, completing, results = played(ruleset, players, rounds=3, seed=seed)
    users = {p: p + 10 for p in range(players)}
    matches = maths.game_matches(
        game=7, config=config, seats=seats(players, users), moves=rows(moves)
    )
    want = expected(results, completing, users, ruleset=ruleset)
    assert matches == want and len(want) >= 2
    assert [m.rated_users for m in matches] == [sorted(users.values())] * len(want)


def test_a_round_a_bot_played_in_is_not_rated():
    config, moves, completing, results = played(seed="c")
    matches = maths.game_matches(game=7, config=config, seats=seats(4, bots={2}), moves=rows(moves))
    assert matches == []


def test_a_stand_ins_move_unrates_that_player_for_the_round_only():
    config, moves, completing, results = played(seed="d")
    users = {p: p + 10 for p in range(4)}
    # A stand-in made position 1's first move of round 2 (not the round's first move: position
    # 2 opens round 2 in this game; the next test puts a stand-in on that one).
    first_of_two = next(i for i in range(completing[0] + 1, len(moves)) if moves[i][0] == 1)
    assert first_of_two > completing[0] + 1
    matches = maths.game_matches(
        game=7, config=config, seats=seats(4, users), moves=rows(moves, stand_in={first_of_two})
    )
    want = expected(
        results, completing, users, rated=lambda position, number: (position, number) != (1, 2)
    )
    assert matches == want and [m.number for m in want] == [1, 2]


def test_a_stand_in_on_a_rounds_very_first_move_unrates_that_player_for_the_round():
    """The move right after the one that completed round 1 opens round 2: a stand-in's move
    there counts in round 2 (not in round 1, nor nowhere), so that position is not rated in
    round 2 (issue 51: no test put a stand-in on a later round's first move)."""
    config, moves, completing, results = played(seed="d")
    users = {p: p + 10 for p in range(4)}
    opening = completing[0] + 1  # round 2's very first move
    opener = moves[opening][0]
    matches = maths.game_matches(
        game=7, config=config, seats=seats(4, users), moves=rows(moves, stand_in={opening})
    )
    want = expected(
        results, completing, users, rated=lambda position, number: (position, number) != (opener, 2)
    )
    assert matches == want and [m.number for m in want] == [1, 2]
    assert all(p.rated for p in want[0].players)
    assert [p.position for p in want[1].players if not p.rated] == [opener]


def test_a_stand_in_in_the_first_round_leaves_the_next_rounds_alone():
    config, moves, completing, results = played(seed="d")
    users = {p: p + 10 for p in range(4)}
    first = moves[0][0]  # the game's very first move was a stand-in's
    matches = maths.game_matches(
        game=7, config=config, seats=seats(4, users), moves=rows(moves, stand_in={0})
    )
    want = expected(
        results, completing, users, rated=lambda position, number: (position, number) != (first, 1)
    )
    assert matches == want and [m.number for m in want] == [1, 2]
    assert [p.rated for p in want[0].players].count(False) == 1
    assert all(p.rated for p in want[1].players)


def test_a_player_in_two_seats_or_a_seat_taken_over_counts_as_nobody():
    config, moves, completing, results = played(seed="e")
    # Positions 0 and 3 are the same person: neither is anyone's rating.
    twice = {0: 10, 1: 11, 2: 12, 3: 10}
    matches = maths.game_matches(game=7, config=config, seats=seats(4, twice), moves=rows(moves))
    assert matches == expected(results, completing, {1: 11, 2: 12})
    # Position 2 changed hands in round 2 (a second seat id moved there): nobody's in that round.
    taken = {**seats(4), 200: maths.SeatRow(id=200, position=2, user=99, bot=False)}
    last_of_two = max(i for i in range(completing[0] + 1, completing[1] + 1) if moves[i][0] == 2)

    def seat_of(index, position):
        return 200 if index == last_of_two else position + 100

    matches = maths.game_matches(
        game=7, config=config, seats=taken, moves=rows(moves, seat_of=seat_of)
    )
    users = {p: p + 10 for p in range(4)}
    want = expected(results, completing, users)
    assert [m.number for m in matches] == [m.number for m in want]
    round_two = next(m for m in matches if m.number == 2)
    assert [p.user for p in round_two.players] == [10, 11, None, 13]
    assert [p.rated for p in round_two.players] == [True, True, False, True]


ROUTE = ["cross", "cross", "straight-ew", "straight-ew", "t-new", "t-new", "cross"]


def dug(ruleset, roles, route=ROUTE, set_aside=None):
    """A one-round rigged game: seat "0" digs the route to the treasure while "1" passes; "2"
    holds no card and never moves. Its config and moves as (position, move)."""
    deal = {
        "first": "0",
        "roles": roles,
        "hands": {"0": list(route), "1": ["map"], "2": []},
        "pile": ["map"] * 5,
        "treasure": "middle",
    }
    if set_aside is not None:
        deal["set_aside"] = set_aside
    state = engine.new_game(ruleset=ruleset, seats=["0", "1", "2"], round_seeds=["x"], rounds=1,
                            deals=[deal])  # fmt: skip
    config, moves = state.config, []
    for x, card in enumerate(route, start=1):
        if x > 1:
            moves.append((1, {"move": "pass", "discard": [state.hands[1][0]]}))
            state, _ = engine.apply(state, "1", moves[-1][1])
        moves.append((0, {"move": "place", "card": card, "at": [x, 0]}))
        state, _ = engine.apply(state, "0", moves[-1][1])
    while state.decision == "pick-gold":
        name = state.seats[state.to_move]
        moves.append((int(name), {"move": "pick-gold", "value": max(state.offer)}))
        state, _ = engine.apply(state, name, moves[-1][1])
    assert state.finished
    return config, moves, state.rounds_done[0]


def test_a_geologist_paid_by_a_crystal_won_and_a_seat_that_never_moved_is_nobodys():
    roles = {"0": "blue-digger", "1": "saboteur", "2": "geologist"}
    route = ["crystal-cross", *ROUTE[1:]]
    config, moves, result = dug("saboteur2", roles, route)
    assert result["gained"]["2"] == 1 and "2" not in result["winners"]
    (match,) = maths.game_matches(game=7, config=config, seats=seats(3), moves=rows(moves))
    assert match.players == (
        maths.Player(0, 10, True, "blue-digger", True),
        maths.Player(1, 11, True, "saboteur", False),
        maths.Player(2, None, False, "geologist", True),
    )


def test_a_round_everyone_won_teaches_nothing():
    roles = {"0": "gold-digger", "1": "gold-digger", "2": "gold-digger"}
    config, moves, result = dug("base", roles, set_aside=["saboteur"])
    assert sorted(result["winners"]) == ["0", "1", "2"]
    assert maths.game_matches(game=7, config=config, seats=seats(3), moves=rows(moves)) == []


def test_the_move_that_completes_a_round_belongs_to_that_round_alone():
    config, moves, completing, results = played(seed="d")
    users = {p: p + 10 for p in range(4)}
    last = completing[0]  # a stand-in completed round 1 (and made the move before it)
    stood_in = {moves[last][0], moves[last - 1][0]}
    matches = maths.game_matches(
        game=7, config=config, seats=seats(4, users), moves=rows(moves, stand_in={last - 1, last})
    )
    want = expected(
        results,
        completing,
        users,
        rated=lambda position, number: number != 1 or position not in stood_in,
    )
    assert matches == want and [m.number for m in want] == [1, 2]
    assert all(p.rated for p in want[1].players)
