"""Reporting to the moderators: the report form of a chat message, a game or a player, and the
list of one's own reports with their outcome (``games.moderation.reports``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from games.moderation import reports
from saboteur_site.ratelimits import rate_limited, with_refusal

from .forms import ReportForm


def _subject(kind: str, pk, user) -> dict:
    """What is reported, as the form shows it; 404 for what ``user`` may not report."""
    pk = int(pk)  # the route's digits
    try:
        if kind == "message":
            message = reports.reportable_message(message_id=pk, reporter=user)
            return {"message": message, "game": message.game, "reported": message.seat.user}
        if kind == "game":
            game, people = reports.reportable_game(game_id=pk, reporter=user)
            if not people:
                raise Http404
            return {"game": game, "people": people}
        return {"reported": reports.reportable_player(user_id=pk, reporter=user)}
    except reports.ReportRefused:
        raise Http404 from None


def _report_too_fast(request, refusal, kind, pk):
    subject = _subject(kind, pk, request.user)
    form = with_refusal(ReportForm(request.POST, people=subject.get("people")), refusal)
    return _page(request, kind, subject, form, status=429)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("report", answer=_report_too_fast)
def report(request, kind: str, pk: str):
    subject = _subject(kind, pk, request.user)
    form = ReportForm(request.POST or None, people=subject.get("people"))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        number = int(pk)
        try:
            reports.report_create(
                reporter=request.user,
                reason=data["reason"],
                text=data["text"],
                message_id=number if kind == "message" else None,
                game_id=number if kind == "game" else None,
                user_id={"game": data.get("player"), "player": number}.get(kind),
            )
        except reports.ReportRefused as refused:
            form.add_error(None, refused.message)
        else:
            messages.success(
                request, _("Thank you: your report is sent. A moderator will look at it.")
            )
            return redirect("my_reports")
    return _page(request, kind, subject, form)


def _page(request, kind, subject, form, *, status=None):
    status = status or (422 if form.errors else 200)
    context = {"kind": kind, "form": form, **subject}
    return render(request, "games/report.html", context, status=status)


@require_safe
@login_required
def my_reports(request):
    return render(request, "games/my_reports.html", {"reports": reports.my_reports(request.user)})
