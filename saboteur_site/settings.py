"""Django settings for the Saboteur site.

Everything that differs between machines comes from environment variables.
There are two modes, chosen by DJANGO_ENV:

* ``production`` (the default, so a forgotten variable fails safe): DJANGO_SECRET_KEY,
  DJANGO_ALLOWED_HOSTS, DATABASE_URL (PostgreSQL), REDIS_URL and SITE_URL are required, cookies
  are secure, HTTPS is enforced.
* ``development`` (set by ``make run`` and ``make test``): local defaults (SQLite, mail to
  files, an insecure secret key) so the site starts with no setup.

DEBUG is off in both unless DJANGO_DEBUG=1, which production refuses.

Every missing or wrong variable is noted as it is read (``refuse``) and the settings refuse to
start at their end, naming them all at once: one line each on stderr (saboteur_site/startup.py).

Over 600 lines because Django reads its settings from one module, and every setting here says
why it has its value: split into several files, a setting's reason and the variable it reads
would be looked for in more than one place, and the refusals could not be gathered at the end.
"""

import importlib.util
import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

# A refusal to start (an ImproperlyConfigured): the entry points print a line per problem.
from saboteur_site.startup import Refused
from saboteur_site.vapid import default_subject, subject_problem

BASE_DIR = Path(__file__).resolve().parent.parent
RUN_DIR = BASE_DIR / ".run"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

# What is wrong with the environment, refused all at once at the end of this module.
_problems: list[str] = []


def refuse(problem: str) -> None:
    """Note a missing or wrong variable; the settings refuse to start at their end."""
    _problems.append(problem)


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    refuse(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}.")
    return default


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        refuse(f"{name} must be an integer; got {raw!r}.")
        return default


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw)
    except ValueError:
        refuse(f"{name} must be a number; got {raw!r}.")
        return default


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def require(name: str, why: str) -> str:
    value = env_str(name)
    if not value:
        hint = (
            ""
            if any("is not set" in problem for problem in _problems)
            else " DJANGO_ENV is 'production' unless set to 'development' "
            "(see the README's table of environment variables)."
        )  # said once, on the first missing variable
        refuse(f"{name} is not set. {why}{hint}")
    return value


# --- Mode -----------------------------------------------------------------------------------

DJANGO_ENV = env_str("DJANGO_ENV", "production").lower()
if DJANGO_ENV not in {"production", "development"}:
    refuse(f"DJANGO_ENV must be 'production' or 'development'; got {DJANGO_ENV!r}.")
PRODUCTION = DJANGO_ENV != "development"  # an unknown mode is checked as production

DEBUG = env_bool("DJANGO_DEBUG", False)
if PRODUCTION and DEBUG:
    refuse("DJANGO_DEBUG=1 is refused in production (DJANGO_ENV=production).")

