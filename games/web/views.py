"""Views: thin. They read the request, call a selector or a service, and render.

The acting seat always comes from ``request.user``, never from a request parameter.
"""

from __future__ import annotations

import hashlib
import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import caches
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts import zone_choices
from games.models import Game
from games.play import chat, errors, moves, suspicions, vacations, visits
from games.play import lobby as lobbies
from games.read import access, forming, found, learn, lists, pages, ratings, rematch, seats
from games.read.vacations import vacation_state
from saboteur_site.ratelimits import rate_limited, with_refusal
from saboteur_site.text import ascii_int

from . import live_parts, polls, watched
from .after_move import after_move
from .forms import (
    GameCreateForm,
    InvitationForm,
    LobbyFilterForm,
    MoveForm,
    PracticeForm,
    VacationForm,
)
from .kept_pages import kept_page

LEADERBOARDS = Game.Ruleset.choices

# The parts of the game page a client may ask for (django-template-partials names).
PARTIALS = {
    "play": "games/play_response.html",
    "chat": "games/game.html#chat",
    # Passing and clearing: the hand as choices, asked for when their popover opens.
    "pass": "games/game.html#passform",
    "clear": "games/game.html#clearform",
}
POPS = {"pass", "clear"}  # ?pop=: a popover open without JavaScript
CHAT_SENT = "games/chat_sent.html"
NOTE_SAVED = "games/game.html#note_saved"  # the play area with the chat (its box kept: hx-preserve)


@require_safe
def home(request):
    if request.user.is_authenticated:
        dashboard = lists.dashboard_for(request.user)
        context = {"dashboard": dashboard, "forming": forming.seats_at(dashboard.forming)}
        return render(request, "games/dashboard.html", context)
    # The same for every visitor: kept whole (with each answer's own token and nonce).
    return kept_page(request, "games/home.html", "anonymous")


@require_safe
def rules(request):
    return render(request, "rules/page.html", learn.rules_page())


@require_safe
@login_required
def lobby(request):
    return _lobby(request)


def _lobby(request, *, form=None, practice_form=None, status=200):
    """The lobby page; after a refused form, with that form and its errors."""
    filters: LobbyFilterForm | SimpleLazyObject
    if request.method == "GET" and not LobbyFilterForm.base_fields.keys().isdisjoint(request.GET):
        filters = LobbyFilterForm(request.GET)
        narrowed = filters.narrowed()
    else:  # no filter asked for (most visits): the empty form is cached markup, made lazily
        filters, narrowed = SimpleLazyObject(LobbyFilterForm), lists.LobbyFilter()
    # The header's count is read from the cache with the open list's version: one round trip.
    with lists.awaiting_read_once():
        context = {
            # The open games are the same for everyone: the template keeps their markup per
            # version (games/read/invalidation.py) and only a new version runs the query; a list
            # narrowed by the filters is made each time.
            "lobby_version": lists.open_lobbies_version(request.user),
            "games": SimpleLazyObject(lambda: lists.open_lobbies(narrowed)),
            "filters": filters,
            "filtered": bool(narrowed),
            "watch": lists.games_to_watch(request.user),
            # A refused form comes back with its errors; the empty ones are cached markup, made
            # (lazily) only when that cache is cold.
            "form": form or SimpleLazyObject(GameCreateForm),
            # The cached empty form's key: its zones' offsets change by the hour.
            "create_form_hour": zone_choices.offsets_key(),
            "practice_form": practice_form or SimpleLazyObject(PracticeForm),
            "form_refused": form is not None,
            "practice_refused": practice_form is not None,
            "rulesets": LEADERBOARDS,
        }
        return render(request, "games/lobby.html", context, status=status)


@require_safe
@login_required
def leaderboard(request, ruleset):
    """The best rated players of a rule set (enough rated rounds to be past provisional)."""
    return render(request, "games/leaderboard.html", {"board": ratings.leaderboard(ruleset)})


def _practice_too_fast(request, refusal):
    form = with_refusal(PracticeForm(request.POST), refusal)
    return _lobby(request, practice_form=form, status=429)


