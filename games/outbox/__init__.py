"""The outbox: who must be told what, when, and sending it exactly once.

The play side and moderation write its rows inside their transactions; Celery tasks send them.
It may import the read side, ``games.models`` and ``games.dispatch`` (to start a task by name),
never the play side, moderation or ``games.tasks``.

- ``schedule``: which notices a change causes, and when they are due;
- ``mentions``: an email to each player a chat message names;
- ``quiet``: a player's time zone, quiet hours and vacations, which hold what can wait;
- ``digests``: the daily digest of the games that await a player;
- ``emails``: the frame every email shares (headers, Reply-To, Message-ID, templates);
- ``turn_emails``: "your turn", its reminder and the answer to a reply;
- ``event_emails``: the emails that tell of an event (a start, a timeout, a pause, a vacation...);
- ``moderation_emails``: the moderators' answers to reports (to the reporter, to the reported);
- ``email_words``: what emails of several kinds say alike (the game's link, times, the decision);
- ``email_art``: pictures for emails: the site's own SVG rendered to PNG;
- ``one_tap``: one-tap links: a signed token per decision that needs no maze;
- ``reply_addresses``: the signed reply address of every game email;
- ``quotes``: what a reply says of its own, without the email it quotes;
- ``links``: the site's address in emails, and signed one-click unsubscribe tokens;
- ``push``: Web Push: the notices on the player's devices;
- ``sending``: sending each notice once.
"""
