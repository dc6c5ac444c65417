"""The web: views, forms, URLs and context processors, thin over the layers below.

Views validate the request with a form, call the play side (or moderation) to change a game and
the read side to show one; they hold no game logic. Django's own places for the web of this app
stay at the app's top: ``games.admin``, ``games.templatetags`` and ``games.management``.
"""
