"""Celery beat's scheduler for the site (``CELERY_BEAT_SCHEDULER``).

Celery's own, except that its schedule file (``CELERY_BEAT_SCHEDULE_FILENAME``, under the run
folder by default) may live in a folder that does not exist yet: beat makes it rather than failing
to start. The file used to be ``celerybeat-schedule`` in whatever folder beat was started from,
the repository itself for the README's command.
"""

from __future__ import annotations

from pathlib import Path

from celery.beat import PersistentScheduler


class Scheduler(PersistentScheduler):
    def setup_schedule(self):
        Path(self.schedule_filename).parent.mkdir(parents=True, exist_ok=True)
        return super().setup_schedule()
