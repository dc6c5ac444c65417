from datetime import timedelta

from django.contrib import admin
from django.urls import include, path
from health_check.checks import Cache, Database
from health_check.contrib.celery import Ping
from health_check.views import HealthCheckView

# For the load balancer: PostgreSQL answers, the cache (Redis) stores and reads, a Celery worker
# answers a ping. 200 when all hold, else 500; JSON with ?format=json or Accept: application/json.
health = HealthCheckView.as_view(
    checks=[Database, Cache, (Ping, {"timeout": timedelta(seconds=1), "limit": 1})]
)

urlpatterns = [
    path("", include("games.urls")),
    path("", include("accounts.urls")),  # profile, account deletion, player pages
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("health/", health, name="health"),
]
