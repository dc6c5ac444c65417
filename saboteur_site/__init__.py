"""The project: settings, the servers' entry points and the helpers every app shares.

Loads the Celery app whenever Django starts, so ``@shared_task`` binds to it.

- ``settings``: Django's settings, from environment variables;
- ``startup``: refusing to start, one line per problem;
- ``checks``: what ``manage.py check --deploy`` adds;
- ``urls``: the site's addresses;
- ``wsgi``: the WSGI application gunicorn serves;
- ``asgi``: the ASGI application uvicorn serves;
- ``gunicorn_conf``: gunicorn's settings (JSON log lines);
- ``celery``: the Celery application;
- ``beat``: Celery beat's schedulers;
- ``logs``: one log line per request and per task;
- ``middleware``: request checks that belong to no single view;
- ``errors``: the 503 page when a server is away;
- ``cache``: the shared cache on Redis, which may be away for a while;
- ``sessions``: sessions in the database, read through the shared cache;
- ``ratelimits``: rate limits of the site's own POSTs;
- ``text``: rules for short texts that travel beyond the page, and numbers read from requests;
- ``fields``: form fields that read ASCII digits only;
- ``form_renderer``: form fields drawn by Django's form templates for Jinja2;
- ``admin_display``: times with their zone, as the admin's pages show them;
- ``pwa``: the installable site: manifest, service worker, offline page;
- ``push_endpoints``: which push endpoints the site posts to;
- ``vapid``: the site's VAPID key pair for Web Push.
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
