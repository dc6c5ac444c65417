"""Views: thin. They read the request, call a selector or a service, and render. The profile,
push devices, and blocking and unblocking another player (``relations``)."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from saboteur_site import vapid
from saboteur_site.ratelimits import rate_limited, with_refusal

from . import devices, relations, services, tokens
from .forms import ProfileForm, TokenForm
from .players import player_url


def _profile_too_fast(request, refusal):
    form = with_refusal(ProfileForm(request.POST, user=request.user), refusal)
    return _profile_page(request, form, status=429)


def _device_remove_too_fast(request, refusal, pk):
    messages.error(request, refusal.message)
    return _profile_page(request, ProfileForm(user=request.user), status=429)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("profile", answer=_profile_too_fast)
def profile(request):
    user = request.user
    form = ProfileForm(request.POST or None, user=user)
    if request.method == "POST" and form.is_valid():
        try:
            services.profile_update(user=user, **form.cleaned_data)
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
        else:
            if user.language:
                # The message below is already in the new language; the middleware sets the
                # language cookie on this response.
                translation.activate(user.language)
                request.LANGUAGE_CODE = user.language
            messages.success(request, _("Your profile is saved."))
            return redirect("profile")
    return _profile_page(request, form)


def _profile_page(request, form, *, status=None):
    user = request.user
    status = status or (422 if form.errors else 200)
    context = {
        "form": form,
        "player_url": player_url(user),
        "devices": devices.devices_of(user),
        "this_device": request.COOKIES.get(devices.COOKIE, ""),
        "push_key": vapid.public_key(),
        "blocks": relations.blocks_of(user),
    }
    return render(request, "accounts/profile.html", context, status=status)


def _json_body(request):
    """The body read as JSON whatever its content type says (browsers' ``fetch`` may send
    text/plain), or None when it is not JSON (or not UTF-8, or nested beyond reading). A
    multipart body is a form, never a subscription: Django streams it into ``request.POST``
    (RefuseUnstorableTextMiddleware reads it) and ``request.body`` is then gone (issue 47: a
    500 before)."""
    if request.content_type == "multipart/form-data":
        return None
    try:
        return json.loads(request.body or b"null")
    except (ValueError, RecursionError):
        return None


def _push_subscribe_too_fast(request, refusal):
    return JsonResponse({"error": refusal.message}, status=429)


@require_POST
@login_required
@rate_limited("push_subscribe", answer=_push_subscribe_too_fast)
def push_subscribe(request):
    """This browser turns push notifications on: its subscription (JSON, as the browser's
    ``PushSubscription.toJSON()`` gives it) is kept for the player; a cookie names the device."""
    try:
        device = devices.device_subscribe(
            user=request.user,
            subscription=_json_body(request),
            user_agent=request.headers.get("User-Agent", ""),
        )
    except services.AccountError as error:
        return JsonResponse({"error": error.message}, status=400)
    response = JsonResponse({"id": device.pk, "label": device.label}, status=201)
    response.set_cookie(
        devices.COOKIE,
        device.device_key,
        max_age=devices.COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


@require_POST
@login_required
@rate_limited("device_remove", answer=_device_remove_too_fast)
def device_remove(request, pk: int):
    if not devices.device_remove(user=request.user, device_id=pk):
        raise Http404
    messages.success(request, _("The device gets no more notifications."))
    return redirect("profile")


@require_POST
@login_required
@rate_limited("guide_dismiss")
def guide_dismiss(request):
    services.guide_dismiss(user=request.user)
    if request.htmx:
        return HttpResponse("")  # htmx swaps the guide out
    target = request.POST.get("next", "")
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"  # a path of this site only: redirect() would take "abc" for a view's name
    return HttpResponseRedirect(target)


def _back(request) -> str:
    """The page the form was on (``next``, a path of this site), else the profile."""
    target = request.POST.get("next", "")
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return reverse("profile")
    return target


def _other_player(request, pk: int):
    """The player of a block or unblock: an existing account other than oneself (the one kept
    away from may be inactive: unblocking them is still allowed)."""
    other = get_user_model().objects.filter(pk=pk).first()
    if other is None or other.pk == request.user.pk:
        raise Http404
    return other


@require_POST
@login_required
@rate_limited("block")
def block_create(request, pk: int):
    """Block a player: their chat is hidden for you, their mentions of you send nothing, and
    you are never seated together nor invited by one another. They are not told."""
    other = _other_player(request, pk)
    relations.block(request.user, other)
    messages.success(
        request,
        _("You have blocked %(name)s. They are not told.") % {"name": other.display_name},
    )
    return HttpResponseRedirect(_back(request))


@require_POST
@login_required
@rate_limited("unblock")
def block_remove(request, pk: int):
    other = _other_player(request, pk)
    relations.unblock(request.user, other)
    messages.success(request, _("You have unblocked %(name)s.") % {"name": other.display_name})
    return HttpResponseRedirect(_back(request))


def _tokens_page(request, form, *, made=None, status=None):
    """The player's API tokens: the list (with each one's last use), the form for a new one and,
    right after it was made, the new token's text, shown this once."""
    status = status or (422 if form.errors else 200)
    context = {"form": form, "tokens": tokens.tokens_of(request.user), "made": made}
    response = render(request, "accounts/tokens.html", context, status=status)
    response["Cache-Control"] = "no-store"  # the new token's text: never kept by a cache
    return response


def _token_too_fast(request, refusal):
    form = with_refusal(TokenForm(request.POST, user=request.user), refusal)
    return _tokens_page(request, form, status=429)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@rate_limited("api_tokens", answer=_token_too_fast)
def api_tokens(request):
    """The API tokens page; a POST makes a token and shows its text once (no redirect: the text
    is on this answer alone, and the site keeps only its digest). The same form sent again (the
    browser's reload of that answer) makes no second token: it says where the first one is."""
    form = TokenForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        key = data.pop("key")
        sent = f"api-token-form:{request.user.pk}:{tokens.digest_of(key)}"  # any text: a digest
        if key and not cache.add(sent, 1, SENT_FORM_SECONDS):
            messages.error(
                request,
                _(
                    "This form was sent already: its token is in the list below (its text was "
                    "shown once). Make another one if you need it."
                ),
            )
            return _tokens_page(request, TokenForm(user=request.user), status=409)
        try:
            token, text = tokens.token_create(user=request.user, **data)
        except services.AccountError as error:
            form.add_error(None, error.message)
        else:
            made = {"name": token.name, "text": text}
            return _tokens_page(request, TokenForm(user=request.user), made=made, status=201)
    return _tokens_page(request, form)


SENT_FORM_SECONDS = 24 * 3600  # how long a sent token form is remembered (a reload a day later)


def _token_revoke_too_fast(request, refusal, pk):
    messages.error(request, refusal.message)
    return _tokens_page(request, TokenForm(user=request.user), status=429)


@require_POST
@login_required
@rate_limited("api_token_revoke", answer=_token_revoke_too_fast)
def api_token_revoke(request, pk: int):
    if not tokens.token_revoke(user=request.user, token_id=pk):
        raise Http404
    messages.success(request, _("The token is revoked: it opens nothing any more."))
    return redirect("api_tokens")
