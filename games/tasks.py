from celery import shared_task


@shared_task
def ping() -> str:
    """Answer "pong": proves a worker is consuming the queue (used by tests and ops)."""
    return "pong"