def _create_too_fast(request, refusal):
    return _lobby(request, form=with_refusal(GameCreateForm(request.POST), refusal), status=429)


@require_POST
@login_required
@rate_limited("practice_create", answer=_practice_too_fast)
def practice_create(request):
    """A game against bots, started at once."""
    form = PracticeForm(request.POST)
    if form.is_valid():
        try:
            game = lobbies.practice_create(creator=request.user, **form.cleaned_data)
        except errors.ServiceError as error:
            form.add_error(None, error.message)
        else:
            return redirect("game", pk=game.pk)
    return _lobby(request, practice_form=form, status=422)


@require_POST
@login_required
@rate_limited("game_create", answer=_create_too_fast)
def game_create(request):
    form = GameCreateForm(request.POST)
    if not form.is_valid():
        return _lobby(request, form=form, status=422)
    try:
        game = lobbies.game_create(creator=request.user, **form.cleaned_data)
    except errors.ServiceError as error:
        form.add_error(None, error.message)
        return _lobby(request, form=form, status=422)
    return redirect("game", pk=game.pk)


def visible_game(request, pk):
    """The game ``pk`` if this request's user may see it (``access.game_for``), else 404."""
    game = access.game_for(pk, request.user)
    if game is None:
        raise Http404
    return game


def _selection(request) -> dict:
    card = request.GET.get("card") or None
    return {
        "selected": card,
        "turned": request.GET.get("turned") == "1",
        "at": request.GET.get("at"),
        "target": request.GET.get("target") or None,
        "tool": request.GET.get("tool") or None,
    }


def _render_game(
    request, game, *, partial=None, template=None, status=200, notice=None, error=None,
    chat_error=None, shown=None,
):  # fmt: skip
    """The game page, or its play area for htmx; ``shown``: the revision a polling page shows
    (it is then sent only what changed since, games/web/live_parts.py)."""
    page = pages.game_page(game, request.user, **_selection(request))
    page = pages.without_blocked(page, request.user)
    # A fresh idempotency key per rendered page: a double click or a retry sends the same one.
    key = secrets.token_urlsafe(12)
    context = {"page": page, "notice": notice, "error": error, "move_key": key}
    context["chat_error"] = chat_error
    # A refused message stays in the box (htmx keeps the box itself; a plain form gets it back).
    context["chat_text"] = request.POST.get("text", "")[:500] if chat_error else ""
    with lists.awaiting_read_once():  # the next game and the header's count: one read
        context["after_move"] = after_move(request.user, page, moved=notice is not None)
        context["play_again"] = rematch.play_again(game, request.user)
        context["page_token"] = live_parts.TOKEN_PLACEHOLDER
        context["page_pop"] = request.GET.get("pop") if request.GET.get("pop") in POPS else None
        template = template or (PARTIALS[partial] if partial else "games/game.html")
        response = render(request, template, context, status=status)
    return _sent_in_parts(request, response, shown)


def _sent_in_parts(request, response, shown: int | None):
    """The page's play area remembered under a token of that page; a polling page (``shown``:
    the revision it shows) is sent only what changed since (games/web/live_parts.py)."""
    asked = request.GET.get("p") if shown is not None else None
    response.content = live_parts.sent_in_parts(
        response.content.decode(), owner=request.user.pk, asked=asked, shown=shown
    ).encode()
    return response


@require_safe
@login_required
@never_cache
def game_detail(request, pk):
    game = visible_game(request, pk)
    partial = request.GET.get("part") if request.htmx else None
    if partial is not None and partial not in PARTIALS:
        raise Http404
    visits.seat_seen(game=game, user=request.user)
    return _render_game(request, game, partial=partial)