if PRODUCTION:
    SECRET_KEY = require(
        "DJANGO_SECRET_KEY",
        "Production needs a long random secret key, e.g. from "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`.",
    )
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
    if not ALLOWED_HOSTS:
        require("DJANGO_ALLOWED_HOSTS", "Production needs the site's host names, comma separated.")
else:
    # Only ever used on a developer's machine; production refuses to start without its own.
    SECRET_KEY = env_str("DJANGO_SECRET_KEY") or "django-insecure-development-only-key"  # noqa: S105
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# --- Applications ---------------------------------------------------------------------------

INSTALLED_APPS = [
    "accounts",
    "games",
    # Before django.contrib.auth: for strings both translate ("Email"), allauth's translations
    # are the better ones (contrib.auth leaves "Email" in English in Ukrainian).
    "allauth",
    "allauth.account",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    # Not "ninja" nor "health_check": their files are found below (NINJA_FILES, HEALTH_FILES).
]


def _package_folder(name: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ImportError(f"{name} is not installed")
    return Path(spec.origin).parent


# The public API's documentation (/api/docs) is django-ninja's Swagger UI, from the files the
# package vendors (static/ninja/ and templates/ninja/: no CDN), found through these folders.
# "ninja" is not an installed app: loading an app imports its package, and ninja's imports
# pydantic and the API framework, a sixth of the modules every Django process started (workers,
# beat, each manage.py command), when only the processes that load the addresses use them.
NINJA_FILES = _package_folder("ninja")
# /health/ (saboteur_site/urls.py) is django-health-check's view, whose page for a browser is
# its template; as an app it imported its checks at every start, with dnspython and redis-py.
HEALTH_FILES = _package_folder("health_check")

MIDDLEWARE = [
    # First: one log line per request, whatever answers it (saboteur_site/logs.py).
    "saboteur_site.logs.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Before anything reads request.user: an unchanged poll is answered with one query, the
    # session's user verified within it (games/web/polls.py).
    "games.web.polls.UnchangedPollMiddleware",
    # After authentication: a logged-in player's profile language wins over the browser's.
    "accounts.middleware.UserLanguageMiddleware",
    # Times on a player's pages in their profile's zone, as in their emails.
    "accounts.middleware.UserTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Inside the others: its 400 page gets the user, messages, CSP and no-store like any page.
    "saboteur_site.middleware.RefuseUnstorableTextMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A failed-login lockout answers 429 with allauth's message.
    "accounts.middleware.LockoutAnswers429Middleware",
    "accounts.middleware.PrivatePagesNoStoreMiddleware",
    "accounts.middleware.DeviceSeenMiddleware",
]

ROOT_URLCONF = "saboteur_site.urls"
WSGI_APPLICATION = "saboteur_site.wsgi.application"
ASGI_APPLICATION = "saboteur_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates", NINJA_FILES / "templates", HEALTH_FILES / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.web.context_processors.awaiting",
            ],
        },
    },
]
# Form fields: Django's own form templates through Jinja2 (saboteur_site/form_renderer.py).
FORM_RENDERER = "saboteur_site.form_renderer.FormRenderer"

# --- Database and cache ---------------------------------------------------------------------

if PRODUCTION:
    require("DATABASE_URL", "Production runs on PostgreSQL, e.g. postgres://user:pw@host/db.")
_sqlite = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
try:
    DATABASES = {
        "default": dj_database_url.config(
            default=_sqlite,
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
            conn_health_checks=True,
        )
    }
except Exception:  # an unknown scheme (named without the rest: it may hold a password)
    refuse(
        f"DATABASE_URL is not a database address dj-database-url knows; its scheme is "
        f"{urlsplit(env_str('DATABASE_URL')).scheme!r}. Use postgres://user:pw@host/db."
    )
    DATABASES = {"default": dj_database_url.parse(_sqlite)}
if PRODUCTION and env_str("DATABASE_URL") and "postgresql" not in DATABASES["default"]["ENGINE"]:
    refuse(
        "DATABASE_URL must be a PostgreSQL address in production, e.g. "
        f"postgres://user:pw@host/db; got a {urlsplit(env_str('DATABASE_URL')).scheme!r} one "
        "(SQLite is for `make run` alone: one machine, one writer at a time)."
    )
# psycopg's connection pool (Django's "pool" option), on by default in production: each process
# (a gunicorn worker, a Celery worker) keeps MIN_SIZE..MAX_SIZE open connections and lends them
# out per request, instead of connecting for every request or pinning one per thread.
# Size MAX_SIZE to the process's threads (gunicorn --threads, Celery --concurrency); PostgreSQL's
# max_connections must exceed the sum over all processes.
if DATABASES["default"]["ENGINE"].endswith("postgresql") and env_bool("DATABASE_POOL", PRODUCTION):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections, not Django
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DATABASE_POOL_MIN_SIZE", 2),
        "max_size": env_int("DATABASE_POOL_MAX_SIZE", 4),
        "timeout": env_int("DATABASE_POOL_TIMEOUT", 10),
        # psycopg retries a lost server with a doubling pause (1, 2, 4 ... s) until this many
        # seconds have passed, then starts over at the next request. Its 300 s default made the
        # site answer 503 for up to half a minute after a 40 s PostgreSQL restart had ended
        # (bench/faults.py); 10 s bounds that to a few seconds.
        "reconnect_timeout": env_int("DATABASE_POOL_RECONNECT_TIMEOUT", 10),
    }
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The try-it-out default: the web process and the Celery worker write to one file. Writers
    # take the lock when their transaction starts and wait for it, instead of failing with
    # "database is locked".
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
if PRODUCTION and not (REDIS_URL or env_str("CELERY_BROKER_URL")):
    # Without it the emails would go to the filesystem broker, which only suits one machine.
    require(
        "REDIS_URL",
        "Production needs Redis for the Celery broker and the cache, e.g. redis://host:6379/0 "
        "(or CELERY_BROKER_URL for another broker).",
    )
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis, where Redis away is a miss, not an error (a restart must not fail
            # requests: everything in it is rebuilt from the database; saboteur_site/cache.py).
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            # Two sites (or a site and a test run) can share one Redis database.
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "saboteur"),
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                # A Redis that hangs (not only one that refuses) costs a request 2 s at most.
                "SOCKET_CONNECT_TIMEOUT": 2,
                "SOCKET_TIMEOUT": 2,
                # A burst of requests at once (200 open pages' streams opened together, each
                # reading its session) waits a moment for one of the process's connections
                # instead of failing with "Too many connections" (redis-py's plain pool stops at
                # 100 and raises; bench/live.py logged 273 of them).
                "CONNECTION_POOL_CLASS": "redis.BlockingConnectionPool",
                "CONNECTION_POOL_KWARGS": {"max_connections": 100, "timeout": 2},
            },
        }
    }
    # Each call the outage turned into a miss is logged, under this logger's name.
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    DJANGO_REDIS_LOGGER = "saboteur_site.cache"
    # Sessions stay in the database and are read from the cache, whose copy lives a minute at
    # most (saboteur_site/sessions.py): one query less on every logged-in request.
    SESSION_ENGINE = "saboteur_site.sessions"
else:
    # Never the dummy cache: allauth's rate limits need a cache that really counts.
    # The table is made by `manage.py createcachetable` (the run script does it).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
        }
    }

# --- Live updates (games/read/live.py, games/web/live.py) --------------------------------------

# Open game pages hold a server-sent events stream that says only "game N is at revision V". With
# Redis, every change is published after its commit and each process that serves streams listens
# on one connection; without it (`make run`) that process reads the revisions of the watched games
# from the database every LIVE_FALLBACK_POLL_MS. Redis pub/sub ignores database numbers, so the
# channel names carry the Redis database: two sites (or test runs) on one Redis never cross.
_redis_db = urlsplit(REDIS_URL).path.strip("/") or "0"
LIVE_CHANNEL = env_str("LIVE_CHANNEL") or f"saboteur:live:{_redis_db}"
# A stream ends after this long and the browser opens a new one (re-checked from scratch).
LIVE_STREAM_SECONDS = env_int("LIVE_STREAM_SECONDS", 15 * 60)
# A "ping" event this often: proxies keep the connection, the page knows the stream is alive.
LIVE_HEARTBEAT_SECONDS = env_int("LIVE_HEARTBEAT_SECONDS", 25)
# How often each open stream checks that its session still belongs to its viewer (logging out
# ends the streams of that session at once; this catches expiry, deactivation, password change).
LIVE_RECHECK_SECONDS = env_int("LIVE_RECHECK_SECONDS", 60)
LIVE_FALLBACK_POLL_MS = env_int("LIVE_FALLBACK_POLL_MS", 500)
# Streams one viewer may hold open in one process (a page each): beyond it a page polls.
LIVE_STREAMS_PER_USER = env_int("LIVE_STREAMS_PER_USER", 20)
# A stream holds its worker for as long as the page is open: under gunicorn's sync workers that
# would starve the site, so production serves streams only under ASGI (README, "Running in
# production") and answers 204 (the page keeps polling) elsewhere. Development's runserver and
# the tests' live server have a thread per connection.
LIVE_WSGI_STREAMS = env_bool("LIVE_WSGI_STREAMS", not PRODUCTION)

# Per process, for markup that is the same for everyone (the lobby's creation form) and what is
# kept under a digest of its data (games/read/kept.py, {% kept %}: a game's parts, its ledger,
# recaps, replay steps): no round trip to Redis, nothing to invalidate. Django's default of 300
# entries was culled by a few busy games' parts; 3,000 (each a few KB, a page's parts tens of
# KB: some tens of MB at most per process) keep those of the games being played.
CACHES["local"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "local",
    "OPTIONS": {"MAX_ENTRIES": env_int("LOCAL_CACHE_ENTRIES", 3000)},
}
# What each open game page was sent (games/web/live_parts.py): written at every render of the play
# area, so in Redis, shared by every process; without Redis (`make run`: one web process) in the
# process's memory rather than in the database's cache table, which would take SQLite's lock.
LIVE_PARTS_CACHE = "default" if REDIS_URL else "local"

# --- Accounts -------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"

ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}
ACCOUNT_USER_DISPLAY = "accounts.adapter.user_display"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
# One email address per account, changed by verifying the new one (the old one stays until then).
ACCOUNT_CHANGE_EMAIL = True
# Changing the email address asks for the password again unless the player confirmed it within
# ACCOUNT_REAUTHENTICATION_TIMEOUT (allauth's default, 300 s). Logging in does not count.
ACCOUNT_REAUTHENTICATION_REQUIRED = True
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Saboteur] "
# Thresholds are part of the contract (README, tests): keep them explicit.
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "confirm_email": "1/3m/key",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
}

# --- Email ----------------------------------------------------------------------------------

DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Saboteur <noreply@localhost>")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)

# Django 6.1's MAILERS (the EMAIL_* settings are deprecated); the environment variables keep
# the familiar EMAIL_* names. Tests replace every mailer with the in-memory one.
_email_backend = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if PRODUCTION
    else "django.core.mail.backends.filebased.EmailBackend",
)
if _email_backend.endswith("smtp.EmailBackend"):
    _email_options = {
        "host": env_str("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 25),
        "username": env_str("EMAIL_HOST_USER"),
        "password": env_str("EMAIL_HOST_PASSWORD"),
        "use_tls": env_bool("EMAIL_USE_TLS", False),
        "use_ssl": env_bool("EMAIL_USE_SSL", False),
        "timeout": env_int("EMAIL_TIMEOUT", 30),
    }
elif _email_backend.endswith("filebased.EmailBackend"):
    _email_options = {"file_path": env_str("EMAIL_FILE_PATH", str(RUN_DIR / "mail"))}
else:
    _email_options = {}
MAILERS = {"default": {"BACKEND": _email_backend, "OPTIONS": _email_options}}

# --- Celery ---------------------------------------------------------------------------------

# Redis in production and CI; with no REDIS_URL a real worker still runs, on kombu's
# filesystem transport under .run/broker/ (see saboteur_site/celery.py).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or REDIS_URL or None
CELERY_BROKER_DIR = Path(env_str("CELERY_BROKER_DIR", str(RUN_DIR / "broker")))
# /health/ asks every Celery worker for its queues and waits this long for the answers (a site
# whose worker does not answer within it is reported down).
HEALTH_CELERY_SECONDS = env_float("HEALTH_CELERY_SECONDS", 1.0)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# One sweep a minute: deadlines, digests and every outbox row that is due (games/tasks.py). The
# tests run it faster.
SWEEP_SECONDS = env_float("SWEEP_SECONDS", 60.0)
# Beat sends the sweep without asking for its result (``ignore_result``): nothing reads it. Asked
# for, each sweep subscribed beat to the result's channel and the worker stored the result; the
# result's finalizer then unsubscribed, talking to Redis, and a SIGTERM arriving during that talk
# was swallowed by the finalizer: beat released its lock, took it again and logged a traceback at
# every tick, holding the lock while it could send nothing (tests/tasks/test_beat_redis_restart.py).
CELERY_BEAT_SCHEDULE: dict = {
    "sweep": {
        "task": "games.tasks.sweep",
        "schedule": SWEEP_SECONDS,
        "options": {"ignore_result": True},
    },
}
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Beat may run on several machines: RedBeat keeps the schedule in Redis under a lock that one
    # beat holds and renews at each tick; the others wait for it, and when its holder is gone
    # (at most BEAT_LOCK_SECONDS later) one of them takes it and ticks on. So each sweep is sent
    # once whatever the number of beats (tests/tasks/test_two_beats.py). The site's subclass
    # lives through Redis going away and restarting empty (saboteur_site/beat.py).
    CELERY_BEAT_SCHEDULER = "saboteur_site.beat:RedBeatScheduler"
    # RedBeat's own settings, all given (its fallback to the broker's is deprecated).
    CELERY_REDBEAT_REDIS_URL = CELERY_BROKER_URL
    CELERY_REDBEAT_REDIS_OPTIONS: dict = {}
    # Two sites (or test runs) sharing one Redis keep their schedules and locks apart.
    CELERY_REDBEAT_KEY_PREFIX = env_str("CACHE_KEY_PREFIX", "saboteur") + ":redbeat:"
    CELERY_REDBEAT_LOCK_TIMEOUT = max(env_int("BEAT_LOCK_SECONDS", 150), 1)
    # Beat ticks (renewing the lock), and a waiting beat asks for the lock, this often at most.
    CELERY_BEAT_MAX_LOOP_INTERVAL = CELERY_REDBEAT_LOCK_TIMEOUT / 5
else:
    # One machine (`make run`): Celery's own scheduler, its record of when each entry last ran
    # under the run folder (never in the repository, nor in whatever folder beat was started
    # from); the folder is made by beat (saboteur_site/beat.py).
    CELERY_BEAT_SCHEDULER = "saboteur_site.beat:Scheduler"
    CELERY_BEAT_SCHEDULE_FILENAME = env_str(
        "CELERY_BEAT_SCHEDULE_FILE", str(RUN_DIR / "celerybeat-schedule")
    )
# Keep the settings' LOGGING (JSON lines in production) in the worker too.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A move must not wait on a broker that is down: publishing fails fast and the sweep catches up.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# Seconds a bot waits after its turn begins before a worker plays its move (games/tasks.py).
BOT_MOVE_DELAY = env_int("BOT_MOVE_DELAY", 3)

# Vacation days a player may declare in any 365 days (games.read.vacations, issue 26).
VACATION_DAYS_PER_YEAR = env_int("VACATION_DAYS_PER_YEAR", 14)
# The queue tasks are sent to (workers consume it; tests give each run a queue of its own).
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "celery")

# Absolute links in emails.
if PRODUCTION:
    SITE_URL = require(
        "SITE_URL", "Production needs its public address for links in emails, e.g. https://host."
    )
else:
    SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
# allauth's links (verification, password reset) on SITE_URL's scheme (accounts/adapter.py puts
# them on its host too), like every other link the site emails.
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if SITE_URL.startswith("http://") else "https"

# Answering game emails (issue 40, README "Answering the emails"): every game email has a
# Reply-To of reply+<signed token>@REPLY_DOMAIN, a domain whose mail reaches the site, either
# through an email service's inbound webhook (INBOUND_EMAIL_PROVIDERS: "mailgun", "postmark";
# django-anymail checks each one's signature or basic auth, ANYMAIL below), or, under `make
# run`, through the local SMTP server (INBOUND_SMTP_ADDR, `manage.py inbound_smtp`). Without a
# REPLY_DOMAIN (production's default) emails have no Reply-To and replies go nowhere.
REPLY_DOMAIN = env_str("REPLY_DOMAIN", "" if PRODUCTION else "localhost").lower()
INBOUND_EMAIL_PROVIDERS = env_list("INBOUND_EMAIL_PROVIDERS", [])
INBOUND_SMTP_ADDR = env_str("INBOUND_SMTP_ADDR", "127.0.0.1:8025")
INBOUND_MAX_BYTES = env_int("INBOUND_MAX_BYTES", 256 * 1024)  # a reply larger is dropped
ANYMAIL = {
    # "user:password" in the webhook URL the provider calls (https://user:password@host/...):
    # required for every provider (games/web/inbound.py checks it on every post).
    "WEBHOOK_SECRET": env_str("ANYMAIL_WEBHOOK_SECRET") or None,
    # Mailgun signs each webhook with this key (HMAC-SHA256 of its timestamp and token, not of
    # the body: games/web/inbound.py also wants a recent timestamp and a token never seen).
    "MAILGUN_WEBHOOK_SIGNING_KEY": env_str("MAILGUN_WEBHOOK_SIGNING_KEY") or None,
}
for _provider in INBOUND_EMAIL_PROVIDERS:
    if _provider not in ("mailgun", "postmark"):
        refuse(f"INBOUND_EMAIL_PROVIDERS: {_provider!r} is not one of mailgun, postmark.")
    elif _provider == "mailgun" and not ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"]:
        refuse("INBOUND_EMAIL_PROVIDERS has mailgun: MAILGUN_WEBHOOK_SIGNING_KEY is not set.")
    elif not ANYMAIL["WEBHOOK_SECRET"]:
        refuse(
            f"INBOUND_EMAIL_PROVIDERS has {_provider}: ANYMAIL_WEBHOOK_SECRET (user:password, the"
            " basic auth of the webhook URL) is not set; every provider needs it."
        )
if INBOUND_EMAIL_PROVIDERS and not REPLY_DOMAIN:
    refuse("INBOUND_EMAIL_PROVIDERS is set: REPLY_DOMAIN, the domain replies go to, is not.")

# Web Push (games/outbox/push.py): the site's VAPID key pair (RFC 8292). Without a private key
# the site runs without push notifications and /health/ says so. `make run` makes a pair under
# .run/vapid/ once. The subject tells push services whom to contact: by default a mailto: of the
# sender's address, or the site when it is https without a port (saboteur_site/vapid.py); one
# that push services would refuse is refused here, at start, rather than failing every push.
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY")
VAPID_SUBJECT = env_str("VAPID_SUBJECT") or default_subject(DEFAULT_FROM_EMAIL, SITE_URL)
if (_subject_problem := subject_problem(VAPID_SUBJECT)) is not None:
    refuse(f"VAPID_SUBJECT {_subject_problem}; got {VAPID_SUBJECT!r}.")
# Push endpoints the site posts to: https on a known push service's host (a browser gives its
# own), so that a forged subscription cannot make the site post elsewhere. Development allows
# any host over http too (the tests' local push service).
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    [
        "fcm.googleapis.com",  # Chrome, Edge on Android, Opera
        "updates.push.services.mozilla.com",  # Firefox
        "push.services.mozilla.com",
        "web.push.apple.com",  # Safari
        "notify.windows.com",  # Edge on Windows (wns2-*.notify.windows.com)
        "push.apple.com",
    ],
)
PUSH_ANY_HOST = env_bool("PUSH_ANY_HOST", not PRODUCTION)

