"""What a process of the site loads when it starts (issue 49, point 5).

Every web server, Celery worker, beat and ``manage.py`` command starts Django, and the tests start
hundreds of them. The libraries only a few tasks use are imported where they are used: CairoSVG
(with libcairo through cairocffi) when an email's picture is drawn, pywebpush (with aiohttp) when
a device is pushed to. At the start they took a third of its CPU (0.4 s of 1.3). The public API's
framework (django-ninja, with pydantic) and the health checks (with dnspython) come with the
site's addresses, which Django's setup alone does not load: a beat or a ``manage.py`` command
goes without them.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOADED_WHEN_USED = ("cairosvg", "cairocffi", "pywebpush", "aiohttp")

# As a server or worker starts: Django's apps (the admin's modules with them), the addresses,
# the Celery app and every task module.
START = f"""
import sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
from saboteur_site.celery import app
app.loader.import_default_modules()
print(" ".join(name for name in {LOADED_WHEN_USED!r} if name in sys.modules))
"""


def loaded(script: str) -> list[str]:
    """What ``script``, run in a fresh process of the site, prints: the names it found loaded."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "saboteur_site.settings"}
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_start_leaves_the_libraries_of_a_few_tasks_unloaded():
    assert loaded(START) == []


# As a beat or a manage.py command starts: Django's apps, not the addresses.
SETUP = """
import sys
import django
django.setup()
names = ("ninja", "pydantic", "health_check", "dns")
print(" ".join(name for name in names if name in sys.modules))
"""


def test_djangos_setup_leaves_the_api_and_the_health_checks_unloaded():
    assert loaded(SETUP) == []
