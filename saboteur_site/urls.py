import dataclasses

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import set_language
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.contrib import celery as celery_checks
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

from . import pwa, vapid
from .ratelimits import rate_limited


# For the load balancer: PostgreSQL answers, the cache (Redis) stores and reads, a Celery worker
# answers a ping. 200 when all hold, else 503; JSON with ?format=json or Accept: application/json.
# The embedded brokers (kombu's filesystem transport, and its SQLAlchemy transport, make run's)
# have no remote control (the SQLAlchemy one has no fanout exchange, so the worker starts without
# it), so no worker can answer a ping there: the check is left out rather than reporting a
# working worker as down.
@dataclasses.dataclass
class WebPush(HealthCheck):
    """Whether push notifications are on; never fails (the site works without them), but says
    why they are off (``WebPush(state='off: VAPID_PRIVATE_KEY is not set')``)."""

    state: str = dataclasses.field(default_factory=vapid.status)

    def run(self) -> None:
        return None


@dataclasses.dataclass
class Ping(celery_checks.Ping):
    """A Celery worker consumes the site's queue (``CELERY_QUEUE``).

    The package's check takes the first worker that answers a ping and looks at its queues
    alone: with a Redis database shared with another site, or a test run, whose worker answered
    first, a site with a working worker was reported down (503 in about one probe of three).
    Here every worker of the database is asked for its queues at once, in one round of at most
    ``HEALTH_CELERY_SECONDS``, and any one consuming ours will do."""

    def run(self) -> None:
        queue = self.app.conf.task_default_queue
        try:
            replies = self.app.control.inspect(
                timeout=settings.HEALTH_CELERY_SECONDS
            ).active_queues()
        except OSError as error:
            raise ServiceUnavailable("IOError") from error
        if not replies:
            raise ServiceUnavailable("Celery workers unavailable")
        consumed = {q.get("name") for queues in replies.values() for q in queues or ()}
        if queue not in consumed:
            raise ServiceUnavailable(f"No worker for Celery task queue {queue}")


_checks = [Database, Cache, WebPush]
_BROKERS_WITHOUT_REMOTE_CONTROL = ("filesystem://", "sqla+", "sqlalchemy+")
if not settings.CELERY_BROKER_URL.startswith(_BROKERS_WITHOUT_REMOTE_CONTROL):
    _checks.append(Ping)
_health_checks = HealthCheckView.as_view(checks=_checks)


async def health(request):
    response = await _health_checks(request)
    if response.status_code == 500:  # the package's "a check failed": a service is unavailable
        response.status_code = 503
        response.reason_phrase = "Service Unavailable"
    return response


# PostgreSQL away answers 503 with a clear page instead of Django's 500 (saboteur_site/errors.py).
handler500 = "saboteur_site.errors.server_error"

urlpatterns = [
    path("", include("games.web.urls")),  # with player pages and account deletion
    path("", include("accounts.urls")),  # profile, push devices, the first-game guide
    path("accounts/", include("allauth.urls")),
    # django.conf.urls.i18n's one route, counted in the site's rate limits.
    path("i18n/setlang/", rate_limited("set_language")(set_language), name="set_language"),
    path("admin/", admin.site.urls),
    path("health/", health, name="health"),
    # The installable site: its manifest, and the service worker with the whole site as scope.
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("offline/", pwa.offline, name="offline"),
]
