"""The API's calls: the account, its games, a game as the caller's seat sees it, the legal moves,
the log, moves, chat, the lobby (create, join, start, practice) and the deal documents.

The acting seat is the token's player's, never a parameter. A game the caller may not see is
404, as for its page (``access.game_for``); every change goes through the same service as the
page's (``moves.move_submit``, ``chat.chat_post``, ``lobby.*``), with its refusals.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.http import Http404, HttpRequest
from ninja import Router, Status

from accounts import relations
from games import engine
from games.models import Game as GameRow
from games.models import Seat
from games.play import chat, lobby, moves
from games.read import access, deals, history, ledger_words, log, seats

from . import schemas
from .site import limit, need, token_of

router = Router(tags=["games"])
ERRORS: dict[int, type] = {code: schemas.Error for code in (401, 403, 404, 409, 422, 429)}
GAMES_LISTED = 100


def _game(request: HttpRequest, game_id: int) -> GameRow:
    game = visible(game_id, request.user)
    if game is None:
        raise Http404
    return game


def visible(game_id: int, user) -> GameRow | None:
    """The game if ``user`` may see it (as its page: ``access.game_for``), else None."""
    return access.game_for(game_id, user) if 0 < game_id < 2**31 else None


def my_games(user, *, finished: bool = False, count: int = GAMES_LISTED) -> list[GameRow]:
    """``user``'s games in their lobby, running or paused (and the ended ones with
    ``finished``), the newest first, their seats loaded."""
    statuses = [GameRow.Status.LOBBY, GameRow.Status.RUNNING, GameRow.Status.PAUSED]
    if finished:
        statuses += [GameRow.Status.FINISHED, GameRow.Status.ABORTED]
    mine = Seat.objects.filter(user=user).exclude(state=Seat.State.REPLACED)
    found = (
        GameRow.objects.filter(Q(pk__in=mine.values("game_id")), status__in=statuses)
        .prefetch_related("seats__user")
        .order_by("-pk")[:count]
    )
    return list(found)


def _me(game: GameRow, user) -> Seat | None:
    return seats.live_seat(game, user)


def _players(game: GameRow, user) -> list[dict]:
    live = [s for s in game.seats.all() if s.state != Seat.State.REPLACED]
    live.sort(key=lambda s: (s.position is None, s.position or 0, s.pk))
    return [
        {
            "seat": s.engine_name if s.position is not None else None,
            "name": seats.display_name(s),
            "is_bot": s.bot is not None or bool(s.user and s.user.is_bot),
            "me": s.user_id == user.pk,
        }
        for s in live
    ]


def row_of(game: GameRow, user) -> dict:
    me = _me(game, user)
    my_turn = bool(me and game.status == GameRow.Status.RUNNING and game.to_move == me.position)
    return {
        "id": game.pk,
        "name": game.name,
        "ruleset": game.ruleset,
        "status": game.status,
        "practice": game.practice,
        "allows_bots": game.allows_bots,
        "version": game.version,
        "revision": game.revision,
        "my_turn": my_turn,
        "deadline": game.deadline if game.status == GameRow.Status.RUNNING else None,
        "players": _players(game, user),
    }


@router.get("/account", response={200: schemas.Account, **ERRORS}, summary="My account")
def account(request: HttpRequest):
    token = need(request, "read")
    user = token.user
    return {
        "id": user.pk,
        "display_name": user.display_name,
        "is_bot": user.is_bot,
        "language": user.language,
        "time_zone": user.time_zone,
        "scopes": token.scopes,
    }


# One URL name per path (``url_name``): ninja makes a URL pattern per name, and the calls of
# one path share it.
@router.get(
    "/games", response={200: list[schemas.GameRow], **ERRORS}, summary="My games", url_name="games"
)
def games(request: HttpRequest, finished: bool = False):
    """My games in their lobby or running (``finished=true``: the finished ones too), those
    waiting for my decision first, then the newest."""
    need(request, "read")
    found = my_games(token_of(request).user, finished=finished)
    rows = [row_of(game, request.user) for game in found]
    rows.sort(key=lambda row: not row["my_turn"])  # stable: newest first within each
    return rows


@router.get("/games/{int:game_id}", response={200: schemas.Game, **ERRORS}, summary="A game")
def game(request: HttpRequest, game_id: int):
    """The game as my seat sees it: the same view as the game page (hand, role, peeks, maze,
    the players' public state, the rounds done), with whose decision and its deadline."""
    need(request, "read")
    return game_answer(_game(request, game_id), request.user)


def game_answer(found: GameRow, user) -> dict:
    """A game as ``user`` may see it (``GET /games/{id}``, and each line of its stream)."""
    me = _me(found, user)
    view = None
    if found.snapshot is not None:
        view = engine.view_for(found.engine_state(), me.engine_name if me else None)
    row = row_of(found, user)
    row.update(
        me=me.engine_name if me and me.position is not None else None,
        max_seats=found.max_seats,
        rounds=found.rounds,
        to_move=view["to_move"] if view else None,
        decision_since=found.decision_since if found.status == GameRow.Status.RUNNING else None,
        view=view,
        my_bank_seconds=int(me.bank_left.total_seconds()) if me is not None else None,
        ledger=_ledger(found, view),
    )
    return row


def _ledger(found: GameRow, view) -> list[dict]:
    """The public ledger, as the page's table says it: per round, what each seat was seen
    doing (``games.read.ledger_words``, from the public move log alone)."""
    if view is None:
        return []
    seen = ledger_words.public(
        found.pk, history.move_log(found), [p["seat"] for p in view["players"]]
    )
    names = seats.seat_names(found)
    return [
        {"round": number, "did": ledger_words.did_lines(records, names)}
        for number, records in sorted(seen.rounds.items())
    ]


@router.get(
    "/games/{int:game_id}/legal",
    response={200: schemas.LegalMoves, **ERRORS},
    summary="Legal moves",
)
def legal(request: HttpRequest, game_id: int):
    """Every move I may make now, in the form ``POST /games/{id}/moves`` takes (empty when it
    is not my decision)."""
    need(request, "read")
    found = _game(request, game_id)
    me = _me(found, request.user)
    listed: list = []
    if me is not None and found.status == GameRow.Status.RUNNING and found.snapshot is not None:
        state = found.engine_state()
        if state.to_move == me.position:
            listed = engine.legal_moves(state, me.engine_name)
    return {"version": found.version, "my_turn": bool(listed), "moves": listed}


@router.get(
    "/games/{int:game_id}/log", response={200: list[schemas.LogEntry], **ERRORS}, summary="The log"
)
def game_log(request: HttpRequest, game_id: int, since: int = 0):
    """The moves after ``since`` as I may see them: public events, and the private ones that are
    mine (my cards drawn, my peeks...), with their sentences as the page says them."""
    need(request, "read")
    found = _game(request, game_id)
    me = _me(found, request.user)
    mine = me.engine_name if me and me.position is not None else None
    names = seats.seat_names(found)
    entries = []
    for sequence, events, by_site, _position in history.move_log(found):
        if sequence <= since:
            continue
        shown = [e for e in events if e.get("to") is None or e.get("to") == mine]
        lines = [line for e in shown if (line := log.describe(e, names, mine))]
        entries.append(
            {"sequence": sequence, "events": shown, "text": lines, "by_site": str(by_site or "")}
        )
    return entries


@router.post(
    "/games/{int:game_id}/moves", response={200: schemas.MoveOut, **ERRORS}, summary="Make a move"
)
def move(request: HttpRequest, game_id: int, payload: schemas.MoveIn):
    """My move, through the same pipeline as the page's: ``version`` is the game's version the
    move was chosen at (409 ``stale-version`` when someone moved first), ``key`` an idempotency
    key (the same key again answers the first result; with another move, 409 ``key-reused``)."""
    need(request, "play")
    limit(request, "api_move")
    found = _game(request, game_id)
    result = moves.move_submit(
        game_id=found.pk,
        user=request.user,
        move=payload.move,
        expected_version=payload.version,
        idempotency_key=payload.key,
    )
    return {
        "sequence": result.move.sequence,
        "repeated": result.repeated,
        "version": result.move.sequence,
    }


@router.get(
    "/games/{int:game_id}/chat",
    response={200: list[schemas.ChatLine], **ERRORS},
    summary="Chat",
    url_name="chat",
)
def chat_lines(request: HttpRequest, game_id: int):
    """The table's chat, oldest first (the players' only, as on the page), without the lines
    of players the caller has blocked (as on the page)."""
    need(request, "read")
    found = _game(request, game_id)
    if _me(found, request.user) is None:
        return []
    table = found.seats.all()
    by_seat = {s.pk: seats.display_name(s) for s in table}
    blocked = relations.blocked_ids(request.user)
    hidden = {s.pk for s in table if s.user_id in blocked}
    lines = found.chat.exclude(seat_id__in=hidden).order_by("-created_at", "-pk")
    return [
        {"author": by_seat.get(seat_id, "?"), "text": text, "at": at}
        for seat_id, text, at in reversed(lines.values_list("seat_id", "text", "created_at")[:100])
    ]


@router.post(
    "/games/{int:game_id}/chat",
    response={201: schemas.ChatLine, **ERRORS},
    summary="Write in chat",
    url_name="chat",
)
def chat_write(request: HttpRequest, game_id: int, payload: schemas.ChatIn):
    need(request, "chat")
    limit(request, "api_chat")
    found = _game(request, game_id)
    message = chat.chat_post(game_id=found.pk, user=request.user, text=payload.text)
    return Status(
        201,
        {
            "author": token_of(request).user.display_name,
            "text": message.text,
            "at": message.created_at,
        },
    )


@router.post(
    "/games", response={201: schemas.GameRow, **ERRORS}, summary="Create a game", url_name="games"
)
def game_create(request: HttpRequest, payload: schemas.GameIn):
    """A new game in its lobby, with me seated."""
    need(request, "play")
    limit(request, "api_lobby")
    made = lobby.game_create(
        creator=request.user,
        name=payload.name,
        ruleset=payload.ruleset,
        max_seats=payload.max_seats,
        variants=payload.variants,
        visibility=GameRow.Visibility.INVITE if payload.private else GameRow.Visibility.OPEN,
        rounds=payload.rounds,
        turn_limit=timedelta(hours=payload.turn_hours) if payload.turn_hours else None,
        allows_bots=payload.allows_bots,
        bots_rated_with_people=payload.bots_rated_with_people,
    )
    return Status(201, row_of(_game(request, made.pk), request.user))


@router.post(
    "/games/practice", response={201: schemas.GameRow, **ERRORS}, summary="A practice game"
)
def practice_create(request: HttpRequest, payload: schemas.PracticeIn):
    """A game against the site's bots, started at once."""
    need(request, "play")
    limit(request, "api_lobby")
    made = lobby.practice_create(
        creator=request.user, ruleset=payload.ruleset, bots=payload.bots, rounds=payload.rounds
    )
    return Status(201, row_of(_game(request, made.pk), request.user))


@router.post("/games/{int:game_id}/join", response={200: schemas.GameRow, **ERRORS}, summary="Join")
def join(request: HttpRequest, game_id: int):
    need(request, "play")
    limit(request, "api_lobby")
    found = _game(request, game_id)
    lobby.seat_join(game_id=found.pk, user=request.user)
    return row_of(_game(request, game_id), request.user)


@router.post(
    "/games/{int:game_id}/start", response={200: schemas.GameRow, **ERRORS}, summary="Start"
)
def start(request: HttpRequest, game_id: int):
    """Start a game I created (its players' seeds are fixed and round 1 is dealt)."""
    need(request, "play")
    limit(request, "api_lobby")
    found = _game(request, game_id)
    lobby.game_start(game_id=found.pk, user=request.user)
    return row_of(_game(request, game_id), request.user)


@router.get(
    "/games/{int:game_id}/deals/{int:number}",
    response={200: dict, **ERRORS},
    summary="A round's deal document",
)
def deal(request: HttpRequest, game_id: int, number: int):
    """The deal document of a round that is over (docs/fairness.md); 404 before."""
    need(request, "read")
    found = _game(request, game_id)
    document = deals.document(found, number) if 0 <= number < 100 else None
    if document is None:
        raise Http404
    return document
