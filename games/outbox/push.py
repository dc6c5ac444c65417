"""Web Push: the outbox's notices on the player's devices, each device once (RFC 8030, 8291, 8292).

``sending.send`` decides whether a notice goes out now (still relevant, wanted, outside quiet
hours), then calls ``before_email``: it writes a ``PushDelivery`` row per device of the player
(unique per notice and device) and pushes the rows not yet pushed, under the notice's row lock, so
retries, redeliveries and parallel sweeps push each device once. A push service that answers 404
or 410 has forgotten the subscription: it is deleted. Other failures are tried again by the sweep
(``retry_due``), backing off, and given up after ``MAX_ATTEMPTS``.

Email never depends on push: every failure of a push, of any kind (the push service away, a
``py_vapid`` error over the claims, a payload that cannot be built), is caught per device and
recorded on its delivery row, and the email goes on as if the device did not exist.

The payload (``payload``) says only what the player's email says: the game's name, what is to be
decided, and for a decision that needs no maze the one-tap links of the email (signed,
single-use, version-bound; they open the confirmation page and never move by themselves).
pywebpush encrypts it to the browser's keys (aes128gcm) and signs the VAPID JWT.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import PushSubscription
from games import engine
from games.models import ChatMessage, Game, Notice, PushDelivery, Seat
from games.read import durations, lists
from games.read.seats import display_name
from saboteur_site import push_endpoints, vapid
from saboteur_site.text import one_line

from . import email_words, emails, one_tap
from .links import site_url
from .quiet import user_zone

log = logging.getLogger(__name__)

# Notices that are email only: an invitation goes to an address, the digest is an email's summary
# of the turns pushed one by one, an answer answers an email. Every other kind is pushed, with
# the words of ``_TEXTS`` (a test walks every kind: each is in one of the two).
EMAIL_ONLY = frozenset({Notice.Kind.INVITATION, Notice.Kind.DIGEST, Notice.Kind.ANSWER})
PUSHED_KINDS = frozenset(Notice.Kind) - EMAIL_ONLY

# The email of an event that push brought to a device used this recently can wait this long (the
# profile's choice); it is not sent when the player opens the game meanwhile.
RECENT_USE = timedelta(minutes=30)
EMAIL_WAIT = timedelta(minutes=30)

# Browsers show two or three actions at most; each is a one-tap link of about 200 characters, and
# push services take 4 KB of payload.
MAX_ACTIONS = 3

TIMEOUT = 10  # seconds for one push service's answer

MAX_ATTEMPTS = 6

GONE = (404, 410)  # the push service no longer knows the subscription (RFC 8030 section 7.3)


# -- Keys (saboteur_site.vapid) ------------------------------------------------------------------


def enabled() -> bool:
    return vapid.key() is not None


# -- The outbox's side ---------------------------------------------------------------------------


def devices(notice: Notice):
    """The devices this notice is pushed to (none when push is off or the kind is not pushed)."""
    if not enabled() or notice.user_id is None or notice.kind not in PUSHED_KINDS:
        return PushSubscription.objects.none()
    return PushSubscription.objects.filter(user_id=notice.user_id)


def reaches(notice: Notice) -> bool:
    """Whether the notice has a device to go to (an email address is then not needed)."""
    return devices(notice).exists()


def before_email(notice: Notice, *, address: str | None, now: datetime) -> str | None:
    """Push the notice to each device not yet reached, then decide its email (lock held).

    Returns None when the email is to be sent now; else the notice's status, saved: sent (push
    only: no address, or the player opened the game while the email waited) or pending (the email
    waits a while, as the player chose, for a push reached a device in use). A push that fails,
    however, only counts as a device not reached: it never fails, delays or skips the email.
    """
    try:
        with transaction.atomic():  # a savepoint: whatever fails here leaves the email's lock
            reached = deliver(notice, now=now)
    except Exception:  # deliver records each device's failure; this is for the unforeseen
        log.exception("pushing notice %s failed; its email goes on", notice.pk)
        reached = []
    held_at = notice.data.get("email_held_at")
    if address is not None and held_at is None and _email_can_wait(notice, reached, now):
        notice.due_at = now + EMAIL_WAIT
        notice.data = {**notice.data, "email_held_at": now.isoformat()}
        notice.save(update_fields=["due_at", "data"])
        return notice.status
    status, why = Notice.Status.SENT, None
    if address is None:
        if reached:
            why = "pushed; no verified address"
        elif notice.pushes.filter(status=PushDelivery.Status.PENDING).exists():
            why = "no verified address; the push is tried again"  # by the sweep
        else:
            status, why = Notice.Status.SKIPPED, "no verified address"
    elif held_at is not None and _seen_since(notice, datetime.fromisoformat(held_at)):
        why = "pushed; the game was opened before the email was due"
    if why is None:
        return None
    notice.status, notice.reason = status, why
    notice.sent_at = now if status == Notice.Status.SENT else None
    notice.save(update_fields=["status", "sent_at", "reason"])
    return notice.status


def _email_can_wait(notice: Notice, reached: list[PushSubscription], now: datetime) -> bool:
    if notice.user is None or not notice.user.email_waits_for_push or notice.seat_id is None:
        return False
    return any(device.last_used_at >= now - RECENT_USE for device in reached)


def _seen_since(notice: Notice, moment: datetime) -> bool:
    if notice.seat_id is None:
        return False
    seen = Seat.objects.filter(pk=notice.seat_id).values_list("last_seen_at", flat=True).first()
    return seen is not None and seen >= moment


def deliver(notice: Notice, *, now: datetime) -> list[PushSubscription]:
    """Push the notice to every device of its player not pushed yet; return the devices reached
    (now or before). The caller holds the notice's row lock: one sender at a time."""
    targets = list(devices(notice).values_list("pk", flat=True))
    if not targets:
        return []
    PushDelivery.objects.bulk_create(
        [PushDelivery(notice=notice, subscription_id=pk, due_at=now) for pk in targets],
        ignore_conflicts=True,
    )
    pending = list(
        notice.pushes.select_related("subscription").filter(
            status=PushDelivery.Status.PENDING, due_at__lte=now
        )
    )
    _push_each(pending, notice, now)
    sent = notice.pushes.filter(status=PushDelivery.Status.SENT).select_related("subscription")
    return [delivery.subscription for delivery in sent]