@require_safe
@login_required
@never_cache
def game_poll(request, pk):
    """Open pages ask here (after a live event, or every 10 seconds): 204 while nothing changed,
    else their new part. Both cost one query for a watcher while the part is in the cache: a
    move watched by many open pages is fetched by all of them at once."""
    # Read with the user by UnchangedPollMiddleware (games/web/polls.py), or here.
    view = getattr(request, "poll_view", None) or access.poll_view(pk, request.user)
    if view is None:
        raise Http404
    if polls.visit_to_note(request, view):
        # The player is at the table: their "your turn" email is not needed
        # (``schedule.notices_for_decision``).
        visits.seat_seen(game=visible_game(request, pk), user=request.user)
    shown = polls.shown_revision(request)
    if view.revision == shown:
        return HttpResponse(status=204)
    if view.watcher:
        return _watcher_part(request, pk, view.revision, shown)
    return _render_game(request, visible_game(request, pk), partial="play", shown=shown)


def watcher_update(request, pk: int, shown: int) -> tuple[int, str] | None:
    """What the poll would answer this watcher's page (its token in ``request.GET["p"]``), which
    shows revision ``shown``: the revision the answer shows and its body; None when the viewer
    is not (or no longer) a watcher, may not see the game, or nothing changed. The live stream
    carries it to watchers' pages (games/web/live.py), so that a move watched by many pages is
    not asked for by all of them: the same code, the same user, the same answer."""
    view = access.poll_view(pk, request.user)
    if view is None or not view.watcher or view.revision == shown:
        return None
    body = _watcher_part(request, pk, view.revision, shown).content.decode()
    found = live_parts.POLLED.search(body)
    return (int(found["revision"]), body) if found else None


def _watcher_part(request, pk: int, revision: int, shown: int | None):
    """The play area for someone who watches without a seat (games/web/watched.py)."""

    def context_of():
        game = visible_game(request, pk)  # perhaps newer than the revision asked for
        page = pages.game_page(game, request.user)
        context = {"page": page, "after_move": after_move(request.user, page, moved=False)}
        context["page_token"] = (
            live_parts.TOKEN_PLACEHOLDER
        )  # each page's own, by live_parts.sent_in_parts
        return game.revision, context

    shared = watched.watched_parts(request, pk, revision, context_of)
    # The answer is the shared parts and the viewer's header count: rendered once per count
    # (and per the parts, which may show a newer revision than asked for).
    count = lists.awaiting_count(request.user)
    made_of = "".join(shared.values()).encode()
    digest = hashlib.blake2b(made_of, digest_size=16).hexdigest()
    key = f"watched-answer:{pk}:{digest}:{count}:{translation.get_language()}"
    body = caches["local"].get(key)
    if body is None:
        context = {"watched": shared, "awaiting_count": count}
        body = render_to_string(PARTIALS["play"], context, request=request)
        caches["local"].set(key, body, watched.SECONDS)
    return _sent_in_parts(request, HttpResponse(body), shown)


@require_safe
@login_required
@never_cache
def game_replay(request, pk):
    """Step through the moves: the viewer's own view at each step, everything after the game."""
    step = ascii_int(request.GET.get("step"))  # None: the latest step
    page = found.kept_replay(pk, request.user, step)  # without reading the game, if kept
    if page is None:
        page = pages.replay_page(visible_game(request, pk), request.user, step)
    if page is None:
        raise Http404
    return render(request, "games/replay.html", {"page": page})


@require_safe
@login_required
@never_cache
def round_recap(request, pk, number):
    recap = found.kept_recap(pk, request.user, number)  # without reading the game, if kept
    if recap is None:
        recap = pages.round_recap_page(visible_game(request, pk), request.user, number)
    if recap is None:
        raise Http404
    return render(request, "games/recap.html", {"recap": recap})


def _too_fast_at_table(request, refusal, pk):
    """A POST at a table refused by its rate limit (saboteur_site/ratelimits.py): the play area
    (htmx) or the game page, saying when to try again. Nothing was done; the page's boxes keep
    what was typed (hx-preserve)."""
    partial = "play" if request.htmx else None
    game = visible_game(request, pk)
    return _render_game(request, game, partial=partial, status=429, error=refusal.message)