# --- Internationalisation -------------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("cs", _("Czech")),
    ("sk", _("Slovak")),
    ("uk", _("Ukrainian")),
    ("ro", _("Romanian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files ---------------------------------------------------------------------------

STATIC_URL = "static/"
# collectstatic is a production step; elsewhere files are served from their source folders.
_static_root = env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles"))
STATIC_ROOT = Path(_static_root) if PRODUCTION else None
STATICFILES_DIRS = [BASE_DIR / "static", NINJA_FILES / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not PRODUCTION
# Pages link static files by their hashed names only ({% static %}, the service worker's list):
# collectstatic keeps those alone and compresses half as many files. Source maps (the API docs'
# vendored Swagger UI ships 5 MB of them) are fetched by developer tools only: left uncompressed.
# A deploy's collectstatic takes a third of the time it did.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (
    *("jpg", "jpeg", "png", "gif", "webp", "zip", "gz", "tgz", "bz2", "tbz", "xz", "br"),
    *("swf", "flv", "woff", "woff2", "3gp", "3gpp", "asf", "avi", "m4v", "mov", "mp4", "mpeg"),
    *("mpg", "webm", "wmv", "map"),
)

# --- Security -------------------------------------------------------------------------------

SECURE_CSP = {
    "default-src": [CSP.SELF],
    # The game page's live stream (EventSource) and htmx's requests: the site itself only.
    "connect-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SAMESITE = "Lax"

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
    _behind_tls_proxy = env_bool("DJANGO_BEHIND_TLS_PROXY", False)
    if _behind_tls_proxy:
        # Only behind a proxy that sets this header itself and strips it from clients.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The load balancer's health probe speaks plain HTTP to the instance.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]

    # Links in emails must work and must not send a player's one-tap or confirmation link over
    # plain HTTP: an absolute address, and https:// whenever the site itself is served over TLS.
    _site = urlsplit(SITE_URL)
    if not SITE_URL:
        pass  # refused above as missing
    elif _site.scheme not in {"http", "https"} or not _site.hostname:
        refuse(
            f"SITE_URL must be the site's full address with its scheme, e.g. "
            f"https://saboteur.example; got {SITE_URL!r}."
        )
    elif _site.scheme == "http" and (SECURE_SSL_REDIRECT or _behind_tls_proxy):
        refuse(
            f"SITE_URL must start with https:// when the site is served over TLS "
            f"(DJANGO_SECURE_SSL_REDIRECT=1 or DJANGO_BEHIND_TLS_PROXY=1); got {SITE_URL!r}."
        )

# --- Logging --------------------------------------------------------------------------------

# JSON lines in production: one object per line, with the fields of saboteur_site/logs.py (one
# line per request and per Celery task, with the game id where there is one).
LOG_FORMAT = env_str("DJANGO_LOG_FORMAT", "json" if PRODUCTION else "text").lower()
if LOG_FORMAT not in {"json", "text"}:
    refuse(f"DJANGO_LOG_FORMAT must be 'json' or 'text'; got {LOG_FORMAT!r}.")
    LOG_FORMAT = "text"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # The servers' own lines use the same (saboteur_site/uvicorn_logging.json).
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "filters": {"redact_paths": {"()": "saboteur_site.logs.RedactPathParameters"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["redact_paths"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        # saboteur.task already logs each task once; Celery's own "succeeded in" would be a second.
        "celery.app.trace": {"level": "WARNING" if LOG_FORMAT == "json" else "INFO"},
        # runserver's access lines: through the console handler, whose filter hides the
        # secrets of one-tap, unsubscribe, invitation, confirmation and reset paths (Django's
        # default handler for them has no such filter).
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

# --- Refusing to start ----------------------------------------------------------------------

if _problems:  # every one of them at once, a line each (saboteur_site/startup.py)
    raise Refused(*_problems)
