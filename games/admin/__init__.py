"""The admins' tools for games, moves, chat and the email outbox, one module an area:

- ``games``: a game's list and page, its seats and table log, and the moderation actions;
- ``records``: moves, chat, vacations and emailed replies: what players did at the tables;
- ``outbox``: the email outbox;
- ``log``: the audit log;
- ``actions``: the forms and the intermediate page of every action with a reason (the accounts'
  admin uses them too);
- ``display``: times with their zone, durations and clocks in words, seats numbered as the game
  page numbers them;
- ``base``: secrecy and read-only pages.

Secrecy: no page here shows a running or paused game's secrets. The snapshot is never a field;
move payloads and events (face-down discards, private peeks) appear only once the game is
finished or aborted; seats show no role. Every custom action asks for a reason on an
intermediate page and writes an admin ``LogEntry`` naming what was done and why.

Django's autodiscovery imports this package: importing each area registers its pages. What the
accounts' admin uses (actions with a reason, seats and times as shown here) is imported from here.
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.admin import games, log, outbox, records
from games.admin.actions import ReasonForm, ReplaceSeatForm, action_with_form
from games.admin.display import seat_shown, zoned

admin.site.site_header = _("Saboteur administration")
admin.site.site_title = _("Saboteur admin")

__all__ = [
    "ReasonForm",
    "ReplaceSeatForm",
    "action_with_form",
    "games",
    "log",
    "outbox",
    "records",
    "seat_shown",
    "zoned",
]