@require_POST
@login_required
@rate_limited("move", answer=_too_fast_at_table)
def move_create(request, pk):
    game = visible_game(request, pk)
    if seats.live_seat(game, request.user) is None:  # outsiders and replaced players
        return _answer(request, game, error=_("You do not play in this game."), status=403)
    page_hand = pages.my_hand(game, request.user)
    form = MoveForm(request.POST, hand=page_hand)
    if not form.is_valid():
        return _answer(request, game, error=_("That move is incomplete."), status=422)
    try:
        moves.move_submit(
            game_id=game.pk,
            user=request.user,
            move=form.move(),
            expected_version=form.cleaned_data["version"],
            idempotency_key=form.cleaned_data["key"] or None,
            request_digest=form.request_digest(),
        )
    except (errors.StaleVersion, errors.IdempotencyConflict) as conflict:
        return _answer(request, game, error=conflict.message, status=409)
    except errors.ServiceError as refused:
        status = _refused_status(refused)
        return _answer(request, game, error=refused.message, status=status)
    return _answer(request, game, notice=_("Your move is made."))


def _refused_status(refused: errors.ServiceError) -> int:
    """403 for someone who does not play in the game, 422 for a request it refuses."""
    return 403 if refused.code == "not-seated" else 422


def _answer(request, game, *, notice=None, error=None, status=200):
    """htmx gets the fresh part of the page; a plain form post is redirected (POST/redirect/GET)."""
    if request.htmx:
        game = access.game_for(game.pk, request.user)
        return _render_game(
            request, game, partial="play", status=status, notice=notice, error=error
        )
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    return redirect("game", pk=game.pk)


def _chat_too_fast(request, refusal, pk):
    """Writing too fast (the chat's own count, or the route's rate limit): said under the
    message box, which keeps what was typed; the play area (or a plain form's whole page)
    answers 429 with when to try again."""
    partial = "play" if request.htmx else None
    response = _render_game(
        request, visible_game(request, pk), partial=partial, status=429,
        chat_error=refusal.message,
    )  # fmt: skip
    response["Retry-After"] = str(refusal.retry_after)
    return response


@require_POST
@login_required
@rate_limited("chat", answer=_chat_too_fast)
def chat_create(request, pk):
    game = visible_game(request, pk)
    try:
        chat.chat_post(game_id=game.pk, user=request.user, text=request.POST.get("text", ""))
    except chat.ChatTooFast as refused:
        return _chat_too_fast(request, refused, pk)
    except chat.ChatMuted as refused:
        # Said under the message box, which keeps what was typed (hx-preserve); nothing posted.
        partial = "play" if request.htmx else None
        return _render_game(request, game, partial=partial, status=422, chat_error=refused.message)
    except errors.ServiceError as refused:
        return _answer(request, game, error=refused.message, status=422)
    if request.htmx:
        return _render_game(request, access.game_for(pk, request.user), template=CHAT_SENT)
    return redirect("game", pk=game.pk)


@require_POST
@login_required
@rate_limited("mark", answer=_too_fast_at_table)
def mark_create(request, pk):
    """A private guess at another seat's role this round (theirs alone until the round ends)."""
    game = visible_game(request, pk)
    target, mark = request.POST.get("seat", ""), request.POST.get("mark", "")
    try:
        suspicions.mark_set(game_id=game.pk, user=request.user, target=target, mark=mark)
    except errors.ServiceError as refused:
        status = _refused_status(refused)
        return _answer(request, game, error=refused.message, status=status)
    return _answer(request, game)


def _note_too_fast(request, refusal, pk):
    """Beside the note's button (htmx: the box, untouched, keeps the note), else the page."""
    if request.htmx:
        return render(request, NOTE_SAVED, {"error": refusal.message}, status=429)
    return _too_fast_at_table(request, refusal, pk)


