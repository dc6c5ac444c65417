"""Players' reports and what the moderators do with them: dismiss, warn, mute in the chat, ban.

A report names one thing (a chat message, a player, a player in a game) and a reported player;
each reporter reports each thing once (``Report``'s constraint) and at most ``REPORTS_PER_DAY``
things a day. Only what the reporter could see can be reported: a message of a game they sit
at, a game they may see, a player whose page they may open. A forged or hidden id is refused
with the words of a missing one, so that the refusal tells nothing.

The moderators handle reports by reported player (``reports_handle``): the action on the player
happens once, every selected report of theirs gets its outcome, each reporter is told the
outcome and the reported player what was done, never by whom it was reported (``games.outbox``:
``report-done``, ``warned``, ``muted``; in each player's language).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import ChatMessage, ChatMute, Game, Notice, Report, Seat
from games.outbox import sending
from games.play.errors import ServiceError
from games.read.access import game_for

from .players import user_ban

REPORTS_PER_DAY = 20
MAX_MUTE_HOURS = 24 * 90
# How many chat lines before and after the reported one the moderators see.
CONTEXT_LINES = 5


class ReportRefused(ServiceError):
    pass


def _missing(kind: str) -> ReportRefused:
    texts = {
        "message": _("There is no such message to report."),
        "game": _("There is no such game to report."),
        "player": _("There is no such player to report."),
    }
    return ReportRefused(texts[kind], code="missing")


def reportable_message(*, message_id: int, reporter) -> ChatMessage:
    """A chat line ``reporter`` saw (they sit or sat at its table) written by another person."""
    message = ChatMessage.objects.select_related("seat__user", "game").filter(pk=message_id).first()
    if message is None or not Seat.objects.filter(game=message.game, user=reporter).exists():
        raise _missing("message")
    author = message.seat.user
    if author is None or message.seat.bot is not None or author.pk == reporter.pk:
        raise _missing("message")
    return message


def reportable_game(*, game_id: int, reporter) -> tuple[Game, list]:
    """A game ``reporter`` may see and the people at it they may report (not themselves, no
    bot, no deleted account)."""
    game = game_for(game_id, reporter)
    if game is None:
        raise _missing("game")
    people = {}
    for seat in game.seats.all():
        if seat.user is not None and seat.bot is None and seat.user_id != reporter.pk:
            people[seat.user_id] = seat.user
    return game, sorted(people.values(), key=lambda user: user.display_name.casefold())


def reportable_player(*, user_id: int, reporter):
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.pk == reporter.pk or user.is_bot:
        raise _missing("player")
    return user


def report_create(
    *, reporter, reason: str, text: str = "", message_id: int | None = None,
    game_id: int | None = None, user_id: int | None = None, now: datetime | None = None,
) -> Report:  # fmt: skip
    """One report: of a message (``message_id``), of a player in a game (``game_id`` and
    ``user_id``) or of a player (``user_id``)."""
    now = now or timezone.now()
    if reason not in Report.Reason.values:
        raise ReportRefused(_("Choose a reason for the report."), code="reason")
    fields: dict = {"reason": reason, "text": text.strip()[:500]}
    if message_id is not None:
        message = reportable_message(message_id=message_id, reporter=reporter)
        fields.update(
            thing=f"message:{message.pk}", reported=message.seat.user, game=message.game,
            message=message, quoted=message.text,
        )  # fmt: skip
    elif game_id is not None:
        game, people = reportable_game(game_id=game_id, reporter=reporter)
        reported = next((user for user in people if user.pk == user_id), None)
        if reported is None:
            raise ReportRefused(_("Choose the player you report."), code="player")
        fields.update(thing=f"game:{game.pk}:{reported.pk}", reported=reported, game=game)
    elif user_id is not None:
        reported = reportable_player(user_id=user_id, reporter=reporter)
        fields.update(thing=f"player:{reported.pk}", reported=reported)
    else:
        raise _missing("player")
    with transaction.atomic():
        # The reporter's row, locked: two reports sent at once count one after the other.
        get_user_model().objects.select_for_update().get(pk=reporter.pk)
        day = Report.objects.filter(reporter=reporter, created_at__gt=now - timedelta(days=1))
        if day.count() >= REPORTS_PER_DAY:
            raise ReportRefused(
                _("You have sent many reports today. You can send the next one tomorrow."),
                code="rate-limited",
            )
        try:
            with transaction.atomic():
                return Report.objects.create(reporter=reporter, **fields)
        except IntegrityError:
            raise ReportRefused(
                _("You have reported this already. A moderator will look at it."),
                code="already",
            ) from None


def my_reports(user) -> list[Report]:
    """The reports ``user`` made, newest first, with their outcome."""
    return list(
        Report.objects.filter(reporter=user).select_related("reported", "game").order_by("-pk")
    )


def chat_context(report: Report) -> list[ChatMessage]:
    """The chat around the reported line, for the moderators: lines of the table's chat, never
    a game's hidden state."""
    if report.message_id is None or report.game_id is None:
        return []
    lines = ChatMessage.objects.filter(game_id=report.game_id).select_related("seat__user")
    before = list(lines.filter(pk__lt=report.message_id).order_by("-pk")[:CONTEXT_LINES])
    after = list(lines.filter(pk__gte=report.message_id).order_by("pk")[: CONTEXT_LINES + 1])
    return [*reversed(before), *after]