def retry_due(now: datetime, *, hold_or_skip, limit: int = 200) -> int:
    """Push again the deliveries a push service refused for a while (the minute sweep).

    ``hold_or_skip(notice, now)`` is the outbox's rule for any notice due now
    (``sending.hold_or_skip``): until when it waits, or why it must not go out any more (the
    turn moved on, the player opted out or is on vacation). Returns how many were pushed.
    """
    pushed = 0
    due = PushDelivery.objects.filter(status=PushDelivery.Status.PENDING, due_at__lte=now)
    for pk in due.order_by("due_at").values_list("pk", flat=True)[:limit]:
        try:
            pushed += _retry(pk, now, hold_or_skip)
        except Exception:  # one broken row must not stop the others
            log.exception("pushing delivery %s failed; the next sweep tries again", pk)
    return pushed


def _retry(pk: int, now: datetime, hold_or_skip) -> int:
    with transaction.atomic():
        delivery = (
            PushDelivery.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("subscription", "notice__user", "notice__game", "notice__seat")
            .filter(pk=pk, status=PushDelivery.Status.PENDING, due_at__lte=now)
            .first()
        )
        if delivery is None:
            return 0
        notice = delivery.notice
        hold, why = hold_or_skip(notice, now)
        if notice.user is None:
            why = why or "inactive account"
        if hold is not None and why is None:  # quiet hours, a vacation, a paused game
            delivery.due_at = hold
            delivery.save(update_fields=["due_at"])
            return 0
        if why is not None or notice.status == Notice.Status.SKIPPED or not enabled():
            delivery.status, delivery.last_error = PushDelivery.Status.FAILED, why or "skipped"
            delivery.save(update_fields=["status", "last_error"])
            return 0
        return _push_each([delivery], notice, now)


def _push_each(deliveries: list[PushDelivery], notice: Notice, now: datetime) -> int:
    """Push the notice to these devices; each failure is recorded on its row. Returns how many
    devices took it."""
    if not deliveries:
        return 0
    try:
        data = json.dumps(payload(notice), separators=(",", ":"))
    except Exception as error:  # a notice whose words cannot be built fails its pushes, not more
        log.exception("the push of notice %s could not be built", notice.pk)
        for delivery in deliveries:
            _failed(delivery, error, now, give_up=False)
        return 0
    return sum(_push(delivery, notice, data, now) for delivery in deliveries)


