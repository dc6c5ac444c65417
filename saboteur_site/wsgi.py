import os

from django.core.wsgi import get_wsgi_application

from .startup import refusals_in_one_line_for_servers

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")

with refusals_in_one_line_for_servers():
    application = get_wsgi_application()