# The actions, with the outcome their reports get.
ACTIONS = {
    "dismiss": Report.Outcome.DISMISSED,
    "warn": Report.Outcome.WARNED,
    "mute": Report.Outcome.MUTED,
    "ban": Report.Outcome.BANNED,
}


def reports_handle(
    *, report_ids, action: str, by, reason: str, mute_hours: int | None = None,
    now: datetime | None = None,
) -> dict[int, str]:  # fmt: skip
    """Do ``action`` about the open reports ``report_ids``: once per reported player, then each
    report gets its outcome and each party is told. Returns, per report handled, what was done
    (for the admin log); reports handled already are left as they are."""
    if action not in ACTIONS:
        raise ServiceError(_("Unknown action."))
    if action == "mute" and not (mute_hours and 1 <= mute_hours <= MAX_MUTE_HOURS):
        raise ServiceError(_("Say for how many hours the player is muted."))
    now = now or timezone.now()
    groups: dict[int, list[Report]] = defaultdict(list)
    for report in Report.objects.filter(pk__in=list(report_ids), outcome=Report.Outcome.OPEN):
        groups[report.reported_id].append(report)
    done: dict[int, str] = {}
    for reported_id, reports in sorted(groups.items()):
        text = _act(reported_id, reports, action, by, reason, mute_hours, now)
        for report in reports:
            done[report.pk] = text
    return done


def _act(reported_id, reports, action, by, reason, mute_hours, now) -> str:
    user = get_user_model().objects.get(pk=reported_id)
    outcome = ACTIONS[action]
    text = {
        "dismiss": _("Dismissed."),
        "warn": _("Warned."),
        "mute": _("Muted in the chat for %(hours)d h.") % {"hours": mute_hours or 0},
        "ban": _("Banned."),
    }[action]
    if action == "ban":
        if user.bans.filter(lifted_at__isnull=True).exists():
            text = _("Banned already.")
        else:
            user_ban(user=user, by=by, reason=reason, now=now)
    with transaction.atomic():
        ids = [report.pk for report in reports]
        # Locked and read again: a report another moderator handled meanwhile is left alone.
        still = list(
            Report.objects.select_for_update()
            .filter(pk__in=ids, outcome=Report.Outcome.OPEN)
            .order_by("pk")
        )
        if not still:
            return _("Handled already.")
        notices = []
        reasons = sorted({report.reason for report in still})
        if action == "mute":
            until = now + timedelta(hours=mute_hours or 0)
            ChatMute.objects.create(user=user, until=until, by=by, reason=reason.strip())
            notices.append(_told_reported(user, Notice.Kind.MUTED, still, reasons, now, until))
        elif action == "warn":
            notices.append(_told_reported(user, Notice.Kind.WARNED, still, reasons, now))
        for report in still:
            report.outcome, report.handled_by, report.handled_at = outcome, by, now
            report.save(update_fields=["outcome", "handled_by", "handled_at"])
            notices.append(
                Notice(
                    key=f"report-done:{report.pk}",
                    kind=Notice.Kind.REPORT_DONE,
                    user_id=report.reporter_id,
                    due_at=now,
                    data={"report": report.pk},
                )
            )
        Notice.objects.bulk_create(notices, ignore_conflicts=True)
        sending.enqueue_after_commit(notices)
    return text


def _told_reported(user, kind, reports, reasons, now, until=None) -> Notice:
    """The reported player's notice: what was done and for which reasons; never who reported."""
    data: dict = {"reasons": reasons}
    if until is not None:
        data["until"] = until.isoformat()
    return Notice(
        key=f"{kind}:{user.pk}:{min(report.pk for report in reports)}",
        kind=kind,
        user=user,
        due_at=now,
        data=data,
    )
