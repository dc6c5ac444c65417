"""The route walker: every URL pattern of the root resolver (includes, allauth, admin, i18n) as a
concrete URL, so that tests over "every route" cover new routes automatically."""

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.resolvers import RegexPattern, RoutePattern


@dataclass(frozen=True)
class Route:
    text: str  # the pattern as written, for messages
    url: str
    kwargs: frozenset[str]
    module: str  # the callback's module


def _patterns(resolver, prefix=()):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, (*prefix, entry.pattern))
        elif isinstance(entry, URLPattern):
            yield (*prefix, entry.pattern), entry


def _kwarg_names(pattern) -> list[str]:
    if isinstance(pattern, RoutePattern):
        return list(pattern.converters)
    return list(pattern.regex.groupindex)


def _concrete(pattern, fill) -> str:
    """One pattern piece with its kwargs filled in."""
    if isinstance(pattern, RoutePattern):

        def route_value(match):
            converter, name = match.group(1), match.group(2)
            return str(fill(name, converter or "str", None))

        return re.sub(r"<(?:(\w+):)?(\w+)>", route_value, str(pattern._route))
    assert isinstance(pattern, RegexPattern)

    def regex_value(match):
        return str(fill(match.group(1), None, match.group(2)))

    text = re.sub(r"\(\?P<(\w+)>([^)]*)\)", regex_value, pattern._regex)
    text = text.removeprefix("^").removesuffix("$").removesuffix(r"\Z")
    return re.sub(r"\\(.)", r"\1", text)


def walk_routes(values: dict[str, object], *, must_resolve: bool = True) -> list[Route]:
    """Every URL pattern of the root resolver as a concrete URL: kwargs named in ``values`` get
    that value; any other kwarg gets a dummy that fits its converter or regex. With
    ``must_resolve=False`` the values may be ones the pattern refuses (bad-input tests)."""

    def fill(name, converter, regex):
        if name in values:
            return values[name]
        if regex and re.fullmatch(r"[\w|]+", regex):
            return regex.split("|")[0]  # an alternation of words: the first one
        return "1" if converter == "int" else "dummy-key"

    routes, seen = [], set()
    for pieces, entry in _patterns(get_resolver()):
        url = "/" + "".join(_concrete(p, fill) for p in pieces)
        text = "".join(str(p) for p in pieces)
        if text in seen:
            # django-ninja makes a pattern per call of a path (GET and POST of /api/v1/games):
            # the first one answers every method of it.
            continue
        seen.add(text)
        kwargs = frozenset(k for p in pieces for k in _kwarg_names(p))
        if must_resolve:
            match = resolve(url)
            assert match.func == entry.callback, f"{url} does not resolve to {pieces}"
        routes.append(Route(text, url, kwargs, getattr(entry.callback, "__module__", "")))
    return routes
