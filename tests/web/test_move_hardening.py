"""Bad input changes nothing: forged posts, every move kind out of turn, in the wrong phase, in a
finished game and from outside the table (docs/architecture.md, "The move pipeline")."""

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from games import engine
from games.engine.cards import CATALOGUE
from games.models import Game, Move, Notice
from games.play.lobby import game_create, game_start, seat_join
from tests.conftest import scaled_examples

HTMX = {"HX-Request": "true"}
FIELDS = ("kind", "card", "at", "turned", "target", "tool", "goal", "remove", "value", "victim")
KINDS = ["place", "action", "pass", "clear", "pick-gold", "steal"]


def make_game(users, ruleset="base"):
    game = game_create(creator=users[0], name="Forge", ruleset=ruleset, max_seats=len(users))
    for user in users[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=users[0])


def snapshot_of(game):
    fresh = Game.objects.get(pk=game.pk)
    return fresh.version, fresh.snapshot, Move.objects.count(), Notice.objects.count()


junk_text = st.one_of(
    st.sampled_from(sorted(CATALOGUE) + ["", "0", "1", "2", "99", "-1", "north", "cart"]),
    st.text(max_size=12),
)
forged = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.one_of(st.sampled_from(KINDS), junk_text),
        "card": junk_text,
        "at": st.one_of(
            st.builds(lambda x, y: f"{x},{y}", st.integers(-20, 20), st.integers(-20, 20)),
            junk_text,
        ),
        "turned": st.sampled_from(["on", "", "1", "yes"]),
        "target": junk_text,
        "tool": junk_text,
        "goal": junk_text,
        "remove": junk_text,
        "value": st.one_of(st.integers(-3, 12).map(str), junk_text),
        "victim": junk_text,
        "discard": st.lists(st.one_of(st.integers(-2, 9).map(str), junk_text), max_size=4),
        "version": st.one_of(st.integers(-1, 3).map(str), junk_text),
    },
)


class ForgedPosts(TestCase):
    @classmethod
    def setUpTestData(cls):
        from django.contrib.auth import get_user_model

        User = get_user_model()
        cls.users = [
            User.objects.create_user(
                username=n, email=f"{n}@example.com", display_name=n, password="x"
            )
            for n in ("ann", "bob", "cid", "dan")
        ]
        cls.game = make_game(cls.users)

    # One request per example and the junk is wide: twice a game-sized property's count.
    @settings(
        max_examples=scaled_examples(2),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=forged)
    def test_junk_is_refused_with_a_reason_and_changes_nothing(self, data):
        game = Game.objects.get(pk=self.game.pk)
        mover = game.seats.get(position=game.to_move).user
        client = Client()
        client.force_login(mover)
        before = snapshot_of(game)
        with transaction.atomic():
            response = client.post(reverse("move", args=[game.pk]), data, headers=HTMX)
            assert response.status_code in (200, 400, 409, 422)
            if response.status_code == 200:
                # The junk happened to be a legal move: the engine accepted it. Undo it.
                transaction.set_rollback(True)
                return
        if response.status_code == 400:  # a NUL byte: refused before any view runs
            assert "characters the site cannot accept" in response.content.decode()
        else:
            assert 'role="alert"' in response.content.decode()
        assert snapshot_of(game) == before


@pytest.fixture
def users(make_user):
    return [make_user(n) for n in ("ann", "bob", "cid", "dan", "eve")]


def _sample_moves(state, seat):
    """One move of every kind, built from the mover's own hand where it matters."""
    hand = sorted(state.hands[state.seat_index(seat)]) if state.seat_index(seat) is not None else []
    card = hand[0] if hand else "cross"
    return {
        "place": {"kind": "place", "card": card, "at": "1,0"},
        "action": {"kind": "action", "card": card, "target": "0"},
        "pass": {"kind": "pass", "discard": ["0"]},
        "clear": {"kind": "clear", "discard": ["0", "1"], "remove": "trapped"},
        "pick-gold": {"kind": "pick-gold", "value": "1"},
        "steal": {"kind": "steal", "victim": "0"},
    }


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("who", ["out-of-turn", "outsider", "anonymous"])
def test_every_move_kind_from_the_wrong_person_changes_nothing(users, kind, who):
    game = make_game(users[:4], ruleset="saboteur2")
    state = engine.State.from_json(game.snapshot)
    waiting = game.seats.exclude(position=game.to_move).first()
    client = Client()
    if who == "out-of-turn":
        client.force_login(waiting.user)
    elif who == "outsider":
        client.force_login(users[4])
    data = {"version": game.version, **_sample_moves(state, waiting.engine_name)[kind]}
    before = snapshot_of(game)
    response = client.post(reverse("move", args=[game.pk]), data, headers=HTMX)
    expected = {"out-of-turn": (422,), "outsider": (403, 422), "anonymous": (302,)}[who]
    assert response.status_code in expected
    assert snapshot_of(game) == before


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_every_move_kind_in_the_wrong_phase_or_a_finished_game_changes_nothing(users, kind):
    game = make_game(users[:3])
    seat = game.seats.get(position=game.to_move)
    state = engine.State.from_json(game.snapshot)
    client = Client()
    client.force_login(seat.user)
    url = reverse("move", args=[game.pk])
    data = {"version": game.version, **_sample_moves(state, seat.engine_name)[kind]}
    if kind in ("pick-gold", "steal", "clear"):
        # Wrong phase (no gold pick or steal is pending) or not a base-game move at all.
        before = snapshot_of(game)
        assert client.post(url, data, headers=HTMX).status_code == 422
        assert snapshot_of(game) == before
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    before = snapshot_of(game)
    response = client.post(url, data, headers=HTMX)
    assert response.status_code == 422
    assert snapshot_of(game) == before
