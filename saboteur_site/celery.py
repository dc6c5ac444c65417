"""The Celery application.

Workers and beat start with ``celery -A saboteur_site worker`` / ``beat``. Configuration
comes from Django settings (``CELERY_*``). With no Redis configured, the broker is kombu's
filesystem transport in ``.run/broker/`` so that ``make run`` needs no servers.
"""

import logging
import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from celery.worker.consumer import Consumer as CeleryConsumer

from . import logs
from .startup import refusals_in_one_line

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")

log = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    """Celery's consumer, which survives losing Redis while it holds unacknowledged tasks.

    On a lost connection Celery (5.7) first lets kombu collect the connection, which drops its
    transport, then closes it; closing the channel tries to put the unacknowledged tasks back
    through that transport and raises ``AttributeError`` ('NoneType' object has no attribute
    'hostname'), which Celery does not expect: the worker logged "Unrecoverable error" and
    exited, so a Redis restart stopped every worker (bench/faults.py). Redis is gone at that
    moment anyway, so those tasks cannot be put back: with Redis's persistence they come back
    after the visibility timeout, without it they are lost, and beat's sweep does their work
    (every task re-reads the database). Here the error is logged and the consumer reconnects.
    """

    def on_connection_error_after_connected(self, exc):
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            log.warning(
                "closing the lost broker connection failed; reconnecting anyway", exc_info=True
            )


app = Celery("saboteur_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Not a setting in Django's settings: it names this module, which settings must not import.
app.conf.worker_consumer = "saboteur_site.celery:Consumer"


def _filesystem_broker_options(broker_dir) -> dict:
    queue_dir = broker_dir / "queue"
    processed_dir = broker_dir / "processed"
    control_dir = broker_dir / "control"  # kombu's default is ./control in the working directory
    for folder in (queue_dir, processed_dir, control_dir):
        folder.mkdir(parents=True, exist_ok=True)
    # One folder for both directions: producers (web) and the worker share it.
    return {
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(processed_dir),
        "control_folder": str(control_dir),
        "store_processed": False,
    }


@app.on_configure.connect
def _configure_filesystem_broker(sender, **kwargs):
    from django.conf import settings

    # The first read of the settings in a worker or beat: a refusal is one line, not a traceback.
    with refusals_in_one_line():
        broker_url = settings.CELERY_BROKER_URL
    if broker_url.startswith("filesystem://"):
        sender.conf.broker_transport_options = _filesystem_broker_options(
            settings.CELERY_BROKER_DIR
        )


app.autodiscover_tasks()

# One log line per task (saboteur_site/logs.py).
task_prerun.connect(logs.task_started, weak=False)
task_postrun.connect(logs.task_finished, weak=False)