@require_POST
@login_required
@rate_limited("note", answer=_note_too_fast)
def note_create(request, pk):
    """The player's private note on the game (theirs alone, for ever)."""
    game = visible_game(request, pk)
    try:
        suspicions.note_set(game_id=game.pk, user=request.user, text=request.POST.get("text", ""))
    except errors.ServiceError as refused:
        status = _refused_status(refused)
        if request.htmx:
            return render(request, NOTE_SAVED, {"error": refused.message}, status=status)
        messages.error(request, refused.message)
        return redirect("game", pk=game.pk)
    if request.htmx:
        return render(request, NOTE_SAVED, {"saved": True})
    messages.success(request, _("Your note is saved."))
    return redirect("game", pk=game.pk)


@require_POST
@login_required
@rate_limited("join", answer=_too_fast_at_table)
def seat_join(request, pk):
    game = visible_game(request, pk)
    return _lobby_action(request, game, lobbies.seat_join)


@require_POST
@login_required
@rate_limited("seed", answer=_too_fast_at_table)
def seed_set(request, pk):
    """The player's own seed for the deals, until the start (their browser makes one)."""
    game = visible_game(request, pk)
    try:
        lobbies.seat_seed(game_id=game.pk, user=request.user, seed=request.POST.get("seed", ""))
    except errors.ServiceError as refused:
        return _answer(request, game, error=refused.message)
    return _answer(request, game, notice=_("Your seed is saved."))


@require_POST
@login_required
@rate_limited("leave", answer=_too_fast_at_table)
def seat_leave(request, pk):
    game = visible_game(request, pk)
    return _lobby_action(request, game, lobbies.seat_leave)


@require_POST
@login_required
@rate_limited("start", answer=_too_fast_at_table)
def game_start(request, pk):
    game = visible_game(request, pk)
    return _lobby_action(request, game, lobbies.game_start)


def _lobby_action(request, game, service):
    try:
        service(game_id=game.pk, user=request.user)
    except errors.ServiceError as refused:
        messages.error(request, refused.message)
    return redirect("game", pk=game.pk)


@require_POST
@login_required
@rate_limited("rematch", answer=_too_fast_at_table)
def game_rematch(request, pk):
    """ "Play again with this table": to the table's new game, made by the first to press and
    joined by the others (lobby.game_rematch); back to the finished game, saying why, when it
    started without them or is full."""
    game = visible_game(request, pk)
    try:
        again = lobbies.game_rematch(game_id=game.pk, user=request.user)
    except errors.ServiceError as refused:
        messages.error(request, refused.message)
        return redirect("game", pk=game.pk)
    return redirect("game", pk=again.pk)


@require_POST
@login_required
@rate_limited("invitation_create", answer=_too_fast_at_table)
def invitation_create(request, pk):
    game = visible_game(request, pk)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please enter a valid email address."))
    else:
        try:
            lobbies.invitation_send(
                game_id=game.pk, user=request.user, email=form.cleaned_data["email"]
            )
            messages.success(request, _("The invitation is on its way."))
        except errors.ServiceError as refused:
            messages.error(request, refused.message)
    return redirect("game", pk=game.pk)


def _vacation_page(request, form, *, status=None):
    status = status or (422 if form.errors else 200)
    context = {"form": form, "vacation": vacation_state(request.user)}
    return render(request, "games/vacation.html", context, status=status)


def _vacation_too_fast(request, refusal):
    form = with_refusal(VacationForm(request.POST), refusal)
    return _vacation_page(request, form, status=429)


def _vacation_end_too_fast(request, refusal):
    messages.error(request, refusal.message)
    return _vacation_page(request, VacationForm(), status=429)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("vacation", answer=_vacation_too_fast)
def vacation(request):
    """The player's vacation: the balance, the one planned or under way, and declaring one."""
    form = VacationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            vacations.vacation_declare(user=request.user, **form.cleaned_data)
        except errors.ServiceError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Your vacation is declared; your tables are told."))
            return redirect("vacation")
    return _vacation_page(request, form)


@require_POST
@login_required
@rate_limited("vacation_end", answer=_vacation_end_too_fast)
def vacation_end(request):
    """Back early from the vacation under way, or one still to come called off."""
    try:
        vacations.vacation_end(user=request.user)
    except errors.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Welcome back: your clocks run again."))
    return redirect("vacation")
