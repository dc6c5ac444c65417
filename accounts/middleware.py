from django.utils.cache import add_never_cache_headers


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
