from django.utils.functional import SimpleLazyObject

from . import selectors


def awaiting(request):
    """How many games wait for the viewer's decision; queried only when a page shows it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"awaiting_count": 0}
    return {"awaiting_count": SimpleLazyObject(lambda: selectors.awaiting_count(user))}
