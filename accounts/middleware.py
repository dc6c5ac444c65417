from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS
from django.utils import timezone, translation
from django.utils.cache import add_never_cache_headers

from .zones import zone


class UserTimeZoneMiddleware:
    """A logged-in player's pages say times in their profile's time zone, as their emails and
    pushes do (``games.read.durations.moment``); pages for visitors say UTC. The vacation page
    said a vacation's end in UTC without naming it (issue 36)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            timezone.activate(zone(user.time_zone))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class PrivatePagesNoStoreMiddleware:
    """Pages rendered for a logged-in user must not be kept by browsers or proxies.

    Otherwise, after logging out, Back (or the next person at a shared computer) could show
    a player's hand from the cache.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            add_never_cache_headers(response)
        return response


class UserLanguageMiddleware:
    """A logged-in player's profile language is the site's language for them.

    Runs after ``AuthenticationMiddleware`` (and so after ``LocaleMiddleware``): it activates
    ``user.language`` when set and keeps the language cookie in step, as Django's
    ``set_language`` view would, so the choice survives logging out. A language picked with the
    footer switcher while logged in is saved to the profile instead of being overruled.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        language = self._language(user)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        user = getattr(request, "user", None)  # logging in or out swaps request.user
        if user is None or not user.is_authenticated:
            return response
        cookie = response.cookies.get(settings.LANGUAGE_COOKIE_NAME)
        if cookie is not None and cookie.value and request.method == "POST":
            # The set_language view answered: the player chose a language in the footer.
            from .services import language_set

            language_set(user=user, language=cookie.value)
            return response
        language = self._language(user)
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            set_language_cookie(response, language)
        return response

    @staticmethod
    def _language(user) -> str:
        if user is None or not user.is_authenticated:
            return ""
        language = user.language or ""
        return language if translation.check_for_language(language) else ""


def set_language_cookie(response, language: str) -> None:
    """The cookie exactly as ``django.views.i18n.set_language`` sets it."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


class DeviceSeenMiddleware:
    """Note when a player used the site on a device that gets push notifications (its cookie,
    ``accounts.devices.COOKIE``): a push to a device in use can let the email wait."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        key = request.COOKIES.get("push_device")
        user = getattr(request, "user", None)
        if key and user is not None and user.is_authenticated:
            from .devices import device_seen

            device_seen(user=user, device_key=key)
        return response


class LockoutAnswers429Middleware:
    """A login refused by the failed-login limits answers 429, not 200.

    allauth refuses a login past those limits (README: 10 a minute per IP, 5 in 5 minutes per
    address) by showing its form again with the message "Too many failed login attempts", as
    an ordinary mistake: status 200, so a client, a script or a monitor cannot tell a lockout
    from a wrong password. The page stays the same; only its status changes. It covers every
    allauth form that counts failed logins: the login page (a form-wide error) and asking for
    the password again (the password's error).
    """

    LOCKED_OUT = "too_many_login_attempts"  # allauth's error code

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_template_response(self, request, response):
        form = (response.context_data or {}).get("form")
        if form is not None and getattr(form, "is_bound", False) and self._locked_out(form):
            response.status_code = 429
        return response

    def _locked_out(self, form) -> bool:
        fields = [NON_FIELD_ERRORS, *form.fields]
        return any(form.has_error(field, code=self.LOCKED_OUT) for field in fields)
