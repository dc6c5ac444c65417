"""Starting Celery tasks from below ``games.tasks``: by the task's name, never by importing it.

``games.tasks`` sits at the top of the house (it calls the play side and the outbox); the code
below it that must ask a worker for something (send a notice, play a bot's move) starts the task
through here. A task registered in this process is started through its own object (so its
options apply); otherwise Celery sends the message by name (``send_task``).
"""

from __future__ import annotations

from celery import current_app

SEND_NOTICE = "games.tasks.send_notice"
SEND_NOTICES = "games.tasks.send_notices"
BOT_PLAY = "games.tasks.bot_play"
RATINGS_REBUILD = "games.tasks.ratings_rebuild"

TASKS = (SEND_NOTICE, SEND_NOTICES, BOT_PLAY, RATINGS_REBUILD)


def start(name: str, *args, **options) -> None:
    """Queue task ``name`` with ``args``; ``options`` as for ``apply_async`` (may raise when the
    broker is down: the callers fall back on the sweep)."""
    task = current_app.tasks.get(name)
    if task is None:  # not imported in this process: the worker knows it by its name
        current_app.send_task(name, args=args, **options)
    else:
        task.apply_async(args, **options)
