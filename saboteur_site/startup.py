"""Refusing to start, in one line.

The settings refuse to start with a missing or unsafe variable (``Refused``, raised by
``saboteur_site/settings.py``). Every entry point (``manage.py``, the WSGI and ASGI modules, Celery
workers and beat) turns that refusal into one line on stderr and a non-zero exit status: the
message names the variable and what to do, and a traceback through Django's setup would only
bury it. Other errors keep their tracebacks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured


class Refused(ImproperlyConfigured):
    """A setting the site will not start with; the message says which, and how to fix it."""


def one_line(error: Refused) -> str:
    return "error: " + " ".join(str(error).split())


@contextmanager
def refusals_in_one_line() -> Iterator[None]:
    """Exit with the refusal's message as one line on stderr (exit status 1)."""
    try:
        yield
    except Refused as error:
        raise SystemExit(one_line(error)) from None


@contextmanager
def refusals_in_one_line_for_servers() -> Iterator[None]:
    """As ``refusals_in_one_line``, for the WSGI and ASGI modules.

    Under gunicorn a worker that exits is started again, forever; an ``AppImportError`` is the
    way to tell gunicorn the application cannot load: it prints the message and stops."""
    try:
        yield
    except Refused as error:
        if "gunicorn" in sys.modules:
            from gunicorn.errors import AppImportError

            raise AppImportError(one_line(error)) from None
        raise SystemExit(one_line(error)) from None
