import pytest

from saboteur_site.celery import app


@pytest.fixture
def eager_celery():
    """Celery runs tasks in the calling process (the on-commit hook really sends); the real
    worker is in test_email_integration.py and test_worker.py."""
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False
