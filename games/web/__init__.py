"""The web: views, forms, URLs and context processors, thin over the layers below.

Views validate the request with a form, call the play side (or moderation) to change a game and
the read side to show one; they hold no game logic. Django's own places for the web of this app
stay at the app's top: ``games.admin``, ``games.templatetags`` and ``games.management``.

- ``urls``: the app's addresses;
- ``views``: the lobby, the game page and its poll, moves, chat, marks, seats, vacations;
- ``polls``: the poll's user read with its game in one query, an unchanged poll answered at once;
- ``signed_links``: the pages a signed link opens: invitations, unsubscribing, one-tap moves;
- ``players``: the public player page, one's data as JSON, deleting one's account, making it a
  bot account;
- ``reports``: reporting a message, a game or a player to the moderators; one's reports;
- ``play_now``: play now: stating a wish, the forming tables one sits at, leaving one;
- ``friends``: following, the friends page, challenging friends and answering a challenge;
- ``api``: the public JSON API under /api/v1/ (django-ninja), its streams and its docs page;
- ``kept_pages``: whole pages kept per process (the anonymous home), each answer's token put in;
- ``forms``: posted fields turned into an engine move, or into lobby settings;
- ``after_move``: what the game page offers once the decision is made (the next game, push);
- ``live_parts``: the play area as parts, and only the changed ones sent to an open page;
- ``watched``: the play area of a watcher, rendered once per revision and kept;
- ``live``: the game page's live stream (server-sent events: "game N is at revision V");
- ``deals``: each round's deal document and the page that checks it;
- ``inbound``: replies to game emails arriving through an email service's webhook;
- ``context_processors``: what every page's header needs (the games awaiting the player).
"""
