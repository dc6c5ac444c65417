"""The outbox: who must be told what, when, and sending it exactly once.

Which notices a change causes and when they are due (``schedule``), quiet hours and time zones
(``quiet``), the daily digest (``digests``), building the emails (``emails``, their maze picture
in ``email_art``, their one-tap tokens in ``one_tap``, their links in ``links``) and sending
(``sending``). The play side and moderation write its rows inside their transactions; Celery
tasks send them. It may import the read side, ``games.models`` and ``games.dispatch`` (to start
a task by name), never the play side, moderation or ``games.tasks``.
"""
