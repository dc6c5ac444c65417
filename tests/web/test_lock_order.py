"""Lock order: moves, deadline sweeps, chat and moderators' actions at once never deadlock.

Every writer locks the Game row first; this runs them together on PostgreSQL and checks that
only the expected refusals happen and that every game's log stays whole.
"""

import random
import threading
import time
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from games import engine
from games.models import Game
from games.moderation import players, tables
from games.play import chat as play_chat
from games.play import errors as play_errors
from games.play import lobby as play_lobby
from games.play import moves as play_moves
from games.play import vacations as play_vacations
from games.tasks import sweep

pytestmark = pytest.mark.django_db(transaction=True)
SECONDS = 6


def _players(prefix):
    users = []
    for name in ("a", "b", "c"):
        user = get_user_model().objects.create_user(
            username=f"{prefix}{name}", email=f"{prefix}{name}@example.com",
            display_name=f"{prefix}{name}", password="x",
        )  # fmt: skip
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        users.append(user)
    return users


def _game(prefix, also=()):
    users = _players(prefix) + list(also)
    game = play_lobby.game_create(
        creator=users[0], name=prefix, ruleset="base", max_seats=len(users)
    )
    for user in users[1:]:
        play_lobby.seat_join(game_id=game.pk, user=user)
    return play_lobby.game_start(game_id=game.pk, user=users[0])


EXPECTED = (play_errors.ServiceError,)


def _mover(game_id, stop, errors, seed):
    rng = random.Random(seed)
    try:
        while not stop.is_set():
            game = Game.objects.get(pk=game_id)
            if game.status != Game.Status.RUNNING:
                time.sleep(0.01)
                continue
            seat = (
                game.seats.select_related("user")
                .exclude(state="replaced")
                .get(position=game.to_move)
            )
            state = engine.State.from_json(game.snapshot)
            moves = engine.legal_moves(state, seat.engine_name)
            if not moves:
                continue
            try:
                play_moves.move_submit(
                    game_id=game_id, user=seat.user, move=rng.choice(moves),
                    expected_version=game.version,
                )  # fmt: skip
                play_chat.chat_post(game_id=game_id, user=seat.user, text="next!")
            except EXPECTED:
                pass
    except Exception as error:  # noqa: BLE001 - any other error is the test's failure
        errors.append(repr(error))
    finally:
        connection.close()


def _sweeper(game_ids, stop, errors):
    try:
        while not stop.is_set():
            # Time runs out everywhere (one row per statement, as the site's own writers do:
            # a statement locking several game rows could itself deadlock with another one).
            for game_id in game_ids:
                Game.objects.filter(pk=game_id, status=Game.Status.RUNNING).update(
                    deadline=timezone.now() - timedelta(seconds=1)
                )
            sweep()
    except Exception as error:  # noqa: BLE001
        errors.append(repr(error))
    finally:
        connection.close()


def _moderator(game_ids, stop, errors):
    try:
        while not stop.is_set():
            for game_id in game_ids:
                try:
                    tables.game_pause(game_id=game_id)
                    tables.game_extend(game_id=game_id, hours=1)
                    tables.game_resume(game_id=game_id)
                except EXPECTED:
                    pass
    except Exception as error:  # noqa: BLE001
        errors.append(repr(error))
    finally:
        connection.close()


def _run_a_while(threads, stop) -> None:
    """Start the threads, let them work for SECONDS, then stop them and wait for them."""
    for thread in threads:
        thread.start()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)


def test_moves_sweeps_chat_and_moderation_at_once_never_deadlock():
    games = [_game(f"g{i}") for i in range(3)]
    ids = [g.pk for g in games]
    stop, errors = threading.Event(), []
    threads = [
        threading.Thread(target=_mover, args=(i, stop, errors, n)) for n, i in enumerate(ids)
    ]
    threads += [threading.Thread(target=_sweeper, args=(ids, stop, errors)) for _ in range(2)]
    threads.append(threading.Thread(target=_moderator, args=(ids, stop, errors)))
    _run_a_while(threads, stop)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    for game in Game.objects.filter(pk__in=ids):
        sequences = list(game.moves.order_by("sequence").values_list("sequence", flat=True))
        assert sequences == list(range(1, game.version + 1))
        state = engine.State.from_json(game.snapshot)
        moves = [(m.seat.engine_name, m.payload) for m in game.moves.select_related("seat")]
        assert engine.replay(state.config, moves) == state
    assert sum(g.version for g in Game.objects.filter(pk__in=ids)) > 0


def test_a_ban_racing_the_banned_players_invitation_never_deadlocks():
    """``invitation_send`` locks the game, then the inviter's row; a ban must lock the player's
    games before it writes anything that locks their row (the Ban's foreign key, is_active)."""
    mod, host, pal = _players("mod")
    for round_number in range(8):
        players.user_reactivate(user=pal)
        lobby = play_lobby.game_create(
            creator=host, name=f"Lobby {round_number}", ruleset="base", max_seats=5
        )
        play_lobby.seat_join(game_id=lobby.pk, user=pal)
        barrier, errors = threading.Barrier(2), []

        def invite(game_id=lobby.pk, number=round_number, barrier=barrier, errors=errors):
            try:
                barrier.wait()
                play_lobby.invitation_send(
                    game_id=game_id, user=pal, email=f"friend{number}@example.com"
                )
            except EXPECTED:
                pass
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
            finally:
                connection.close()

        def ban(barrier=barrier, errors=errors):
            try:
                barrier.wait()
                players.user_ban(user=pal, by=mod, reason="spam")
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
            finally:
                connection.close()

        threads = [threading.Thread(target=invite), threading.Thread(target=ban)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == [], errors


def _vacationer(user, stop, errors):
    """A player of every game declares vacations and comes back, again and again: each locks
    all their games (in id order) while the others move, sweep and moderate."""
    try:
        while not stop.is_set():
            try:
                play_vacations.vacation_declare(user=user, days=1)
                play_vacations.vacation_end(user=user)
            except EXPECTED:
                pass
    except Exception as error:  # noqa: BLE001
        errors.append(repr(error))
    finally:
        connection.close()


def test_vacations_across_games_never_deadlock_with_moves_sweeps_and_moderation():
    traveller = _players("v")[0]
    games = [_game(f"v{i}", also=[traveller]) for i in range(3)]
    ids = [g.pk for g in games]
    stop, errors = threading.Event(), []
    threads = [
        threading.Thread(target=_mover, args=(i, stop, errors, n)) for n, i in enumerate(ids)
    ]
    threads.append(threading.Thread(target=_sweeper, args=(ids, stop, errors)))
    threads.append(threading.Thread(target=_moderator, args=(ids, stop, errors)))
    threads.append(threading.Thread(target=_vacationer, args=(traveller, stop, errors)))
    _run_a_while(threads, stop)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    for game in Game.objects.filter(pk__in=ids):
        sequences = list(game.moves.order_by("sequence").values_list("sequence", flat=True))
        assert sequences == list(range(1, game.version + 1))