def _push(delivery: PushDelivery, notice: Notice, data: str, now: datetime) -> bool:
    """One HTTP request to the device's push service; the row records what came of it."""
    # Imported when a device is pushed to: pywebpush (with aiohttp) took an eighth of a second of
    # the start of every process that imports the outbox (web servers, workers, manage.py).
    from pywebpush import WebPushException, webpush

    device = delivery.subscription
    if push_endpoints.problem(device.endpoint) is not None:  # kept before a stricter check
        _failed(delivery, ValueError("the endpoint is not a push service's"), now, give_up=True)
        return False
    headers = {"Urgency": "high" if notice.kind in _TURN_KINDS else "normal"}
    if notice.game_id:
        # A newer message on the same topic replaces one the push service still holds.
        headers["Topic"] = f"game{notice.game_id}"
    try:
        webpush(
            subscription_info={
                "endpoint": device.endpoint,
                "keys": {"p256dh": device.p256dh, "auth": device.auth},
            },
            data=data,
            vapid_private_key=vapid.key(),
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=_ttl(notice, now),
            headers=headers,
            timeout=TIMEOUT,
        )
    except WebPushException as error:
        if error.status_code in GONE:
            log.info("push subscription %s is gone; deleting it", device.pk)
            device.delete()  # its deliveries go with it
            return False
        _failed(delivery, error, now, give_up=error.status_code not in (None, 429, 500, 502, 503))
        return False
    except Exception as error:  # unreachable, timed out, a py_vapid error over the claims...
        _failed(delivery, error, now, give_up=False)
        return False
    delivery.status, delivery.sent_at = PushDelivery.Status.SENT, now
    delivery.attempts += 1
    delivery.last_error = ""
    delivery.save(update_fields=["status", "sent_at", "attempts", "last_error"])
    PushSubscription.objects.filter(pk=device.pk).update(last_push_at=now)
    return True


def _failed(delivery: PushDelivery, error: Exception, now: datetime, *, give_up: bool) -> None:
    delivery.attempts += 1
    delivery.last_error = one_line(f"{type(error).__name__}: {error}")[:300]
    if give_up or delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = PushDelivery.Status.FAILED
    else:
        delivery.due_at = now + min(timedelta(minutes=2**delivery.attempts), timedelta(hours=2))
    delivery.save(update_fields=["status", "attempts", "last_error", "due_at"])
    log.warning("push delivery %s failed: %s", delivery.pk, delivery.last_error)


_TURN_KINDS = (Notice.Kind.TURN, Notice.Kind.REMINDER)


def _ttl(notice: Notice, now: datetime) -> int:
    """How long the push service keeps a message for a device that is offline."""
    game = notice.game
    if notice.kind in _TURN_KINDS and game is not None and game.deadline is not None:
        return max(60, min(int((game.deadline - now).total_seconds()), 28 * 86400))
    return 86400


# -- The payload ---------------------------------------------------------------------------------


def payload(notice: Notice) -> dict:
    """What the service worker shows: a title, a line, where a tap leads, and for a decision that
    needs no maze up to MAX_ACTIONS one-tap links (the email's). In the player's language."""
    user = notice.the_user()  # pushes go to the user's devices
    language = user.language or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(user_zone(user)):
        game = notice.game
        title, body = _TEXTS[notice.kind](notice)
        url = reverse("game", args=[game.pk]) if game else reverse("home")
        if notice.kind == Notice.Kind.REPLACED:
            url = reverse("home")
        data = {
            "title": one_line(title),
            "body": one_line(body),
            "url": site_url(url),
            "tag": f"game-{game.pk}" if game else notice.kind,
            "lang": translation.get_language(),
            "waiting": lists.awaiting_count(user),
            "actions": _actions(notice) if notice.kind in _TURN_KINDS else [],
        }
    return data


