"""The API's browsable documentation at ``/api/docs``: django-ninja's Swagger UI from its own
vendored files (``settings.NINJA_FILES``: static/ninja/, no CDN), reading the schema at
``/api/v1/openapi.json``. Open to everyone: it describes the API, it holds nothing of anyone."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from ninja import NinjaAPI
from ninja.openapi.docs import Swagger

from .app import api


class VendoredSwagger(Swagger):
    """Swagger UI drawn with the files django-ninja vendors. Ninja's own page takes them from a
    CDN unless "ninja" is an installed app, which the site leaves out: it would load the API's
    framework in every process Django starts (saboteur_site/settings.py, ``NINJA_FILES``)."""

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        self.settings["url"] = self.get_openapi_url(api, kwargs)
        context = {
            "swagger_settings": json.dumps(self.settings, indent=1),
            "api": api,
            "add_csrf": False,  # the API takes tokens, never the session's cookie
        }
        return render(request, self.template, context)


SWAGGER = VendoredSwagger()


@require_safe
def api_docs(request):
    return SWAGGER.render_page(request, api)
