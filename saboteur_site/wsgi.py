"""The WSGI application gunicorn serves (README, "Running in production").

After loading the site (the URLs and, through them, every view), the objects that live as long as
the process are moved out of the garbage collector's sight (``gc.freeze``, which the Python
documentation suggests for exactly this): each collection then walks only what requests make,
not the tens of thousands of objects of Django and the site. In process this cut 3 to 8 % of
the CPU of a game page (docs/web-performance.md); gunicorn's workers load the site each for
itself (no ``--preload``), so nothing is shared that a collection could touch.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from .startup import refusals_in_one_line_for_servers

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")

with refusals_in_one_line_for_servers():
    application = get_wsgi_application()
    get_resolver().url_patterns  # noqa: B018 - imports every view now, before the freeze

gc.collect()
gc.freeze()
