"""The game of Saboteur on the web, as a house of layers that import only downwards.

From the top; the contracts in ``pyproject.toml`` (import-linter) keep it so, and
docs/architecture.md draws the house:

- ``web``: views, forms, URLs, the live stream; thin over the layers below;
- ``admin``: the admins' pages for games, moves, chat and the outbox;
- ``templatetags``: the game page's largest loops built in Python, and parts kept once rendered;
- ``management``: ``manage.py`` commands (the card sprite, replies by SMTP, ratings, a demo game);
- ``tasks``: thin Celery entry points;
- ``apps``: the app's configuration, which connects the read side's cache invalidation;
- ``moderation``: the admins' actions on players and tables;
- ``play``: the only code that changes games;
- ``outbox``: which notices, when, building them and sending each once;
- ``read``: what a viewer may see;
- ``models``: the tables (a game is an append-only log of moves and a snapshot);
- ``dispatch``: starting a Celery task by name from below ``tasks``;
- ``bots``: a bot's move from what its seat may know (pure Python, no Django);
- ``ledger``: the public ledger of what each player was seen doing (pure too);
- ``engine``: the rules (pure too);
- ``clock``: the one clock of every deadline, time bank and reminder (pure too).

``migrations`` holds the tables' history.
"""
