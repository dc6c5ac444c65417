"""The admins' tools for games, moves, chat and the email outbox, one module an area:

- ``games``: a game's list and page, its seats and table log, and the moderation actions;
- ``records``: moves, chat, vacations and emailed replies: what players did at the tables;
- ``outbox``: the email outbox;
- ``forming``: play now's forming tables, who waits at each, closing one;
- ``log``: the audit log;
- ``reports``: the moderators' queue of players' reports, and chat mutes;
- ``players``: the user's page with their seats, their outbox and the actions on players (it
  extends and replaces ``accounts.admin.UserAdmin``);
- ``actions``: the forms and the intermediate page of every action with a reason;
- ``display``: durations and clocks in words, seats numbered as the game page numbers them
  (times with their zone: ``saboteur_site.admin_display``);
- ``base``: secrecy and read-only pages.

Secrecy: no page here shows a running or paused game's secrets. The snapshot is never a field;
move payloads and events (face-down discards, private peeks) appear only once the game is
finished or aborted; seats show no role. Every custom action asks for a reason on an
intermediate page and writes an admin ``LogEntry`` naming what was done and why.

Django's autodiscovery imports this package: importing each area registers its pages.
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.admin import forming, games, log, outbox, players, records, reports

admin.site.site_header = _("Saboteur administration")
admin.site.site_title = _("Saboteur admin")

__all__ = ["forming", "games", "log", "outbox", "players", "records", "reports"]
