"""The emails of the moderators' answers to reports: to the reporter, what came of their report
(``report-done``); to the reported player, a warning or a chat mute with its end (``warned``,
``muted``). The reported player's emails name the reasons, never who reported.

Each builder gives the email's subject, lines and links (``emails._context`` picks it by the
notice's kind).
"""

from __future__ import annotations

from datetime import datetime

from django.urls import reverse
from django.utils.translation import gettext as _

from games.models import Notice, Report

from .email_words import when
from .links import site_url


def _reasons(notice: Notice) -> str:
    labels = dict(Report.Reason.choices)
    return ", ".join(str(labels[r]) for r in notice.data.get("reasons", []) if r in labels)


def _report_done(notice: Notice) -> dict:
    report = Report.objects.select_related("reported").filter(pk=notice.data["report"]).first()
    lines = [_("A moderator has looked at your report.")]
    if report is not None:
        lines = [
            _("A moderator has looked at your report about %(name)s (%(reason)s).")
            % {"name": report.reported.display_name, "reason": report.get_reason_display()},
            _("Outcome: %(outcome)s.") % {"outcome": report.get_outcome_display()},
        ]
    lines.append(_("Thank you for helping to keep the tables friendly."))
    return {
        "subject": _("Your report was handled"),
        "lines": lines,
        "links": [(_("Your reports"), site_url(reverse("my_reports")))],
    }


def _warned(notice: Notice) -> dict:
    return {
        "subject": _("A warning from the moderators"),
        "lines": [
            _(
                "Players reported how you behaved at the tables (%(reasons)s), and a moderator "
                "agrees. Please keep to the rules and be kind in the chat: a next time may bring "
                "a mute or a ban."
            )
            % {"reasons": _reasons(notice)},
        ],
        "links": [(_("The rules"), site_url(reverse("rules")))],
    }


def _muted(notice: Notice) -> dict:
    until = datetime.fromisoformat(notice.data["until"])
    return {
        "subject": _("You are muted in the chat"),
        "lines": [
            _(
                "Players reported how you behaved at the tables (%(reasons)s), and a moderator "
                "has muted you in every table's chat until %(until)s. You can go on playing "
                "your games meanwhile."
            )
            % {"reasons": _reasons(notice), "until": when(until)},
        ],
        "links": [(_("Your games"), site_url(reverse("home")))],
    }
