"""The site's URLs plus ``bare/``, a view that does nothing: the benchmarks' baseline.

Used only through ``bench.bench_settings``; the site itself never routes here.
"""

from django.http import HttpResponse
from django.urls import path

from saboteur_site.urls import urlpatterns as site_urlpatterns


def bare(request):
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [path("bare/", bare), *site_urlpatterns]