def _actions(notice: Notice) -> list[dict]:
    """The one-tap links of a decision that needs no maze (a gold pick, a Theft)."""
    game, seat, user = notice.the_game(), notice.seat, notice.the_user()
    if not user.email_hand or game.status != Game.Status.RUNNING or seat is None:
        return []  # the player keeps their hand and choices out of notifications and emails
    state = game.engine_state()
    me = seat.engine_name
    if state.to_move != state.seat_index(me) or state.decision not in (
        engine.PICK_GOLD,
        engine.STEAL,
    ):
        return []
    names = {
        s.engine_name: display_name(s)
        for s in game.seats.select_related("user").exclude(state=Seat.State.REPLACED)
    }
    actions = []
    for index, move in enumerate(one_tap.one_tap_moves(state, me)[:MAX_ACTIONS]):
        token = one_tap.tap_token(
            user_id=user.pk, game_id=game.pk, seat_id=seat.pk, version=game.version, move=move
        )
        actions.append(
            {
                "action": f"tap{index}",
                "title": one_tap.move_label(move, names, me),
                "url": site_url(reverse("one_tap", args=[token])),
            }
        )
    return actions


def _decision_line(game: Game) -> str:
    return email_words.decision_text(game.engine_state())


def _turn(notice: Notice) -> tuple[str, str]:
    game = notice.the_game()
    return _("Your turn in %(game)s") % {"game": game.name}, _decision_line(game)


def _reminder(notice: Notice) -> tuple[str, str]:
    game = notice.the_game()
    title = _("Reminder: it is your turn in %(game)s") % {"game": game.name}
    if game.deadline is None:
        return title, _decision_line(game)
    return title, _("Decide by %(when)s.") % {"when": durations.moment(game.deadline)}


def _mention(notice: Notice) -> tuple[str, str]:
    message = ChatMessage.objects.select_related("seat__user").get(pk=notice.data["message"])
    title = _("%(name)s mentioned you in %(game)s") % {
        "name": display_name(message.seat),
        "game": notice.the_game().name,
    }
    text = message.text if len(message.text) <= 140 else message.text[:139] + "…"
    return title, text


def _as_email(notice: Notice) -> tuple[str, str]:
    """The email's subject and first line (moderators' clock changes, vacations)."""
    return emails.headline(notice)


def _named(title: str, body: str = ""):
    def texts(notice: Notice) -> tuple[str, str]:
        names = {"game": notice.game.name if notice.game else ""}
        if notice.kind == Notice.Kind.ABSENT:
            absent = Seat.objects.select_related("user").get(pk=notice.data["absent"])
            names["name"] = display_name(absent)
        line = _(body) if body else _("Open the game")  # marked gettext_noop below
        if notice.kind == Notice.Kind.ABORTED and notice.data.get("reason"):
            line = _("Their reason: %(reason)s") % {"reason": notice.data["reason"]}
        return _(title) % names, line

    return texts


_TEXTS: dict[str, Callable[[Notice], tuple[str, str]]] = {
    Notice.Kind.TURN: _turn,
    Notice.Kind.REMINDER: _reminder,
    Notice.Kind.MENTION: _mention,
    Notice.Kind.STARTED: _named(gettext_noop("%(game)s has started")),
    Notice.Kind.FINISHED: _named(
        gettext_noop("%(game)s is over"),
        gettext_noop("See who won, the final standings and every round's recap."),
    ),
    Notice.Kind.ABORTED: _named(gettext_noop("%(game)s was stopped by the moderators")),
    Notice.Kind.TIMEOUT: _named(
        gettext_noop("Your time ran out in %(game)s"),
        gettext_noop("Open the game to play your next turn yourself."),
    ),
    Notice.Kind.ABSENT: _named(gettext_noop("%(name)s is absent in %(game)s")),
    Notice.Kind.BRIEFING: _named(
        gettext_noop("You have a seat in %(game)s"),
        gettext_noop(
            "Your role, your hand and what the seat has seen so far are waiting for you on the "
            "game's page."
        ),
    ),
    Notice.Kind.REPLACED: _named(
        gettext_noop("Your seat in %(game)s was taken over"), gettext_noop("Go to your games")
    ),
    Notice.Kind.PAUSED: _as_email,
    Notice.Kind.RESUMED: _as_email,
    Notice.Kind.EXTENDED: _as_email,
    Notice.Kind.VACATION: _as_email,
    Notice.Kind.VACATION_ENDING: _as_email,
    Notice.Kind.TAKEN_OVER: _as_email,
    Notice.Kind.REPORT_DONE: _as_email,
    Notice.Kind.WARNED: _as_email,
    Notice.Kind.MUTED: _as_email,
    Notice.Kind.FORMING: _as_email,
    Notice.Kind.CHALLENGE: _as_email,
    Notice.Kind.CHALLENGE_ANSWER: _as_email,
}
