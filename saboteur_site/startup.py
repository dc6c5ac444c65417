"""Refusing to start, one line per problem.

The settings refuse to start with missing or unsafe variables (``Refused``, raised by
``saboteur_site/settings.py`` once it has read them all, naming every problem at once). Every
entry point (``manage.py``, the WSGI and ASGI modules, Celery workers and beat) turns that refusal
into one line per problem on stderr, each starting ``error: ``, and exit status 1: each line names
the variable and what to do, and a traceback through Django's setup would only bury them. Other
errors keep their tracebacks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured


class Refused(ImproperlyConfigured):
    """Settings the site will not start with; each message says which, and how to fix it."""

    def __init__(self, *problems: str):
        self.problems = list(problems)
        super().__init__("\n".join(problems))


def one_line(error: Refused) -> str:
    """The refusal's lines: one per problem, each on one line and starting with ``error: ``."""
    problems = getattr(error, "problems", None) or [str(error)]
    return "\n".join("error: " + " ".join(problem.split()) for problem in problems)


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
