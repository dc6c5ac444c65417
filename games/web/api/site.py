"""The API object, its token check, scopes, per-token rate limits and its error answers.

Every failure is JSON ``{"code": ..., "message": ...}`` with a 4xx status: a token missing or
wrong (401), a scope the token lacks (403), a game the caller may not see (404, as the pages),
bad input (422, from the schemas or the services' refusals), a conflict (409: stale version,
reused idempotency key), too many requests (429 with ``Retry-After``).
"""

from __future__ import annotations

import copy
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer

from accounts import tokens
from accounts.models import ApiToken
from games.play import errors
from saboteur_site.ratelimits import Limit, TooFast, wait_for


class ApiError(Exception):
    """An answer other than success: ``status``, a stable ``code`` and a translated ``message``."""

    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None):
        self.status, self.code, self.message = status, code, message
        self.retry_after = retry_after
        super().__init__(message)


class TokenAuth(HttpBearer):
    """The caller is the token's player (``request.user``); ``request.auth`` is the token."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = tokens.token_in_use(token)
        if found is not None:
            request.user = found.user
        return found


class Api(NinjaAPI):
    """django-ninja's API, whose OpenAPI schema is built once per process.

    django-ninja builds the schema again for every request of ``/api/v1/openapi.json``: about a
    tenth of a second of CPU each time, the site's costliest answer. It depends on the code
    alone (its text is not translated, nothing in it depends on the caller), so it is kept, per
    path prefix and for as many routers as the API had when it was built; each caller gets a
    copy of it to do with as it likes."""

    _schemas: dict[tuple[str, int], Any]

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        key = (path_prefix, len(self._routers))
        schemas = vars(self).setdefault("_schemas", {})
        if key not in schemas:
            schemas[key] = super().get_openapi_schema(path_prefix=path_prefix)
        return copy.deepcopy(schemas[key])


api = Api(
    title="Saboteur API",
    version="1",
    description=(
        "Your own games, as your seat sees them, from your own programs. "
        "Authenticate with a personal access token: `Authorization: Bearer sab_...` "
        "(made on your profile's API tokens page). Errors are `{code, message}`."
    ),
    auth=TokenAuth(),
    urls_namespace="api",
    docs_url=None,  # the page is /api/docs (``docs``), outside the versioned paths
)


def token_of(request: HttpRequest) -> ApiToken:
    token = getattr(request, "auth", None)
    if not isinstance(token, ApiToken):  # every call of the API passed TokenAuth first
        raise ApiError(401, "unauthenticated", _("A valid API token is needed."))
    return token


def need(request: HttpRequest, scope: str) -> ApiToken:
    """The call's token, refused (403) unless it has ``scope``."""
    token = token_of(request)
    if not tokens.allows(token, scope):
        raise ApiError(
            403, "scope", _("This token may not do this: it lacks the scope “%(scope)s”.")
            % {"scope": scope},
        )  # fmt: skip
    return token


# What one token may send (the pages' own limits are ``saboteur_site.ratelimits.LIMITS``, per
# player): its moves, chat lines, lobby calls and streams opened.
LIMITS = {
    "api_move": Limit("120/m"),
    "api_chat": Limit("30/m"),
    "api_lobby": Limit("10/m,60/h"),
    "api_stream": Limit("10/m,60/h"),
}


def limit(request: HttpRequest, route: str) -> None:
    """Count this call in ``route``'s rate limit per token (``LIMITS``); one too many is 429
    with Retry-After, and the call does nothing."""
    wait = wait_for(route, f"k{token_of(request).pk}", limit=LIMITS[route])
    if wait:
        raise ApiError(429, "too-fast", TooFast(wait).message, retry_after=wait)


def error(request: HttpRequest, status: int, code: str, message: str, **extra: Any) -> HttpResponse:
    response = api.create_response(request, {"code": code, "message": message}, status=status)
    for header, value in extra.items():
        response[header] = value
    return response


@api.exception_handler(ApiError)
def _api_error(request, exc: ApiError):
    extra = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
    return error(request, exc.status, exc.code, exc.message, **extra)


@api.exception_handler(errors.ServiceError)
def _refused(request, exc: errors.ServiceError):
    if isinstance(exc, errors.StaleVersion):
        return error(request, 409, "stale-version", exc.message)
    if isinstance(exc, errors.IdempotencyConflict):
        return error(request, 409, exc.code, exc.message)
    if getattr(exc, "retry_after", None):  # the chat's own count (ChatTooFast)
        return error(request, 429, "too-fast", exc.message, **{"Retry-After": str(exc.retry_after)})  # type: ignore[attr-defined]
    status = 403 if exc.code == "not-seated" else 422
    return error(request, status, exc.code, exc.message)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, exc):
    message = _("A valid API token is needed: send it as “Authorization: Bearer <token>”.")
    response = error(request, 401, "unauthenticated", message)
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(ValidationError)
def _invalid(request, exc: ValidationError):
    where = []
    for problem in exc.errors[:5]:
        place = ".".join(str(part) for part in problem.get("loc", ()) if part not in ("body",))
        where.append(f"{place}: {problem.get('msg', '')}".strip(": "))
    message = _("The request is not as this call expects it.") + " " + "; ".join(where)
    return error(request, 422, "invalid", message.strip())


@api.exception_handler(Http404)
def _not_found(request, exc):
    return error(request, 404, "not-found", _("There is no such thing here, or not for you."))


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    code = {400: "bad-request", 405: "method", 413: "too-large"}.get(exc.status_code, "refused")
    return error(request, exc.status_code, code, str(exc.message))
