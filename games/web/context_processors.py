from functools import cache

from games.read import lists


def awaiting(request):
    """How many games wait for the viewer's decision.

    A callable: templates call it when a page shows the count (partials never do), and it is
    queried once per response however often the page shows it.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"awaiting_count": 0}
    return {"awaiting_count": cache(lambda: lists.awaiting_count(user))}
