"""The API's browsable documentation at ``/api/docs``: django-ninja's Swagger UI from its own
vendored files (``ninja`` in INSTALLED_APPS: static/ninja/, no CDN), reading the schema at
``/api/v1/openapi.json``. Open to everyone: it describes the API, it holds nothing of anyone."""

from __future__ import annotations

from django.views.decorators.http import require_safe
from ninja.openapi.views import openapi_view

from .app import api


@require_safe
def api_docs(request):
    return openapi_view(request, api)
